//! The protocol as every client sees it (issue: replies in input order, UCI
//! and UGI modes, UHP-exact `info`): scripted sessions piped in one go must
//! answer exactly as the same commands sent one at a time, every time; and
//! transcripts of a UCI, a UGI and a UHP session.

use std::io::Write;
use std::process::{Command, Stdio};
use std::thread;

use crate::common::Engine;

/// Twenty sessions over the three games, each written in one go: searches
/// followed at once by moves, undos, positions, option changes, reads and
/// errors. Every search is bounded by depth or nodes (never by time), so
/// the replies are fully determined.
const SCRIPTS: [&str; 20] = [
    "setoption name Hash value 16\nnewgame Connect4\ngo depth 6\nplay 4\nvalidmoves\nshow\n",
    "setoption name Hash value 16\nnewgame Connect4\nplay 4\ngo depth 2\nundo\nposition startpos moves 4453\nsetoption name Strategy value attack\ngo depth 3\nplay 1\n",
    "setoption name Strategy value attack\nnewgame Connect4+5x4\ngo depth 4\ngo depth 4\nplay 1\nbestmove depth 2\nundo 2\nshow\n",
    "setoption name Hash value 16\nposition startpos moves 4455\ngo depth 40\nanalyze depth 40\nplay 3\nmovetree\n",
    "setoption name Strategy value attack\nnewgame Connect4\nfoo\ngo sideways\nplay 9\ngo nodes 500\nplay 4\nundo 9\nsaves\n",
    "uci\nsetoption name Strategy value attack\nisready\nucinewgame\nposition startpos moves 4 4\ngo depth 3\nposition startpos moves 4 4 3\ngo depth 2 movestogo 5 wtime 100000 btime 100000\nplay 9\nquery result\n",
    "ugi\nsetoption name Strategy value attack\nuginewgame\nposition startpos moves 1 1 2 2 3 3\nquery result\nquery p1turn\ngo depth 2\nposition startpos moves 1 1 2 2 3 3 4\nquery gameover\nquery result\n",
    "setoption name Seed value 7\nsetoption name Mastermind.Strategy value knuth\nnewgame Mastermind\ngo depth 1\nplay 1122\nvalidmoves\ngo depth 1\nshow\n",
    "setoption name Mastermind.Codemaker value none\nnewgame Mastermind+3x4\nplay 112\nplay 1B0W\ngo nodes 100\nplay 2B2W\nvalidmoves\nundo 3\n",
    "setoption name Seed value 11\nposition Mastermind;InProgress;Maker[1];1122\nvalidmoves\nplay 0B0W\nbestmove depth 1\nundo\nshow\nmovetree\n",
    "setoption name Seed value 3\nsetoption name Mastermind.Strategy value entropy\nnewgame Mastermind+3x5\nbestmove depth 1\ngo depth 1\nplay 123\ngo depth 1\nsave s1\nsaves\n",
    "newgame Base\nbestmove depth 2\nvalidmoves\nplay wS1\n",
    "newgame Base+MLP\nplay wS1\nplay bG1 -wS1\ngo depth 2\nplay wQ wS1/\nundo 2\nvalidmoves\n",
    "setoption name Hive.Depth value 1\nnewgame Base\nbestmove depth 1\nplay wA1\nbestmove depth 1\npass\nplay xyz\nundo 5\n",
    "uci\nsetoption name UCI_Variant value Base+MLP\nucinewgame\nposition startpos moves wS1 bS1_wS1-\ngo depth 2\nposition startpos moves wS1 bS1_wS1- wQ_-wS1\ngo depth 1\nvalidmoves\n",
    "ugi\nsetoption name UCI_Variant value Base\nuginewgame\nposition fen Base;InProgress;White[2];wS1;bS1 wS1-\nquery p1turn\ngo depth 1\nquery gameover\n",
    "setoption name Seed value 2\nsetoption name Connect4.Strategy value attack\nnewgame Connect4\ngo depth 3\nnewgame Base\ngo depth 1\nnewgame Mastermind+3x3\ngo depth 1\ninfo\n",
    "setoption name Seed value 5\nnewgame Mastermind\ngo nodes 1\nplay 1234\nplay 4B0W\nvalidmoves\nundo\nplay 9999\n",
    "newgame Connect4\nsetoption name Strategy value attack\ngo depth 5\nfoo\nplay 0\nsetoption name Nope value 1\nposition startpos moves 4 4\nsetoption name Depth value 3\ngo depth 3\nhelp go\n",
    "newgame Base\ngo depth 2\nplay wG1\ngo depth 2\nplay bG1 wG1-\nmovetree\nshow\nstop\ninfo\n",
];

/// Lines of an `info` progress report are left out: their `nps` and
/// `time` fields vary from run to run.
fn replies(text: &str) -> Vec<String> {
    text.lines().filter(|l| !l.starts_with("info ")).map(str::to_string).collect()
}

/// The script piped in one go, stdin closed at once.
fn piped(script: &str, tag: &str) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("meeple-pipe-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .arg("--data-dir")
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success());
    replies(&String::from_utf8(out.stdout).unwrap())
}

