//! Protocol fuzzing through the binary (issue 10, "Done when"): tens of
//! thousands of generated commands across the three games, valid ones
//! (built from `validmoves` replies, the real command words and the
//! options the engine lists) and invalid ones (junk, huge numbers,
//! multi-byte text, bytes that are not UTF-8, over-long lines), some sent
//! in bursts right after a `go` without waiting for its reply.
//!
//! Checked for every command: exactly one reply ending in `ok`, in input
//! order; no `err internal error`; after an `err`/`invalidmove`, the
//! position (`show` and `validmoves`, plus `options` after an option
//! command) is exactly what it was; every `bestmove` is one of the
//! `validmoves` of its position.
//!
//! Environment: `MEEPLE_FUZZ_COMMANDS` (default 20000), `MEEPLE_FUZZ_SEED`
//! (default 1), `MEEPLE_FUZZ_SEQUENTIAL=1` (never send a command before the
//! previous reply is read). A long run:
//!
//! ```text
//! MEEPLE_FUZZ_COMMANDS=1000000 MEEPLE_FUZZ_SEED=7 cargo test --release --test tests fuzz -- --nocapture
//! ```

use crate::common::Engine;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok()).unwrap_or(default)
}

const GAME_TYPES: &[&str] = &[
    "Connect4",
    "Connect4+5x4",
    "Connect4+4x4",
    "Connect4+9x5",
    "Mastermind",
    "Mastermind+3x3",
    "Mastermind+4x3",
    "Mastermind+2x5",
    "Mastermind+3x5",
    "Mastermind+2x9",
    "Mastermind+2x4+blanks",
    "Mastermind+4x6+letters+norepeat",
    "Mastermind+3x4+colours+rows3",
    "Base",
    "Base+M",
    "Base+MLP",
    "Base+LP",
];

const JUNK_WORDS: &[&str] = &[
    "",
    "0",
    "-1",
    "99999999999999999999999999",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "1e308",
    "NaN",
    "é",
    "Reé[1]",
    "Red[1٤]",
    "Whé",
    "١٢٣",
    "\u{1F600}",
    "\u{301}",
    "a\rok\rb",
    "\u{1b}[2J",
    ";;;;",
    ";",
    "[",
    "]",
    "../../etc/passwd",
    "/dev/zero",
    "wQ",
    "wS1 -bQ",
    "bestmove",
    "ok",
    "\t",
    "Connect4;InProgress",
    "Connect4;InProgress;Red[0]",
    "Connect4;Draw;Yellow[99999999999]",
    "Mastermind;InProgress;Breaker[1];Secret=1234",
    "Base;InProgress;White[1];wQ;bQ wQ-;wQ",
];

const WORDS: &[&str] = &[
    "info",
    "help",
    "newgame",
    "position",
    "play",
    "pass",
    "undo",
    "validmoves",
    "bestmove",
    "go",
    "stop",
    "analyze",
    "setoption",
    "options",
    "movetree",
    "show",
    "save",
    "load",
    "saves",
    "isready",
];

/// What the generator knows of the engine's state.
#[derive(Clone, Debug, PartialEq)]
struct Probe {
    show: Vec<String>,
    valid: Vec<String>,
    options: Vec<String>,
}

impl Probe {
    /// Legal moves, when `validmoves` listed them.
    fn moves(&self) -> Option<Vec<String>> {
        let l = self.valid.first()?;
        if self.valid.len() != 1 || l.starts_with("err ") || l.is_empty() {
            return None;
        }
        Some(l.split(';').map(str::to_string).collect())
    }
}

