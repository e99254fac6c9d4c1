//! `meeple play` at a terminal: the built binary on a pseudo-terminal
//! (openpty; the program's stdin, stdout and stderr are the terminal, and
//! it is the terminal's session leader, so Ctrl-C is a real SIGINT while
//! the engine thinks and a key at the prompt), typed at as a person types:
//! a whole game of Connect Four, of Hive and a Mastermind match against the
//! engine, with `hint`, `undo`, `save` and `load`, a Mastermind feedback
//! refused for contradicting a row, and Ctrl-C during a search and at the
//! prompt; then the leaderboard has the games under the names given.
//! SIGTERM, SIGHUP and SIGQUIT at the prompt and during a search end the
//! program by that signal with the terminal's settings given back.
//!
//! The tests keep their own copy of each game (through the library's
//! registry) to choose legal moves, and read the engine's moves from what
//! the terminal shows. Waits are bounded by a safety net, never measured.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use meeple::registry::{self, AnyGame};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;

use crate::common::unique_dir;

/// A wait for the program longer than this fails the test instead of
/// hanging it (a safety net, not a timing assertion).
const SAFETY: Duration = Duration::from_secs(60);

/// `meeple play` on a pseudo-terminal.
struct Pty {
    master: File,
    child: Child,
    chunks: Receiver<Vec<u8>>,
    /// Everything shown so far, escape sequences removed, `\r` as `\n`.
    shown: String,
    /// Where the next `expect` starts looking.
    at: usize,
    strip: Strip,
    data_dir: PathBuf,
    /// The terminal's side, kept open so that its settings outlive the
    /// program (a pseudo-terminal's are reset when its last user closes it).
    slave: OwnedFd,
}

/// Removes escape sequences from a stream of bytes.
#[derive(Default)]
struct Strip {
    state: u8,
    pending: Vec<u8>,
}

impl Strip {
    fn feed(&mut self, bytes: &[u8], out: &mut String) {
        for &b in bytes {
            match (self.state, b) {
                (0, 0x1b) => self.state = 1,
                (0, b'\r') => self.pending.push(b'\n'),
                (0, _) => self.pending.push(b),
                (1, b'[') => self.state = 2,
                (1, _) => self.state = 0,
                (2, 0x40..=0x7e) => self.state = 0,
                (2, _) => {}
                _ => self.state = 0,
            }
        }
        // Whole UTF-8 characters only.
        let valid = match std::str::from_utf8(&self.pending) {
            Ok(s) => s.len(),
            Err(e) => e.valid_up_to(),
        };
        out.push_str(std::str::from_utf8(&self.pending[..valid]).unwrap());
        self.pending.drain(..valid);
    }
}

impl Pty {
    fn spawn(tag: &str, args: &[&str]) -> Pty {
        let data_dir = unique_dir(&format!("meeple-it-play-{tag}"));
        let _ = std::fs::remove_dir_all(&data_dir);
        Pty::spawn_in(data_dir, args)
    }

