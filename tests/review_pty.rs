//! `meeple review` and `meeple play`'s offer of a review at a terminal:
//! the built binary on a pseudo-terminal (colours on, as a person sees
//! them). The test also draws the README's two pictures from what the
//! terminal showed: its screen (the bytes played through a small terminal
//! emulator here) is written as an HTML page with the ANSI colours, and
//! headless Chromium (installed by `scripts/setup-test-deps.sh` for the
//! browser test) renders it to `target/pictures/terminal-play.png` and
//! `target/pictures/terminal-review.png`; each is checked to be a PNG of a
//! sensible size. With MEEPLE_PICTURES=update the test copies them to
//! `docs/`, where the README shows them. Without Chromium the test fails, unless
//! MEEPLE_SKIP_BROWSER_TEST=1 asks to skip the pictures. Waits are bounded
//! by a safety net, never measured.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use meeple::registry::{self, AnyGame};

use crate::common::Engine;

const SAFETY: Duration = Duration::from_secs(120);
const ROWS: u16 = 44;
const COLS: u16 = 100;

/// A program on a pseudo-terminal.
struct Pty {
    master: File,
    child: Child,
    chunks: Receiver<Vec<u8>>,
    /// Every byte shown.
    raw: Vec<u8>,
    /// What was shown, escape sequences removed (for `expect`).
    text: String,
    at: usize,
}

