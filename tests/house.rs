//! The house: the top-level rooms of `src/` (a file, or a folder with all
//! it holds) and the `crate::` references between them, read from the
//! source outside test code, form no cycle. A lower room never reaches up
//! for a helper or a type (issue 29).
//!
//! `cargo test --test tests house -- --nocapture` prints the graph, one
//! room and what it uses a line.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Room → the rooms it references (itself excluded).
type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The room of a file: the first component below `src/` without `.rs`
/// (`games/hive/mod.rs` → `games`, `game.rs` → `game`).
fn room_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
    first.strip_suffix(".rs").unwrap_or(&first).to_string()
}

/// `text` with comments, string and char literals blanked out (so that a
/// path in a doc comment or a message is not a reference).
fn strip_comments_and_strings(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && (next == Some('#') || next == Some('"')) && !prev_is_ident(&b, i) {
            // Raw string r#"..."# (any number of #).
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if next == Some('\\') {
                let mut j = i + 3;
                while j < b.len() && b[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// `code` (comments and strings already blanked) without the items
/// marked `#[cfg(test)]`; the names of test-only modules declared as
/// `#[cfg(test)] mod name;` are added to `test_mods`.
fn strip_test_items(code: &str, test_mods: &mut Vec<String>) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        let item = &rest[at + MARK.len()..];
        // The item ends at its first `;` if that comes before any `{`,
        // else at the brace that closes its first `{`.
        let semi = item.find(';');
        let brace = item.find('{');
        let end = match (semi, brace) {
            (Some(s), Some(b)) if s < b => s + 1,
            (Some(s), None) => s + 1,
            (_, Some(b)) => {
                let mut depth = 0;
                let mut end = item.len();
                for (k, ch) in item[b..].char_indices() {
                    match ch {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (None, None) => item.len(),
        };
        let decl = item[..end].trim();
        if let Some(name) = decl.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
            test_mods.push(name.trim().to_string());
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The first path segments after each `crate::` (or `meeple::` in the
/// binary), groups `crate::{a, b::c}` included.
fn referenced_modules(code: &str, prefix: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + prefix.len()..];
        rest = after;
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let after = after.trim_start();
        if let Some(group) = after.strip_prefix('{') {
            // Top-level names of the group.
            let mut depth = 0;
            let mut name = String::new();
            let mut at_start = true;
            for ch in group.chars() {
                match ch {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        if !name.is_empty() {
                            found.push(std::mem::take(&mut name));
                        }
                        at_start = true;
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 && at_start {
                    if ch.is_alphanumeric() || ch == '_' {
                        name.push(ch);
                        continue;
                    } else if !name.is_empty() {
                        found.push(std::mem::take(&mut name));
                        at_start = false;
                    }
                }
            }
            if !name.is_empty() {
                found.push(name);
            }
        } else {
            let name: String = after.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                found.push(name);
            }
        }
    }
    found
}

/// The graph of `src`: rooms and the rooms their non-test code references.
fn house(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let rooms: BTreeSet<String> = files.iter().map(|f| room_of(src, f)).collect();
    let mut test_only: BTreeSet<PathBuf> = BTreeSet::new();
    let mut graph: Graph = rooms.iter().map(|r| (r.clone(), BTreeSet::new())).collect();
    // Two passes: the first finds the test-only module files.
    let mut code_of = BTreeMap::new();
    for f in &files {
        let text = fs::read_to_string(f).unwrap();
        let mut test_mods = Vec::new();
        let code = strip_test_items(&strip_comments_and_strings(&text), &mut test_mods);
        let dir = if f.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs" || n == "main.rs") {
            f.parent().unwrap().to_path_buf()
        } else {
            f.with_extension("")
        };
        for m in test_mods {
            test_only.insert(dir.join(format!("{m}.rs")));
            test_only.insert(dir.join(&m));
        }
        code_of.insert(f.clone(), code);
    }
    for f in &files {
        if test_only.iter().any(|t| f.starts_with(t)) {
            continue;
        }
        let room = room_of(src, f);
        let prefix = if room == "main" { "meeple::" } else { "crate::" };
        for m in referenced_modules(&code_of[f], prefix) {
            let target = if rooms.contains(&m) { m } else { "lib".to_string() };
            if target != room {
                graph.get_mut(&room).unwrap().insert(target);
            }
        }
    }
    graph
}

/// The rooms on a cycle, one cycle per strongly connected component of
/// more than one room (Tarjan's algorithm).
fn cycles(g: &Graph) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        t.index.insert(v, t.next);
        t.low.insert(v, t.next);
        t.next += 1;
        t.stack.push(v);
        t.on.insert(v);
        for w in &t.g[v] {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let l = t.low[v].min(t.low[w]);
                t.low.insert(v, l);
            } else if t.on.contains(w) {
                let l = t.low[v].min(t.index[w]);
                t.low.insert(v, l);
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    t.out
}

fn show(g: &Graph) -> String {
    g.iter()
        .map(|(r, uses)| format!("{r} -> {}", uses.iter().cloned().collect::<Vec<_>>().join(", ")))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn rooms_form_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let g = house(&src);
    println!("{}", show(&g));
    // The check can see: the rules room uses no search, and the main
    // rooms are there.
    for room in ["game", "engine", "registry", "search", "games", "protocol"] {
        assert!(g.contains_key(room), "room {room} missing:\n{}", show(&g));
    }
    assert!(!g["game"].contains("search"), "game.rs reaches the search:\n{}", show(&g));
    assert!(g["registry"].contains("games"), "{}", show(&g));
    let c = cycles(&g);
    assert!(c.is_empty(), "rooms on a cycle: {c:?}\n{}", show(&g));
}

/// The reader itself: comments, strings, test items and groups.
#[test]
fn the_reader_finds_references_and_skips_tests() {
    let text = r##"
use crate::game::Game; // crate::search in a comment
use crate::{options::X, boardview, search::{a, b}};
use crate::{gamelist,saves};
/// [`crate::protocol`] in a doc comment
fn f() { let s = "crate::gui"; let r = r#"crate::saves"#; let c = '"'; let q = '\''; g::<crate::text::T>(); }
#[cfg(test)]
mod tests { use crate::registry; }
#[cfg(test)]
mod more_tests;
"##;
    let mut mods = Vec::new();
    let code = strip_test_items(&strip_comments_and_strings(text), &mut mods);
    let mut found = referenced_modules(&code, "crate::");
    found.sort();
    assert_eq!(found, ["boardview", "game", "gamelist", "options", "saves", "search", "text"]);
    assert_eq!(mods, ["more_tests"]);
    let mut g = Graph::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")] {
        g.entry(a.to_string()).or_default().insert(b.to_string());
        g.entry(b.to_string()).or_default();
    }
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b".into(), "c".into()]]);
    g.get_mut("c").unwrap().clear();
    assert!(cycles(&g).is_empty());
}
