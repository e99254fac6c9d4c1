//! The session: the engine's one state machine. It holds the game, the
//! options, the player and the saves, takes commands in the order they
//! arrive and answers them in that order, whatever the dialect (meeple's
//! own, UCI, UGI: see `dialect.rs`). It writes to any `W: Write` (stdout in
//! the binary, a buffer in tests) and knows no game by name.
//!
//! While a search runs (on its own thread, see `runner.rs`) only `stop`,
//! `isready`, `quit`, `ponderhit` and signals act at once; every other
//! command waits in the queue and runs, in order, when the search is over.
//! The commands themselves are in `dispatch.rs`.

use std::collections::VecDeque;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use log::warn;
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::command::{Command, ParseError, parse_command};
use super::dialect::{Dialect, Failure, Reply, err};
use super::input::{InputLine, MAX_LINE, Permit};
use super::output::Out;
use super::runner::{Notify, Running};
use super::settings::Settings;
use crate::registry::{self, AnyGame, AnyPlayer};
use crate::saves::Saves;
use crate::time::Instant;

/// How the session was started.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// Game type of `newgame` with no argument, `position startpos` in
    /// UCI/UGI modes and `ucinewgame` (the `UCI_Variant` default).
    pub default_type: String,
    pub data_dir: PathBuf,
    /// True if stdout is a terminal and `NO_COLOR` is not set (for
    /// `Color auto`).
    pub color: bool,
    /// True if a person types at a terminal (Ctrl-C while idle exits).
    pub interactive: bool,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            default_type: "Connect4".into(),
            data_dir: PathBuf::from("meeple-data"),
            color: false,
            interactive: false,
        }
    }
}

/// A signal the engine handles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// Stops a search; while idle, exits (at a terminal at once, else on a
    /// second one within two seconds).
    Interrupt,
    /// SIGTERM, SIGHUP: the running search's move is printed, then exit.
    Terminate,
}

/// A command waiting for its turn.
pub(super) struct Queued {
    pub item: Item,
    /// Holds the line's share of the input budget until it has run.
    _permit: Option<Permit>,
}

pub(super) enum Item {
    Command(Command),
    /// A line that failed before parsing or in it: answered in turn.
    Failed(Failure),
    /// The in-turn reply of a command that already acted (`stop`,
    /// `ponderhit`: `ok`; `quit`: exit).
    Ack(Command),
}

/// The protocol state machine.
pub struct Session<W: Write + Send + 'static> {
    pub(super) out: Out<W>,
    pub(super) dialect: Dialect,
    pub(super) config: SessionConfig,
    pub(super) game: Option<Box<dyn AnyGame>>,
    pub(super) settings: Settings,
    pub(super) rng: StdRng,
    pub(super) player: Option<(&'static str, Box<dyn AnyPlayer>)>,
    pub(super) search: Option<Running>,
    /// When the command running now arrived: read from the input, or its
    /// turn came after waiting behind a search. A search's clock runs from
    /// then, so time lost before the search thread runs counts.
    pub(super) arrived: Instant,
    pub(super) saves: Saves,
    queue: VecDeque<Queued>,
    notify: Option<Notify>,
    last_sigint: Option<Instant>,
    /// End of input was seen: exit once the queue is done.
    eof: bool,
    /// `quit` or a signal asked to exit: searches still to come stop at
    /// once.
    pub(super) quitting: bool,
    exit: Option<u8>,
}

