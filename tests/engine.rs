//! End-to-end tests: spawn the built `meeple` binary and play scripted
//! sessions through its stdin/stdout, bad input included.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::common::Engine;

#[test]
fn banner_info_and_help() {
    let mut e = Engine::start("info");
    let info = e.cmd("INFO");
    // UHP's two lines: the id, then the capabilities.
    assert_eq!(
        info,
        vec![format!("id meeple v{}", env!("CARGO_PKG_VERSION")), "Mosquito;Ladybug;Pillbug".into()]
    );
    let help = e.cmd("help");
    assert!(help.len() > 5);
    assert!(help.iter().any(|l| l.contains("Connect4")), "the games are listed in help");
    // No help line starts with a word a client scans for.
    for topic in ["", " go", " bestmove", " info", " play", " Hive"] {
        for l in e.cmd(&format!("help{topic}")) {
            assert!(l.starts_with("  "), "{topic}: {l}");
        }
    }
    assert_eq!(e.cmd("help frob"), vec!["err no help on 'frob' (try help)"]);
    assert_eq!(e.one("isready"), "readyok");
    assert_eq!(e.close(), 0);
}

#[test]
fn a_full_game_to_a_win() {
    let mut e = Engine::start("full");
    assert_eq!(e.one("newgame Connect4"), "Connect4;NotStarted;Red[1]");
    let mut expected = String::from("Connect4;InProgress;Yellow[1]");
    for (i, col) in ["1", "2", "1", "2", "1", "2"].iter().enumerate() {
        let r = e.one(&format!("play {col}"));
        let side = if i % 2 == 0 { "Yellow" } else { "Red" };
        let plies = i + 1;
        let turn = 1 + plies / 2;
        let moves: Vec<&str> = ["1", "2", "1", "2", "1", "2"][..=i].to_vec();
        expected = format!("Connect4;InProgress;{side}[{turn}];{}", moves.join(";"));
        assert_eq!(r, expected);
    }
    assert_eq!(e.one("play 1"), "Connect4;RedWins;Yellow[4];1;2;1;2;1;2;1");
    assert_eq!(e.cmd("play 3"), vec!["err game is over"]);
    assert_eq!(e.cmd("validmoves"), vec!["err game is over"]);
    assert_eq!(e.cmd("go depth 2"), vec!["err game is over"]);
    assert_eq!(e.cmd("bestmove"), vec!["err game is over"]);
    assert!(e.cmd("show").last().unwrap().contains("Red wins"));
    assert_eq!(e.one("undo"), expected);
    assert_eq!(e.close(), 0);
}

#[test]
fn engine_plays_a_whole_game_against_itself() {
    let mut e = Engine::start("selfplay");
    e.cmd("newgame Connect4+5x4");
    e.cmd("setoption name Depth value 3");
    for _ in 0..20 {
        e.send("go");
        let mut r = e.read_reply();
        r.pop();
        let mv = r.last().unwrap().strip_prefix("bestmove ").expect("bestmove line").to_string();
        assert!(r[..r.len() - 1].iter().all(|l| l.starts_with("info ")), "{r:?}");
        let gs = e.one(&format!("play {mv}"));
        if !gs.contains(";InProgress;") {
            assert!(gs.contains("Wins;") || gs.contains(";Draw;"), "{gs}");
            return;
        }
    }
    panic!("a 5x4 game lasts at most 20 plies");
}