/// One command and what to check in its reply.
#[derive(Clone, Debug)]
struct Cmd {
    bytes: Vec<u8>,
    /// May change the game (a success is followed by a new probe).
    mutating: bool,
    /// Touches options (an error re-checks `options` too).
    option: bool,
    /// Reply ends with `bestmove <m>` (go) or is the move alone (bestmove).
    search: Option<SearchKind>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum SearchKind {
    Go,
    BestMove,
}

impl Cmd {
    fn text(s: impl Into<String>) -> Cmd {
        Cmd { bytes: s.into().into_bytes(), mutating: false, option: false, search: None }
    }
    fn mutating(mut self) -> Cmd {
        self.mutating = true;
        self
    }
    fn label(&self) -> String {
        let s = String::from_utf8_lossy(&self.bytes);
        s.chars().take(120).collect::<String>().escape_debug().to_string()
    }
}

struct Fuzzer {
    rng: StdRng,
    /// Options listed per family (`Name;type;value;default;...`).
    options: Vec<Vec<String>>,
    /// The last GameString a command answered.
    game: String,
    probe: Probe,
}

impl Fuzzer {
    fn junk(&mut self) -> String {
        let r = &mut self.rng;
        match r.random_range(0..5) {
            0 => JUNK_WORDS.choose(r).unwrap().to_string(),
            1 => (0..r.random_range(1..40))
                .map(|_| char::from_u32(r.random_range(0x20..0x3000)).unwrap_or('?'))
                .collect(),
            2 => r.random::<u64>().to_string(),
            3 => format!("{}", r.random::<i64>()),
            _ => {
                let a = JUNK_WORDS.choose(r).unwrap();
                let b = JUNK_WORDS.choose(r).unwrap();
                format!("{a}{b}")
            }
        }
    }

    fn game_type(&mut self) -> String {
        GAME_TYPES.choose(&mut self.rng).unwrap().to_string()
    }

    fn valid_move(&mut self) -> Option<String> {
        let moves = self.probe.moves()?;
        moves.choose(&mut self.rng).cloned()
    }

    /// A GameString close to the current one: cut, extended, or with a
    /// multi-byte character put somewhere.
    fn near_game_string(&mut self) -> String {
        let g = self.game.clone();
        let cuts: Vec<usize> = g.char_indices().map(|(i, _)| i).chain([g.len()]).collect();
        let i = *cuts.choose(&mut self.rng).unwrap();
        match self.rng.random_range(0..4) {
            0 => g,
            1 => g[..i].to_string(),
            2 => {
                let j = self.junk();
                format!("{}{j}{}", &g[..i], &g[i..])
            }
            _ => match self.valid_move() {
                Some(m) => format!("{g};{m}"),
                None => g,
            },
        }
    }

    fn option_line(&mut self) -> Option<String> {
        let fam = self.options.choose(&mut self.rng)?.clone();
        fam.choose(&mut self.rng).cloned()
    }

    /// A value for an option line: valid most of the time.
    fn option_value(&mut self, line: &str) -> String {
        let f: Vec<&str> = line.split(';').collect();
        if self.rng.random_bool(0.25) || f.len() < 4 {
            return self.junk();
        }
        let name = f[0];
        match f[1] {
            "int" => {
                let min: i64 = f.get(4).and_then(|v| v.parse().ok()).unwrap_or(0);
                let max: i64 = f.get(5).and_then(|v| v.parse().ok()).unwrap_or(1);
                // Small values only: a table of the largest size is another
                // test's business, and searches stay quick.
                let cap = match name {
                    "Hash" => 64,
                    "Depth" => 6,
                    "Move Overhead" => 50,
                    _ => max,
                };
                let hi = max.min(cap).max(min);
                self.rng.random_range(min..=hi).to_string()
            }
            "bool" => ["True", "False", "true", "0"].choose(&mut self.rng).unwrap().to_string(),
            "enum" => {
                let choices = &f[4..];
                choices.choose(&mut self.rng).unwrap_or(&"x").to_string()
            }
            _ => match self.rng.random_range(0..3) {
                0 => String::new(),
                1 => self.valid_move().unwrap_or_default(),
                _ => self.junk(),
            },
        }
    }

    fn limits(&mut self) -> String {
        let ms = self.rng.random_range(1..=15);
        match self.rng.random_range(0..4) {
            0 => format!("movetime {ms}"),
            1 => format!("depth {} movetime {ms}", self.rng.random_range(1..4)),
            2 => format!("nodes {} movetime {ms}", self.rng.random_range(1..5000)),
            _ => format!("wtime {} btime {} winc 0 binc 0", ms * 20, ms * 20),
        }
    }

