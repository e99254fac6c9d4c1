//! The move tree (the framework seed's "Albero delle Mosse"): the legal
//! moves, each split by its game into a sequence of actions, arranged as
//! the tree of *decisional prefixes* a GUI walks to let a person enter a
//! move one decision at a time.
//!
//! A prefix is decisional if it is a whole legal move, or if at least two
//! legal moves continue it with different next actions. The root is the
//! shortest decisional prefix; the children of a node are the nearest
//! decisional prefixes below it. Each node carries its sub-move (its actions
//! beyond its parent's) and whether it is final.

use serde::Serialize;

use crate::boardview::Select;

/// Most legal moves `movetree` lists: past it the answer is an `err`
/// (the tree of a huge Mastermind variant would be megabytes on one
/// line).
pub const MAX_TREE_MOVES: usize = 20_000;

/// One node of the tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveNode {
    /// The actions beyond the parent's prefix (for the root: from the
    /// empty prefix).
    pub actions: Vec<String>,
    /// True if the prefix is a whole legal move.
    #[serde(rename = "final")]
    pub is_final: bool,
    /// The move's text, on final nodes.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub mv: Option<String>,
    /// What a person selects for each of `actions` (same length), when
    /// the tree was built with selections (`movetree json`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub select: Vec<Select>,
    pub children: Vec<MoveNode>,
    /// One level of the tree ([`level`]): this node has children that
    /// were not sent (ask for the level of its prefix).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub more: bool,
}

/// Most legal moves enumerated for one level of the tree ([`level`]):
/// only one level is printed, so this may be larger than
/// [`MAX_TREE_MOVES`].
pub const MAX_LEVEL_MOVES: usize = 200_000;

/// A continuation of a move begun, as a game that does not list its moves
/// gives it ([`level_from`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NextAction {
    /// The next action's text.
    pub action: String,
    /// What a person selects for it.
    pub select: Select,
    /// The whole move's text, if the prefix with this action is a legal
    /// move.
    pub mv: Option<String>,
    /// True if longer legal moves continue the prefix with this action.
    pub continues: bool,
}

struct Item<'a> {
    text: &'a str,
    actions: &'a [String],
    selects: &'a [Select],
}

/// Builds the tree of `moves`: pairs of (move text, its actions).
pub fn build(moves: &[(String, Vec<String>)]) -> MoveNode {
    let items: Vec<Item> = moves.iter().map(|(t, a)| Item { text: t, actions: a, selects: &[] }).collect();
    build_node(&items, 0)
}

/// A legal move for [`build_selected`]: its text, its action texts and
/// what a person selects for each action.
pub type SelectedMove = (String, Vec<String>, Vec<Select>);

/// Builds the tree of `moves` with what a person selects for each action:
/// (move text, action texts, selections of the same length).
pub fn build_selected(moves: &[SelectedMove]) -> MoveNode {
    let items: Vec<Item> = moves
        .iter()
        .map(|(t, a, s)| {
            debug_assert_eq!(a.len(), s.len(), "{t}");
            Item { text: t, actions: a, selects: if s.len() == a.len() { s } else { &[] } }
        })
        .collect();
    build_node(&items, 0)
}

fn build_node(items: &[Item], start: usize) -> MoveNode {
    let mut d = start;
    let (is_final, mv) = loop {
        let fin = items.iter().find(|it| it.actions.len() == d);
        let mut next = items.iter().filter(|it| it.actions.len() > d).map(|it| &it.actions[d]);
        let first = next.next();
        let single = first.is_some() && next.all(|a| Some(a) == first);
        if fin.is_some() || !single {
            break (fin.is_some(), fin.map(|it| it.text.to_string()));
        }
        d += 1;
    };
    let actions = items.first().map(|it| it.actions[start..d].to_vec()).unwrap_or_default();
    let select =
        items.first().and_then(|it| it.selects.get(start..d)).map(<[Select]>::to_vec).unwrap_or_default();
    // Group the continuations by their next action, in first-seen order
    // (a hash index keeps this linear when there are many groups).
    let mut groups: Vec<Vec<Item>> = Vec::new();
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for it in items.iter().filter(|it| it.actions.len() > d) {
        let a = it.actions[d].as_str();
        let item = Item { text: it.text, actions: it.actions, selects: it.selects };
        let k = *index.entry(a).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[k].push(item);
    }
    let children = groups.iter().map(|g| build_node(g, d)).collect();
    MoveNode { actions, is_final, mv, select, children, more: false }
}