#[test]
fn undo_and_position() {
    let mut e = Engine::start("undo");
    e.cmd("newgame");
    assert_eq!(e.one("position startpos moves 4453"), "Connect4;InProgress;Red[3];4;4;5;3");
    assert_eq!(e.one("undo 2"), "Connect4;InProgress;Red[2];4;4");
    let before = e.snapshot();
    assert_eq!(e.cmd("undo 3"), vec!["err cannot undo 3 plies: only 2 played"]);
    assert_eq!(e.cmd("undo 0"), vec!["err undo takes a number of plies of at least 1"]);
    assert_eq!(e.snapshot(), before);
    assert_eq!(e.one("undo 2"), "Connect4;NotStarted;Red[1]");
    assert_eq!(e.one("position Connect4+5x4 moves 3;3 2"), "Connect4+5x4;InProgress;Yellow[2];3;3;2");
    assert_eq!(e.one("position Connect4;InProgress;Yellow[1];4 moves 4"), "Connect4;InProgress;Red[2];4;4");
    assert_eq!(
        e.cmd("position Connect4 moves 4 4 9"),
        vec!["invalidmove move 3 '9': cannot parse move: '9' is not a column 1..7"]
    );
    assert_eq!(e.one("play 1"), "Connect4;InProgress;Yellow[2];4;4;1");
    assert_eq!(e.close(), 0);
}

#[test]
fn newgame_replays_and_validates_game_strings() {
    let mut e = Engine::start("gamestring");
    // State and turn are recomputed, not trusted.
    assert_eq!(e.one("newgame connect4;InProgress;Red[9];4;4;5"), "Connect4;InProgress;Yellow[2];4;4;5");
    let before = e.snapshot();
    assert_eq!(
        e.cmd("newgame Connect4;InProgress;Red[2];4;4;x"),
        vec!["invalidmove move 3 'x': cannot parse move: 'x' is not a column 1..7"]
    );
    assert_eq!(e.cmd("newgame Connect4;Whatever;Red[1]"), vec!["err bad GameState 'Whatever'"]);
    assert_eq!(
        e.cmd("newgame Connect4;InProgress;Blue[1]"),
        vec!["err bad Turn 'Blue[1]': expected like Red[1]"]
    );
    assert_eq!(
        e.cmd("newgame Connect4;InProgress"),
        vec!["err bad GameString 'Connect4;InProgress': expected GameType;GameState;Turn[;moves]"]
    );
    assert!(e.one("newgame Chess").starts_with("err unknown game type 'Chess'"));
    assert!(e.one("newgame Connect4+10x10").starts_with("err Connect4+10x10 is not allowed"));
    assert_eq!(
        e.cmd("newgame Connect4;InProgress;Red[1];1;2;1;2;1;2;1;3"),
        vec!["invalidmove move 8 '3': the game is already over"]
    );
    assert_eq!(e.snapshot(), before);
    // A finished game round-trips.
    assert_eq!(
        e.one("newgame Connect4;RedWins;Yellow[4];1;2;1;2;1;2;1"),
        "Connect4;RedWins;Yellow[4];1;2;1;2;1;2;1"
    );
    assert_eq!(e.close(), 0);
}

