//! The project's own hostile test (issue 27), beside the fuzz test: what a
//! hostile client, a hostile data directory and hostile engines did to
//! meeple and its referee, each attack bounded in time.
//!
//! - a line over the whole input budget during a search: `stop`, `quit`
//!   and end of input are still obeyed, the line gets one `err` in turn;
//! - save names that are reply words, in every dialect, saved or found on
//!   disk: no line of any reply reads as another kind of reply;
//! - Unicode line separators (U+2028, U+2029, NEL) are never echoed raw;
//! - `saves` reads only what it lists; a bad `--game` is refused at start;
//! - the referee (scripts/test_hostile_referee.py): SIGKILLs during its
//!   database writes followed by `--resume`, several rounds, with every
//!   stored game in the PGN once; an engine that floods `info` lines; a
//!   UHP seat judged by the whole seconds it was told.

use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Engine;

/// Bigger than the whole input budget (4 MB).
const HUGE: usize = 5_000_000;

/// Every word that starts a reply of some kind, in some dialect.
const REPLY_WORDS: [&str; 13] = [
    "ok",
    "err",
    "invalidmove",
    "bestmove",
    "info",
    "readyok",
    "uciok",
    "ugiok",
    "id",
    "option",
    "response",
    "copyprotection",
    "registration",
];

fn huge_line() -> Vec<u8> {
    let mut v = vec![b'x'; HUGE];
    v.push(b'\n');
    v
}

/// Starts `go infinite` and waits for its first `info` line: the search
/// runs.
fn searching(tag: &str) -> Engine {
    let mut e = Engine::start(tag);
    e.cmd("setoption name Strategy value attack");
    e.one("newgame");
    e.send("go infinite");
    e
}

/// The replies of a `go` stopped by `stop`: `info` lines, `bestmove`, `ok`.
/// A deaf engine goes on printing `info` lines: after a minute without its
/// `bestmove` the test fails (a safety net, not a timing assertion).
fn go_reply(e: &Engine) -> Vec<String> {
    let start = Instant::now();
    let mut r = Vec::new();
    while r.last().is_none_or(|l| l != "ok") {
        assert!(start.elapsed() < Duration::from_secs(60), "no bestmove after a minute: deaf");
        r.push(e.line());
    }
    let rest: Vec<&String> = r.iter().filter(|l| !l.starts_with("info ")).collect();
    assert_eq!(rest.len(), 2, "{r:?}");
    assert!(rest[0].starts_with("bestmove "), "{r:?}");
    r
}

fn too_long() -> String {
    format!("err line too long ({HUGE} bytes; the limit is 65536)")
}

/// Issue 27 item 1: the refused line took the whole budget and `stop`,
/// `quit` and end of input were never read (the engine was deaf until
/// SIGTERM).
#[test]
fn a_line_over_the_budget_during_a_search() {
    // `stop`: the search's reply, then the line's `err`, then stop's `ok`.
    let mut e = searching("hostile-long-stop");
    e.send_raw(&huge_line());
    e.send("stop");
    go_reply(&e);
    assert_eq!(e.read_reply(), vec![too_long(), "ok".to_string()]);
    assert_eq!(e.read_reply(), vec!["ok"]);
    // The engine goes on as before.
    assert_eq!(e.one("isready"), "readyok");
    assert_eq!(e.one("play 4"), "Connect4;InProgress;Yellow[1];4");
    // Two in a row, then a command: each answered once, in order.
    e.send_raw(&huge_line());
    e.send_raw(&huge_line());
    e.send("validmoves");
    assert_eq!(e.read_reply(), vec![too_long(), "ok".to_string()]);
    assert_eq!(e.read_reply(), vec![too_long(), "ok".to_string()]);
    assert_eq!(e.read_reply(), vec!["1;2;3;4;5;6;7", "ok"]);

    // `quit`: the move, the line's `err`, then the exit.
    let mut e = searching("hostile-long-quit");
    e.send_raw(&huge_line());
    e.send("quit");
    go_reply(&e);
    assert_eq!(e.read_reply(), vec![too_long(), "ok".to_string()]);
    assert_eq!(e.rest(), Vec::<String>::new());
    assert_eq!(e.child.wait().unwrap().code(), Some(0));

    // End of input: an unbounded search stops, then the engine exits.
    let mut e = searching("hostile-long-eof");
    e.send_raw(&huge_line());
    drop(e.stdin.take());
    go_reply(&e);
    assert_eq!(e.read_reply(), vec![too_long(), "ok".to_string()]);
    assert_eq!(e.rest(), Vec::<String>::new());
    assert_eq!(e.child.wait().unwrap().code(), Some(0));
}

