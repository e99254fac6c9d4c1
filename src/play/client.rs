//! The engine of a terminal game: the protocol's own [`Session`], in this
//! process, driven through its command lines. A move typed is `play`ed
//! (so the rules and their messages are the session's), the engine thinks
//! with `go` on the session's search thread (so it plays exactly as it
//! does for any client, with the same options), and `save`, `load`,
//! `undo` and `board json` are the session's commands. Replies are read
//! by protocol.md's rules: the lines up to `ok`, a failure being one `err`
//! or `invalidmove` line; a search's `info` lines, then its `bestmove` and
//! `ok`, and after a `stop` the stop's own `ok`.

use std::io::{self, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::time::Duration;

use crate::protocol::{Session, SessionConfig};

/// Why the engine refused a command (nothing changed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `err <message>`.
    Err(String),
    /// `invalidmove <message>`.
    InvalidMove(String),
}

impl Refusal {
    pub fn message(&self) -> &str {
        match self {
            Refusal::Err(m) | Refusal::InvalidMove(m) => m,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

/// The session's output: every line it writes (the session's replies and
/// its search thread's) goes to the client's channel, in order.
struct Sink {
    partial: Vec<u8>,
    tx: Sender<String>,
}

impl Write for Sink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        for &b in bytes {
            if b == b'\n' {
                let line = String::from_utf8_lossy(&self.partial).into_owned();
                self.partial.clear();
                // The client is gone only when the game is over.
                let _ = self.tx.send(line);
            } else {
                self.partial.push(b);
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What a running search said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SearchEvent {
    /// An `info` line: its depth and score where it had them.
    Info { depth: Option<u32>, score: Option<String> },
    /// The search is over: its move (or why it could not start).
    Done(Result<String, Refusal>),
}

/// A search in progress (see [`Client::go`]).
pub struct Search {
    /// True once `stop` was sent: its own `ok` follows the search's.
    stopped: bool,
    done: bool,
}

/// The in-process engine.
pub struct Client {
    session: Session<Sink>,
    rx: Receiver<String>,
}

/// Longest wait for a reply line that must come at once (a safety net: a
/// reply missing is a bug, reported instead of hanging the terminal).
const REPLY_WAIT: Duration = Duration::from_secs(30);

impl Client {
    /// A session whose `newgame` without argument is `default_type`,
    /// keeping its saves in `data_dir`.
    pub fn new(data_dir: &Path, default_type: &str, color: bool) -> Client {
        let (tx, rx) = channel();
        let config = SessionConfig {
            default_type: default_type.to_string(),
            data_dir: data_dir.to_path_buf(),
            color,
            interactive: false,
        };
        let session = Session::new(Sink { partial: Vec::new(), tx }, config);
        Client { session, rx }
    }

    /// Runs one command (no search is running) and returns its reply
    /// lines, or the refusal.
    pub fn command(&mut self, line: &str) -> Result<Vec<String>, Refusal> {
        debug_assert!(!self.session.is_searching());
        self.session.handle_line(line);
        // A search ends by itself only for `go`, `bestmove` and `analyze`,
        // which this client sends through `go`; the others have answered.
        self.session.wait_idle();
        let mut lines = Vec::new();
        loop {
            match self.rx.recv_timeout(REPLY_WAIT) {
                Ok(l) if l == "ok" => break,
                Ok(l) => lines.push(l),
                Err(_) => return Err(Refusal::Err(format!("the engine did not answer '{line}'"))),
            }
        }
        if let [only] = lines.as_slice() {
            if let Some(m) = only.strip_prefix("err ") {
                return Err(Refusal::Err(m.to_string()));
            }
            if let Some(m) = only.strip_prefix("invalidmove ") {
                return Err(Refusal::InvalidMove(m.to_string()));
            }
        }
        Ok(lines)
    }

    /// One line of reply (`options get`, `play`, ...).
    pub fn line(&mut self, command: &str) -> Result<String, Refusal> {
        let lines = self.command(command)?;
        lines.into_iter().last().ok_or_else(|| Refusal::Err(format!("no reply to '{command}'")))
    }

    /// The current value of an option (`options get NAME`), if it exists.
    pub fn option(&mut self, name: &str) -> Option<String> {
        let line = self.line(&format!("options get {name}")).ok()?;
        line.split(';').nth(2).map(str::to_string)
    }

    /// The saved games, from `saves`: each save's name and the rest of its
    /// line (its GameString, or why it is not listed: `unreadable: ...`,
    /// `too large to list (N bytes)`).
    pub fn saves(&mut self) -> Vec<(String, String)> {
        self.command("saves").map(|lines| parse_saves(&lines)).unwrap_or_default()
    }

    /// Starts `go <limits>`; read it with [`Client::next`].
    pub fn go(&mut self, limits: &str) -> Search {
        self.session.handle_line(&format!("go {limits}"));
        Search { stopped: false, done: false }
    }

    /// Starts a long command that runs on the search thread (`review`):
    /// read its reply with [`Client::next_line`] up to its `ok`.
    pub fn start(&mut self, line: &str) {
        self.session.handle_line(line);
    }

    /// The next line of a long command's reply, waiting at most `wait`
    /// (`None` if none came meanwhile); `Err` if the engine went away.
    /// Once the reply's `ok` is read, the search is reaped.
    pub fn next_line(&mut self, wait: Duration) -> Result<Option<String>, Refusal> {
        match self.rx.recv_timeout(wait) {
            Ok(l) => {
                if l == "ok" {
                    self.session.wait_idle();
                }
                Ok(Some(l))
            }
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(Refusal::Err("the engine went away".into())),
        }
    }

    /// Stops the search: it answers at once with its best move so far.
    pub fn stop(&mut self, s: &mut Search) {
        if !s.stopped && !s.done {
            s.stopped = true;
            self.session.handle_line("stop");
        }
    }

    /// The next thing the search says, waiting at most `wait`; `None` if
    /// it said nothing meanwhile.
    pub fn next(&mut self, s: &mut Search, wait: Duration) -> Option<SearchEvent> {
        if s.done {
            return None;
        }
        let line = match self.rx.recv_timeout(wait) {
            Ok(l) => l,
            Err(RecvTimeoutError::Timeout) => return None,
            Err(RecvTimeoutError::Disconnected) => {
                s.done = true;
                return Some(SearchEvent::Done(Err(Refusal::Err("the engine went away".into()))));
            }
        };
        if let Some(rest) = line.strip_prefix("info ") {
            return Some(info_event(rest));
        }
        let result = if let Some(m) = line.strip_prefix("bestmove ") {
            Ok(m.to_string())
        } else if let Some(m) = line.strip_prefix("err ") {
            Err(Refusal::Err(m.to_string()))
        } else if line == "ok" {
            Err(Refusal::Err("the search gave no move".into()))
        } else {
            Err(Refusal::Err(format!("unexpected reply '{line}'")))
        };
        // The search's `ok`, then (after a stop) the stop's own.
        s.done = true;
        let mut oks = if line == "ok" { 0 } else { 1 } + usize::from(s.stopped);
        self.session.wait_idle();
        while oks > 0 {
            match self.rx.recv_timeout(REPLY_WAIT) {
                Ok(l) if l == "ok" => oks -= 1,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        Some(SearchEvent::Done(result))
    }
}

/// The lines of `saves` (protocol.md section 7): `save <name> <rest>`;
/// other lines (`more N saves not listed`) name no save.
fn parse_saves(lines: &[String]) -> Vec<(String, String)> {
    lines
        .iter()
        .filter_map(|l| l.strip_prefix("save "))
        .map(|l| {
            let (name, rest) = l.split_once(' ').unwrap_or((l, ""));
            (name.to_string(), rest.trim().to_string())
        })
        .collect()
}

/// Reads the depth and score of an `info` line (after `info `).
fn info_event(rest: &str) -> SearchEvent {
    let toks: Vec<&str> = rest.split_whitespace().collect();
    let mut depth = None;
    let mut score = None;
    let mut i = 0;
    while i < toks.len() {
        match toks[i] {
            "string" => break,
            "depth" => {
                depth = toks.get(i + 1).and_then(|d| d.parse().ok());
                i += 2;
            }
            "score" => {
                let kind = toks.get(i + 1).copied().unwrap_or("");
                match kind {
                    "win" | "draw" | "loss" => {
                        score = Some(kind.to_string());
                        i += 2;
                    }
                    _ => {
                        let value = toks.get(i + 2).copied().unwrap_or("");
                        score = Some(format!("{kind} {value}"));
                        i += 3;
                    }
                }
            }
            _ => i += 1,
        }
    }
    SearchEvent::Info { depth, score }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client() -> Client {
        let dir = std::env::temp_dir().join(format!("meeple-play-client-{}", std::process::id()));
        Client::new(&dir, "Connect4", false)
    }

    #[test]
    fn commands_answer_and_refuse_as_the_protocol_does() {
        let mut c = client();
        assert_eq!(c.line("newgame Connect4").unwrap(), "Connect4;NotStarted;Red[1]");
        assert_eq!(c.line("play 4").unwrap(), "Connect4;InProgress;Yellow[1];4");
        assert!(matches!(c.command("play 9"), Err(Refusal::InvalidMove(m)) if m.contains("not a column")));
        assert!(matches!(c.command("undo 5"), Err(Refusal::Err(_))));
        assert_eq!(c.option("Strategy").as_deref(), Some("perfect"));
        assert_eq!(c.option("NoSuchOption"), None);
    }

    #[test]
    fn a_search_reports_then_moves_and_a_stop_keeps_replies_in_step() {
        let mut c = client();
        c.line("newgame Connect4").unwrap();
        c.line("setoption name Strategy value attack").ok();
        let mut s = c.go("depth 4");
        let mut infos = 0;
        let mv = loop {
            match c.next(&mut s, Duration::from_secs(30)) {
                Some(SearchEvent::Info { .. }) => infos += 1,
                Some(SearchEvent::Done(r)) => break r.unwrap(),
                None => panic!("the search said nothing for 30 s"),
            }
        };
        assert!(infos > 0);
        assert!(("1"..="7").contains(&mv.as_str()), "{mv}");
        // An endless search, stopped: its move, then the next command's
        // reply is its own (the stop's `ok` was read).
        let mut s = c.go("infinite");
        c.stop(&mut s);
        let mv = loop {
            if let Some(SearchEvent::Done(r)) = c.next(&mut s, Duration::from_secs(30)) {
                break r.unwrap();
            }
        };
        assert!(("1"..="7").contains(&mv.as_str()), "{mv}");
        assert_eq!(c.line("play 4").unwrap(), "Connect4;InProgress;Yellow[1];4");
        // A search the game refuses.
        c.line("position startpos moves 1212121").unwrap();
        let mut s = c.go("depth 2");
        assert!(matches!(c.next(&mut s, Duration::from_secs(30)), Some(SearchEvent::Done(Err(_)))));
        assert_eq!(c.line("undo").unwrap(), "Connect4;InProgress;Red[4];1;2;1;2;1;2");
    }

    #[test]
    fn saves_are_listed_by_name() {
        let lines: Vec<String> = [
            "save a1 Connect4;InProgress;Yellow[1];4",
            "save bestmove unreadable: not a save",
            "save big too large to list (20000 bytes)",
            "more 3 saves not listed",
        ]
        .iter()
        .map(|l| l.to_string())
        .collect();
        let got = parse_saves(&lines);
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["a1", "bestmove", "big"]);
        assert_eq!(got[0].1, "Connect4;InProgress;Yellow[1];4");
        assert_eq!(got[2].1, "too large to list (20000 bytes)");
        // A session's own listing: a save made here is found under its name.
        let dir = std::env::temp_dir().join(format!("meeple-play-saves-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut c = Client::new(&dir, "Connect4", false);
        c.line("newgame Connect4").unwrap();
        c.line("play 4").unwrap();
        c.command("save ok").unwrap();
        assert_eq!(c.saves(), [("ok".to_string(), "Connect4;InProgress;Yellow[1];4".to_string())]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn info_lines_give_depth_and_score() {
        assert_eq!(
            info_event("depth 7 score cp -12 nodes 5 nps 1 time 3 pv 4;4"),
            SearchEvent::Info { depth: Some(7), score: Some("cp -12".into()) }
        );
        assert_eq!(
            info_event("depth 3 score win nodes 1"),
            SearchEvent::Info { depth: Some(3), score: Some("win".into()) }
        );
        assert_eq!(info_event("string depth 9"), SearchEvent::Info { depth: None, score: None });
        assert_eq!(info_event("time 1000 nodes 5 nps 5"), SearchEvent::Info { depth: None, score: None });
    }
}