impl Pty {
    fn spawn(data_dir: &Path, args: &[&str]) -> Pty {
        let (mut master, mut slave) = (0, 0);
        let size = libc::winsize { ws_row: ROWS, ws_col: COLS, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: openpty writes two descriptors, which we then own.
        let r =
            unsafe { libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size) };
        assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
        for fd in [master, slave] {
            // SAFETY: fcntl on descriptors we own.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        }
        let (master, slave) = unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_meeple"));
        cmd.arg("--data-dir")
            .arg(data_dir)
            .args(args)
            .env_remove("NO_COLOR")
            .env("TERM", "xterm-256color")
            .stdin(Stdio::from(slave.try_clone().unwrap()))
            .stdout(Stdio::from(slave.try_clone().unwrap()))
            .stderr(Stdio::from(slave));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("spawn meeple");
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
                        // The line editor asks where the cursor is.
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
        Pty { master, child, chunks: rx, raw: Vec::new(), text: String::new(), at: 0 }
    }

    fn line(&mut self, text: &str) {
        self.master.write_all(format!("{text}\r").as_bytes()).unwrap();
        self.master.flush().unwrap();
    }

    fn take(&mut self, bytes: Vec<u8>) {
        self.raw.extend_from_slice(&bytes);
        self.text = strip(&String::from_utf8_lossy(&self.raw));
    }

    /// Waits until `pat` shows after what was read before; returns the
    /// text up to it.
    fn expect(&mut self, pat: &str) -> String {
        let deadline = Instant::now() + SAFETY;
        loop {
            if let Some(i) = self.text[self.at..].find(pat) {
                let end = self.at + i + pat.len();
                let t = self.text[self.at..end].to_string();
                self.at = end;
                return t;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(b) if !left.is_zero() => self.take(b),
                _ => panic!("waited for {pat:?}; the terminal shows:\n{}", &self.text[self.at..]),
            }
        }
    }

    /// Waits for the program's end (success) and returns what it showed
    /// after the last match.
    fn finish(&mut self) -> String {
        let deadline = Instant::now() + SAFETY;
        loop {
            match self.chunks.recv_timeout(Duration::from_millis(100)) {
                Ok(b) => self.take(b),
                Err(_) => {
                    if let Some(status) = self.child.try_wait().unwrap() {
                        assert!(status.success(), "meeple exited with {status}:\n{}", self.text);
                        return self.text[self.at..].to_string();
                    }
                }
            }
            assert!(Instant::now() < deadline, "meeple did not end:\n{}", self.text);
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `s` without escape sequences, `\r\n` and `\r` as `\n`.
fn strip(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\x1b' => {
                if it.peek() == Some(&'[') {
                    it.next();
                    for d in it.by_ref() {
                        if ('\x40'..='\x7e').contains(&d) {
                            break;
                        }
                    }
                } else {
                    it.next();
                }
            }
            '\r' => {
                if it.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// A character cell of the emulated screen: the character and its SGR
/// state (foreground, background: 256-colour codes; bold; dim).
#[derive(Clone, Copy, PartialEq)]
struct Cell {
    ch: char,
    style: Style,
}

#[derive(Clone, Copy, Default, PartialEq)]
struct Style {
    fg: Option<u8>,
    bg: Option<u8>,
    bold: bool,
    dim: bool,
}

/// What a terminal of `COLS` columns shows after `bytes`: every line
/// (the scrollback included), each a row of cells. Enough of a terminal
/// for what meeple writes: text, `\r`, `\n`, `\b`, SGR colours, erasing
/// to the end of the line, and cursor moves along the line; other
/// sequences are ignored.
fn screen(bytes: &[u8]) -> Vec<Vec<Cell>> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines: Vec<Vec<Cell>> = vec![Vec::new()];
    let (mut row, mut col) = (0usize, 0usize);
    let mut style = Style::default();
    let mut it = text.chars().peekable();
    let blank = Cell { ch: ' ', style: Style::default() };
    while let Some(c) = it.next() {
        match c {
            '\x1b' => match it.next() {
                Some('[') => {
                    let mut params = String::new();
                    let mut fin = ' ';
                    for d in it.by_ref() {
                        if ('\x40'..='\x7e').contains(&d) {
                            fin = d;
                            break;
                        }
                        params.push(d);
                    }
                    let nums: Vec<usize> = params.split(';').map(|p| p.parse().unwrap_or(0)).collect();
                    let n = nums.first().copied().unwrap_or(0).max(1);
                    match fin {
                        'm' if !params.starts_with('?') => sgr(&nums, &mut style),
                        'K' => {
                            let l = &mut lines[row];
                            match nums.first().copied().unwrap_or(0) {
                                0 => l.truncate(col),
                                1 => l.iter_mut().take(col).for_each(|x| *x = blank),
                                _ => l.clear(),
                            }
                        }
                        'C' => col = (col + n).min(COLS as usize - 1),
                        'D' => col = col.saturating_sub(n),
                        'G' => col = n - 1,
                        'A' => row = row.saturating_sub(n),
                        _ => {}
                    }
                }
                Some(']') => {
                    // OSC: up to BEL or ST.
                    while let Some(d) = it.next() {
                        if d == '\x07' || (d == '\x1b' && it.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' => col = 0,
            '\n' => {
                row += 1;
                if row == lines.len() {
                    lines.push(Vec::new());
                }
                col = 0;
            }
            '\x08' => col = col.saturating_sub(1),
            '\t' => col = (col / 8 + 1) * 8,
            c if c.is_control() => {}
            c => {
                if col >= COLS as usize {
                    row += 1;
                    if row == lines.len() {
                        lines.push(Vec::new());
                    }
                    col = 0;
                }
                let l = &mut lines[row];
                while l.len() <= col {
                    l.push(blank);
                }
                l[col] = Cell { ch: c, style };
                col += 1;
            }
        }
    }
    lines
}

fn sgr(nums: &[usize], s: &mut Style) {
    let mut i = 0;
    while i < nums.len() {
        match nums[i] {
            0 => *s = Style::default(),
            1 => s.bold = true,
            2 => s.dim = true,
            22 => (s.bold, s.dim) = (false, false),
            39 => s.fg = None,
            49 => s.bg = None,
            30..=37 => s.fg = Some((nums[i] - 30) as u8),
            40..=47 => s.bg = Some((nums[i] - 40) as u8),
            90..=97 => s.fg = Some((nums[i] - 90 + 8) as u8),
            38 | 48 if nums.get(i + 1) == Some(&5) => {
                let v = nums.get(i + 2).copied().unwrap_or(0).min(255) as u8;
                if nums[i] == 38 {
                    s.fg = Some(v);
                } else {
                    s.bg = Some(v);
                }
                i += 2;
            }
            _ => {}
        }
        i += 1;
    }
}

/// The CSS colour of an xterm 256-colour code.
fn css(code: u8) -> String {
    const BASE: [&str; 16] = [
        "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5", "#666666",
        "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
    ];
    match code {
        0..=15 => BASE[code as usize].to_string(),
        16..=231 => {
            let c = code - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
            format!("#{:02x}{:02x}{:02x}", level(c / 36), level(c / 6 % 6), level(c % 6))
        }
        _ => {
            let g = 8 + 10 * (code - 232);
            format!("#{g:02x}{g:02x}{g:02x}")
        }
    }
}

/// An HTML page showing `lines` as a dark terminal does; its size in
/// pixels.
fn html(lines: &[Vec<Cell>]) -> (String, u32, u32) {
    let esc = |c: char| match c {
        '<' => "&lt;".to_string(),
        '>' => "&gt;".to_string(),
        '&' => "&amp;".to_string(),
        c => c.to_string(),
    };
    let mut body = String::new();
    for l in lines {
        let mut i = 0;
        while i < l.len() {
            let st = l[i].style;
            let mut run = String::new();
            while i < l.len() && l[i].style == st {
                run.push_str(&esc(l[i].ch));
                i += 1;
            }
            let mut style = String::new();
            if let Some(f) = st.fg {
                style.push_str(&format!("color:{};", css(f)));
            }
            if let Some(b) = st.bg {
                style.push_str(&format!("background:{};", css(b)));
            }
            if st.bold {
                style.push_str("font-weight:bold;");
            }
            if st.dim {
                style.push_str("opacity:0.6;");
            }
            if style.is_empty() {
                body.push_str(&run);
            } else {
                body.push_str(&format!("<span style=\"{style}\">{run}</span>"));
            }
        }
        body.push('\n');
    }
    let width = lines.iter().map(|l| l.len()).max().unwrap_or(0).max(40) as u32;
    let (w, h) = (24 + width * 17 / 2 + 8, 24 + lines.len() as u32 * 16);
    let page = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>html,body{{margin:0;background:#1e1e1e}}\
         pre{{margin:12px;color:#d4d4d4;font:14px/16px 'DejaVu Sans Mono',monospace}}</style></head>\
         <body><pre>{body}</pre></body></html>"
    );
    (page, w, h)
}

/// Renders `lines` with headless Chromium to `docs/<name>.png` and checks
/// the picture; `false` if skipped (MEEPLE_SKIP_BROWSER_TEST=1).
fn picture(lines: &[Vec<Cell>], name: &str) -> bool {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if std::env::var("MEEPLE_SKIP_BROWSER_TEST").is_ok_and(|v| v == "1") {
        eprintln!("picture {name} skipped: MEEPLE_SKIP_BROWSER_TEST=1");
        return false;
    }
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
        .expect(
            "the README's pictures need Chromium: run scripts/setup-test-deps.sh (or bash scripts/test.sh), \
             or set MEEPLE_SKIP_BROWSER_TEST=1 to skip them",
        );
    let dir = root.join("target/pictures");
    std::fs::create_dir_all(&dir).unwrap();
    let (page, w, h) = html(lines);
    let page_path = dir.join(format!("{name}.html"));
    std::fs::write(&page_path, page).unwrap();
    let png = dir.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    let profile = crate::common::unique_dir("meeple-chromium");
    let out = Command::new(&chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(format!("--window-size={w},{h}"))
        .arg(format!("file://{}", page_path.display()))
        .output()
        .expect("run chromium");
    let _ = std::fs::remove_dir_all(&profile);
    let bytes = std::fs::read(&png).unwrap_or_else(|e| {
        panic!("chromium wrote no picture ({e}): {}", String::from_utf8_lossy(&out.stderr))
    });
    // A PNG: its signature, then the IHDR chunk's width and height.
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{name}: not a PNG");
    assert_eq!(&bytes[12..16], b"IHDR");
    let dim = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    assert_eq!((dim(16), dim(20)), (w, h), "{name}: the page's size");
    assert!(w >= 300 && h >= 200 && w <= 2000 && h <= 2000, "{name}: {w}x{h}");
    assert!(bytes.len() > 5_000 && bytes.len() < 200_000, "{name}: {} bytes", bytes.len());
    // The README's copy is replaced when asked (the terminal game's
    // picture shows the engine's thinking times, which differ run to run).
    if std::env::var("MEEPLE_PICTURES").is_ok_and(|v| v == "update") {
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::copy(&png, root.join("docs").join(format!("{name}.png"))).unwrap();
    }
    true
}

/// A finished game of Connect Four with blunders on both sides.
const C4_GAME: &str =
    "Connect4;RedWins;Yellow[18];3;1;2;2;7;7;4;5;5;4;4;2;2;5;5;3;1;3;4;3;3;4;2;7;7;1;6;5;5;4;3;1;6;2;6";

/// `meeple review NAME` on a saved game at a terminal: the annotated
/// moves, the graph, the mistakes with better moves and the accuracies,
/// in colour; a GameString works too, and a name that is no save is
/// refused with the saves listed. The review's picture for the README.
#[test]
fn meeple_review_of_a_saved_game_at_a_terminal() {
    let mut e = Engine::start("review-pty");
    e.cmd(&format!("newgame {C4_GAME}"));
    assert_eq!(e.cmd("save blunders"), ["saved blunders"]);
    let mut p = Pty::spawn(&e.data_dir, &["review", "blunders"]);
    let shown = p.finish();
    for want in [
        "Review of Connect4 (Red won, 35 moves), no time limit",
        "Moves (?! inaccuracy, ? mistake, ?? blunder)",
        "    1. 3??   1??",
        "Evaluation (Red leads above the line, Yellow below; one column per move)",
        " Yellow │",
        "i inaccuracy, M mistake, B blunder",
        "Mistakes and better moves",
        "    1. Red 3?? blunder: value 0; better 4 (value 1)",
        "   12. Yellow 7?? blunder: value -5; better 4 (value 1)",
        "Red: accuracy ",
        "Yellow: accuracy ",
    ] {
        assert!(shown.contains(want), "{want:?} not in:\n{shown}");
    }
    assert!(!shown.contains("Not judged"), "everything is proven without a limit:\n{shown}");
    let raw = String::from_utf8_lossy(&p.raw).to_string();
    assert!(raw.contains("\x1b[38;5;196m??"), "blunders in red at a terminal");
    let lines = screen(&p.raw);
    let start = lines
        .iter()
        .position(|l| l.iter().map(|c| c.ch).collect::<String>().starts_with("Review of"))
        .unwrap();
    picture(&lines[start..], "terminal-review");
    // Through a pipe: no colour; a GameString; a time limit.
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .arg("--data-dir")
        .arg(&e.data_dir)
        .args(["review", C4_GAME, "--movetime", "5000"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("5000 ms a position") && text.contains("    1. 3??   1??"), "{text}");
    assert!(!text.contains('\x1b'), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .arg("--data-dir")
        .arg(&e.data_dir)
        .args(["review", "nosuch"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot load 'nosuch'") && err.contains("saved: blunders"), "{err}");
}

/// `meeple play` at a terminal offers the review when the game ends, and
/// draws it on yes. The terminal game's picture for the README (the
/// board in the middle of the game).
#[test]
fn meeple_play_offers_a_review_when_the_game_ends() {
    let dir = crate::common::unique_dir("meeple-it-review-play");
    let mut p = Pty::spawn(&dir, &["play", "Connect4", "--time", "0.1", "--name", "Tess", "--no-record"]);
    let prompt = "Tess (Red) > ";
    p.expect(prompt);
    let mut g: Box<dyn AnyGame> = registry::new_game("Connect4").unwrap();
    // Red plays these columns (or the leftmost one free).
    let wanted = ["4", "3", "5", "3", "2", "6", "1", "7"];
    let mut turn = 0;
    loop {
        turn += 1;
        let valid = g.valid_moves();
        let m = wanted
            .get(turn - 1)
            .map(|w| w.to_string())
            .filter(|w| valid.contains(w))
            .unwrap_or_else(|| valid[0].clone());
        p.line(&m);
        g.play_text(&m).unwrap();
        let (over, text) = wait_any(&mut p, &[prompt, "Review this game? [y/N] "]);
        for l in text.lines() {
            if let Some(rest) = l.strip_prefix("Yellow (O) plays ") {
                g.play_text(rest.split(' ').next().unwrap()).unwrap();
            }
        }
        if turn == 4 {
            // The last two moves and the board, as the screen shows them.
            let lines = screen(&p.raw);
            let text = |l: &Vec<Cell>| l.iter().map(|c| c.ch).collect::<String>();
            let first = lines.iter().rposition(|l| text(l).starts_with("Red (X) plays")).unwrap();
            picture(&lines[first..], "terminal-play");
        }
        if over {
            break;
        }
    }
    assert!(g.is_over());
    p.line("y");
    p.expect("Review of Connect4 (Yellow won");
    let shown = p.finish();
    assert!(shown.contains("Mistakes and better moves") || shown.contains("No inaccuracy"), "{shown}");
    assert!(shown.contains("Tess") || shown.contains("Red: accuracy"), "{shown}");
    let _ = std::fs::remove_dir_all(dir);
}

/// Waits until one of two patterns shows; (true if the second, the text).
fn wait_any(p: &mut Pty, pats: &[&str; 2]) -> (bool, String) {
    let deadline = Instant::now() + SAFETY;
    loop {
        let rest = &p.text[p.at..];
        let found = pats.iter().enumerate().filter_map(|(i, s)| rest.find(s).map(|a| (a, i))).min();
        if let Some((a, i)) = found {
            let end = p.at + a + pats[i].len();
            let t = p.text[p.at..end].to_string();
            p.at = end;
            return (i == 1, t);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match p.chunks.recv_timeout(left) {
            Ok(b) if !left.is_zero() => p.take(b),
            _ => panic!("waited for {pats:?}; the terminal shows:\n{}", &p.text[p.at..]),
        }
    }
}