fn first_word(l: &str) -> &str {
    l.split(' ').next().unwrap_or("")
}

/// Issue 27 item 2: `save err` made the `saves` listing print a line
/// `err Connect4;...` inside a successful reply, and a save named
/// `bestmove` a `bestmove ...` line in UCI mode.
#[test]
fn save_names_that_are_reply_words() {
    let mut e = Engine::start("hostile-names");
    e.one("newgame Connect4;InProgress;Yellow[1];4");
    for w in REPLY_WORDS.iter().chain(&["save", "saved", "more"]) {
        assert_eq!(e.one(&format!("save {w}")), format!("saved {w}"));
    }
    // Found on disk, written by someone else: readable, corrupt, too large.
    let dir = e.data_dir.join("saves");
    fs::write(dir.join("readyok.json"), "{").unwrap();
    fs::write(dir.join("uciok.json"), vec![b' '; 70_000]).unwrap();
    let expect = REPLY_WORDS.len() + 3;
    let check = |lines: &[String], mode: &str| {
        assert_eq!(lines.len(), expect, "{mode}: {lines:?}");
        for l in lines {
            assert_eq!(first_word(l), "save", "{mode}: {l}");
            let rest = &l["save ".len()..];
            assert!(!REPLY_WORDS.contains(&first_word(rest)) || rest.contains(' '), "{mode}: {l}");
        }
        assert!(lines.contains(&"save err Connect4;InProgress;Yellow[1];4".to_string()), "{lines:?}");
        assert!(lines.iter().any(|l| l.starts_with("save readyok unreadable: ")), "{lines:?}");
        assert!(lines.contains(&"save uciok too large to list (70000 bytes)".to_string()), "{lines:?}");
    };
    check(&e.cmd("saves"), "meeple");
    // `load` of such a name: the GameString, nothing else.
    assert_eq!(e.cmd("load bestmove"), vec!["Connect4;InProgress;Yellow[1];4"]);
    // UCI and UGI: no `ok` frames the reply, so a line is all a GUI sees.
    let r = e.uci(&["uci"]);
    assert_eq!(r.last().map(String::as_str), Some("uciok"));
    check(&e.uci(&["saves"]), "uci");
    assert_eq!(e.uci(&["save bestmove"]), vec!["saved bestmove"]);
    let r = e.uci(&["ugi"]);
    assert_eq!(r.last().map(String::as_str), Some("ugiok"));
    check(&e.uci(&["saves"]), "ugi");
}

/// Every line the engine printed, as raw text.
fn all_output(e: Engine) -> String {
    let mut e = e;
    drop(e.stdin.take());
    let lines = e.rest();
    lines.join("\n")
}

