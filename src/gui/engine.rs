//! The engine as a child process spoken to over the protocol: the GUI
//! knows no game and uses protocol commands only.

use std::path::Path;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

/// One engine process (`meeple` with no subcommand).
pub struct Engine {
    _child: Child,
    stdin: ChildStdin,
    /// Lines of its stdout, in order; `None` once it has exited.
    lines: mpsc::UnboundedReceiver<String>,
}

/// A protocol reply that failed: `err ...` or `invalidmove ...`.
pub type Failure = String;

impl Engine {
    /// Starts the engine found at `exe` with `data_dir` for its saves and
    /// reads its banner.
    pub async fn spawn(exe: &Path, data_dir: &Path) -> Result<Engine, String> {
        let mut child = Command::new(exe)
            .arg("--data-dir")
            .arg(data_dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start the engine {}: {e}", exe.display()))?;
        let stdin = child.stdin.take().ok_or("no engine stdin")?;
        let stdout = child.stdout.take().ok_or("no engine stdout")?;
        let (tx, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut r = BufReader::new(stdout).lines();
            while let Ok(Some(l)) = r.next_line().await {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let mut e = Engine { _child: child, stdin, lines };
        e.read_reply().await?;
        Ok(e)
    }

    /// Writes one command line.
    pub async fn send(&mut self, line: &str) -> Result<(), String> {
        let mut l = line.replace(['\n', '\r'], " ");
        l.push('\n');
        self.stdin.write_all(l.as_bytes()).await.map_err(|e| format!("engine gone: {e}"))?;
        self.stdin.flush().await.map_err(|e| format!("engine gone: {e}"))
    }

    /// The next output line (`None`: the engine has exited).
    pub async fn next_line(&mut self) -> Option<String> {
        self.lines.recv().await
    }

    /// Reads lines up to the reply's `ok`: the lines before it, or the
    /// failure if one of them is `err`/`invalidmove`.
    pub async fn read_reply(&mut self) -> Result<Vec<String>, Failure> {
        let mut out = Vec::new();
        let mut failure = None;
        loop {
            let l = self.next_line().await.ok_or("the engine has exited")?;
            if l == "ok" {
                break;
            }
            if let Some(m) = l.strip_prefix("err ").or_else(|| l.strip_prefix("invalidmove ")) {
                failure = Some(m.to_string());
            } else {
                out.push(l);
            }
        }
        failure.map_or(Ok(out), Err)
    }

    /// Sends one command and reads its whole reply.
    pub async fn command(&mut self, line: &str) -> Result<Vec<String>, Failure> {
        self.send(line).await?;
        self.read_reply().await
    }

    /// A command whose reply is one line.
    pub async fn one(&mut self, line: &str) -> Result<String, Failure> {
        let mut v = self.command(line).await?;
        v.pop().ok_or_else(|| format!("no reply to {line}"))
    }
}
