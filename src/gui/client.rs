//! The engine client: one engine process (this executable with no
//! subcommand) spoken to over the protocol, every reply matched to its
//! command by protocol.md's rules, never by counting lines.
//!
//! Commands are answered in the order they were sent and every reply ends
//! with a line `ok` (protocol.md sections 1 and 4). So the client keeps the
//! commands sent and not yet answered in a queue, oldest first; each line
//! from the engine belongs to the oldest of them, up to its `ok`:
//!
//! - a search (`go`, `analyze`) is sent *streaming*: its lines (`info ...`,
//!   `bestmove ...`, an analysis) are handed on as they come, and its `ok`
//!   ends it;
//! - `stop` during a search is its own command: the search ends (its
//!   `bestmove` and `ok`), then `stop` is answered `ok` in its turn. Both
//!   are in the queue, so neither reply is taken for another's;
//! - `err ...` and `invalidmove ...` mark the reply as refused;
//! - the startup banner is the reply of a first command nobody sent;
//! - `isready`, the one command answered out of turn during a search, is
//!   never sent while one may run.
//!
//! The table drives the engine through [`Engine::send`] (a command whose
//! reply comes later as [`Event`]s) and [`Engine::call`] (a command whose
//! reply is awaited; events of earlier commands that arrive meanwhile are
//! kept for [`Engine::next`]).

use std::collections::VecDeque;
use std::path::Path;
use std::time::Duration;

use tokio::sync::OwnedSemaphorePermit;

use crate::gui::rt;
use crate::time::Instant;

// The engine's pipe, the seam between the client and the platform: a
// child process natively, the engine's Web Worker in the offline page.
#[cfg(not(target_arch = "wasm32"))]
#[path = "client/process.rs"]
mod pipe;
#[cfg(target_arch = "wasm32")]
#[path = "client/worker.rs"]
mod pipe;

pub use pipe::{ENGINE_NICE, Lines, Pipe, Status};

/// A command's number, in the order sent.
pub type Id = u64;

/// What became of a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Answered `err ...` or `invalidmove ...`: the message.
    Refused(String),
    /// The engine has exited or stopped answering.
    Gone(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Refused(m) | Failure::Gone(m) => f.write_str(m),
        }
    }
}

impl From<Failure> for String {
    fn from(f: Failure) -> String {
        f.to_string()
    }
}

/// What the engine said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A line of a streaming command's reply, as it came, and when it was
    /// read (a search's `bestmove` ends the engine's time then, whenever
    /// the table gets to it).
    Line { id: Id, line: String, at: Instant },
    /// A command's reply is complete: the lines before its `ok` (none for a
    /// streaming command: they came as [`Event::Line`]s), or its failure.
    Done { id: Id, reply: Result<Vec<String>, Failure> },
    /// The engine has exited: every command still waiting failed.
    Exited,
}

struct Pending {
    id: Id,
    stream: bool,
    lines: Vec<String>,
    failure: Option<String>,
}

/// The matching of lines to commands, apart from the process (tested
/// line by line).
#[derive(Default)]
pub struct Matcher {
    queue: VecDeque<Pending>,
    next_id: Id,
}

impl Matcher {
    /// Notes a command about to be written; its id.
    pub fn expect(&mut self, stream: bool) -> Id {
        let id = self.next_id;
        self.next_id += 1;
        self.queue.push_back(Pending { id, stream, lines: Vec::new(), failure: None });
        id
    }

    /// Commands sent and not yet answered.
    pub fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// One line from the engine, read at `at`: what it completes or
    /// carries, if anything.
    pub fn feed(&mut self, line: String, at: Instant) -> Option<Event> {
        let Some(head) = self.queue.front_mut() else {
            log::warn!("engine line with no command waiting: {line}");
            return None;
        };
        if line == "ok" {
            let p = self.queue.pop_front().expect("head");
            let reply = match p.failure {
                Some(f) => Err(Failure::Refused(f)),
                None => Ok(p.lines),
            };
            return Some(Event::Done { id: p.id, reply });
        }
        if let Some(m) = line.strip_prefix("err ").or_else(|| line.strip_prefix("invalidmove ")) {
            head.failure.get_or_insert_with(|| m.to_string());
            return None;
        }
        if head.stream {
            return Some(Event::Line { id: head.id, line, at });
        }
        head.lines.push(line);
        None
    }