    /// One command, valid or not.
    fn command(&mut self) -> Cmd {
        let r = self.rng.random_range(0..100);
        match r {
            0..=27 => match self.valid_move() {
                Some(m) => Cmd::text(format!("play {m}")).mutating(),
                None => Cmd::text(format!("newgame {}", self.game_type())).mutating(),
            },
            28..=31 => {
                let j = self.junk();
                Cmd::text(format!("play {j}")).mutating()
            }
            32..=35 => {
                let n = match self.rng.random_range(0..4) {
                    0 => String::new(),
                    1 => self.rng.random_range(0..4).to_string(),
                    2 => self.junk(),
                    _ => "99999999999999999999".into(),
                };
                Cmd::text(format!("undo {n}")).mutating()
            }
            36..=41 => {
                let t = match self.rng.random_range(0..3) {
                    0 => self.game_type(),
                    1 => self.near_game_string(),
                    _ => format!("{}{}", self.game_type(), self.junk()),
                };
                Cmd::text(format!("newgame {t}")).mutating()
            }
            42..=44 => {
                let base = match self.rng.random_range(0..3) {
                    0 => "startpos".to_string(),
                    1 => self.game_type(),
                    _ => self.near_game_string(),
                };
                let moves = match (self.rng.random_bool(0.5), self.valid_move()) {
                    (true, Some(m)) => format!(" moves {m}"),
                    (true, None) => format!(" moves {}", self.junk()),
                    _ => String::new(),
                };
                Cmd::text(format!("position {base}{moves}")).mutating()
            }
            45..=47 => Cmd::text("pass").mutating(),
            48..=55 => {
                let l = self.limits();
                Cmd { search: Some(SearchKind::Go), ..Cmd::text(format!("go {l}")) }
            }
            56 => {
                // `bestmove` has no movetime form below a second: a depth
                // on the games whose depth is quick.
                if self.game.starts_with("Connect4") {
                    Cmd::text("bestmove depth 99999999999999999999")
                } else {
                    Cmd { search: Some(SearchKind::BestMove), ..Cmd::text("bestmove depth 1") }
                }
            }
            57..=59 => {
                let l = self.limits();
                let extra =
                    if self.rng.random_bool(0.3) { format!(" {}", self.junk()) } else { String::new() };
                Cmd::text(format!("analyze {l}{extra}"))
            }
            60..=67 => {
                let Some(line) = self.option_line() else { return Cmd::text("options") };
                let name = line.split(';').next().unwrap_or("").to_string();
                let value = self.option_value(&line);
                let c = if self.rng.random_bool(0.7) {
                    format!("setoption name {name} value {value}")
                } else {
                    format!("options set {name} {value}")
                };
                Cmd { option: true, ..Cmd::text(c) }
            }
            68..=69 => {
                let j = self.junk();
                Cmd { option: true, ..Cmd::text(format!("setoption name {j} value {}", self.junk())) }
            }
            70..=76 => {
                let c = ["validmoves", "show", "options", "help", "info", "isready", "stop", "movetree"]
                    .choose(&mut self.rng)
                    .unwrap();
                Cmd::text(*c)
            }
            77 => Cmd::text("movetree json"),
            78..=79 => {
                let name = ["f1", "f2", "g.v2"].choose(&mut self.rng).unwrap().to_string();
                let name = if self.rng.random_bool(0.3) { self.junk() } else { name };
                match self.rng.random_range(0..3) {
                    0 => Cmd::text(format!("save {name}")),
                    1 => Cmd::text(format!("load {name}")).mutating(),
                    _ => Cmd::text("saves"),
                }
            }
            80..=89 => {
                // A real command word with junk arguments.
                let w = WORDS.choose(&mut self.rng).unwrap();
                let j = self.junk();
                let mutating = matches!(*w, "newgame" | "position" | "play" | "pass" | "undo" | "load");
                let option = *w == "setoption" || *w == "options";
                let search = match *w {
                    "go" | "bestmove" | "analyze" => None,
                    _ => None,
                };
                // Junk after go/bestmove/analyze is refused by the parser
                // unless it happens to be a limit: always give a short one.
                let bytes = match *w {
                    "go" | "analyze" => format!("{w} movetime 5 {j}"),
                    "bestmove" => format!("{w} {j}x"),
                    _ => format!("{w} {j}"),
                };
                Cmd { bytes: bytes.into_bytes(), mutating, option, search }
            }
            90..=96 => {
                let j = self.junk();
                Cmd::text(format!("x{j}"))
            }
            97 => {
                // Bytes that are not UTF-8 (never a newline).
                let mut b: Vec<u8> = (0..self.rng.random_range(1..30))
                    .map(|_| self.rng.random_range(0x80..=0xff_u8))
                    .collect();
                b.insert(0, b'p');
                Cmd { bytes: b, mutating: true, option: false, search: None }
            }
            98 => Cmd::text(format!("play {}", "9".repeat(self.rng.random_range(20..2000)))).mutating(),
            _ => {
                if self.rng.random_bool(0.05) {
                    // Longer than the 65536-byte line limit.
                    Cmd::text(format!("newgame {}", "é".repeat(40_000))).mutating()
                } else {
                    Cmd::text(format!("newgame {}", self.game_type())).mutating()
                }
            }
        }
    }
}

/// A line whose first word is one the engine acts on at once even during
/// a search (its reply may come before the search's).
fn acts_at_once(line: &[u8]) -> bool {
    let text = String::from_utf8_lossy(line);
    let word = text.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    matches!(word.as_str(), "stop" | "isready" | "quit" | "exit" | "ponderhit")
}

fn is_error(reply: &[String]) -> bool {
    reply.iter().any(|l| l.starts_with("err ") || l.starts_with("invalidmove "))
}

struct Run<'a> {
    e: &'a mut Engine,
    fz: Fuzzer,
    sent: usize,
    searches: usize,
    errors: usize,
    bursts: usize,
    /// Replies (other than `show`) echoing a control character other than
    /// a line break (an ESC of the user's text, say).
    control: usize,
}