    fn spawn_in(data_dir: PathBuf, args: &[&str]) -> Pty {
        let (mut master, mut slave) = (0, 0);
        let size = libc::winsize { ws_row: 50, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: openpty writes two descriptors, which we then own.
        let r =
            unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size) };
        assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
        // Neither end leaks into other children (tests run in parallel).
        for fd in [master, slave] {
            // SAFETY: fcntl on descriptors we own.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        }
        let (master, slave) = unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_meeple"));
        cmd.arg("--data-dir")
            .arg(&data_dir)
            .arg("play")
            .args(args)
            .env("NO_COLOR", "1")
            .env("TERM", "xterm")
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave.try_clone().unwrap()));
        // SAFETY: only async-signal-safe calls between fork and exec: a new
        // session whose controlling terminal is the pseudo-terminal, and no
        // core file (a test ends the program by SIGQUIT).
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let none = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
                libc::setrlimit(libc::RLIMIT_CORE, &none);
                Ok(())
            });
        }
        let child = cmd.spawn().expect("spawn meeple play");
        drop(cmd);
        let (tx, rx) = channel();
        let mut reader = master.try_clone().unwrap();
        let mut answer = master.try_clone().unwrap();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        // The line editor asks where the cursor is: a
                        // terminal answers.
                        if buf[..n].windows(4).any(|w| w == b"\x1b[6n") {
                            let _ = answer.write_all(b"\x1b[1;1R");
                        }
                        if tx.send(buf[..n].to_vec()).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Pty {
            master,
            child,
            chunks: rx,
            shown: String::new(),
            at: 0,
            strip: Strip::default(),
            data_dir,
            slave,
        }
    }

    /// The terminal's local modes (ECHO, ICANON, ISIG, NOFLSH, ...).
    fn lflag(&self) -> libc::tcflag_t {
        // SAFETY: tcgetattr fills the termios.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            assert_eq!(libc::tcgetattr(self.slave.as_raw_fd(), &mut t), 0);
            t.c_lflag
        }
    }

    /// Waits until the terminal's local modes satisfy `ok` (the program
    /// sets them in its own time).
    fn wait_modes(&self, what: &str, ok: impl Fn(libc::tcflag_t) -> bool) {
        let deadline = Instant::now() + SAFETY;
        while !ok(self.lflag()) {
            assert!(Instant::now() < deadline, "the terminal never became {what}: {:#o}", self.lflag());
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits for the program's end; its exit status.
    fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + SAFETY;
        loop {
            while let Ok(bytes) = self.chunks.try_recv() {
                self.strip.feed(&bytes, &mut self.shown);
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "meeple play did not end:\n{}", self.shown);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn signal(&self, sig: i32) {
        // SAFETY: kill of our own child, by its pid.
        assert_eq!(unsafe { libc::kill(self.child.id() as i32, sig) }, 0);
    }

    fn send(&mut self, bytes: &[u8]) {
        self.master.write_all(bytes).unwrap();
        self.master.flush().unwrap();
    }

    /// Types a line and Enter.
    fn line(&mut self, text: &str) {
        self.send(format!("{text}\r").as_bytes());
    }

    /// Waits until one of `pats` shows after what was read before; returns
    /// the index of the pattern and the text up to and including it.
    fn expect_any(&mut self, pats: &[&str]) -> (usize, String) {
        let deadline = Instant::now() + SAFETY;
        loop {
            let rest = &self.shown[self.at..];
            let found = pats.iter().enumerate().filter_map(|(i, p)| rest.find(p).map(|at| (at, i))).min();
            if let Some((at, i)) = found {
                let end = self.at + at + pats[i].len();
                let text = self.shown[self.at..end].to_string();
                self.at = end;
                return (i, text);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(bytes) if !left.is_zero() => self.strip.feed(&bytes, &mut self.shown),
                _ => {
                    let rest = &self.shown[self.at..];
                    let tail = rest.char_indices().rev().nth(4000).map_or(rest, |(i, _)| &rest[i..]);
                    panic!("waited for {pats:?}; the terminal shows (the end after the last match):\n{tail}")
                }
            }
        }
    }

    fn expect(&mut self, pat: &str) -> String {
        self.expect_any(&[pat]).1
    }

    /// Waits for the program's end (its exit status must be success) and
    /// returns what it showed after the last match.
    fn finish(&mut self) -> String {
        let deadline = Instant::now() + SAFETY;
        let mut offered = false;
        loop {
            // A finished game is offered a review: no.
            if !offered && self.shown[self.at..].contains("Review this game? [y/N] ") {
                offered = true;
                self.line("n");
            }
            match self.chunks.recv_timeout(Duration::from_millis(100)) {
                Ok(bytes) => self.strip.feed(&bytes, &mut self.shown),
                Err(_) => {
                    if let Some(status) = self.child.try_wait().unwrap() {
                        assert!(status.success(), "meeple play exited with {status}:\n{}", self.shown);
                        return self.shown[self.at..].to_string();
                    }
                }
            }
            assert!(Instant::now() < deadline, "meeple play did not end:\n{}", self.shown);
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The moves the engine played in `text`: `<Side> plays <move> (<strategy>, ...`.
fn engine_moves(text: &str, strategy: &str) -> Vec<String> {
    let tail = format!(" ({strategy}, ");
    text.lines()
        .filter_map(|l| {
            let at = l.find(" plays ")? + " plays ".len();
            let end = l[at..].find(&tail)? + at;
            Some(l[at..end].to_string())
        })
        .collect()
}

/// `meeple leaderboard --json` of a data folder.
fn leaderboard(data_dir: &Path) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .arg("--data-dir")
        .arg(data_dir)
        .args(["leaderboard", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A person's row of the leaderboard: (wins, losses, draws, games).
fn record_of(data_dir: &Path, name: &str) -> (u64, u64, u64, u64) {
    let board = leaderboard(data_dir);
    let row = board["people"].as_array().unwrap().iter().find(|p| p["name"] == name);
    let row = row.unwrap_or_else(|| panic!("{name} is not on the leaderboard: {board}"));
    let n = |k: &str| row[k].as_u64().unwrap();
    (n("wins"), n("losses"), n("draws"), n("games"))
}

/// Plays `moves` on the test's copy of the game.
fn apply(g: &mut Box<dyn AnyGame>, moves: &[String]) {
    for m in moves {
        g.play_text(m).unwrap_or_else(|e| panic!("the engine's move {m} is not legal here: {e}"));
    }
}

fn random_move(g: &dyn AnyGame, rng: &mut StdRng) -> String {
    let moves = g.valid_moves();
    moves[rng.random_range(0..moves.len())].clone()
}

/// A whole game of Connect Four against `perfect`: the board drawn with
/// the last move in brackets, a hint, undo, a save, a move, the load that
/// takes it back, to the end; the result is on the leaderboard.
#[test]
fn connect_four_to_the_end_with_hint_undo_save_and_load() {
    let mut p = Pty::spawn("c4", &["Connect4", "--time", "0.1", "--name", "Tess"]);
    let prompt = "Tess (Red) > ";
    let first = p.expect(prompt);
    assert!(first.contains(" 1  2  3  4  5  6  7"), "{first}");
    let mut g = registry::new_game("Connect4").unwrap();
    let mut rng = StdRng::seed_from_u64(3);
    let mut turn = 0;
    loop {
        turn += 1;
        match turn {
            2 => {
                p.line("hint");
                let text = p.expect(prompt);
                let hint =
                    text.split("Hint: ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
                assert!(g.valid_moves().contains(&hint), "{text}");
            }
            3 => {
                p.line("undo");
                let text = p.expect(prompt);
                assert!(text.contains("Took back 2 moves."), "{text}");
                g.undo(2).unwrap();
            }
            4 => {
                p.line("save c4-test");
                assert!(p.expect(prompt).contains("Saved as c4-test."));
            }
            _ => {}
        }
        let m = random_move(g.as_ref(), &mut rng);
        p.line(&m);
        let (i, text) = p.expect_any(&[prompt, "Game over:"]);
        assert!(text.contains(&format!("Red (X) plays {m}\n")), "{text}");
        assert!(text.contains("[X]"), "the last move is in brackets: {text}");
        g.play_text(&m).unwrap();
        let answers = engine_moves(&text, "perfect");
        apply(&mut g, &answers);
        if i == 1 {
            break;
        }
        assert_eq!(answers.len(), 1, "{text}");
        assert!(text.contains("[O]"), "{text}");
        if turn == 4 {
            // Back to the saved position: the move and its answer go.
            p.line("load c4-test");
            let text = p.expect(prompt);
            assert!(text.contains("Loaded c4-test"), "{text}");
            g.undo(2).unwrap();
        }
    }
    let end = p.finish();
    assert!(g.is_over(), "{end}");
    assert!(end.contains("Recorded in"), "{end}");
    let (w, l, d, games) = record_of(&p.data_dir, "Tess");
    assert_eq!((w + l + d, games), (1, 1));
}

/// The fixed secret the test keeps as codemaker.
const SECRET: &str = "3516";

/// Black and white pegs of `guess` against `code` (digits), computed here
/// independently of the engine.
fn pegs(guess: &str, code: &str) -> (usize, usize) {
    let black = guess.chars().zip(code.chars()).filter(|(a, b)| a == b).count();
    let common: usize = ('0'..='9').map(|d| guess.matches(d).count().min(code.matches(d).count())).sum();
    (black, common - black)
}

fn all_codes() -> Vec<String> {
    (0..1296)
        .map(|mut n| {
            (0..4)
                .map(|_| {
                    let d = n % 6;
                    n /= 6;
                    char::from(b'1' + d as u8)
                })
                .collect()
        })
        .collect()
}

/// A feedback to `guess` that some code gives but none that fits `rows`:
/// the engine must refuse it naming a row.
fn contradiction(rows: &[(String, (usize, usize))], guess: &str) -> Option<String> {
    let codes = all_codes();
    let fitting: Vec<&String> = codes.iter().filter(|c| rows.iter().all(|(g, f)| pegs(g, c) == *f)).collect();
    let mut given: Vec<(usize, usize)> = codes.iter().map(|c| pegs(guess, c)).collect();
    given.sort();
    given.dedup();
    given
        .into_iter()
        .find(|f| !fitting.iter().any(|c| pegs(guess, c) == *f))
        .map(|(b, w)| format!("{b}B{w}W"))
}

/// A Mastermind match of two rounds against `entropy`: the person breaks
/// the code with hints and an undo, then keeps a code and scores the
/// engine's guesses, one contradicting feedback refused naming its row;
/// the score after each round, the match on the leaderboard.
#[test]
fn a_mastermind_match_in_both_roles_with_a_refused_feedback() {
    let mut p = Pty::spawn("mm", &["Mastermind", "--rounds", "2", "--name", "Tess", "--set", "Seed=5"]);
    let breaker = "Tess (Breaker) > ";
    let maker = "Tess (Maker) > ";
    // Round 1: Tess breaks the code, playing the hints.
    let (mut i, _) = p.expect_any(&[breaker, "Round 1:"]);
    let mut undone = false;
    while i == 0 {
        p.line("hint");
        let text = p.expect(breaker);
        let guess = text.split("Hint: ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
        p.line(&guess);
        let (k, text) = p.expect_any(&[breaker, "Round 1:"]);
        assert!(text.contains(&format!("Breaker plays {guess}\n")), "{text}");
        let fb = engine_moves(&text, "entropy");
        assert_eq!(fb.len(), 1, "the engine's pegs come at once: {text}");
        i = k;
        if !undone && i == 0 {
            p.line("undo");
            let text = p.expect(breaker);
            assert!(text.contains("Took back 2 moves."), "{text}");
            undone = true;
        }
    }
    let summary = p.expect("\n");
    assert!(summary.contains("Points this round: Tess 0, meeple (entropy) "), "{summary}");
    // Round 2: the engine breaks Tess's code.
    let mut history: Vec<(String, (usize, usize))> = Vec::new();
    let mut refused = false;
    loop {
        let (k, text) = p.expect_any(&[maker, "Round 2:"]);
        if k == 1 {
            break;
        }
        let guesses = engine_moves(&text, "entropy");
        let guess = guesses.last().unwrap_or_else(|| panic!("no guess in {text}")).clone();
        if !history.is_empty()
            && !refused
            && let Some(bad) = contradiction(&history, &guess)
        {
            p.line(&bad);
            let text = p.expect(maker);
            assert!(text.contains("contradicts row"), "{bad} to {guess}: {text}");
            refused = true;
        }
        let (b, w) = pegs(&guess, SECRET);
        history.push((guess, (b, w)));
        p.line(&format!("{b}B{w}W"));
    }
    assert!(refused, "no contradicting feedback was tried");
    let end = p.finish();
    assert!(end.contains("Breaker wins in"), "{end}");
    let score = end.split("Score: ").last().unwrap();
    assert!(score.starts_with(&format!("Tess {}, meeple (entropy) ", history.len())), "{end}");
    assert!(end.contains("Match over: "), "{end}");
    let (w, l, d, games) = record_of(&p.data_dir, "Tess");
    assert_eq!((w + l + d, games), (1, 1), "a match counts once");
}

/// A whole game of Hive against `alphabeta` at depth 1, the person
/// playing random legal moves typed in full, to the end.
#[test]
fn hive_to_the_end() {
    let mut p = Pty::spawn("hive", &["Base", "--depth", "1", "--name", "Tess"]);
    let prompt = "Tess (White) > ";
    p.expect(prompt);
    let mut g = registry::new_game("Base").unwrap();
    let mut rng = StdRng::seed_from_u64(11);
    for _ in 0..200 {
        let m = random_move(g.as_ref(), &mut rng);
        p.line(&m);
        let (i, text) = p.expect_any(&[prompt, "Game over:"]);
        g.play_text(&m).unwrap();
        apply(&mut g, &engine_moves(&text, "alphabeta"));
        if i == 1 {
            break;
        }
    }
    let end = p.finish();
    assert!(g.is_over(), "the game did not end in 200 moves: {end}");
    let (w, l, d, games) = record_of(&p.data_dir, "Tess");
    assert_eq!((w + l + d, games), (1, 1));
}

/// Ctrl-C while the engine thinks (60 s a move) makes it move at once;
/// Ctrl-C at the prompt says how to leave; a resignation is recorded.
#[test]
fn ctrl_c_stops_the_search_and_the_prompt_explains() {
    let mut p = Pty::spawn("ctrlc", &["Base", "--second", "--time", "60", "--name", "Tess"]);
    p.expect("thinks");
    p.send(b"\x03");
    let text = p.expect("Tess (Black) > ");
    assert_eq!(engine_moves(&text, "alphabeta").len(), 1, "{text}");
    assert!(text.contains("stopped by Ctrl-C"), "{text}");
    p.send(b"\x03");
    p.expect("Press Ctrl-C again to leave the game, or type quit.");
    p.line("resign");
    let end = p.finish();
    assert!(end.contains("Game over: Black resigned."), "{end}");
    assert_eq!(record_of(&p.data_dir, "Tess"), (0, 1, 0, 1));
}

/// Two people at one terminal (names asked, the second default differing
/// from the first), to a win recorded for both; then the engine watched
/// playing itself, paused by Ctrl-C, to its end (nothing recorded).
#[test]
fn hotseat_to_a_win_and_watching_the_engine() {
    let mut p = Pty::spawn("hotseat", &["Connect4", "--hotseat"]);
    p.expect("Name of the player of Red [");
    p.line("Ann");
    p.expect("Name of the player of Yellow [");
    p.line("Bob");
    for (i, m) in ["1", "2", "1", "2", "1", "2"].iter().enumerate() {
        p.expect(if i % 2 == 0 { "Ann (Red) > " } else { "Bob (Yellow) > " });
        p.line(m);
    }
    p.expect("Ann (Red) > ");
    p.line("1");
    let end = p.finish();
    assert!(end.contains("Game over: Red wins. Ann (Red) beat Bob after 7 moves."), "{end}");
    assert_eq!(record_of(&p.data_dir, "Ann"), (1, 0, 0, 1));
    assert_eq!(record_of(&p.data_dir, "Bob"), (0, 1, 0, 1));

    let mut p = Pty::spawn("watch", &["Connect4", "--watch", "--pause", "0.05", "--depth", "6"]);
    let mut g = registry::new_game("Connect4").unwrap();
    let first = p.expect(" to move: meeple (perfect)\n");
    assert!(first.contains("the engine plays itself"), "{first}");
    p.send(b"\x03");
    let text = p.expect("paused> ");
    apply(&mut g, &engine_moves(&text, "perfect"));
    p.line("");
    let end = p.finish();
    apply(&mut g, &engine_moves(&end, "perfect"));
    assert!(g.is_over(), "{end}");
    assert!(end.contains("Game over: "), "{end}");
    assert!(!end.contains("Recorded in"), "{end}");
}

/// Issue 42 item 4: a game reviewed when `meeple play` offers it keeps
/// each side's accuracy in the results, and the leaderboard shows it.
#[test]
fn a_reviewed_game_keeps_each_sides_accuracy() {
    let mut p = Pty::spawn("review-acc", &["Connect4", "--hotseat"]);
    p.expect("Name of the player of Red [");
    p.line("Ann");
    p.expect("Name of the player of Yellow [");
    p.line("Bob");
    for (i, m) in ["4", "1", "4", "1", "4", "1", "4"].iter().enumerate() {
        p.expect(if i % 2 == 0 { "Ann (Red) > " } else { "Bob (Yellow) > " });
        p.line(m);
    }
    p.expect("Review this game? [y/N] ");
    p.line("y");
    let said = p.expect("on the leaderboard (meeple leaderboard).");
    // Bob never blocked: each of his moves lets Red win sooner.
    assert!(said.contains("??"), "{said}");
    let end = p.finish();
    assert!(!end.contains("could not be stored"), "{end}");
    let board = leaderboard(&p.data_dir);
    let acc = |name: &str| {
        let row = board["people"].as_array().unwrap().iter().find(|r| r["name"] == name).unwrap();
        row["accuracy"].as_f64().unwrap_or_else(|| panic!("no accuracy for {name}: {board}"))
    };
    let (ann, bob) = (acc("Ann"), acc("Bob"));
    assert!((0.0..=100.0).contains(&ann) && (0.0..=100.0).contains(&bob), "{ann} {bob}");
    assert!(ann > bob, "the winner of a game the loser threw plays more accurately: {ann} {bob}");
}

/// ECHO, ICANON and ISIG: a terminal where typing shows, lines can be
/// edited and Ctrl-C is a signal.
const COOKED: libc::tcflag_t = libc::ECHO | libc::ICANON | libc::ISIG;

/// Issue 43, item 8: SIGTERM or SIGHUP at the prompt left the terminal in
/// the line editor's raw mode (no echo, no line editing, no Ctrl-C) with
/// NOFLSH set. Each signal that ends the program, at the prompt (raw mode)
/// and while the engine thinks (NOFLSH), now gives the terminal back as
/// the program found it (a new pseudo-terminal: ECHO, ICANON, ISIG on,
/// NOFLSH off), and the program still ends by that signal.
#[test]
fn a_signal_that_ends_the_game_gives_the_terminal_back() {
    for (sig, at_prompt) in [
        (libc::SIGTERM, true),
        (libc::SIGHUP, true),
        (libc::SIGQUIT, true),
        (libc::SIGTERM, false),
        (libc::SIGHUP, false),
    ] {
        let mut p = if at_prompt {
            Pty::spawn("signal", &["Connect4", "--name", "Tess", "--no-record"])
        } else {
            Pty::spawn("signal", &["Base", "--second", "--time", "60", "--name", "Tess", "--no-record"])
        };
        if at_prompt {
            p.expect("Tess (Red) > ");
            p.wait_modes("raw", |f| f & COOKED == 0);
        } else {
            p.expect("thinks");
            p.wait_modes("NOFLSH", |f| f & libc::NOFLSH != 0);
        }
        p.signal(sig);
        let status = p.wait_exit();
        assert_eq!(status.signal(), Some(sig), "signal {sig}: {status}");
        assert_eq!(
            p.lflag() & (COOKED | libc::NOFLSH),
            COOKED,
            "signal {sig} (at the prompt: {at_prompt}): ECHO, ICANON, ISIG on and NOFLSH off"
        );
    }
}

/// SIGINT never ends the game by a signal: one sent at the prompt does not
/// end it, Ctrl-C twice leaves the game the ordinary way, and the terminal
/// is given back.
#[test]
fn sigint_at_the_prompt_does_not_end_the_game_by_a_signal() {
    let mut p = Pty::spawn("sigint", &["Connect4", "--name", "Tess", "--no-record"]);
    p.expect("Tess (Red) > ");
    p.wait_modes("raw", |f| f & COOKED == 0);
    p.signal(libc::SIGINT);
    p.send(b"\x03");
    p.expect("Press Ctrl-C again to leave the game, or type quit.");
    p.send(b"\x03");
    let status = p.wait_exit();
    assert!(status.success(), "{status}");
    assert_eq!(p.lflag() & (COOKED | libc::NOFLSH), COOKED);
}

/// Points of seat 1 (the person) and seat 2, and the ending, as stored.
type Stored = (u32, u32, String);

/// Each round of the match in `data_dir`, and the match's totals, as
/// stored.
fn stored_match(data_dir: &Path) -> (Vec<Stored>, Stored) {
    let db = rusqlite::Connection::open_with_flags(
        data_dir.join("results.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    let rounds = db
        .prepare(
            "SELECT a.points, b.points, g.ending FROM game g
               JOIN game_seat a ON a.game_id = g.id AND a.seat = 1
               JOIN game_seat b ON b.game_id = g.id AND b.seat = 2
              WHERE g.match_id IS NOT NULL ORDER BY g.round",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let total = db
        .query_row(
            "SELECT a.points, b.points, m.ending FROM matches m
               JOIN match_seat a ON a.match_id = m.id AND a.seat = 1
               JOIN match_seat b ON b.match_id = m.id AND b.seat = 2",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    (rounds, total)
}

/// Issue 43, item 1: a round resigned before the rules ended it was
/// stored 0-0. It scores by the game's rule for a forfeit, the same in
/// what is said and what is stored: the breaker who resigns leaves the code
/// unbroken after every row (the maker scores rows + 1 = 11, not the 3
/// rows used + 1), the maker who resigns scores the guesses made.
#[test]
fn a_resigned_mastermind_round_scores_as_forfeited() {
    // Tess breaks; the engine answers adversarially, so two guesses
    // cannot break the code.
    let mut p = Pty::spawn(
        "mm-resign-breaker",
        &["Mastermind", "--rounds", "2", "--name", "Tess", "--set", "Codemaker=adversarial"],
    );
    for guess in ["1122", "3344"] {
        p.expect("Tess (Breaker) > ");
        p.line(guess);
    }
    p.expect("Tess (Breaker) > ");
    p.line("resign");
    let end = p.finish();
    assert!(
        end.contains("Round 1: Breaker resigned. Points this round: Tess 0, meeple (entropy) 11."),
        "{end}"
    );
    assert!(
        end.contains(
            "Tess resigned the match: meeple (entropy) wins it. Points: Tess 0, meeple (entropy) 11."
        )
    );
    assert_eq!(
        stored_match(&p.data_dir),
        (vec![(0, 11, "resignation".to_string())], (0, 11, "resignation".to_string()))
    );

    // Tess keeps the code and resigns when the engine's second guess
    // waits for its feedback: two guesses made, Tess scores 2.
    let mut p = Pty::spawn("mm-resign-maker", &["Mastermind", "--rounds", "2", "--second", "--name", "Tess"]);
    let text = p.expect("Tess (Maker) > ");
    let guess = engine_moves(&text, "entropy").last().unwrap().clone();
    let (b, w) = pegs(&guess, SECRET);
    p.line(&format!("{b}B{w}W"));
    let (i, text) = p.expect_any(&["Tess (Maker) > ", "Round 1:"]);
    assert_eq!(i, 0, "broken at once? {text}");
    p.line("resign");
    let end = p.finish();
    assert!(end.contains("Round 1: Maker resigned. Points this round: Tess 2, meeple (entropy) 0."), "{end}");
    assert_eq!(
        stored_match(&p.data_dir),
        (vec![(2, 0, "resignation".to_string())], (2, 0, "resignation".to_string()))
    );
}
