//! The engine's pipe natively: a child process (this executable with no
//! subcommand), its stdin written, its stdout read line by line in a task
//! of its own.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use crate::time::Instant;

/// The engine's CPU priority below the server's (nice): a search uses a
/// core to the full for its time, and the server, which answers people,
/// goes first (with 16 tables of engines on 2 cores, the time from a move
/// to its state at the spectators fell from about 56 to 9 ms, median).
/// Niceness counts among the processes of the server's session only
/// (Linux's autogroups), so the engines do not yield to other programs.
pub const ENGINE_NICE: i32 = 10;

/// Lines buffered from the engine's stdout before it waits for the table.
const LINE_BUFFER: usize = 256;

/// The engine's lines, each with when it was read.
pub type Lines = mpsc::Receiver<(String, Instant)>;

/// How the engine ended.
pub type Status = std::process::ExitStatus;

/// One engine process.
pub struct Pipe {
    child: Child,
    stdin: Option<ChildStdin>,
}

impl Pipe {
    /// Starts the engine found at `exe` with `data_dir` for its saves; its
    /// lines, each with when it was read.
    pub async fn start(exe: &Path, data_dir: &Path) -> Result<(Pipe, Lines), String> {
        let mut cmd = Command::new(exe);
        cmd.arg("--data-dir")
            .arg(data_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true);
        #[cfg(unix)]
        // SAFETY: between fork and exec the child only calls setpriority,
        // which is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::setpriority(libc::PRIO_PROCESS as _, 0, ENGINE_NICE);
                Ok(())
            });
        }
        let mut child = cmd.spawn().map_err(|e| format!("cannot start the engine {}: {e}", exe.display()))?;
        let stdin = child.stdin.take().ok_or("no engine stdin")?;
        let stdout = child.stdout.take().ok_or("no engine stdout")?;
        let (tx, lines) = mpsc::channel(LINE_BUFFER);
        tokio::spawn(async move {
            let mut r = BufReader::new(stdout).lines();
            while let Ok(Some(l)) = r.next_line().await {
                if tx.send((l, Instant::now())).await.is_err() {
                    break;
                }
            }
        });
        Ok((Pipe { child, stdin: Some(stdin) }, lines))
    }

    /// Writes a line (with its newline).
    pub async fn write(&mut self, line: &str) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("the engine is closed")?;
        stdin.write_all(line.as_bytes()).await.map_err(|e| e.to_string())?;
        stdin.flush().await.map_err(|e| e.to_string())
    }

    /// Ends the engine's input.
    pub fn close(&mut self) {
        self.stdin = None;
    }

    /// Ends the engine at once.
    pub fn kill(&mut self) {
        let _ = self.child.start_kill();
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Waits for the process to end; kills it if it has not in 2 s.
    pub async fn reap(&mut self) -> Option<Status> {
        match tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await {
            Ok(s) => s.ok(),
            Err(_) => {
                let _ = self.child.kill().await;
                self.child.wait().await.ok()
            }
        }
    }
}