/// Issue 27 item 3: `play 4<U+2028>ok` put a raw U+2028 in the
/// `invalidmove` line; terminals and JSON readers take it for a line
/// break.
#[test]
fn unicode_separators_are_never_echoed() {
    const SEPARATORS: [char; 3] = ['\u{2028}', '\u{2029}', '\u{85}'];
    let attacks = |s: char| -> Vec<String> {
        vec![
            format!("play 4{s}ok"),
            format!("play 9{s}bestmove 4"),
            format!("newgame Connect4{s}err"),
            format!("position startpos moves 4 4{s}4"),
            format!("setoption name Secret value 12{s}34"),
            format!("setoption name Strategy{s}ok value attack"),
            format!("options set Strategy random{s}info"),
            format!("options get Strat{s}egy"),
            format!("go depth 1 searchmoves 4{s}ok"),
            format!("go depth 1 sideways{s}ok"),
            format!("help play{s}ok"),
            format!("save a{s}b"),
            format!("load a{s}b"),
            format!("undo 1{s}2"),
            format!("{s}ok"),
            format!("bogus{s}readyok"),
        ]
    };
    let dir_of = |e: &Engine| e.data_dir.join("saves");
    for dialect in ["", "uci", "ugi"] {
        let mut e = Engine::start("hostile-sep");
        // A save file with separators in its game and options.
        fs::create_dir_all(dir_of(&e)).unwrap();
        for (i, s) in SEPARATORS.iter().enumerate() {
            let json = serde_json::json!({"format": "meeple-save", "version": 1,
                "game": format!("Connect4;InProgress;Yellow[1];4{s}ok"), "options": {}});
            fs::write(dir_of(&e).join(format!("g{i}.json")), json.to_string()).unwrap();
            let json = serde_json::json!({"format": "meeple-save", "version": 1,
                "game": "Connect4", "options": {"Strategy": format!("attack{s}ok")}});
            fs::write(dir_of(&e).join(format!("o{i}.json")), json.to_string()).unwrap();
        }
        if !dialect.is_empty() {
            e.send(dialect);
        }
        e.send("newgame");
        for s in SEPARATORS {
            for a in attacks(s) {
                e.send(&a);
            }
            for i in 0..SEPARATORS.len() {
                e.send(&format!("load g{i}"));
                e.send(&format!("load o{i}"));
            }
            e.send("saves");
        }
        e.send("quit");
        let out = all_output(e);
        for s in SEPARATORS {
            assert!(!out.contains(s), "{dialect}: {:?} echoed in\n{out}", s);
        }
        // The errors were there, cleaned.
        assert!(out.contains("play 4 ok") || out.contains("4 ok"), "{dialect}: {out}");
    }
}

/// Issue 27 item 4 through the binary: `saves` lists a 4 MB save from its
/// size (it read and replayed it whole, printing a 4 MB line).
#[test]
fn saves_lists_huge_files_from_their_size() {
    let mut e = Engine::start("hostile-huge-saves");
    let dir = e.data_dir.join("saves");
    fs::create_dir_all(&dir).unwrap();
    // A real save: a Hive game of about 300 000 plies, two ants to and fro.
    let cycle = ["wA1 \\wQ", "bA1 bQ/", "wA1 -wQ", "bA1 bQ-"].join(";");
    let mut game = "Base;InProgress;White[4];wS1;bS1 wS1-;wQ -wS1;bQ bS1-;wA1 -wQ;bA1 bQ-".to_string();
    while game.len() < 4_000_000 {
        game.push(';');
        game.push_str(&cycle);
    }
    let json = serde_json::json!({"format": "meeple-save", "version": 1, "game": game, "options": {}});
    let text = json.to_string();
    for n in ["big1", "big2", "big3"] {
        fs::write(dir.join(format!("{n}.json")), &text).unwrap();
    }
    e.one("newgame Base");
    e.one("save small");
    let r = e.cmd("saves");
    let expect = |n: &str| format!("save {n} too large to list ({} bytes)", text.len());
    assert_eq!(r[..3], [expect("big1"), expect("big2"), expect("big3")]);
    assert_eq!(r[3], "save small Base;NotStarted;White[1]");
}

/// Issue 27 item 6: `meeple --game Connect4+9x7` (9 x 8 > 64) started, and
/// every `ucinewgame` then failed.
#[test]
fn a_bad_default_game_is_refused_at_start() {
    for bad in ["Connect4+9x7", "Chess", "Mastermind+9x6", ""] {
        let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
            .args(["--game", bad])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--game {bad:?}");
        assert!(out.stdout.is_empty(), "--game {bad:?}: the protocol did not start");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--game") && err.contains(bad), "{err}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .args(["--game", "connect4+5x4"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// The referee's part: `scripts/test_hostile_referee.py` (Python 3
/// standard library), with the built engine as `MEEPLE_BIN`.
#[test]
fn referee_hostile_python_tests_pass() {
    crate::common::python_tests_pass("scripts/test_hostile_referee.py");
}
