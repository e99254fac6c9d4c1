//! The engine on stdin/stdout: a reader thread (the line editor at a
//! terminal) and a signal thread feed one event channel; the session
//! answers; searches report their end on the same channel.

use std::io::{self, IsTerminal, Write};
use std::sync::mpsc;

use log::error;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use super::input::{Budget, INPUT_BUDGET, InputLine, LineReader, Permit};
use super::session::{Session, SessionConfig, Signal};
use super::terminal::{Terminal, Typed};
use crate::time::Instant;

enum Event {
    /// A line, its share of the input budget, and when it was read (a
    /// search's clock runs from then).
    Input(InputLine, Option<Permit>, Instant),
    Eof,
    Signal(Signal),
    SearchDone,
}

/// Runs the protocol on stdin/stdout until `quit`, end of input or a
/// signal; returns the exit status.
pub fn run_stdio(mut config: SessionConfig) -> u8 {
    let interactive = io::stdin().is_terminal();
    config.interactive = interactive;
    let mut session = Session::new(io::stdout(), config);
    let (tx, rx) = mpsc::channel::<Event>();
    let done_tx = tx.clone();
    session.set_notify(std::sync::Arc::new(move || {
        let _ = done_tx.send(Event::SearchDone);
    }));
    match Signals::new([SIGINT, SIGTERM, SIGHUP]) {
        Ok(mut signals) => {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for s in signals.forever() {
                    let sig = if s == SIGINT { Signal::Interrupt } else { Signal::Terminate };
                    if tx.send(Event::Signal(sig)).is_err() {
                        return;
                    }
                }
            });
        }
        Err(e) => error!("cannot handle signals: {e}"),
    }
    let terminal = if interactive { Terminal::new() } else { None };
    std::thread::spawn(move || match terminal {
        Some(t) => read_terminal(t, tx),
        None => read_pipe(tx),
    });
    session.greet();
    for ev in rx {
        match ev {
            Event::Input(l, permit, at) => session.handle_input_at(l, permit, at),
            Event::Eof => session.handle_eof(),
            Event::Signal(s) => session.handle_signal(s),
            Event::SearchDone => session.on_search_done(),
        }
        if session.should_quit() {
            break;
        }
    }
    let status = session.exit_status().unwrap_or(0);
    // A search still running (quit, a signal) has been stopped: let it
    // print its move.
    session.wait_idle();
    let _ = io::stdout().flush();
    status
}

fn read_pipe(tx: mpsc::Sender<Event>) {
    let budget = Budget::new(INPUT_BUDGET);
    let stdin = io::stdin();
    let mut reader = LineReader::new(stdin.lock());
    loop {
        match reader.next_line() {
            Ok(Some(l)) => {
                let at = Instant::now();
                let permit = budget.acquire(l.held());
                if tx.send(Event::Input(l, Some(permit), at)).is_err() {
                    return;
                }
            }
            Ok(None) | Err(_) => {
                let _ = tx.send(Event::Eof);
                return;
            }
        }
    }
}

fn read_terminal(mut t: Terminal, tx: mpsc::Sender<Event>) {
    loop {
        let ev = match t.read() {
            Typed::Line(l) => Event::Input(l, None, Instant::now()),
            Typed::Interrupt => Event::Signal(Signal::Interrupt),
            Typed::Eof => {
                let _ = tx.send(Event::Eof);
                return;
            }
        };
        if tx.send(ev).is_err() {
            return;
        }
    }
}