    /// The engine has gone: every waiting command fails, oldest first.
    pub fn fail_all(&mut self, why: &str) -> Vec<Event> {
        self.queue
            .drain(..)
            .map(|p| Event::Done { id: p.id, reply: Err(Failure::Gone(why.to_string())) })
            .collect()
    }
}

/// The longest a command's reply may take once no search is ahead of it
/// before the engine counts as hung (a safety net: `board json`,
/// `movetree json`, `newgame` answer in milliseconds).
const HUNG: Duration = Duration::from_secs(60);

/// One engine (a process natively, a Web Worker in the offline page).
pub struct Engine {
    pipe: Pipe,
    lines: Lines,
    matcher: Matcher,
    backlog: VecDeque<Event>,
    /// The failures of the commands waiting when the engine went.
    failed: VecDeque<Event>,
    exited: bool,
    /// The server's engine slot this process holds (released with it).
    permit: Option<OwnedSemaphorePermit>,
}

impl Engine {
    /// Starts the engine found at `exe` with `data_dir` for its saves
    /// (natively; the offline page starts the engine's worker) and reads
    /// its banner.
    pub async fn spawn(
        exe: &Path,
        data_dir: &Path,
        permit: Option<OwnedSemaphorePermit>,
    ) -> Result<Engine, String> {
        let (pipe, lines) = Pipe::start(exe, data_dir).await?;
        let mut e = Engine {
            pipe,
            lines,
            matcher: Matcher::default(),
            backlog: VecDeque::new(),
            failed: VecDeque::new(),
            exited: false,
            permit,
        };
        // The banner: the reply of a command nobody sent.
        let banner = e.matcher.expect(false);
        e.wait_for(banner).await.map_err(|f| format!("the engine did not start: {f}"))?;
        Ok(e)
    }

    /// The engine slot this process holds, for the one taking its place.
    pub fn take_permit(&mut self) -> Option<OwnedSemaphorePermit> {
        self.permit.take()
    }

    /// The process id (for logs and tests; none in the offline page).
    pub fn pid(&self) -> Option<u32> {
        self.pipe.pid()
    }

    /// Writes one command; its reply comes as [`Event`]s with the id
    /// returned (`stream`: its lines one by one, for searches).
    pub async fn send(&mut self, line: &str, stream: bool) -> Result<Id, Failure> {
        if self.exited {
            return Err(Failure::Gone("the engine has exited".into()));
        }
        let mut l = line.replace(['\n', '\r'], " ");
        l.push('\n');
        let id = self.matcher.expect(stream);
        if let Err(e) = self.pipe.write(&l).await {
            self.gone(&format!("the engine has gone: {e}"));
            return Err(Failure::Gone(format!("the engine has gone: {e}")));
        }
        Ok(id)
    }

    /// Sends a command and awaits its whole reply. Events of commands sent
    /// before it that come meanwhile are kept for [`Engine::next`].
    pub async fn call(&mut self, line: &str) -> Result<Vec<String>, Failure> {
        let id = self.send(line, false).await?;
        self.wait_for(id).await
    }

    /// The reply of a command written with [`Engine::send`] (not
    /// streaming), awaited; it may have come already, while another reply
    /// was awaited.
    pub async fn reply(&mut self, id: Id) -> Result<Vec<String>, Failure> {
        let kept = self.backlog.iter().position(|e| matches!(e, Event::Done { id: i, .. } if *i == id));
        if let Some(Event::Done { reply, .. }) = kept.and_then(|k| self.backlog.remove(k)) {
            return reply;
        }
        self.wait_for(id).await
    }

    /// A command whose reply is one line.
    pub async fn one(&mut self, line: &str) -> Result<String, Failure> {
        let mut v = self.call(line).await?;
        v.pop().ok_or_else(|| Failure::Refused(format!("no reply to {line}")))
    }

    async fn wait_for(&mut self, id: Id) -> Result<Vec<String>, Failure> {
        loop {
            let ev = match rt::timeout(HUNG, self.read_event()).await {
                Ok(ev) => ev,
                Err(_) => {
                    // Hung: end it, so the table starts another.
                    self.pipe.kill();
                    self.gone("the engine stopped answering");
                    continue;
                }
            };
            match ev {
                Event::Done { id: i, reply } if i == id => return reply,
                Event::Exited => {
                    self.backlog.push_back(Event::Exited);
                    return Err(Failure::Gone("the engine has exited".into()));
                }
                other => self.backlog.push_back(other),
            }
        }
    }