impl<W: Write + Send + 'static> Session<W> {
    pub fn new(out: W, config: SessionConfig) -> Self {
        let family = registry::new_game(&config.default_type)
            .map(|g| g.family())
            .unwrap_or_else(|_| registry::families()[0]);
        Session {
            out: Out::new(out),
            dialect: Dialect::Meeple,
            saves: Saves::new(&config.data_dir),
            settings: Settings::new(&config.default_type, family),
            config,
            game: None,
            rng: StdRng::from_os_rng(),
            player: None,
            search: None,
            arrived: Instant::now(),
            queue: VecDeque::new(),
            notify: None,
            last_sigint: None,
            eof: false,
            quitting: false,
            exit: None,
        }
    }

    /// Called by each search thread once its reply is written (the binary's
    /// event loop then calls [`Session::on_search_done`]).
    pub fn set_notify(&mut self, notify: Notify) {
        self.notify = Some(notify);
    }

    pub(super) fn notifier(&self) -> Option<Notify> {
        self.notify.clone()
    }

    /// The shared output (tests read what was written).
    pub fn output(&self) -> std::sync::Arc<std::sync::Mutex<W>> {
        self.out.shared()
    }

    /// `Some(status)` once the engine must exit.
    pub fn exit_status(&self) -> Option<u8> {
        self.exit
    }

    /// True once the engine must exit.
    pub fn should_quit(&self) -> bool {
        self.exit.is_some()
    }

    /// True while a search runs.
    pub fn is_searching(&mut self) -> bool {
        self.pump();
        self.search.is_some()
    }

    /// Commands waiting for the search to end.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// The startup banner: `info`'s output and `ok`.
    pub fn greet(&mut self) {
        let lines = self.info_lines();
        self.write_reply(Ok(lines));
    }

    pub(super) fn write_reply(&self, reply: Reply) {
        self.out.write_block(&self.dialect.frame(&reply));
    }

    // ----- input ------------------------------------------------------------

    /// Handles one line of input.
    pub fn handle_input(&mut self, input: InputLine) {
        self.handle_input_at(input, None, Instant::now())
    }

    /// Handles one line of input read at `at`, holding its share of the
    /// input budget (released when the command has run): a search it
    /// starts counts its time from `at`.
    pub fn handle_input_at(&mut self, input: InputLine, permit: Option<Permit>, at: Instant) {
        match input {
            InputLine::TooLong(n) => self.submit(
                Item::Failed(Failure::Err(format!("line too long ({n} bytes; the limit is {MAX_LINE})"))),
                permit,
                at,
            ),
            InputLine::NotUtf8 => {
                self.submit(Item::Failed(Failure::Err("input is not valid UTF-8".into())), permit, at)
            }
            InputLine::Line(l) => self.handle_line_at(&l, permit, at),
        }
    }

    /// Handles one line of text.
    pub fn handle_line(&mut self, line: &str) {
        self.handle_line_at(line, None, Instant::now())
    }

    fn handle_line_at(&mut self, line: &str, permit: Option<Permit>, at: Instant) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            return;
        }
        let item = match parse_command(line) {
            Ok(c) => Item::Command(c),
            Err(e) => Item::Failed(self.parse_failure(e)),
        };
        self.submit(item, permit, at);
    }

    fn parse_failure(&self, e: ParseError) -> Failure {
        Failure::Err(e.to_string())
    }

    /// Runs a command now, or queues it behind the running search.
    fn submit(&mut self, item: Item, permit: Option<Permit>, at: Instant) {
        self.pump();
        if self.search.is_some() {
            if let Item::Command(c) = &item
                && c.is_immediate()
            {
                return self.immediate(c.clone(), permit);
            }
            self.queue.push_back(Queued { item, _permit: permit });
            return;
        }
        self.arrived = at;
        self.run_item(item);
        drop(permit);
        self.pump();
    }

    /// `stop`, `isready`, `quit`, `ponderhit` while a search runs.
    fn immediate(&mut self, c: Command, permit: Option<Permit>) {
        let s = self.search.as_ref().expect("searching");
        match c {
            Command::IsReady => self.write_reply(Ok(vec!["readyok".into()])),
            Command::Stop => {
                s.stop.stop();
                self.queue.push_back(Queued { item: Item::Ack(Command::Stop), _permit: permit });
            }
            Command::PonderHit => {
                s.progress.ponder_hit();
                self.queue.push_back(Queued { item: Item::Ack(Command::PonderHit), _permit: permit });
            }
            Command::Quit => {
                s.stop.stop();
                self.quitting = true;
                self.queue.push_back(Queued { item: Item::Ack(Command::Quit), _permit: permit });
            }
            _ => unreachable!("not an immediate command"),
        }
    }

    /// Reaps a finished search and runs waiting commands until one starts
    /// a search or the queue is empty.
    pub fn pump(&mut self) {
        loop {
            if let Some(s) = &self.search {
                if !s.is_done() {
                    return;
                }
                let s = self.search.take().expect("checked");
                self.keep_player(s.join());
            }
            let Some(q) = self.queue.pop_front() else { break };
            // A command that waited: its time starts with its turn.
            self.arrived = Instant::now();
            self.run_item(q.item);
        }
        if self.eof && self.search.is_none() && self.queue.is_empty() && self.exit.is_none() {
            self.exit = Some(0);
        }
    }

    /// Runs one command in its turn (no search is running).
    fn run_item(&mut self, item: Item) {
        match item {
            Item::Failed(f) => self.write_reply(Err(f)),
            Item::Ack(Command::Quit) => self.exit = Some(0),
            Item::Ack(_) => self.write_reply(Ok(vec![])),
            Item::Command(c) => self.run_command(c),
        }
    }

    // ----- events -----------------------------------------------------------

    /// A search thread has written its reply.
    pub fn on_search_done(&mut self) {
        self.pump();
    }

    /// SIGINT, SIGTERM, SIGHUP.
    pub fn handle_signal(&mut self, sig: Signal) {
        self.pump();
        match sig {
            Signal::Terminate => {
                self.quitting = true;
                self.queue.clear();
                if let Some(s) = self.search.take() {
                    s.stop.stop();
                    let p = s.join();
                    self.keep_player(p);
                }
                self.exit = Some(0);
            }
            Signal::Interrupt => {
                if let Some(s) = &self.search {
                    s.stop.stop();
                    return;
                }
                let now = Instant::now();
                if self.config.interactive
                    || self.last_sigint.is_some_and(|t| now.duration_since(t) < Duration::from_secs(2))
                {
                    self.exit = Some(130);
                } else {
                    warn!("SIGINT ignored while idle; send quit, close input, or press Ctrl-C again to exit");
                    self.last_sigint = Some(now);
                }
            }
        }
    }

    /// SIGINT (kept for callers of the old name).
    pub fn handle_sigint(&mut self) {
        self.handle_signal(Signal::Interrupt)
    }

    /// End of input: a search with no limit is stopped, a limited one
    /// finishes; the waiting commands run; then the engine exits.
    pub fn handle_eof(&mut self) {
        self.eof = true;
        if let Some(s) = &self.search
            && s.unbounded
        {
            s.stop.stop();
        }
        self.pump();
    }

    /// Blocks until no search runs and no command waits (tests, and the
    /// end of the binary).
    pub fn wait_idle(&mut self) {
        loop {
            self.pump();
            match self.search.take() {
                Some(s) => {
                    let p = s.join();
                    self.keep_player(p);
                }
                None if self.queue.is_empty() => return,
                None => {}
            }
        }
    }

    /// Same as [`Session::wait_idle`].
    pub fn wait_search(&mut self) {
        self.wait_idle()
    }

    fn keep_player(&mut self, p: Option<Box<dyn AnyPlayer>>) {
        if let (Some(p), Some(g)) = (p, &self.game) {
            self.player = Some((g.family().name, p));
        }
    }

    /// True if a search about to start must stop at once (the engine is
    /// quitting, or input ended and it has no limit).
    pub(super) fn must_stop_at_once(&self, unbounded: bool) -> bool {
        self.quitting || (self.eof && unbounded)
    }

    pub(super) fn set_exit(&mut self, status: u8) {
        self.exit = Some(status);
    }

    /// A reply for a command that cannot run in this state.
    pub(super) fn no_game<T>(&self) -> Result<T, Failure> {
        err("no game in progress")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Drives a session in-process and returns everything it wrote.
    fn run(lines: &[&str]) -> String {
        let mut s = Session::new(Vec::<u8>::new(), SessionConfig::default());
        for l in lines {
            s.handle_line(l);
            s.wait_search();
        }
        let out = s.output();
        let bytes = out.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    /// A search's clock runs from when its line was read, not from when
    /// its thread got to run: a `go` read 2 s before the session took it
    /// up reports at least those 2 s in its first `info` line.
    #[test]
    fn a_search_counts_its_time_from_the_lines_arrival() {
        let mut s = Session::new(Vec::<u8>::new(), SessionConfig::default());
        for l in ["newgame Connect4", "play 4", "play 4", "play 5"] {
            s.handle_line(l);
        }
        let read = Instant::now().checked_sub(Duration::from_secs(2)).expect("the machine is up for 2 s");
        s.handle_input_at(InputLine::Line("go depth 3".into()), None, read);
        s.wait_search();
        let out = String::from_utf8(s.output().lock().unwrap().clone()).unwrap();
        let info = out.lines().find(|l| l.starts_with("info depth")).expect("an info line");
        let ms: u64 = info
            .split(' ')
            .skip_while(|w| *w != "time")
            .nth(1)
            .and_then(|t| t.parse().ok())
            .unwrap_or_else(|| panic!("no time in {info}"));
        assert!(ms >= 2000, "{info}");
        assert!(out.lines().any(|l| l.starts_with("bestmove ")), "{out}");
    }

    #[test]
    fn every_reply_ends_with_ok() {
        let cmds = [
            "newgame",
            "play 4",
            "play 44",
            "undo 9",
            "validmoves",
            "bogus",
            "options",
            "movetree json",
            "go depth 2",
            "bestmove depth 1",
            "stop",
            "isready",
        ];
        let text = run(&cmds);
        assert_eq!(text.lines().filter(|l| *l == "ok").count(), cmds.len());
        assert!(text.ends_with("ok\n"));
    }

    #[test]
    fn errors_change_nothing() {
        let text = run(&["newgame", "play 4", "play 9", "undo 5", "validmoves"]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            vec![
                "Connect4;NotStarted;Red[1]",
                "ok",
                "Connect4;InProgress;Yellow[1];4",
                "ok",
                "invalidmove cannot parse move: '9' is not a column 1..7",
                "ok",
                "err cannot undo 5 plies: only 1 played",
                "ok",
                "1;2;3;4;5;6;7",
                "ok",
            ]
        );
    }

    #[test]
    fn comments_and_blank_lines_are_silent() {
        assert_eq!(run(&["", "   ", "# newgame", "\t"]), "");
    }
}

#[cfg(test)]
mod fuzz {
    use super::*;
    use rand::Rng;
    use rand::seq::IndexedRandom;

    /// Thousands of random lines built from real command words, arguments
    /// of every game and junk: the session never panics, and every line
    /// gets exactly one reply ending in `ok`.
    #[test]
    fn random_command_soup() {
        let words = [
            "newgame",
            "play",
            "pass",
            "undo",
            "validmoves",
            "bestmove depth 1",
            "go depth 1",
            "go nodes 200",
            "go movetime 5",
            "analyze movetime 5",
            "options",
            "options get",
            "options set",
            "setoption name",
            "value",
            "movetree",
            "movetree json",
            "show",
            "info",
            "help",
            "position",
            "startpos",
            "moves",
            "isready",
            "stop",
            "Connect4",
            "Connect4+5x4",
            "Mastermind",
            "Mastermind+3x4",
            "Base",
            "Base+MLP",
            "Connect4;InProgress;Red[1]",
            "Base;InProgress;White[2];wS1",
            "4",
            "9",
            "0",
            "1122",
            "2B1W",
            "wS1",
            "bG1 -wS1",
            "wQ wS1/",
            "Strategy",
            "random",
            "Depth",
            "3",
            "Hash",
            "16",
            "-1",
            ";",
            "[",
            "\u{0}",
            "é",
            "saves",
            "load",
            "x/y",
            "..",
        ];
        let mut rng = StdRng::seed_from_u64(99);
        let dir = std::env::temp_dir().join(format!("meeple-fuzz-{}", std::process::id()));
        let config = SessionConfig { data_dir: dir.clone(), ..SessionConfig::default() };
        let mut s = Session::new(Vec::<u8>::new(), config);
        // Keep every search short: the fuzzer never sends an unlimited one.
        s.handle_line("setoption name Connect4.Strategy value attack");
        s.handle_line("setoption name Hash value 16");
        let mut sent = 2;
        for _ in 0..3000 {
            let n = rng.random_range(1..5);
            let line: Vec<&str> = (0..n).map(|_| *words.choose(&mut rng).unwrap()).collect();
            let line = line.join(" ");
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let first = line.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
            if first == "quit" || first == "exit" {
                continue;
            }
            s.handle_line(&line);
            s.wait_search();
            sent += 1;
        }
        let out = String::from_utf8(s.output().lock().unwrap().clone()).unwrap();
        assert_eq!(out.lines().filter(|l| *l == "ok").count(), sent);
        assert!(out.ends_with("ok\n"));
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[cfg(test)]
mod order {
    use super::*;

    fn text(s: &Session<Vec<u8>>) -> String {
        String::from_utf8(s.output().lock().unwrap().clone()).unwrap()
    }

    /// Commands sent during a search wait their turn: the replies come out
    /// in input order, none refused.
    #[test]
    fn commands_wait_for_the_search() {
        let mut s = Session::new(Vec::<u8>::new(), SessionConfig::default());
        s.handle_line("setoption name Strategy value attack");
        s.handle_line("newgame");
        s.handle_line("go depth 4");
        s.handle_line("play 4");
        s.handle_line("validmoves");
        s.wait_idle();
        let out = text(&s);
        let lines: Vec<&str> = out.lines().filter(|l| !l.starts_with("info")).collect();
        assert_eq!(lines[0], "ok");
        assert_eq!(lines[1], "Connect4;NotStarted;Red[1]");
        assert_eq!(lines[2], "ok");
        assert!(lines[3].starts_with("bestmove "), "{out}");
        assert_eq!(&lines[4..], ["ok", "Connect4;InProgress;Yellow[1];4", "ok", "1;2;3;4;5;6;7", "ok"]);
    }

    /// `go infinite` then `play 4`: the move is played after `stop`; stop's
    /// own `ok` comes in its turn.
    #[test]
    fn stop_acts_at_once_and_answers_in_turn() {
        let mut s = Session::new(Vec::<u8>::new(), SessionConfig::default());
        s.handle_line("setoption name Strategy value attack");
        s.handle_line("newgame");
        s.handle_line("go infinite");
        s.handle_line("play 4");
        s.handle_line("isready");
        assert!(text(&s).ends_with("readyok\nok\n"), "isready is answered at once");
        assert_eq!(s.queued(), 1);
        s.handle_line("stop");
        s.wait_idle();
        let out = text(&s);
        let tail: Vec<&str> = out.lines().filter(|l| !l.starts_with("info")).skip(5).collect();
        assert!(tail[0].starts_with("bestmove "), "{out}");
        assert_eq!(&tail[1..], ["ok", "Connect4;InProgress;Yellow[1];4", "ok", "ok"]);
    }

    /// Absurd limits still give a reply.
    #[test]
    fn absurd_limits_answer() {
        let mut s = Session::new(Vec::<u8>::new(), SessionConfig::default());
        s.handle_line("setoption name Strategy value random");
        s.handle_line("newgame");
        s.handle_line(
            "go movetime 18446744073709551615 wtime 18446744073709551615 winc 18446744073709551615",
        );
        s.wait_idle();
        s.handle_line("bestmove time 99999999:00:00");
        s.wait_idle();
        s.handle_line("bestmove time 5124095576030431:00:00");
        s.wait_idle();
        s.handle_line("bestmove time 5124095576030432:00:00");
        let out = text(&s);
        assert!(out.contains("bestmove "), "{out}");
        assert!(
            out.ends_with("err bad arguments to bestmove; usage: bestmove [depth N | time hh:mm:ss]\nok\n"),
            "{out}"
        );
        assert_eq!(out.lines().filter(|l| *l == "ok").count(), 6);
    }

    #[test]
    fn uci_mode_frames_without_ok() {
        let mut s = Session::new(Vec::<u8>::new(), SessionConfig::default());
        s.handle_line("uci");
        s.handle_line("setoption name Strategy value attack");
        s.handle_line("position startpos moves 4 4");
        s.handle_line("play 9");
        s.handle_line("go depth 2");
        s.wait_idle();
        let out = text(&s);
        assert!(out.contains("\nuciok\n"), "{out}");
        assert!(!out.lines().any(|l| l == "ok"), "{out}");
        assert!(out.contains("info string invalidmove "), "{out}");
        assert!(out.lines().last().unwrap().starts_with("bestmove "), "{out}");
    }
}
