//! An engine's move: when it is scheduled (after the pause people get to
//! see the last move), the `go` that searches it with the side's limit or
//! clock, the search's lines until its `bestmove` (the engine's time ends
//! when that line is read), and the selections along the move's path in
//! the move tree, for the page to show it one selection at a time. Stop
//! and Resume pause the engines of the table.

use std::time::Duration;

use crate::time::Instant;

use serde_json::{Value, json};

use crate::gui::client::{Engine, Id};
use crate::gui::clock::TimeControl;

use super::game::Game;
use super::lineup::Lineup;

/// A search running for an engine's move.
pub struct Search {
    pub id: Id,
    pub side: usize,
    pub started: Instant,
    /// Stopped by the host: its move is not played.
    pub stopped: bool,
    pub bestmove: Option<String>,
    /// When the `bestmove` line was read.
    pub bestmove_at: Option<Instant>,
    pub limit: String,
}

/// The engines' turns at a table.
#[derive(Default)]
pub struct Turns {
    pub search: Option<Search>,
    /// When the engine to move starts its search.
    pub next_at: Option<Instant>,
    /// Stopped by the host (or by an engine's failure): no engine moves
    /// until Resume.
    pub paused: bool,
}

impl Turns {
    /// True if an engine is to move and may (not paused).
    pub fn engine_to_move(&self, game: Option<&Game>, lineup: &Lineup) -> bool {
        game.and_then(Game::turn).is_some_and(|t| lineup.is_engine(t)) && !self.paused
    }

    /// Schedules the engine's move if an engine is to move.
    pub fn schedule(&mut self, game: Option<&Game>, lineup: &Lineup) {
        if self.paused || self.search.is_some() {
            return;
        }
        let Some(g) = game else { return };
        let Some(t) = g.turn() else { return };
        if !lineup.player(t).is_engine() {
            return;
        }
        let pause = lineup.setup.as_ref().map_or(Duration::ZERO, |s| s.pause);
        self.next_at = Some((g.last_move_at + pause).max(Instant::now()));
    }

    /// Starts the search of the engine to move. False if there is none
    /// to start (no engine to move, paused, already searching).
    pub async fn start(
        &mut self,
        engine: &mut Engine,
        g: &mut Game,
        lineup: &Lineup,
    ) -> Result<bool, String> {
        let Some(side) = g.turn() else { return Ok(false) };
        let p = lineup.player(side);
        if !p.is_engine() || self.paused || self.search.is_some() {
            return Ok(false);
        }
        engine.call(&format!("setoption name {}.Strategy value {}", g.family, p.strategy)).await?;
        let now = Instant::now();
        let cmd = match p.time {
            TimeControl::Clock { .. } => format!("go {}", g.clocks.go_args(side, now).unwrap_or_default()),
            _ => format!("go {}", p.limit()),
        };
        let id = engine.send(&cmd, true).await?;
        g.clocks.start(side, now);
        self.search = Some(Search {
            id,
            side,
            started: now,
            stopped: false,
            bestmove: None,
            bestmove_at: None,
            limit: p.limit(),
        });
        Ok(true)
    }

    /// A line of command `id`'s reply if it is the search's: the message
    /// to show it (`info`), or `None` (its `bestmove` is kept).
    pub fn on_line(&mut self, id: Id, line: &str, at: Instant) -> Option<Option<Value>> {
        let s = self.search.as_mut().filter(|s| s.id == id)?;
        if let Some(m) = line.strip_prefix("bestmove ") {
            s.bestmove = Some(m.trim().to_string());
            s.bestmove_at = Some(at);
            Some(None)
        } else if line.starts_with("info") {
            Some(Some(json!({"t": "info", "side": s.side, "line": line})))
        } else {
            Some(None)
        }
    }

    /// The search, if command `id` is it (its reply is complete).
    pub fn take(&mut self, id: Id) -> Option<Search> {
        if self.search.as_ref().is_some_and(|s| s.id == id) { self.search.take() } else { None }
    }