#[test]
fn bad_input_changes_nothing() {
    let mut e = Engine::start("bad");
    // Commands that need a game.
    for c in [
        "play 4",
        "pass",
        "undo",
        "validmoves",
        "go depth 1",
        "bestmove",
        "show",
        "movetree",
        "analyze",
        "save x",
    ] {
        assert_eq!(e.cmd(c), vec!["err no game in progress"], "{c}");
    }
    e.cmd("newgame Connect4");
    e.cmd("play 4");
    let before = e.snapshot();
    assert_eq!(e.cmd("foo"), vec!["err unknown command 'foo' (try help)"]);
    assert_eq!(e.cmd("play"), vec!["err bad arguments to play; usage: play <move>"]);
    assert_eq!(e.cmd("play 0"), vec!["invalidmove cannot parse move: '0' is not a column 1..7"]);
    assert_eq!(e.cmd("play 8"), vec!["invalidmove cannot parse move: '8' is not a column 1..7"]);
    assert_eq!(e.cmd("play ∑"), vec!["invalidmove cannot parse move: '∑' is not a column 1..7"]);
    assert_eq!(e.cmd("pass"), vec!["invalidmove cannot parse move: 'pass' is not a column 1..7"]);
    assert_eq!(e.cmd("go sideways"), vec!["err go: unknown or incomplete tokens 'sideways' (help go)"]);
    assert_eq!(e.cmd("setoption name Nope value 1"), vec!["err unknown option 'Nope'"]);
    assert_eq!(
        e.cmd("options set Strategy best"),
        vec!["err option Strategy takes one of perfect, attack, random, defense, neutral, not 'best'"]
    );
    assert_eq!(e.cmd("options set Hash 0"), vec!["err option Hash must be within 1..16384, not 0"]);
    assert_eq!(
        e.cmd("go depth 99999999999"),
        vec!["err go: unknown or incomplete tokens 'depth 99999999999' (help go)"]
    );
    assert_eq!(
        e.cmd("setoption name UCI_Variant value Chess"),
        vec![
            "err unknown game type 'Chess' (known: Connect4 | Connect4+WxH (W<=9, W*(H+1)<=64); Mastermind[+PxS][+letters|+colours][+blanks][+norepeat][+rowsN] (P 1..8, S 2..10, N 1..50); Base | Base+M | Base+L | Base+P | Base+ML | Base+MP | Base+LP | Base+MLP, optionally +<counts> (S B G A each with 0..9, at most 15 pieces a side: Base+MLP+G1A4))"
        ]
    );
    // A 1 MB line, then binary junk, then a valid command still works.
    let mut big = vec![b'x'; 1 << 20];
    big.push(b'\n');
    e.send_raw(&big);
    assert_eq!(e.read_reply(), vec!["err line too long (1048576 bytes; the limit is 65536)", "ok"]);
    e.send_raw(b"play \xff\xfe\x00\x01\n");
    assert_eq!(e.read_reply(), vec!["err input is not valid UTF-8", "ok"]);
    e.send_raw(b"\x00\x01\x02garbage\x7f\n");
    let r = e.read_reply();
    assert!(r[0].starts_with("err unknown command"), "{r:?}");
    // Comments, blank lines and \r are ignored.
    e.send_raw(b"# a comment\n\n   \r\n");
    assert_eq!(e.snapshot(), before);
    // Fill column 4, then it is full.
    for _ in 0..5 {
        e.cmd("play 4");
    }
    let before = e.snapshot();
    assert_eq!(e.cmd("play 4"), vec!["invalidmove illegal move: column 4 is full"]);
    assert_eq!(e.snapshot(), before);
    assert_eq!(e.close(), 0);
}

#[test]
fn go_then_stop_and_isready_during_search() {
    let mut e = Engine::start("stop");
    // Without the opening book, three stones take the solver a minute.
    e.cmd("setoption name OwnBook value false");
    e.cmd("newgame Connect4");
    for _ in 0..3 {
        e.cmd("play 4");
    }
    e.send("go infinite");
    // isready is answered while the search runs; info lines may come first.
    e.send("isready");
    let mut r = e.read_reply();
    let ok = r.pop().unwrap();
    assert_eq!(ok, "ok");
    assert_eq!(r.last().unwrap(), "readyok");
    assert!(r[..r.len() - 1].iter().all(|l| l.starts_with("info ")), "{r:?}");
    // Everything else waits its turn: a move and a read.
    e.send("play 4");
    e.send("validmoves");
    e.send("stop");
    // The go's reply ends with exactly one bestmove and ok...
    let go_reply = e.read_reply();
    assert_eq!(go_reply.last().unwrap(), "ok");
    let bm: Vec<_> = go_reply.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(bm.len(), 1, "{go_reply:?}");
    assert!(["1", "2", "3", "4", "5", "6", "7"].contains(&bm[0].strip_prefix("bestmove ").unwrap()));
    // ...then the waiting commands in order, then stop's own ok.
    assert_eq!(e.read_reply(), vec!["Connect4;InProgress;Red[3];4;4;4;4", "ok"]);
    assert_eq!(e.read_reply(), vec!["1;2;3;4;5;6;7", "ok"]);
    assert_eq!(e.read_reply(), vec!["ok"]);
    // stop with no search: just ok.
    assert_eq!(e.cmd("stop"), Vec::<String>::new());
    assert_eq!(e.one("play 4"), "Connect4;InProgress;Yellow[3];4;4;4;4;4");
    assert_eq!(e.close(), 0);
}