fn no_move(prefix: &[String]) -> String {
    format!("no legal move begins with '{}'", prefix.join(" "))
}

/// One level of the tree below `prefix` (actions from the start of the
/// move): the node of the moves that begin with `prefix` (its `actions`
/// are those beyond `prefix` up to the next decisional prefix) and its
/// children without theirs (`more` marks a child that has some).
pub fn level(moves: &[SelectedMove], prefix: &[String]) -> Result<MoveNode, String> {
    let n = prefix.len();
    let items: Vec<Item> = moves
        .iter()
        .filter(|(_, a, _)| a.len() >= n && a[..n] == *prefix)
        .map(|(t, a, s)| Item { text: t, actions: a, selects: if s.len() == a.len() { s } else { &[] } })
        .collect();
    if items.is_empty() {
        return Err(no_move(prefix));
    }
    let mut node = build_node(&items, n);
    for c in &mut node.children {
        c.more = !c.children.is_empty();
        c.children.clear();
    }
    Ok(node)
}

/// The continuations of a prefix: a game's own answer for moves too many
/// to list ([`NextAction`]).
pub type Oracle<'a> = &'a dyn Fn(&[String]) -> Result<Vec<NextAction>, String>;

/// [`level`] from a game's continuations instead of its listed moves: the
/// same node, built from a few questions whatever the number of moves.
pub fn level_from(next: Oracle, prefix: &[String]) -> Result<MoveNode, String> {
    // Whether the prefix itself is a whole move: its parent's answer.
    let fin = match prefix.split_last() {
        None => None,
        Some((last, before)) => {
            next(before)?.into_iter().find(|c| c.action == *last).ok_or_else(|| no_move(prefix))?.mv
        }
    };
    let conts = next(prefix)?;
    if fin.is_none() && conts.is_empty() {
        return Err(no_move(prefix));
    }
    let (mut root, conts) = chain(next, prefix.to_vec(), Vec::new(), fin, conts)?;
    let mut base = prefix.to_vec();
    base.extend(root.actions.iter().cloned());
    for c in conts {
        let mut p = base.clone();
        p.push(c.action.clone());
        let more = if c.continues { next(&p)? } else { Vec::new() };
        let (mut node, rest) = chain(next, p, vec![(c.action, c.select)], c.mv, more)?;
        node.more = !rest.is_empty();
        root.children.push(node);
    }
    Ok(root)
}

/// Follows single continuations from prefix `p` (its last actions `taken`
/// belong to the node) to the next decisional prefix: the node, without
/// children, and the continuations there.
fn chain(
    next: Oracle,
    mut p: Vec<String>,
    mut taken: Vec<(String, Select)>,
    mut fin: Option<String>,
    mut conts: Vec<NextAction>,
) -> Result<(MoveNode, Vec<NextAction>), String> {
    while fin.is_none() && conts.len() == 1 {
        let c = conts.pop().expect("one continuation");
        p.push(c.action.clone());
        taken.push((c.action, c.select));
        fin = c.mv;
        conts = if c.continues { next(&p)? } else { Vec::new() };
    }
    let (actions, select) = taken.into_iter().unzip();
    let node =
        MoveNode { actions, is_final: fin.is_some(), mv: fin, select, children: Vec::new(), more: false };
    Ok((node, conts))
}

impl MoveNode {
    /// Indented text: one node per line, two spaces per level, `*` on final
    /// nodes; the root is written `root`.
    pub fn to_text(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut first = String::from("root");
        for a in &self.actions {
            first.push(' ');
            first.push_str(a);
        }
        if self.is_final {
            first.push_str(" *");
        }
        out.push(first);
        for c in &self.children {
            c.write_text(1, &mut out);
        }
        out
    }