/// The same commands sent one at a time, each reply read before the next
/// command: the order a careful client sees.
fn one_at_a_time(script: &str, tag: &str) -> Vec<String> {
    let mut e = Engine::start(tag);
    let mut out: Vec<String> = e.banner.clone();
    let mut uci = false;
    for cmd in script.lines() {
        e.send(cmd);
        let first = cmd.split_whitespace().next().unwrap_or("");
        uci |= first == "uci" || first == "ugi";
        // In UCI/UGI modes replies have no `ok`: read the known number of
        // lines (or to the bestmove).
        let lines: Vec<String> = if !uci {
            e.read_reply()
        } else {
            match first {
                "uci" | "ugi" => read_until(&e, |l| l == "uciok" || l == "ugiok"),
                "go" => read_until(&e, |l| l.starts_with("bestmove ")),
                "query" | "isready" | "validmoves" => vec![e.line()],
                "play" => vec![e.line()],
                _ => vec![],
            }
        };
        out.extend(lines.into_iter().filter(|l| !l.starts_with("info ")));
    }
    drop(e.stdin.take());
    out.extend(e.rest().into_iter().filter(|l| !l.starts_with("info ")));
    out
}

fn read_until(e: &Engine, last: impl Fn(&str) -> bool) -> Vec<String> {
    let mut v = Vec::new();
    loop {
        let l = e.line();
        let done = last(&l);
        v.push(l);
        if done {
            return v;
        }
    }
}