    /// Stops a running search (its move is dropped) and what is
    /// scheduled; the game's clock stops.
    pub async fn halt(&mut self, engine: &mut Engine, game: Option<&mut Game>) {
        self.next_at = None;
        if let Some(s) = self.search.take() {
            let _ = engine.send("stop", false).await;
            if let Some(g) = game {
                g.clocks.stop(Instant::now());
            }
            log::debug!("gui: search {} stopped", s.id);
        }
    }

    /// The host's Stop: the search ends (its move is not played) and no
    /// engine moves until Resume.
    pub async fn pause(&mut self, engine: &mut Engine) -> Result<(), String> {
        self.paused = true;
        self.next_at = None;
        if let Some(s) = &mut self.search {
            s.stopped = true;
            engine.send("stop", false).await?;
        }
        Ok(())
    }

    /// The search for the page: its side, time so far and limit.
    pub fn to_json(&self) -> Value {
        match &self.search {
            Some(s) => {
                json!({"side": s.side, "elapsed": s.started.elapsed().as_millis() as u64, "limit": s.limit})
            }
            None => Value::Null,
        }
    }
}

/// Levels asked at most to find a move's path.
const PATH_LEVELS: usize = 8;

/// A move's text without blanks (a move is its actions written in order,
/// with or without a blank between them).
fn squash<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    parts.into_iter().flat_map(|p| p.chars()).filter(|c| !c.is_whitespace()).collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(|a| a.as_str().map(str::to_string)).collect()
}

/// The child of `node` on move `mv`'s path (`prefix`: the actions to
/// `node`, `target`: the move without blanks): the whole move, else the
/// child with more below whose actions, one after another, begin the move.
fn on_path<'a>(node: &'a Value, prefix: &[String], mv: &str, target: &str) -> Option<&'a Value> {
    let children = node["children"].as_array()?;
    children.iter().find(|c| c["final"] == true && c["move"] == mv).or_else(|| {
        children.iter().find(|c| {
            let below = c["more"] == true || c["children"].as_array().is_some_and(|k| !k.is_empty());
            let acts = c["actions"].as_array().into_iter().flatten().filter_map(Value::as_str);
            let p = squash(prefix.iter().map(String::as_str).chain(acts));
            below && !p.is_empty() && target.starts_with(&p)
        })
    })
}

/// The levels of the move tree to ask for to find move `mv`'s path below
/// `root` (the tree's first level, before the move), so that they are
/// asked with the move, at once: the level below the first level's child
/// on the path, and deeper ones guessed when every action so far is one
/// character (the move's next characters); a wrong guess only loses the
/// showing of the move.
pub fn path_levels(root: &Value, mv: &str) -> Vec<Vec<String>> {
    let target = squash([mv]);
    let mut node = root;
    let mut prefix = strings(&node["actions"]);
    let mut out = Vec::new();
    for _ in 0..PATH_LEVELS {
        if node["final"] == true && node["move"] == mv {
            break;
        }
        let Some(c) = on_path(node, &prefix, mv, &target) else { break };
        prefix.extend(strings(&c["actions"]));
        if c["final"] == true && c["move"] == mv {
            break;
        }
        if c["more"] == true {
            out.push(prefix.clone());
            if prefix.iter().all(|a| a.chars().count() == 1) {
                let rest: Vec<char> = target.chars().skip(prefix.len()).collect();
                // The last action is a whole move of the last level asked.
                for ch in rest.iter().take(rest.len().saturating_sub(1)).take(PATH_LEVELS) {
                    prefix.push(ch.to_string());
                    out.push(prefix.clone());
                }
            }
            break;
        }
        node = c;
    }
    out
}