    fn write_text(&self, level: usize, out: &mut Vec<String>) {
        let mut line = "  ".repeat(level);
        line.push_str(&self.actions.join(" "));
        if self.is_final {
            line.push_str(" *");
        }
        out.push(line);
        for c in &self.children {
            c.write_text(level + 1, out);
        }
    }

    /// One line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("tree serializes")
    }

    /// The moves of all final nodes, depth first.
    pub fn final_moves(&self) -> Vec<String> {
        let mut v = Vec::new();
        self.collect_final(&mut v);
        v
    }

    fn collect_final(&self, v: &mut Vec<String>) {
        if let Some(m) = &self.mv {
            v.push(m.clone());
        }
        for c in &self.children {
            c.collect_final(v);
        }
    }

    /// True if every leaf is final (a leaf is always a whole move).
    pub fn leaves_are_final(&self) -> bool {
        if self.children.is_empty() {
            self.is_final
        } else {
            self.children.iter().all(|c| c.leaves_are_final())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(acts: &[&str]) -> (String, Vec<String>) {
        (acts.join(""), acts.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn single_action_moves_are_children_of_an_empty_root() {
        let t = build(&[mv(&["1"]), mv(&["2"]), mv(&["3"])]);
        assert!(t.actions.is_empty() && !t.is_final);
        assert_eq!(t.children.len(), 3);
        assert!(t.children.iter().all(|c| c.is_final && c.children.is_empty()));
        assert_eq!(t.to_text(), vec!["root", "  1 *", "  2 *", "  3 *"]);
    }

    #[test]
    fn shared_prefix_with_single_continuation_collapses() {
        // Every move starts with piece wQ: the root is the prefix [wQ].
        let t = build(&[mv(&["wQ", "a"]), mv(&["wQ", "b"])]);
        assert_eq!(t.actions, vec!["wQ"]);
        assert_eq!(t.children.len(), 2);
        // A chain of single continuations becomes one node.
        let t = build(&[mv(&["A", "x", "1"]), mv(&["B", "y", "2"]), mv(&["B", "y", "3"])]);
        assert!(t.actions.is_empty());
        assert_eq!(t.children[0].actions, vec!["A", "x", "1"]);
        assert!(t.children[0].is_final);
        assert_eq!(t.children[1].actions, vec!["B", "y"]);
        assert!(!t.children[1].is_final);
        assert_eq!(t.children[1].children.len(), 2);
        assert_eq!(t.children[1].children[1].actions, vec!["3"]);
    }

    #[test]
    fn final_node_with_children() {
        // "a" is a whole move and also a prefix of "a b".
        let t = build(&[mv(&["a"]), mv(&["a", "b"]), mv(&["c"])]);
        let a = &t.children[0];
        assert_eq!(a.actions, vec!["a"]);
        assert!(a.is_final);
        assert_eq!(a.children.len(), 1);
        assert_eq!(a.children[0].actions, vec!["b"]);
        assert_eq!(t.final_moves(), vec!["a", "ab", "c"]);
        assert_eq!(t.to_text(), vec!["root", "  a *", "    b *", "  c *"]);
    }

    #[test]
    fn single_move_is_the_root() {
        let t = build(&[mv(&["pass"])]);
        assert_eq!(t.actions, vec!["pass"]);
        assert!(t.is_final);
        assert!(t.children.is_empty());
        assert_eq!(t.to_text(), vec!["root pass *"]);
    }

    #[test]
    fn no_moves() {
        let t = build(&[]);
        assert!(t.actions.is_empty() && !t.is_final && t.children.is_empty());
    }

    fn smv(acts: &[&str]) -> SelectedMove {
        let a: Vec<String> = acts.iter().map(|s| s.to_string()).collect();
        let sel = a.iter().map(|x| Select::choice(x)).collect();
        (acts.join(""), a, sel)
    }

    /// The continuations of a prefix among listed moves: what a game's own
    /// oracle must answer.
    fn oracle(moves: &[SelectedMove], p: &[String]) -> Result<Vec<NextAction>, String> {
        let mut out: Vec<NextAction> = Vec::new();
        for (t, a, s) in moves {
            if a.len() <= p.len() || a[..p.len()] != *p {
                continue;
            }
            let act = &a[p.len()];
            let i = match out.iter().position(|c| c.action == *act) {
                Some(i) => i,
                None => {
                    out.push(NextAction {
                        action: act.clone(),
                        select: s[p.len()].clone(),
                        mv: None,
                        continues: false,
                    });
                    out.len() - 1
                }
            };
            if a.len() == p.len() + 1 {
                out[i].mv = Some(t.clone());
            } else {
                out[i].continues = true;
            }
        }
        Ok(out)
    }

    #[test]
    fn one_level_at_a_time() {
        let moves = vec![
            smv(&["A", "x", "1"]),
            smv(&["B", "y", "2"]),
            smv(&["B", "y", "3"]),
            smv(&["B"]),
            smv(&["C"]),
        ];
        let full = build_selected(&moves);
        let root = level(&moves, &[]).unwrap();
        assert_eq!(root.children.len(), 3);
        assert!(root.children.iter().all(|c| c.children.is_empty()));
        assert_eq!(root.children[0].actions, vec!["A", "x", "1"]);
        assert!(!root.children[0].more && root.children[0].is_final);
        assert!(root.children[1].more && root.children[1].is_final);
        assert!(!root.children[2].more);
        let b = level(&moves, &["B".to_string()]).unwrap();
        assert!(b.actions.is_empty() && b.is_final && b.mv.as_deref() == Some("B"));
        assert_eq!(b.children.len(), 1);
        assert_eq!(b.children[0].actions, vec!["y"]);
        assert!(b.children[0].more);
        let by = level(&moves, &["B".to_string(), "y".to_string()]).unwrap();
        assert_eq!(by.children.iter().map(|c| c.mv.clone().unwrap()).collect::<Vec<_>>(), vec!["By2", "By3"]);
        // Every level, walked from the root, puts the whole tree back.
        fn grow(moves: &[SelectedMove], prefix: Vec<String>, node: &mut MoveNode) {
            for c in &mut node.children {
                let mut p = prefix.clone();
                p.extend(c.actions.iter().cloned());
                if c.more {
                    let l = level(moves, &p).unwrap();
                    assert!(l.actions.is_empty(), "a child is a decisional prefix");
                    c.children = l.children;
                    c.more = false;
                    grow(moves, p, c);
                }
            }
        }
        let mut grown = root.clone();
        grow(&moves, Vec::new(), &mut grown);
        assert_eq!(grown, full);
        // A prefix inside a chain starts the node there.
        let a = level(&moves, &["A".to_string()]).unwrap();
        assert_eq!(a.actions, vec!["x", "1"]);
        assert!(a.is_final);
        assert!(level(&moves, &["Z".to_string()]).unwrap_err().contains("no legal move begins with 'Z'"));
        // The oracle's levels are the listed moves' levels.
        let next = |p: &[String]| oracle(&moves, p);
        for p in [vec![], vec!["A"], vec!["B"], vec!["B", "y"], vec!["A", "x"], vec!["C"]] {
            let p: Vec<String> = p.into_iter().map(str::to_string).collect();
            assert_eq!(level_from(&next, &p), level(&moves, &p), "{p:?}");
        }
        assert!(level_from(&next, &["Z".to_string()]).is_err());
        let json = level(&moves, &[]).unwrap().to_json();
        assert!(json.contains(r#""more":true"#), "{json}");
    }

    #[test]
    fn json() {
        let t = build(&[mv(&["1"]), mv(&["2"])]);
        assert_eq!(
            t.to_json(),
            r#"{"actions":[],"final":false,"children":[{"actions":["1"],"final":true,"move":"1","children":[]},{"actions":["2"],"final":true,"move":"2","children":[]}]}"#
        );
    }
}