    /// The next event: kept ones first, then what the engine says.
    /// Cancel-safe (a line is taken only when it is handled at once).
    pub async fn next(&mut self) -> Event {
        if let Some(e) = self.backlog.pop_front() {
            return e;
        }
        self.read_event().await
    }

    /// True if events are waiting to be handled ([`Engine::next`] is
    /// then immediate).
    pub fn has_backlog(&self) -> bool {
        !self.backlog.is_empty()
    }

    async fn read_event(&mut self) -> Event {
        loop {
            if self.exited {
                return self.failed.pop_front().unwrap_or(Event::Exited);
            }
            match self.lines.recv().await {
                Some((l, at)) => {
                    if let Some(e) = self.matcher.feed(l, at) {
                        return e;
                    }
                }
                None => self.gone("the engine has exited"),
            }
        }
    }

    /// The process has gone: every waiting command fails, then `Exited`.
    fn gone(&mut self, why: &str) {
        if self.exited {
            return;
        }
        self.exited = true;
        self.pipe.close();
        self.failed = self.matcher.fail_all(why).into();
    }

    /// Waits for the engine to end (after it exited or was killed), so
    /// that no zombie is left; kills it if it has not ended in 2 s.
    pub async fn reap(&mut self) -> Option<Status> {
        self.pipe.reap().await
    }

    /// Ends the engine: `quit`, end of input, then waits (or kills).
    pub async fn shutdown(mut self) {
        if !self.exited {
            let _ = self.send("quit", false).await;
        }
        self.pipe.close();
        self.reap().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(m: &mut Matcher, at: Instant, lines: &[&str]) -> Vec<Event> {
        lines.iter().filter_map(|l| m.feed(l.to_string(), at)).collect()
    }

    /// The case: `stop` during a search is answered by the
    /// search's `bestmove` and `ok`, then by its own `ok`; the next
    /// command's reply is its own.
    #[test]
    fn the_stop_pair_is_two_replies() {
        let mut m = Matcher::default();
        let go = m.expect(true);
        let stop = m.expect(false);
        let new = m.expect(false);
        let at = Instant::now();
        let ev = feed(
            &mut m,
            at,
            &[
                "info depth 3 score cp 10 nodes 5",
                "bestmove 4",
                "ok",
                "ok",
                "Connect4;NotStarted;Red[1]",
                "ok",
            ],
        );
        assert_eq!(
            ev,
            vec![
                Event::Line { id: go, line: "info depth 3 score cp 10 nodes 5".into(), at },
                Event::Line { id: go, line: "bestmove 4".into(), at },
                Event::Done { id: go, reply: Ok(vec![]) },
                Event::Done { id: stop, reply: Ok(vec![]) },
                Event::Done { id: new, reply: Ok(vec!["Connect4;NotStarted;Red[1]".into()]) },
            ]
        );
        assert_eq!(m.waiting(), 0);
    }

    #[test]
    fn failures_and_multi_line_replies() {
        let mut m = Matcher::default();
        let a = m.expect(false);
        let b = m.expect(false);
        let c = m.expect(false);
        let at = Instant::now();
        let ev = feed(
            &mut m,
            at,
            &["invalidmove not a column: 9", "ok", "err unknown option 'x'", "ok", "x", "y", "ok"],
        );
        assert_eq!(
            ev,
            vec![
                Event::Done { id: a, reply: Err(Failure::Refused("not a column: 9".into())) },
                Event::Done { id: b, reply: Err(Failure::Refused("unknown option 'x'".into())) },
                Event::Done { id: c, reply: Ok(vec!["x".into(), "y".into()]) },
            ]
        );
        // A line with nothing waiting is dropped, not given to the next.
        assert_eq!(m.feed("stray".into(), at), None);
        let d = m.expect(false);
        assert_eq!(feed(&mut m, at, &["ok"]), vec![Event::Done { id: d, reply: Ok(vec![]) }]);
        let e = m.expect(true);
        assert_eq!(m.fail_all("gone"), vec![Event::Done { id: e, reply: Err(Failure::Gone("gone".into())) }]);
    }
}