impl Run<'_> {
    fn probe(&mut self) -> Probe {
        let show = self.e.cmd("show");
        let valid = self.e.cmd("validmoves");
        let options = self.e.cmd("options");
        Probe { show, valid, options }
    }

    /// Checks one reply against the state before it; returns whether the
    /// game may have changed.
    fn check(&mut self, c: &Cmd, before: &Probe, reply: &[String]) -> bool {
        let label = c.label();
        assert_eq!(reply.last().map(String::as_str), Some("ok"), "{label}: {reply:?}");
        let body = &reply[..reply.len() - 1];
        assert!(!body.iter().any(|l| l == "ok"), "{label}: two replies? {reply:?}");
        assert!(!body.iter().any(|l| l.contains("internal error")), "{label}: {reply:?}");
        // A line break inside a line would let text pose as a reply.
        assert!(!body.iter().any(|l| l.contains('\r')), "{label}: carriage return in {reply:?}");
        // `show` may carry the colour codes of `Color always` (however the
        // word is written); any other reply must be clean.
        let is_show = String::from_utf8_lossy(&c.bytes)
            .split_whitespace()
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("show"));
        if !is_show && body.iter().any(|l| l.chars().any(|ch| ch.is_control())) {
            self.control += 1;
            if self.control <= 3 {
                eprintln!("fuzz: control character in the reply to {label}: {body:?}");
            }
        }
        if is_error(body) {
            self.errors += 1;
            return false;
        }
        if let Some(kind) = c.search {
            self.searches += 1;
            let mv = match kind {
                SearchKind::Go => {
                    let b: Vec<&String> = body.iter().filter(|l| l.starts_with("bestmove")).collect();
                    assert_eq!(b.len(), 1, "{label}: {reply:?}");
                    b[0].strip_prefix("bestmove ").unwrap_or("").to_string()
                }
                SearchKind::BestMove => body.last().cloned().unwrap_or_default(),
            };
            if let Some(moves) = before.moves() {
                assert!(
                    moves.contains(&mv),
                    "{label}: bestmove '{mv}' not in {:?} / {:?}",
                    before.valid,
                    body
                );
            }
        }
        if c.mutating
            && let Some(gs) = body.first()
        {
            self.fz.game = gs.clone();
        }
        // An error changes nothing (compared by the caller); so does a
        // read-only command or a search. Other successes may change it.
        c.mutating || c.option
    }

    /// Sends `cmds`, each followed by a probe (`show`, `validmoves`,
    /// `options`), in one write (or, `sequential`, each only once the
    /// previous reply is read) and checks the replies in order.
    fn burst(&mut self, cmds: Vec<Cmd>, sequential: bool) {
        const PROBE: &[u8] = b"\nshow\nvalidmoves\noptions\n";
        if !sequential {
            let mut bytes = Vec::new();
            for c in &cmds {
                bytes.extend_from_slice(&c.bytes);
                bytes.extend_from_slice(PROBE);
            }
            self.e.send_raw(&bytes);
        }
        let mut before = self.fz.probe.clone();
        for c in &cmds {
            if sequential {
                let mut b = c.bytes.clone();
                b.push(b'\n');
                self.e.send_raw(&b);
            }
            let reply = self.e.read_reply();
            if sequential {
                self.e.send_raw(&PROBE[1..]);
            }
            self.sent += 1;
            let changed = self.check(c, &before, &reply);
            let take = || {
                let mut r = self.e.read_reply();
                r.pop();
                r
            };
            let after = Probe { show: take(), valid: take(), options: take() };
            if !changed {
                assert_eq!(after, before, "{}: {reply:?} changed the state", c.label());
            }
            before = after;
        }
        self.fz.probe = before;
    }
}