#[test]
fn piped_sessions_answer_in_input_order_every_time() {
    let runs: usize = std::env::var("MEEPLE_PIPE_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(50);
    let handles: Vec<_> = (0..2)
        .map(|half| {
            thread::spawn(move || {
                for (i, script) in SCRIPTS.iter().enumerate().filter(|(i, _)| i % 2 == half) {
                    let reference = one_at_a_time(script, &format!("ref{i}"));
                    assert!(reference.len() > 3, "script {i}: {reference:?}");
                    for run in 0..runs {
                        let got = piped(script, &format!("s{i}r{run}"));
                        assert_eq!(got, reference, "script {i}, run {run}:\n{script}");
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn uhp_info_is_two_lines() {
    let mut e = Engine::start_with("uhpinfo", &["--game", "Base"]);
    assert_eq!(
        e.banner,
        vec![
            format!("id meeple v{}", env!("CARGO_PKG_VERSION")),
            "Mosquito;Ladybug;Pillbug".into(),
            "ok".into()
        ]
    );
    assert_eq!(e.cmd("info").len(), 2);
    assert_eq!(e.one("newgame"), "Base;NotStarted;White[1]");
    assert_eq!(e.close(), 0);
}

#[test]
fn uci_transcript() {
    let mut e = Engine::start("uci");
    e.send("uci");
    let hs = read_until(&e, |l| l == "uciok");
    assert_eq!(hs[0], format!("id name meeple {}", env!("CARGO_PKG_VERSION")));
    assert!(hs[1].starts_with("id author "));
    assert!(
        hs.contains(&"option name Move Overhead type spin default 15 min 0 max 5000".to_string()),
        "{hs:?}"
    );
    assert!(hs.iter().any(|l| l.starts_with("option name Strategy type combo default perfect var perfect")));
    assert!(hs[2..hs.len() - 1].iter().all(|l| l.starts_with("option name ")), "{hs:?}");
    e.send("setoption name Strategy value attack");
    e.send("setoption name Move Overhead value 20");
    e.send("isready");
    assert_eq!(e.line(), "readyok", "setoption is silent in UCI");
    e.send("ucinewgame");
    e.send("position startpos moves 4 4 3");
    e.send("go wtime 60000 btime 60000 winc 100 binc 100 movestogo 30 depth 3");
    let r = read_until(&e, |l| l.starts_with("bestmove "));
    assert!(r.iter().any(|l| l.starts_with("info depth 3 score cp ")), "{r:?}");
    assert!(r[..r.len() - 1].iter().all(|l| l.starts_with("info ")));
    // An unknown token is ignored with a note, as UCI says.
    e.send("go depth 1 frobnicate");
    let r = read_until(&e, |l| l.starts_with("bestmove "));
    assert_eq!(r[0], "info string ignored go tokens: frobnicate");
    // Pondering: no bestmove until ponderhit, then the move's time runs.
    e.send("go ponder wtime 2000 btime 2000");
    e.send("isready");
    assert_eq!(read_until(&e, |l| l == "readyok").last().unwrap(), "readyok");
    e.send("ponderhit");
    let r = read_until(&e, |l| l.starts_with("bestmove "));
    assert!(r.last().unwrap().starts_with("bestmove "));
    // `go infinite` ends with stop, with one bestmove.
    e.send("go infinite");
    e.send("stop");
    let r = read_until(&e, |l| l.starts_with("bestmove "));
    assert_eq!(r.iter().filter(|l| l.starts_with("bestmove")).count(), 1);
    // A proven result is a mate score.
    e.send("setoption name Strategy value perfect");
    e.send("setoption name Hash value 16");
    e.send("position startpos moves 4 4 5 5");
    e.send("go depth 40");
    let r = read_until(&e, |l| l.starts_with("bestmove "));
    assert!(r.iter().any(|l| l.contains(" score mate 2 ")), "{r:?}");
    assert_eq!(r.last().unwrap(), "bestmove 3");
    // Problems are info strings; the position did not change.
    e.send("position startpos moves 9");
    assert_eq!(e.line(), "info string invalidmove move 1 '9': cannot parse move: '9' is not a column 1..7");
    e.send("query p1turn");
    assert_eq!(e.line(), "response true");
    e.send("quit");
    assert!(e.rest().is_empty());
}

#[test]
fn ugi_transcript_with_query_in_every_game() {
    let mut e = Engine::start("ugi");
    e.send("ugi");
    let hs = read_until(&e, |l| l == "ugiok");
    assert!(hs.iter().any(|l| l.starts_with("option name UCI_Variant type combo default Connect4 ")));
    for (variant, base, first) in [
        ("Connect4", "position startpos", "4"),
        ("Base", "position fen Base;InProgress;Black[1];wS1", ""),
        ("Mastermind", "position startpos", "1122"),
    ] {
        e.send(&format!("setoption name UCI_Variant value {variant}"));
        e.send("setoption name Strategy value random");
        e.send("uginewgame");
        e.send("query p1turn");
        assert_eq!(e.line(), "response true");
        let mut moves: Vec<String> = first.split_whitespace().map(str::to_string).collect();
        e.send(&format!("{base} moves {}", moves.join(" ")));
        e.send("query p1turn");
        assert_eq!(e.line(), "response false", "{variant}");
        e.send("query gameover");
        assert_eq!(e.line(), "response false");
        e.send("query result");
        assert_eq!(e.line(), "response none");
        e.send("go p1time 1000 p2time 1000 p1inc 10 p2inc 10");
        let r = read_until(&e, |l| l.starts_with("bestmove "));
        let mv = r.last().unwrap().strip_prefix("bestmove ").unwrap().to_string();
        assert!(!mv.contains(' '), "one token: {mv}");
        // The runner sends the whole move list with every position.
        moves.push(mv);
        let pos = format!("{base} moves {}", moves.join(" "));
        e.send(&pos);
        e.send("query p1turn");
        assert_eq!(e.line(), "response true", "{pos}");
    }
    e.send("setoption name UCI_Variant value Connect4");
    e.send("position startpos moves 1 2 1 2 1 2 1");
    e.send("query gameover");
    assert_eq!(e.line(), "response true");
    e.send("query result");
    assert_eq!(e.line(), "response p1win");
    assert_eq!(e.close(), 0);
}

/// SIGTERM during a search: its move is printed, then the process exits.
#[test]
fn sigterm_prints_the_move_then_exits() {
    let mut e = Engine::start("term");
    e.cmd("setoption name Strategy value attack");
    e.cmd("newgame Connect4");
    e.send("go infinite");
    let first = e.line();
    assert!(first.starts_with("info "), "{first}");
    let pid = e.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let rest = e.rest();
    assert!(rest.iter().any(|l| l.starts_with("bestmove ")), "{rest:?}");
    assert_eq!(rest.last().unwrap(), "ok");
    assert_eq!(e.child.wait().unwrap().code(), Some(0));
}

/// At the end of input a `go` with no limit is stopped (its move printed)
/// and the waiting commands run; a limited one finishes.
#[test]
fn eof_stops_an_unlimited_search_and_runs_the_rest() {
    let got = piped("setoption name Hash value 16\nnewgame Connect4\ngo\nplay 4\n", "eofgo");
    let bm = got.iter().position(|l| l.starts_with("bestmove ")).expect("a bestmove");
    assert_eq!(&got[bm + 1..], ["ok", "Connect4;InProgress;Yellow[1];4", "ok"]);
}

/// `meeple bench <family> --help` shows the family's own arguments, and a
/// family's `--game` is its own.
#[test]
fn bench_subcommands_have_their_own_arguments() {
    let out =
        Command::new(env!("CARGO_BIN_EXE_meeple")).args(["bench", "mastermind", "--help"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("--strategy") && text.contains("--game"), "{text}");
    let out =
        Command::new(env!("CARGO_BIN_EXE_meeple")).args(["bench", "connect4", "--help"]).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout).unwrap().contains("--limit"));
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .args(["bench", "mastermind", "--game", "Mastermind+2x3", "--strategy", "knuth"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("total="), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_meeple")).args(["bench", "nope"]).output().unwrap();
    assert!(!out.status.success());
}

/// The options every subcommand lists in its help (`--log-level`,
/// `--data-dir`) are accepted after a family's name too, in both spellings.
#[test]
fn global_options_are_accepted_after_a_family() {
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .args(["bench", "mastermind", "--log-level", "info", "--game", "Mastermind+2x3"])
        .args(["--data-dir=somewhere", "--strategy", "knuth"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8(out.stdout).unwrap().contains("total="));
}