/// The selections along move `mv`'s path below `root`, with the `levels`
/// answered for the `prefixes` asked ([`path_levels`]): what the page
/// needs to show an engine's move one selection at a time. `None` if the
/// path is not found.
pub fn path_selections(
    root: &Value,
    mv: &str,
    prefixes: &[Vec<String>],
    levels: &[Value],
) -> Option<Vec<Value>> {
    let target = squash([mv]);
    let mut node = root.clone();
    let mut prefix = strings(&node["actions"]);
    let mut sels: Vec<Value> = node["select"].as_array().cloned().unwrap_or_default();
    for _ in 0..PATH_LEVELS * 2 {
        if node["final"] == true && node["move"] == mv {
            return Some(sels);
        }
        let c = on_path(&node, &prefix, mv, &target)?.clone();
        sels.extend(c["select"].as_array().cloned().unwrap_or_default());
        prefix.extend(strings(&c["actions"]));
        if c["final"] == true && c["move"] == mv {
            return Some(sels);
        }
        node = if c["more"] == true {
            let level = prefixes.iter().position(|p| *p == prefix).and_then(|i| levels.get(i))?;
            // A level's own actions (a single continuation) are on the path too.
            prefix.extend(strings(&level["actions"]));
            sels.extend(level["select"].as_array().cloned().unwrap_or_default());
            level.clone()
        } else {
            c
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moves_text_is_its_actions_with_or_without_blanks() {
        assert_eq!(squash(["wA1", "-bQ"]), "wA1-bQ");
        assert_eq!(squash(["wA1 -bQ"]), "wA1-bQ");
        assert_eq!(squash(["1", "2", "3", "4"]), "1234");
        assert_eq!(strings(&json!(["a", 1, "b"])), ["a", "b"]);
    }

    fn sel(slot: &str, symbol: &str) -> Value {
        json!([{"kind": "symbol", "slot": slot, "symbol": symbol}])
    }

    /// A guess entered peg by peg: the levels below are guessed from the
    /// move's characters and asked with the move; their answers give the
    /// selections.
    #[test]
    fn a_guess_is_found_peg_by_peg_with_the_levels_asked_at_once() {
        let level = |d: usize, fin: bool| {
            let children: Vec<Value> = ["1", "2", "3"]
                .iter()
                .map(|x| {
                    if fin {
                        json!({"actions": [x], "final": true, "move": format!("12{x}"), "select": sel("s3", x), "children": []})
                    } else {
                        json!({"actions": [x], "final": false, "more": true, "select": sel(&format!("s{}", d + 1), x), "children": []})
                    }
                })
                .collect();
            json!({"actions": [], "final": false, "children": children})
        };
        let root = level(0, false);
        let asked = path_levels(&root, "123");
        assert_eq!(asked, vec![vec!["1".to_string()], vec!["1".to_string(), "2".to_string()]]);
        let answers = [level(1, false), level(2, true)];
        let s = path_selections(&root, "123", &asked, &answers).unwrap();
        let got: Vec<&str> = s.iter().map(|x| x["slot"].as_str().unwrap()).collect();
        assert_eq!(got, ["s1", "s2", "s3"]);
        // A level missing: no path.
        assert_eq!(path_selections(&root, "123", &asked[..1], &answers[..1]), None);
    }

    /// A piece, then its destination: one level below the first.
    #[test]
    fn a_piece_then_its_destination() {
        let root = json!({"actions": [], "final": false, "children": [
            {"actions": ["wA1"], "final": false, "more": true, "select": [{"kind": "piece", "piece": "wA1"}], "children": []},
            {"actions": ["wQ"], "final": false, "more": true, "select": [{"kind": "piece", "piece": "wQ"}], "children": []}]});
        let asked = path_levels(&root, "wQ -bS1");
        assert_eq!(asked, vec![vec!["wQ".to_string()]]);
        let below = json!({"actions": [], "final": false, "children": [
            {"actions": ["-bS1"], "final": true, "move": "wQ -bS1", "select": [{"kind": "cell", "cell": "1,0"}], "children": []}]});
        let s = path_selections(&root, "wQ -bS1", &asked, &[below]).unwrap();
        assert_eq!((s[0]["piece"].as_str(), s[1]["cell"].as_str()), (Some("wQ"), Some("1,0")));
        // A column: nothing to ask.
        let c4 = json!({"actions": [], "final": false, "children": [
            {"actions": ["4"], "final": true, "move": "4", "select": [{"kind": "cell", "cell": "c4r1"}], "children": []}]});
        assert!(path_levels(&c4, "4").is_empty());
        assert_eq!(path_selections(&c4, "4", &[], &[]).unwrap().len(), 1);
    }
}