#[test]
fn fuzzed_commands_get_one_reply_each_and_errors_change_nothing() {
    let total: usize = env_or("MEEPLE_FUZZ_COMMANDS", 20_000);
    let seed: u64 = env_or("MEEPLE_FUZZ_SEED", 1);
    let sequential = env_or("MEEPLE_FUZZ_SEQUENTIAL", 0) != 0;
    let mut e = Engine::start("fuzz");
    // Reproducible searches; the tables stay small.
    e.cmd("setoption name Seed value 1");
    e.cmd("setoption name Hash value 16");
    let mut options = Vec::new();
    for t in ["Connect4", "Mastermind", "Base"] {
        e.cmd(&format!("newgame {t}"));
        options.push(e.cmd("options"));
    }
    let mut run = Run {
        e: &mut e,
        fz: Fuzzer {
            rng: StdRng::seed_from_u64(seed),
            options,
            game: String::new(),
            probe: Probe { show: vec![], valid: vec![], options: vec![] },
        },
        sent: 0,
        searches: 0,
        errors: 0,
        bursts: 0,
        control: 0,
    };
    run.fz.game = run.e.one("newgame Connect4");
    run.fz.probe = run.probe();
    while run.sent < total {
        let first = run.fz.command();
        let mut cmds = vec![first.clone()];
        // After a search, more commands at once without waiting for it.
        if first.search == Some(SearchKind::Go) && !sequential {
            run.bursts += 1;
            if run.fz.rng.random_bool(0.2) {
                cmds.push(Cmd::text("stop"));
            }
            for _ in 0..run.fz.rng.random_range(1..6) {
                let c = run.fz.command();
                // `isready` and `stop` answer at once during a search (out
                // of input order): only `stop` right after `go`, above.
                if acts_at_once(&c.bytes) {
                    continue;
                }
                cmds.push(c);
            }
        }
        run.burst(cmds, sequential);
    }
    let (sent, searches, errors, bursts, control) =
        (run.sent, run.searches, run.errors, run.bursts, run.control);
    eprintln!(
        "fuzz: seed {seed}: {sent} commands, {searches} searches, {errors} errors, {bursts} bursts after go, \
         {control} replies echoing a control character"
    );
    assert!(searches > 0 && errors > 0);
    // No reply carries a control character from the input (an ESC of
    // the user's text, say): every echoed text is cleaned.
    assert_eq!(control, 0, "replies echoing a control character");
    e.send("quit");
    assert_eq!(e.close(), 0);
}
