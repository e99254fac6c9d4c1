//! UHP conformance: drives the binary through the reference transcript and
//! the bad-input cases, asserting the exact framing a Hive viewer relies on.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Uhp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Uhp {
    fn start() -> Uhp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_meeple"))
            .args(["--game", "Base"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Uhp { child, stdin, stdout }
    }

    /// Every line up to and including `ok`.
    fn reply(&mut self) -> Vec<String> {
        let mut v = Vec::new();
        loop {
            let mut l = String::new();
            assert!(self.stdout.read_line(&mut l).unwrap() > 0, "engine closed stdout after {v:?}");
            let l = l.trim_end_matches('\n').to_string();
            let done = l == "ok";
            v.push(l);
            if done {
                return v;
            }
        }
    }

    fn cmd(&mut self, c: &str) -> Vec<String> {
        writeln!(self.stdin, "{c}").unwrap();
        self.stdin.flush().unwrap();
        self.reply()
    }
}

fn first_word(v: &[String]) -> &str {
    v[0].split(' ').next().unwrap()
}

#[test]
fn reference_transcript() {
    let mut e = Uhp::start();
    let banner = e.reply();
    assert_eq!(banner[0], format!("id meeple v{}", env!("CARGO_PKG_VERSION")));
    assert_eq!(banner[banner.len() - 2], "Mosquito;Ladybug;Pillbug");
    assert_eq!(e.cmd("info"), banner);
    assert_eq!(e.cmd("newgame Base"), ["Base;NotStarted;White[1]", "ok"]);
    // No queen on the first turn: the set of the reference.
    let vm = e.cmd("validmoves");
    let mut set: Vec<&str> = vm[0].split(';').collect();
    set.sort();
    assert_eq!(set, ["wA1", "wB1", "wG1", "wS1"]);
    assert_eq!(vm[1], "ok");
    assert_eq!(e.cmd("play wS1"), ["Base;InProgress;Black[1];wS1", "ok"]);
    assert_eq!(e.cmd("play bG1 -wS1"), ["Base;InProgress;White[2];wS1;bG1 -wS1", "ok"]);
    assert_eq!(e.cmd("play wQ wS1/"), ["Base;InProgress;Black[2];wS1;bG1 -wS1;wQ wS1/", "ok"]);
    // Any legal move is valid output: it must be in validmoves.
    let bm = e.cmd("bestmove depth 2");
    assert_eq!(bm.len(), 2, "{bm:?}");
    let legal = e.cmd("validmoves")[0].clone();
    assert!(legal.split(';').any(|m| m == bm[0]), "{} not in {legal}", bm[0]);
    let bm = e.cmd("bestmove time 00:00:01");
    assert!(legal.split(';').any(|m| m == bm[bm.len() - 2]));
    assert_eq!(first_word(&e.cmd("play xyz")), "invalidmove");
    assert_eq!(first_word(&e.cmd("foo")), "err");
    // Options in UHP's format.
    let opts = e.cmd("options");
    assert!(opts.iter().any(|l| l.starts_with("Strategy;enum;")), "{opts:?}");
    assert!(opts.iter().any(|l| l.starts_with("Hash;int;")));
    // exit: no reply, the engine quits.
    writeln!(e.stdin, "exit").unwrap();
    e.stdin.flush().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut e.stdout, &mut rest).unwrap();
    assert_eq!(rest, "");
    assert!(e.child.wait().unwrap().success());
}

#[test]
fn bad_input_framing() {
    let mut e = Uhp::start();
    e.reply();
    // newgame with no argument is the --game default (Base here).
    assert_eq!(e.cmd("newgame"), ["Base;NotStarted;White[1]", "ok"]);
    assert_eq!(e.cmd("newgame Base+X")[0].split(' ').next(), Some("err"));
    assert_eq!(e.cmd("newgame Base+X").len(), 2);
    assert_eq!(e.cmd("newgame base+mlp"), ["Base+MLP;NotStarted;White[1]", "ok"]);
    assert_eq!(first_word(&e.cmd("frobnicate")), "err");
    assert_eq!(first_word(&e.cmd("play wX9")), "invalidmove");
    assert_eq!(first_word(&e.cmd("play wQ")), "invalidmove"); // no queen on turn 1
    assert_eq!(first_word(&e.cmd("pass")), "invalidmove"); // moves exist
    assert_eq!(first_word(&e.cmd("undo 1")), "err"); // nothing to undo
    assert_eq!(e.cmd("play wS1"), ["Base+MLP;InProgress;Black[1];wS1", "ok"]);
    assert_eq!(first_word(&e.cmd("play bS1 wS1")), "invalidmove"); // not onto a stack
    assert_eq!(first_word(&e.cmd("undo 2")), "err");
    assert_eq!(e.cmd("undo"), ["Base+MLP;NotStarted;White[1]", "ok"]);
    // A whole GameString is replayed; state and turn are recomputed.
    assert_eq!(
        e.cmd("newgame Base;NotStarted;White[1];wS1;bS1 wS1-"),
        ["Base;InProgress;White[2];wS1;bS1 wS1-", "ok"]
    );
    assert_eq!(first_word(&e.cmd("newgame Base;InProgress;White[2];wS1;bS1 wS9-")), "invalidmove");
    assert_eq!(e.cmd("undo"), ["Base;InProgress;Black[1];wS1", "ok"]);
    // Lenient parsing, canonical output.
    assert_eq!(e.cmd("play  bs1   wS1- "), ["Base;InProgress;White[2];wS1;bS1 wS1-", "ok"]);
    // A finished game: err on validmoves, bestmove and play, never a crash.
    let lost = "Base;InProgress;White[1];wS1;bG1 wS1-;wQ /wS1;bG2 bG1/;wA1 -wS1;bB1 bG1\\;wQ wS1\\;bQ bG2\\;wB1 wA1\\;bG2 wB1\\;wA1 wQ\\";
    let r = e.cmd(&format!("newgame {lost}"));
    assert!(r[0].starts_with("Base;BlackWins;"), "{r:?}");
    assert_eq!(first_word(&e.cmd("validmoves")), "err");
    assert_eq!(first_word(&e.cmd("bestmove depth 1")), "err");
    assert_eq!(first_word(&e.cmd("play bQ -bG1")), "err");
    assert_eq!(first_word(&e.cmd("pass")), "err");
    assert!(e.cmd("undo")[0].starts_with("Base;InProgress;"));
}

#[test]
fn forced_pass_is_the_only_move() {
    let mut e = Uhp::start();
    e.reply();
    let r = e.cmd("newgame Base;InProgress;White[1];wB1;bB1 wB1/;wQ wB1\\;bQ bB1-;wG1 wQ-;bQ bB1\\;wB1 bB1");
    assert!(r[0].starts_with("Base;InProgress;Black[4]"), "{r:?}");
    assert_eq!(e.cmd("validmoves"), ["pass", "ok"]);
    assert_eq!(e.cmd("bestmove depth 2"), ["pass", "ok"]);
    let r = e.cmd("pass");
    assert!(r[0].ends_with(";pass"), "{r:?}");
    assert!(r[0].contains(";White[5];"), "{r:?}");
}