#[test]
fn go_limits_and_uhp_bestmove() {
    let mut e = Engine::start("limits");
    e.cmd("newgame Connect4");
    for c in ["go depth 3", "go nodes 50", "go movetime 30", "go wtime 2000 btime 2000 winc 10 binc 10"] {
        let r = e.cmd(c);
        assert!(r.last().unwrap().starts_with("bestmove "), "{c}: {r:?}");
        assert_eq!(r.iter().filter(|l| l.starts_with("bestmove")).count(), 1);
    }
    e.cmd("setoption name Strategy value attack");
    let r = e.cmd("go depth 3");
    assert!(r[0].starts_with("info depth 1 score cp "), "{r:?}");
    assert!(r.iter().any(|l| l.starts_with("info depth 3 ") && l.contains(" pv ")));
    // UHP form: the move alone.
    let m = e.one("bestmove depth 2");
    assert!(m.len() == 1 && m.chars().all(|c| c.is_ascii_digit()), "{m}");
    let m = e.one("bestmove time 00:00:01");
    assert!(m.len() == 1, "{m}");
    // perfect (the default) proves the score in the benchmark convention.
    e.cmd("setoption name Strategy value perfect");
    e.cmd("position startpos moves 445566");
    let r = e.cmd("go");
    assert!(r.iter().any(|l| l.starts_with("info ") && l.contains(" score exact 18 ")), "{r:?}");
    assert_eq!(r.last().unwrap(), "bestmove 3");
    e.cmd("position startpos moves 4455");
    let r = e.cmd("go movetime 5000");
    assert!(r.iter().any(|l| l.contains(" score exact 18 ")), "{r:?}");
    // Every strategy wins at once when it can.
    e.cmd("position startpos moves 121212");
    for s in ["perfect", "attack", "random", "defense", "neutral"] {
        e.cmd(&format!("setoption name Strategy value {s}"));
        assert_eq!(e.one("bestmove"), "1", "{s} takes the win");
    }
    // ... and blocks an immediate loss.
    e.cmd("position startpos moves 11223");
    for s in ["perfect", "attack", "random", "defense", "neutral"] {
        e.cmd(&format!("options set Strategy {s}"));
        assert_eq!(e.one("bestmove"), "4", "{s} blocks");
    }
    assert_eq!(e.close(), 0);
}

