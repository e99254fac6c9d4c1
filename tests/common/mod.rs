//! The driver shared by the end-to-end tests: spawns the built `meeple`
//! binary and talks to it line by line.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, channel};
use std::thread;
use std::time::Duration;

/// Runs a Python test script of `scripts/` (standard library only) from
/// the repository's root, with the built engine as `MEEPLE_BIN`, and fails
/// with its output unless it passes.
pub fn python_tests_pass(script: &str) {
    python_script_passes(std::path::Path::new("python3"), script, &[]);
}

/// Runs `python script args...` as [`python_tests_pass`] does, with the
/// given interpreter (a virtual environment's, for tests that need more
/// than the standard library).
pub fn python_script_passes(python: &std::path::Path, script: &str, args: &[&str]) {
    let output = Command::new(python)
        .arg(script)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("MEEPLE_BIN", env!("CARGO_BIN_EXE_meeple"))
        .output()
        .unwrap_or_else(|e| panic!("{} must be installed to run {script}: {e}", python.display()));
    assert!(
        output.status.success(),
        "{script} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A running engine. Lines are read on a thread; a read that waits more
/// than a minute fails the test instead of hanging it (a safety net, not a
/// timing assertion).
pub struct Engine {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    pub data_dir: PathBuf,
    /// The startup banner (`info`'s output and `ok`).
    pub banner: Vec<String>,
}

const SAFETY: Duration = Duration::from_secs(60);

/// A fresh path under the temporary folder: `prefix`, this process and a
/// counter (every test of the crate runs in one process).
pub fn unique_dir(prefix: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("{prefix}-{}-{n}", std::process::id()))
}

impl Engine {
    /// Starts the engine with its own data folder.
    pub fn start(tag: &str) -> Engine {
        Engine::start_with(tag, &[])
    }

    /// Starts the engine with extra command-line arguments.
    pub fn start_with(tag: &str, args: &[&str]) -> Engine {
        let data_dir = unique_dir(&format!("meeple-it-{tag}"));
        let _ = std::fs::remove_dir_all(&data_dir);
        let mut child = Command::new(env!("CARGO_BIN_EXE_meeple"))
            .arg("--data-dir")
            .arg(&data_dir)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn meeple");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        thread::spawn(move || {
            for l in BufReader::new(stdout).lines() {
                match l {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                }
            }
        });
        let stdin = child.stdin.take();
        let mut e = Engine { child, stdin, lines: rx, data_dir, banner: Vec::new() };
        e.banner = e.read_reply();
        assert_eq!(e.banner[0], format!("id meeple v{}", env!("CARGO_PKG_VERSION")));
        e
    }

    pub fn line(&self) -> String {
        self.lines.recv_timeout(SAFETY).expect("engine replied")
    }

    /// Lines up to and including the next `ok`.
    pub fn read_reply(&self) -> Vec<String> {
        let mut v = Vec::new();
        loop {
            let l = self.line();
            let done = l == "ok";
            v.push(l);
            if done {
                return v;
            }
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        let s = self.stdin.as_mut().unwrap();
        s.write_all(bytes).unwrap();
        s.flush().unwrap();
    }

    pub fn send(&mut self, cmd: &str) {
        self.send_raw(format!("{cmd}\n").as_bytes());
    }

    /// Sends a command and returns its reply without the final `ok`.
    pub fn cmd(&mut self, cmd: &str) -> Vec<String> {
        self.send(cmd);
        let mut r = self.read_reply();
        r.pop();
        r
    }

    /// In UCI/UGI mode, where replies have no `ok`: sends `cmds`, then
    /// `isready`, and returns the lines before `readyok`.
    pub fn uci<S: AsRef<str>>(&mut self, cmds: &[S]) -> Vec<String> {
        for c in cmds {
            self.send(c.as_ref());
        }
        self.send("isready");
        let mut v = Vec::new();
        loop {
            let l = self.line();
            if l == "readyok" {
                return v;
            }
            v.push(l);
        }
    }

    /// A command whose reply is one line.
    pub fn one(&mut self, cmd: &str) -> String {
        let r = self.cmd(cmd);
        assert_eq!(r.len(), 1, "{cmd} -> {r:?}");
        r[0].clone()
    }

    /// A snapshot of the state a person can see (for "nothing changed").
    pub fn snapshot(&mut self) -> (Vec<String>, Vec<String>, Vec<String>) {
        (self.cmd("show"), self.cmd("validmoves"), self.cmd("options"))
    }

    /// Closes stdin and returns the exit code.
    pub fn close(mut self) -> i32 {
        drop(self.stdin.take());
        self.child.wait().unwrap().code().unwrap_or(-1)
    }

    /// Every line left until the engine closes its output.
    pub fn rest(&self) -> Vec<String> {
        let mut v = Vec::new();
        while let Ok(l) = self.lines.recv_timeout(SAFETY) {
            v.push(l);
        }
        v
    }

    /// The move of `go`'s `bestmove` line.
    pub fn engine_move(&mut self) -> String {
        let r = self.cmd("go");
        r.last().unwrap().strip_prefix("bestmove ").expect("bestmove line").to_string()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}
