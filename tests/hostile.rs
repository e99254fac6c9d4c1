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
//!   UHP seat judged by the whole seconds it was told;
//! - the results database (issue 43): a planted trigger or view, a
//!   database locked while a game ends, a planted 1 MB or blob name, a
//!   damaged page, a name with invisible characters, a version 1 file made
//!   by the meeple before schema version 2.

use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Engine;

/// Bigger than the whole input budget (4 MB).
const HUGE: usize = 5_000_000;

/// Every word that starts a reply of some kind, in some dialect.
const REPLY_WORDS: [&str; 15] = [
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
    // `review`'s lines (protocol.md section 3).
    "ply",
    "side",
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

// ---- The results database (issue 43 items 3, 4, 5 and 9) ----

mod results {
    use std::fs;
    use std::io::{BufRead, BufReader, Write};
    use std::path::{Path, PathBuf};
    use std::process::{Child, Command, Output, Stdio};
    use std::time::{Duration, Instant, SystemTime};

    use meeple::results::{
        Contest, Ending, FILE_NAME, GameRecord, Limits, Outcome, PENDING_DIR, Place, Player, Results, Seat,
        Stored, store_with,
    };
    use serde_json::Value;

    use crate::common::unique_dir;

    /// A run longer than this is a hang: the test fails (a safety net, not
    /// a timing assertion).
    const SAFETY: Duration = Duration::from_secs(120);

    /// Waits for a child, killing it (and failing) past [`SAFETY`].
    fn finish(mut child: Child, what: &str) -> Output {
        let start = Instant::now();
        loop {
            if child.try_wait().unwrap().is_some() {
                return child.wait_with_output().unwrap();
            }
            if start.elapsed() > SAFETY {
                let _ = child.kill();
                panic!("{what}: still running after {} s (hung)", SAFETY.as_secs());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// `meeple --data-dir D ARGS...` with `input` on stdin.
    fn start(d: &Path, args: &[&str], input: &str) -> Child {
        let mut c = Command::new(env!("CARGO_BIN_EXE_meeple"))
            .arg("--data-dir")
            .arg(d)
            .args(args)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A run that refuses its arguments may end before reading: the
        // pipe is then closed, and its output tells what happened.
        let _ = c.stdin.take().unwrap().write_all(input.as_bytes());
        c
    }

    fn meeple(d: &Path, args: &[&str]) -> Output {
        finish(start(d, args, ""), &format!("meeple {args:?}"))
    }

    /// A game of Connect Four that `name` resigns at once: its end is
    /// recorded (or kept) as a person's game against the engine.
    fn resign(d: &Path, name: &str) -> Child {
        start(d, &["play", "Connect4", "--name", name], "resign\n")
    }

    fn text(o: &Output) -> String {
        format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
    }

    fn board_json(d: &Path) -> Value {
        let o = meeple(d, &["leaderboard", "--json", "--top", "1000"]);
        assert!(o.status.success(), "{}", text(&o));
        serde_json::from_slice(&o.stdout).unwrap()
    }

    /// The games of people against engines, any level.
    fn engine_games(d: &Path) -> u64 {
        board_json(d)["engines"].as_array().unwrap().iter().map(|e| e["games"].as_u64().unwrap()).sum()
    }

    /// `(name, wins, losses, games)` of every person on the leaderboard.
    fn people(d: &Path) -> Vec<(String, u64, u64, u64)> {
        board_json(d)["people"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let n = |k: &str| p[k].as_u64().unwrap();
                (p["name"].as_str().unwrap().to_string(), n("wins"), n("losses"), n("games"))
            })
            .collect()
    }

    fn game(name: &str) -> GameRecord {
        GameRecord {
            when: SystemTime::now(),
            family: "Connect4".into(),
            game_type: "Connect4".into(),
            game_string: "Connect4;RedWins;Yellow[4];4;5;4;5;4;5;4".into(),
            seats: [
                Seat::new("Red", Player::person(name)),
                Seat::new("Yellow", Player::engine("perfect", "")),
            ],
            result: Outcome::First,
            ending: Ending::Normal,
            place: Place::Other,
        }
    }

    /// A data folder with Ann's and Bob's games.
    fn prepared(tag: &str) -> PathBuf {
        let d = unique_dir(&format!("meeple-it-results-{tag}"));
        let _ = fs::remove_dir_all(&d);
        let mut r = Results::open(&d).unwrap();
        r.record_game(&game("Ann")).unwrap();
        r.record_game(&game("Bob")).unwrap();
        d
    }

    fn plant(d: &Path, sql: &str) {
        rusqlite::Connection::open(d.join(FILE_NAME)).unwrap().execute_batch(sql).unwrap();
    }

    /// Holds `BEGIN EXCLUSIVE` on the database in another process (Python's
    /// sqlite3) until its stdin is closed.
    struct Locker(Child);

    impl Locker {
        fn hold(d: &Path) -> Locker {
            let script = "import sqlite3, sys\n\
                          c = sqlite3.connect(sys.argv[1], isolation_level=None)\n\
                          c.execute('BEGIN EXCLUSIVE')\n\
                          print('locked', flush=True)\n\
                          sys.stdin.read()\n\
                          c.execute('ROLLBACK')\n";
            let mut child = Command::new("python3")
                .args(["-c", script])
                .arg(d.join(FILE_NAME))
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("python3 must be installed");
            let mut line = String::new();
            BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
            assert_eq!(line.trim(), "locked");
            Locker(child)
        }

        fn release(mut self) {
            drop(self.0.stdin.take());
            assert!(self.0.wait().unwrap().success());
        }
    }

    /// Issue 43 item 3: a trigger that made every game a draw, one that
    /// swapped winners, a view that showed "Ann: 1000 won", a recursive view
    /// on which `meeple leaderboard` spun forever, a looping trigger that
    /// hung `meeple play` after "Game over". Each is refused, named, by
    /// the leaderboard and by a game's end (which keeps the result); the
    /// file is not written.
    #[test]
    fn a_planted_trigger_or_view_is_refused_and_named() {
        let plants = [
            (
                "CREATE TRIGGER all_draws AFTER INSERT ON game BEGIN \
                 UPDATE game SET result = 'draw' WHERE id = new.id; END",
                "trigger 'all_draws' on table 'game'",
            ),
            (
                "CREATE TRIGGER swap AFTER INSERT ON game_seat WHEN new.seat = 2 BEGIN \
                 UPDATE game SET result = CASE result WHEN 'first' THEN 'second' \
                 WHEN 'second' THEN 'first' ELSE result END WHERE id = new.game_id; END",
                "trigger 'swap' on table 'game_seat'",
            ),
            (
                "DROP VIEW standing; CREATE VIEW standing AS \
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) \
                 SELECT 'game' AS kind, i AS contest, 'Connect4' AS family, 1 AS person_id, \
                 NULL AS engine_id, NULL AS opp_person_id, NULL AS opp_engine_id, 'win' AS outcome FROM n",
                "view 'standing' (altered)",
            ),
            (
                "DROP VIEW standing; CREATE VIEW standing AS \
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
                 SELECT 'game' AS kind, i AS contest, 'Connect4' AS family, 1 AS person_id, \
                 NULL AS engine_id, NULL AS opp_person_id, NULL AS opp_engine_id, 'win' AS outcome FROM n",
                "view 'standing' (altered)",
            ),
            (
                "CREATE VIEW spin AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) \
                 SELECT i FROM n; \
                 CREATE TRIGGER hang AFTER INSERT ON game BEGIN SELECT count(*) FROM spin; END",
                "trigger 'hang' on table 'game'",
            ),
        ];
        for (sql, named) in plants {
            let d = prepared("plant");
            plant(&d, sql);
            let before = fs::read(d.join(FILE_NAME)).unwrap();
            let o = meeple(&d, &["leaderboard"]);
            let e = String::from_utf8_lossy(&o.stderr);
            assert!(!o.status.success() && o.stdout.is_empty(), "{named}: {}", text(&o));
            assert!(e.contains(named) && e.contains("did not make"), "{named}: {e}");
            let o = finish(resign(&d, "Ann"), "meeple play");
            let said = text(&o);
            assert!(said.contains("kept; it will be stored later") && said.contains(named), "{said}");
            assert_eq!(fs::read(d.join(FILE_NAME)).unwrap(), before, "{named}: the file was written");
            let o = meeple(&d, &["leaderboard"]);
            assert!(String::from_utf8_lossy(&o.stderr).contains("1 more result kept in"), "{}", text(&o));
            fs::remove_dir_all(&d).unwrap();
        }
    }

    /// Issue 43 item 5, the real path: another process holds `BEGIN
    /// EXCLUSIVE` while `meeple play` ends a game. After the whole busy
    /// timeout (10 s) the result is kept and the player told; the
    /// leaderboard counts it as kept; the next `meeple play` stores it at
    /// its start, once.
    #[test]
    fn a_game_ending_while_the_database_is_locked_is_kept_and_stored_once() {
        let d = prepared("locked");
        let lock = Locker::hold(&d);
        let o = finish(resign(&d, "Cy"), "meeple play");
        let said = text(&o);
        assert!(o.status.success(), "{said}");
        assert!(said.contains("Game over"), "{said}");
        assert!(said.contains("locked by another process"), "{said}");
        assert!(said.contains("kept; it will be stored later"), "{said}");
        assert_eq!(fs::read_dir(d.join(PENDING_DIR)).unwrap().count(), 1);
        lock.release();
        let j = board_json(&d);
        assert_eq!(j["pending"], 1);
        assert!(!people(&d).iter().any(|p| p.0 == "Cy"));
        let o = meeple(&d, &["leaderboard"]);
        assert!(String::from_utf8_lossy(&o.stdout).contains("1 result is kept in"), "{}", text(&o));
        // The next game: the kept result stored at the start, then its own.
        let o = finish(resign(&d, "Dee"), "meeple play");
        let said = text(&o);
        assert!(said.contains("1 result kept earlier now stored"), "{said}");
        assert!(said.contains("Recorded in"), "{said}");
        let mut p = people(&d);
        p.sort();
        let expect = |n: &str, w, l| (n.to_string(), w, l, 1);
        assert_eq!(p, [expect("Ann", 1, 0), expect("Bob", 1, 0), expect("Cy", 0, 1), expect("Dee", 0, 1)]);
        assert_eq!(board_json(&d)["pending"], 0);
        assert_eq!(engine_games(&d), 4);
        // Nothing left to store twice.
        let o = finish(resign(&d, "Cy"), "meeple play");
        assert!(!text(&o).contains("kept earlier"), "{}", text(&o));
        assert_eq!(engine_games(&d), 5);
        fs::remove_dir_all(&d).unwrap();
    }

    /// Two writers starting at once (two `meeple play`) with results kept:
    /// each kept result is stored once.
    #[test]
    fn two_writers_storing_kept_results_at_once_store_each_once() {
        let d = prepared("flush2");
        let lock = Locker::hold(&d);
        let quick = Limits { busy: Duration::from_millis(100), ..Limits::default() };
        for i in 0..8 {
            let stored = store_with(&d, &Contest::Game(game(&format!("K{i}"))), quick);
            assert!(matches!(stored, Stored::Kept { .. }), "{stored:?}");
        }
        lock.release();
        let a = resign(&d, "Eve");
        let b = resign(&d, "Fay");
        let (a, b) = (finish(a, "meeple play"), finish(b, "meeple play"));
        assert!(a.status.success() && b.status.success(), "{}\n{}", text(&a), text(&b));
        assert_eq!(board_json(&d)["pending"], 0);
        assert_eq!(engine_games(&d), 2 + 8 + 2);
        let kept = people(&d).iter().filter(|p| p.0.starts_with('K')).count();
        assert_eq!(kept, 8);
        fs::remove_dir_all(&d).unwrap();
    }

    /// Issue 43 item 9: a planted 1 MB name padded every row (22 MB for 22
    /// rows) and a blob name aborted the leaderboard.
    #[test]
    fn a_planted_huge_or_blob_name_neither_pads_nor_aborts_the_leaderboard() {
        let d = unique_dir("meeple-it-results-bignames");
        let _ = fs::remove_dir_all(&d);
        let mut r = Results::open(&d).unwrap();
        for i in 0..22 {
            r.record_game(&game(&format!("P{i:02}"))).unwrap();
        }
        drop(r);
        plant(&d, &format!("UPDATE person SET name = '{}' WHERE name = 'P00'", "x".repeat(1 << 20)));
        plant(&d, "UPDATE person SET name = x'ff00426c6f62' WHERE name = 'P01'");
        let o = meeple(&d, &["leaderboard", "--top", "22"]);
        assert!(o.status.success(), "{}", text(&o));
        assert!(o.stdout.len() < 10_000, "{} bytes of output", o.stdout.len());
        let table = String::from_utf8(o.stdout).unwrap();
        assert_eq!(table.lines().filter(|l| l.contains(" P")).count(), 20, "{table}");
        assert!(table.contains(&format!("{}…", "x".repeat(39))), "{table}");
        let o = meeple(&d, &["leaderboard", "--json"]);
        assert!(o.status.success(), "{}", text(&o));
        fs::remove_dir_all(&d).unwrap();
    }

    /// Issue 43 item 9: a damaged page went unnoticed while games kept
    /// being written into the file.
    #[test]
    fn a_damaged_file_is_noticed_and_nothing_more_is_written_into_it() {
        let d = prepared("damaged");
        let path = d.join(FILE_NAME);
        // The root page of `matches`, which recording a game does not
        // touch: the damage went unnoticed and games went on being written.
        let root: i64 = rusqlite::Connection::open(&path)
            .unwrap()
            .query_row("SELECT rootpage FROM sqlite_schema WHERE name = 'matches'", [], |r| r.get(0))
            .unwrap();
        let mut bytes = fs::read(&path).unwrap();
        let at = (root as usize - 1) * 4096;
        bytes[at..at + 12].fill(0xEE);
        fs::write(&path, &bytes).unwrap();
        let o = meeple(&d, &["leaderboard"]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains("damaged"), "{}", text(&o));
        let o = finish(resign(&d, "Ann"), "meeple play");
        assert!(text(&o).contains("kept; it will be stored later"), "{}", text(&o));
        assert_eq!(fs::read(&path).unwrap(), bytes);
        fs::remove_dir_all(&d).unwrap();
    }

    /// Issue 43 item 4: a name with an invisible character was another
    /// person; a full-width spelling of a name is the same person.
    #[test]
    fn names_are_refused_or_one_person() {
        let d = prepared("names");
        for bad in ["A\u{00AD}nn", "Ann\u{FE0F}", "Ann\u{E0041}", "\u{3164}", "\u{2800}"] {
            let o = finish(resign(&d, bad), "meeple play");
            assert!(!o.status.success(), "{bad:?}: {}", text(&o));
            assert!(text(&o).contains("--name"), "{}", text(&o));
        }
        let o = finish(resign(&d, "ＡＮＮ"), "meeple play");
        assert!(o.status.success(), "{}", text(&o));
        let mut p = people(&d);
        p.sort();
        assert_eq!(p, [("Ann".to_string(), 1, 1, 2), ("Bob".to_string(), 1, 0, 1)]);
        fs::remove_dir_all(&d).unwrap();
    }

    /// The schema version 1 → 2 migration keeps every record: a file made
    /// by the meeple before version 2 (`meeple play`, four games, a soft
    /// hyphen in one name, `é` composed and decomposed), read by this one.
    #[test]
    fn a_version_1_file_keeps_every_record() {
        let d = unique_dir("meeple-it-results-v1");
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/results-v1.sqlite");
        fs::copy(&fixture, d.join(FILE_NAME)).unwrap();
        let games = |d: &Path| -> i64 {
            let c = rusqlite::Connection::open(d.join(FILE_NAME)).unwrap();
            c.query_row("SELECT count(*) FROM game_seat", [], |r| r.get(0)).unwrap()
        };
        let seats = games(&d);
        let mut p = people(&d);
        p.sort();
        assert_eq!(
            p,
            [("Ann".to_string(), 0, 2, 2), ("Bob".to_string(), 0, 1, 1), ("Renée".to_string(), 0, 2, 2)]
        );
        assert_eq!(games(&d), seats);
        let c = rusqlite::Connection::open(d.join(FILE_NAME)).unwrap();
        let version: i64 = c.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
        assert_eq!(version, 2);
        fs::remove_dir_all(&d).unwrap();
    }
}