#[test]
fn save_and_load() {
    let mut e = Engine::start("saves");
    assert_eq!(e.cmd("saves"), Vec::<String>::new());
    assert_eq!(e.cmd("load nothing"), vec!["err no saved game named 'nothing'"]);
    e.cmd("newgame Connect4");
    e.cmd("position startpos moves 4453");
    e.cmd("options set Strategy defense");
    assert_eq!(
        e.cmd("save ../escape"),
        vec!["err bad save name '../escape': use 1-64 characters of A-Z a-z 0-9 _ - . not starting with ."]
    );
    assert_eq!(e.one("save game1"), "saved game1");
    e.cmd("options set Strategy random");
    e.cmd("newgame Connect4+5x4");
    assert_eq!(e.one("load game1"), "Connect4;InProgress;Red[3];4;4;5;3");
    assert_eq!(
        e.one("options get Strategy"),
        "Strategy;enum;defense;perfect;perfect;attack;random;defense;neutral"
    );
    assert_eq!(e.cmd("saves"), vec!["save game1 Connect4;InProgress;Red[3];4;4;5;3"]);
    // A corrupt file is an error, and nothing changes.
    std::fs::write(e.data_dir.join("saves/broken.json"), "{\"format\": 1").unwrap();
    let before = e.snapshot();
    assert!(e.one("load broken").starts_with("err save 'broken' is corrupt"));
    assert_eq!(e.snapshot(), before);
    let listing = e.cmd("saves");
    assert_eq!(listing.len(), 2);
    assert!(listing[0].starts_with("save broken unreadable:"));
    // A save survives the process.
    let dir = e.data_dir.clone();
    drop(e.stdin.take());
    e.child.wait().unwrap();
    assert!(dir.join("saves/game1.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn options_registry() {
    let mut e = Engine::start("options");
    let opts = e.cmd("options");
    assert_eq!(opts[0], "Hash;int;256;256;1;16384");
    assert!(opts.contains(&"Threads;int;1;1;1;64".to_string()));
    assert!(opts.contains(&"Color;enum;auto;auto;auto;always;never".to_string()));
    assert!(opts.iter().any(|l| l.starts_with("Strategy;enum;")));
    assert_eq!(e.cmd("setoption name hash value 64"), Vec::<String>::new());
    assert_eq!(e.one("options get HASH"), "Hash;int;64;256;1;16384");
    // The largest Hash is checked against the machine, not allocated now.
    assert_eq!(
        e.cmd("setoption name Hash value 65536"),
        vec!["err option Hash must be within 1..16384, not 65536"]
    );
    assert_eq!(e.one("options get Move Overhead"), "Move Overhead;int;15;15;0;5000");
    assert_eq!(e.cmd("setoption name Move Overhead value 50"), Vec::<String>::new());
    assert_eq!(e.one("options get HASH"), "Hash;int;64;256;1;16384");
    assert_eq!(e.one("options set Connect4.Depth 5"), "Depth;int;5;8;1;64");
    assert_eq!(e.one("options set Color never"), "Color;enum;never;auto;auto;always;never");
    assert_eq!(e.close(), 0);
}

#[test]
fn seed_makes_random_play_reproducible() {
    let play = |seed: u64| {
        let mut e = Engine::start(&format!("seed{seed}"));
        e.cmd(&format!("setoption name Seed value {seed}"));
        e.cmd("setoption name Strategy value random");
        e.cmd("newgame Connect4");
        let mut moves = Vec::new();
        for _ in 0..12 {
            let m = e.one("bestmove");
            e.cmd(&format!("play {m}"));
            moves.push(m);
        }
        e.close();
        moves
    };
    assert_eq!(play(7), play(7));
}

#[test]
fn movetree_text_and_json() {
    let mut e = Engine::start("movetree");
    e.cmd("newgame Connect4+4x4");
    e.cmd("position startpos moves 1111");
    assert_eq!(e.cmd("movetree"), vec!["root", "  2 *", "  3 *", "  4 *"]);
    let json = e.one("movetree json");
    assert!(
        json.starts_with("{\"actions\":[],\"final\":false,\"children\":[{\"actions\":[\"2\"],\"final\":true")
    );
    assert_eq!(e.close(), 0);
}

/// Runs the binary on a whole input at once; returns success and stdout.
fn run_piped(input: &[u8]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().unwrap().write_all(input)?;
            c.wait_with_output()
        })
        .unwrap();
    (out.status.success(), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn eof_quits_after_a_limited_search() {
    let (ok, text) = run_piped(b"newgame Connect4\ngo depth 4\n");
    assert!(ok);
    assert!(text.trim_end().lines().rev().nth(1).unwrap().starts_with("bestmove "), "{text}");
    // An infinite search is stopped at EOF, still with one bestmove.
    let (ok, text) = run_piped(b"newgame Connect4\ngo infinite\n");
    assert!(ok);
    assert_eq!(text.matches("bestmove ").count(), 1, "{text}");
}

#[test]
fn perft_subcommand() {
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .args(["perft", "Connect4", "--depth", "6"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "1 7\n2 49\n3 343\n4 2401\n5 16807\n6 117649\n");
    let out =
        Command::new(env!("CARGO_BIN_EXE_meeple")).args(["perft", "Nope", "--depth", "1"]).output().unwrap();
    assert!(!out.status.success());
    let out = Command::new(env!("CARGO_BIN_EXE_meeple")).arg("--help").output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for w in ["perft", "solve", "bench", "--data-dir", "--game"] {
        assert!(help.contains(w), "--help mentions {w}");
    }
}

#[test]
fn sigint_stops_a_search_like_uhp_viewers_expect() {
    let mut e = Engine::start("sigint");
    // Without the opening book, three stones take the solver a minute.
    e.cmd("setoption name OwnBook value false");
    e.cmd("newgame Connect4");
    for _ in 0..3 {
        e.cmd("play 4");
    }
    e.send("bestmove time 01:00:00");
    // Make sure the search has started before interrupting it.
    assert_eq!(e.one("isready"), "readyok");
    let pid = e.child.id().to_string();
    let status = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(status.success());
    let r = e.read_reply();
    assert_eq!(r.len(), 2, "{r:?}");
    assert!(["1", "2", "3", "4", "5", "6", "7"].contains(&r[0].as_str()), "{r:?}");
    // The engine is still alive and well.
    assert_eq!(e.one("isready"), "readyok");
    assert_eq!(e.one("play 4"), "Connect4;InProgress;Red[3];4;4;4;4");
    assert_eq!(e.close(), 0);
}

/// The value of `name` in an `info` line (`nodes 123` -> 123).
fn info_field(line: &str, name: &str) -> Option<u64> {
    let mut it = line.split_whitespace();
    it.find(|&t| t == name)?;
    it.next()?.parse().ok()
}

#[test]
fn a_limitless_solve_reports_its_progress() {
    let mut e = Engine::start("progress");
    e.cmd("setoption name OwnBook value false");
    e.cmd("newgame Connect4");
    // The empty board takes the solver tens of seconds: the heartbeat
    // counts its nodes.
    e.send("go");
    let beat = loop {
        let l = e.line();
        assert!(l.starts_with("info "), "{l}");
        if l.starts_with("info time ") {
            break l;
        }
    };
    assert!(info_field(&beat, "nodes").is_some_and(|n| n > 0), "{beat}");
    e.send("stop");
    let r = e.read_reply();
    assert_eq!(r.iter().filter(|l| l.starts_with("bestmove ")).count(), 1, "{r:?}");
    assert!(r.iter().any(|l| l.starts_with("info string perfect: not solved within the limits")), "{r:?}");
    assert_eq!(e.close(), 0);
}

#[test]
fn isready_waits_for_the_book_so_a_timed_first_move_comes_from_it() {
    // A fresh process reads its book on another thread at `newgame`;
    // `isready` answers once it is read, so a move with little time that
    // follows comes from the book (the empty board: column 4, score +1).
    for pos in ["Connect4", "Connect4;InProgress;Yellow[1];4"] {
        let mut e = Engine::start("isready-book");
        e.cmd(&format!("newgame {pos}"));
        assert_eq!(e.cmd("isready"), vec!["readyok"]);
        let r = e.cmd("go movetime 100");
        assert!(r.contains(&"info string perfect: from the opening book".to_string()), "{r:?}");
        assert_eq!(r.last().unwrap(), "bestmove 4", "{r:?}");
        assert_eq!(e.close(), 0);
    }
}

#[test]
fn own_book_answers_the_opening_and_can_be_turned_off() {
    let mut e = Engine::start("ownbook");
    e.cmd("newgame Connect4");
    let r = e.cmd("go nodes 1000");
    assert!(r.contains(&"info string perfect: from the opening book".to_string()), "{r:?}");
    assert!(r.iter().any(|l| l.contains(" score exact 1 ")), "{r:?}");
    assert_eq!(r.last().unwrap(), "bestmove 4");
    assert_eq!(e.cmd("analyze"), vec!["-2 -1 0 1 0 -1 -2"]);
    e.cmd("setoption name OwnBook value false");
    let r = e.cmd("go nodes 1000");
    assert!(!r.iter().any(|l| l.contains("opening book")), "{r:?}");
    assert!(r.iter().any(|l| l.contains("not solved within the limits")), "{r:?}");
    assert_eq!(e.cmd("analyze nodes 1000").len(), 1);
    assert_eq!(e.close(), 0);
}
