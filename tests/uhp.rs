//! UHP conformance: drives the binary through the reference transcript and
//! the bad-input cases, asserting the exact framing a Hive viewer relies on.

use crate::common::Engine;

/// The engine as a Hive viewer starts it.
fn start(tag: &str) -> Engine {
    Engine::start_with(tag, &["--game", "Base"])
}

fn first_word(v: &[String]) -> &str {
    v[0].split(' ').next().unwrap()
}

#[test]
fn reference_transcript() {
    let mut e = start("transcript");
    let banner = e.banner.clone();
    assert_eq!(banner[0], format!("id meeple v{}", env!("CARGO_PKG_VERSION")));
    assert_eq!(banner[banner.len() - 2], "Mosquito;Ladybug;Pillbug");
    assert_eq!(banner.last().unwrap(), "ok");
    assert_eq!(e.cmd("info"), banner[..banner.len() - 1]);
    assert_eq!(e.cmd("newgame Base"), ["Base;NotStarted;White[1]"]);
    // No queen on the first turn: the set of the reference.
    let vm = e.cmd("validmoves");
    assert_eq!(vm.len(), 1);
    let mut set: Vec<&str> = vm[0].split(';').collect();
    set.sort();
    assert_eq!(set, ["wA1", "wB1", "wG1", "wS1"]);
    assert_eq!(e.cmd("play wS1"), ["Base;InProgress;Black[1];wS1"]);
    assert_eq!(e.cmd("play bG1 -wS1"), ["Base;InProgress;White[2];wS1;bG1 -wS1"]);
    assert_eq!(e.cmd("play wQ wS1/"), ["Base;InProgress;Black[2];wS1;bG1 -wS1;wQ wS1/"]);
    // Any legal move is valid output: it must be in validmoves.
    let bm = e.cmd("bestmove depth 2");
    assert_eq!(bm.len(), 1, "{bm:?}");
    let legal = e.cmd("validmoves")[0].clone();
    assert!(legal.split(';').any(|m| m == bm[0]), "{} not in {legal}", bm[0]);
    let bm = e.cmd("bestmove time 00:00:01");
    assert!(legal.split(';').any(|m| m == bm[bm.len() - 1]));
    assert_eq!(first_word(&e.cmd("play xyz")), "invalidmove");
    assert_eq!(first_word(&e.cmd("foo")), "err");
    // Options in UHP's format.
    let opts = e.cmd("options");
    assert!(opts.iter().any(|l| l.starts_with("Strategy;enum;")), "{opts:?}");
    assert!(opts.iter().any(|l| l.starts_with("Hash;int;")));
    // exit: no reply, the engine quits.
    e.send("exit");
    assert_eq!(e.rest(), Vec::<String>::new());
    assert!(e.child.wait().unwrap().success());
}

#[test]
fn bad_input_framing() {
    let mut e = start("bad");
    // newgame with no argument is the --game default (Base here).
    assert_eq!(e.cmd("newgame"), ["Base;NotStarted;White[1]"]);
    assert_eq!(e.cmd("newgame Base+X")[0].split(' ').next(), Some("err"));
    assert_eq!(e.cmd("newgame Base+X").len(), 1);
    assert_eq!(e.cmd("newgame base+mlp"), ["Base+MLP;NotStarted;White[1]"]);
    assert_eq!(first_word(&e.cmd("frobnicate")), "err");
    assert_eq!(first_word(&e.cmd("play wX9")), "invalidmove");
    assert_eq!(first_word(&e.cmd("play wQ")), "invalidmove"); // no queen on turn 1
    assert_eq!(first_word(&e.cmd("pass")), "invalidmove"); // moves exist
    assert_eq!(first_word(&e.cmd("undo 1")), "err"); // nothing to undo
    assert_eq!(e.cmd("play wS1"), ["Base+MLP;InProgress;Black[1];wS1"]);
    assert_eq!(first_word(&e.cmd("play bS1 wS1")), "invalidmove"); // not onto a stack
    assert_eq!(first_word(&e.cmd("undo 2")), "err");
    assert_eq!(e.cmd("undo"), ["Base+MLP;NotStarted;White[1]"]);
    // A whole GameString is replayed; state and turn are recomputed.
    assert_eq!(
        e.cmd("newgame Base;NotStarted;White[1];wS1;bS1 wS1-"),
        ["Base;InProgress;White[2];wS1;bS1 wS1-"]
    );
    assert_eq!(first_word(&e.cmd("newgame Base;InProgress;White[2];wS1;bS1 wS9-")), "invalidmove");
    assert_eq!(e.cmd("undo"), ["Base;InProgress;Black[1];wS1"]);
    // Lenient parsing, canonical output.
    assert_eq!(e.cmd("play  bs1   wS1- "), ["Base;InProgress;White[2];wS1;bS1 wS1-"]);
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
    let mut e = start("pass");
    let r = e.cmd("newgame Base;InProgress;White[1];wB1;bB1 wB1/;wQ wB1\\;bQ bB1-;wG1 wQ-;bQ bB1\\;wB1 bB1");
    assert!(r[0].starts_with("Base;InProgress;Black[4]"), "{r:?}");
    assert_eq!(e.cmd("validmoves"), ["pass"]);
    assert_eq!(e.cmd("bestmove depth 2"), ["pass"]);
    let r = e.cmd("pass");
    assert!(r[0].ends_with(";pass"), "{r:?}");
    assert!(r[0].contains(";White[5];"), "{r:?}");
}
