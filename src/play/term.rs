//! The terminal of `meeple play`: lines read with line editing, history
//! and completion of the legal moves and commands (rustyline) when the
//! input is a terminal, plain lines otherwise (echoed after the prompt, so
//! a piped game reads as a transcript); Ctrl-C as a flag while the engine
//! thinks and as an event at the prompt; the thinking line (a spinner with
//! the depth and time) drawn over itself only on a terminal.
//!
//! The terminal is given back as the game found it however the process
//! ends: the line editor puts it in raw mode at the prompt (no echo, no
//! line editing, no signal keys) and the game sets NOFLSH, and a signal
//! that ends the process (SIGTERM, SIGHUP, SIGQUIT) would leave it so.
//! Those signals are caught on a thread of their own, which puts the
//! settings saved at the start back and then ends the process by the same
//! signal, with the status a shell expects (143, 129, 131). SIGINT never
//! ends the game by a signal (Ctrl-C is a command here; twice at the prompt
//! it leaves the game the ordinary way). A panic on the main thread puts
//! the settings back before it unwinds (NOFLSH is cleared as the game's
//! frames unwind, or stays if the panic is caught and the game goes on).

use std::io::{self, IsTerminal, StdinLock, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
#[cfg(unix)]
use std::sync::{Once, PoisonError};

use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{CompletionType, Config, Context, Editor, Helper};

use crate::protocol::input::{InputLine, LineReader};

/// Lines kept for the arrows and Ctrl-R.
const MAX_HISTORY: usize = 1000;

/// What the person gave at a prompt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Line(String),
    /// Ctrl-C at the prompt.
    Interrupt,
    /// Ctrl-D, or the end of piped input.
    Eof,
}

/// Completion: the whole line so far against the legal moves and the
/// commands (a Hive move is two words: `wA1 -bQ`).
struct Words {
    words: Arc<Mutex<Vec<String>>>,
}

impl Completer for Words {
    type Candidate = String;

    fn complete(&self, line: &str, pos: usize, _: &Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let typed = line[..pos].to_lowercase();
        let words = self.words.lock().unwrap_or_else(|p| p.into_inner());
        let found = words.iter().filter(|w| w.to_lowercase().starts_with(&typed)).cloned().collect();
        Ok((0, found))
    }
}

impl Hinter for Words {
    type Hint = String;
}
impl Highlighter for Words {}
impl Validator for Words {}
impl Helper for Words {}

/// Ctrl-C is a command here (move now, pause), not an abort. A terminal
/// throws away the output it has not yet drawn when Ctrl-C comes, unless
/// its NOFLSH flag is set: lines of moves were lost that way when the
/// screen lagged behind the engine. The flag is set while the game runs
/// and the terminal's own settings come back when it ends.
struct KeepOutput {
    #[cfg(unix)]
    saved: Option<(i32, libc::termios)>,
}

impl KeepOutput {
    #[cfg(unix)]
    fn new() -> KeepOutput {
        let fd = if io::stdout().is_terminal() {
            1
        } else if io::stdin().is_terminal() {
            0
        } else {
            return KeepOutput { saved: None };
        };
        KeepOutput::on(fd)
    }

    /// Sets NOFLSH on the terminal `fd` (if it was not set already).
    #[cfg(unix)]
    fn on(fd: i32) -> KeepOutput {
        // SAFETY: tcgetattr/tcsetattr on a descriptor of this process,
        // with a termios the call fills.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(fd, &mut t) != 0 || t.c_lflag & libc::NOFLSH != 0 {
                return KeepOutput { saved: None };
            }
            let saved = t;
            t.c_lflag |= libc::NOFLSH;
            if libc::tcsetattr(fd, libc::TCSANOW, &t) != 0 {
                log::debug!("cannot keep the output on Ctrl-C: {}", io::Error::last_os_error());
                return KeepOutput { saved: None };
            }
            KeepOutput { saved: Some((fd, saved)) }
        }
    }

    #[cfg(not(unix))]
    fn new() -> KeepOutput {
        KeepOutput {}
    }
}

impl Drop for KeepOutput {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some((fd, saved)) = self.saved.take() {
            // SAFETY: as above; the settings read when the game began.
            unsafe {
                let mut now: libc::termios = std::mem::zeroed();
                if libc::tcgetattr(fd, &mut now) == 0 {
                    now.c_lflag = (now.c_lflag & !libc::NOFLSH) | (saved.c_lflag & libc::NOFLSH);
                    libc::tcsetattr(fd, libc::TCSANOW, &now);
                }
            }
        }
    }
}

/// While it lives, Ctrl-C on the input terminal is a character, not a
/// signal (ISIG cleared); the terminal's setting comes back when it is
/// dropped (and with every other setting if the process ends meanwhile:
/// see `RestoreOnExit`).
struct CtrlCAsKey {
    #[cfg(unix)]
    isig: bool,
}

impl CtrlCAsKey {
    fn on() -> CtrlCAsKey {
        #[cfg(unix)]
        // SAFETY: tcgetattr/tcsetattr on stdin, with a termios the call
        // fills.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(0, &mut t) != 0 || t.c_lflag & libc::ISIG == 0 {
                return CtrlCAsKey { isig: false };
            }
            t.c_lflag &= !libc::ISIG;
            CtrlCAsKey { isig: libc::tcsetattr(0, libc::TCSANOW, &t) == 0 }
        }
        #[cfg(not(unix))]
        CtrlCAsKey {}
    }
}

impl Drop for CtrlCAsKey {
    fn drop(&mut self) {
        #[cfg(unix)]
        if self.isig {
            // SAFETY: as above.
            unsafe {
                let mut t: libc::termios = std::mem::zeroed();
                if libc::tcgetattr(0, &mut t) == 0 {
                    t.c_lflag |= libc::ISIG;
                    libc::tcsetattr(0, libc::TCSANOW, &t);
                }
            }
        }
    }
}

/// The settings of the terminal descriptors (stdin, stdout) as the game
/// found them.
#[cfg(unix)]
type Modes = Vec<(i32, libc::termios)>;

/// The settings the panic hook puts back (set while a game runs).
#[cfg(unix)]
static SAVED: Mutex<Option<Modes>> = Mutex::new(None);

/// The settings of those of `fds` that are terminals.
#[cfg(unix)]
fn modes_of(fds: &[i32]) -> Modes {
    let mut modes = Vec::new();
    for &fd in fds {
        // SAFETY: isatty/tcgetattr on a descriptor number, with a termios
        // the call fills.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            if libc::isatty(fd) == 1 && libc::tcgetattr(fd, &mut t) == 0 {
                modes.push((fd, t));
            }
        }
    }
    modes
}

/// Puts saved settings back at once (TCSANOW: never waits for output to
/// drain, which a stopped terminal would not do). With `keep_noflsh`,
/// NOFLSH stays as it is now.
#[cfg(unix)]
fn put_back(modes: &Modes, keep_noflsh: bool) {
    for &(fd, saved) in modes {
        let mut t = saved;
        // SAFETY: tcgetattr/tcsetattr on a descriptor number, with
        // termios values we own.
        unsafe {
            let mut now: libc::termios = std::mem::zeroed();
            if keep_noflsh && libc::tcgetattr(fd, &mut now) == 0 {
                t.c_lflag = (t.c_lflag & !libc::NOFLSH) | (now.c_lflag & libc::NOFLSH);
            }
            // A terminal hung up (SIGHUP) refuses: nothing left to restore.
            libc::tcsetattr(fd, libc::TCSANOW, &t);
        }
    }
}

/// A panic on the main thread puts the terminal back (see the module
/// doc); installed once, before the hook that was there, which then runs.
#[cfg(unix)]
fn restore_on_panic() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current().name() == Some("main") {
                // try_lock: a panic while the lock is held must not wait.
                if let Ok(saved) = SAVED.try_lock()
                    && let Some(modes) = saved.as_ref()
                {
                    put_back(modes, true);
                }
            }
            previous(info);
        }));
    });
}

/// Puts the terminal back when a signal ends the process (see the module
/// doc), and when the main thread panics.
struct RestoreOnExit {
    #[cfg(unix)]
    watching: bool,
}

impl RestoreOnExit {
    #[cfg(unix)]
    fn new() -> RestoreOnExit {
        use signal_hook::consts::{SIGHUP, SIGQUIT, SIGTERM};
        let modes = modes_of(&[0, 1]);
        if modes.is_empty() {
            return RestoreOnExit { watching: false };
        }
        *SAVED.lock().unwrap_or_else(PoisonError::into_inner) = Some(modes.clone());
        restore_on_panic();
        let mut signals = match signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGQUIT]) {
            Ok(s) => s,
            Err(e) => {
                log::warn!("cannot restore the terminal on SIGTERM, SIGHUP or SIGQUIT: {e}");
                return RestoreOnExit { watching: false };
            }
        };
        // The thread lives as long as the process: a signal after the game
        // puts back the same settings and ends the process all the same.
        let spawned = std::thread::Builder::new().name("terminal-signals".into()).spawn(move || {
            if let Some(sig) = signals.forever().next() {
                put_back(&modes, false);
                // Ends the process by `sig` itself (the default action).
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                std::process::exit(128 + sig);
            }
        });
        if let Err(e) = spawned {
            log::warn!("cannot restore the terminal on SIGTERM, SIGHUP or SIGQUIT: {e}");
        }
        RestoreOnExit { watching: true }
    }

    #[cfg(not(unix))]
    fn new() -> RestoreOnExit {
        RestoreOnExit {}
    }
}

impl Drop for RestoreOnExit {
    fn drop(&mut self) {
        #[cfg(unix)]
        if self.watching {
            *SAVED.lock().unwrap_or_else(PoisonError::into_inner) = None;
        }
    }
}

/// The terminal.
pub struct Term {
    /// ANSI colours in the output.
    pub color: bool,
    /// Output is a terminal (the thinking line is redrawn in place).
    pub live: bool,
    /// Input is a terminal: lines are read with the line editor.
    editing: bool,
    /// The lines typed, for the arrows and Ctrl-R.
    history: Vec<String>,
    words: Arc<Mutex<Vec<String>>>,
    interrupted: Arc<AtomicBool>,
    _keep: KeepOutput,
    _restore: RestoreOnExit,
    /// Input that is not a terminal: bounded lines.
    pipe: Option<LineReader<StdinLock<'static>>>,
}

impl Term {
    /// The terminal of this process; Ctrl-C (SIGINT) is caught from now
    /// on: it sets a flag instead of ending the process.
    pub fn new(color: bool) -> Term {
        let interrupted = Arc::new(AtomicBool::new(false));
        if let Err(e) = signal_hook::flag::register(signal_hook::consts::SIGINT, interrupted.clone()) {
            log::warn!("cannot catch Ctrl-C: {e}");
        }
        // Saved before NOFLSH is set, so that a signal clears it too.
        let restore = RestoreOnExit::new();
        Term {
            color,
            live: io::stdout().is_terminal(),
            editing: io::stdin().is_terminal(),
            history: Vec::new(),
            words: Arc::new(Mutex::new(Vec::new())),
            interrupted,
            _keep: KeepOutput::new(),
            _restore: restore,
            pipe: None,
        }
    }

    /// True if a person types at a terminal (names are asked, Tab
    /// completes).
    pub fn interactive(&self) -> bool {
        self.editing
    }

    /// What Tab completes from now on.
    pub fn set_words(&self, words: Vec<String>) {
        *self.words.lock().unwrap_or_else(|p| p.into_inner()) = words;
    }

    /// Reads a line after `prompt`.
    pub fn read(&mut self, prompt: &str) -> Input {
        if !self.editing {
            self.interrupted.store(false, Ordering::SeqCst);
            return self.read_plain(prompt);
        }
        // The line editor exists only while a line is read: it takes the
        // process's SIGINT handler while it exists (and gives it back when
        // dropped), so that Ctrl-C during a search reaches our flag.
        // From here on a Ctrl-C typed is a key in the input, read by the
        // editor, never a signal that could fall between our flag and the
        // editor's read (the editor catches SIGINT from when it is made, but
        // notices one only while it waits in its read).
        let key = CtrlCAsKey::on();
        let config = Config::builder().completion_type(CompletionType::List).auto_add_history(false).build();
        let mut editor: Editor<Words, DefaultHistory> = match Editor::with_config(config) {
            Ok(e) => e,
            Err(e) => {
                log::warn!("no line editing: {e}");
                self.editing = false;
                return self.read_plain(prompt);
            }
        };
        editor.set_helper(Some(Words { words: self.words.clone() }));
        for h in &self.history {
            let _ = editor.add_history_entry(h.as_str());
        }
        // A Ctrl-C that came while no line was being read (after the last
        // prompt, while Ctrl-C was a signal) counts as one at this prompt:
        // it is not lost.
        if self.interrupted.swap(false, Ordering::SeqCst) {
            return Input::Interrupt;
        }
        let got = editor.readline(prompt);
        drop(editor);
        drop(key);
        match got {
            Ok(line) => {
                if !line.trim().is_empty() && self.history.last() != Some(&line) {
                    self.history.push(line.clone());
                    if self.history.len() > MAX_HISTORY {
                        self.history.remove(0);
                    }
                }
                Input::Line(line)
            }
            Err(ReadlineError::Interrupted) => Input::Interrupt,
            Err(_) => Input::Eof,
        }
    }

    /// A line of input that is not a terminal, echoed after the prompt.
    fn read_plain(&mut self, prompt: &str) -> Input {
        print!("{prompt}");
        let _ = io::stdout().flush();
        let pipe = self.pipe.get_or_insert_with(|| LineReader::new(io::stdin().lock()));
        loop {
            return match pipe.next_line() {
                Ok(Some(InputLine::Line(line))) => {
                    println!("{line}");
                    Input::Line(line)
                }
                Ok(Some(InputLine::TooLong(n))) => {
                    println!("(a line of {n} bytes, too long: ignored)");
                    continue;
                }
                Ok(Some(InputLine::NotUtf8)) => {
                    println!("(a line that is not UTF-8: ignored)");
                    continue;
                }
                Ok(None) | Err(_) => {
                    println!();
                    Input::Eof
                }
            };
        }
    }

    /// True once if Ctrl-C was pressed since the last call (or prompt).
    pub fn take_interrupt(&self) -> bool {
        self.interrupted.swap(false, Ordering::SeqCst)
    }

    /// Prints lines.
    pub fn say(&self, text: &str) {
        let mut o = io::stdout().lock();
        let _ = writeln!(o, "{}", text.trim_end_matches('\n')).and_then(|_| o.flush());
    }

    /// Draws the thinking line over the previous one (on a terminal only).
    pub fn status(&self, text: &str) {
        if self.live {
            let mut o = io::stdout().lock();
            let _ = write!(o, "\r{text}\x1b[K").and_then(|_| o.flush());
        }
    }

    /// Clears the thinking line.
    pub fn clear_status(&self) {
        if self.live {
            let mut o = io::stdout().lock();
            let _ = write!(o, "\r\x1b[K").and_then(|_| o.flush());
        }
    }
}

/// True if colours are wanted: `--color always`, or `auto` on a terminal
/// without `NO_COLOR` (https://no-color.org: set and not empty).
pub fn want_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    }
}

/// `--color`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[cfg(all(test, unix))]
mod tests {
    use std::fs::File;
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd};

    use super::KeepOutput;

    /// A pseudo-terminal: (master, slave).
    fn pty() -> (File, File) {
        let (mut master, mut slave) = (0, 0);
        // SAFETY: openpty writes two descriptors, which we then own.
        let r = unsafe {
            libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), std::ptr::null())
        };
        assert_eq!(r, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: the descriptors are open and owned by nobody else.
        unsafe { (File::from_raw_fd(master), File::from_raw_fd(slave)) }
    }

    fn noflsh(f: &File) -> bool {
        // SAFETY: tcgetattr fills the termios.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            assert_eq!(libc::tcgetattr(f.as_raw_fd(), &mut t), 0);
            t.c_lflag & libc::NOFLSH != 0
        }
    }

    fn lflag(f: &File) -> libc::tcflag_t {
        // SAFETY: tcgetattr fills the termios.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            assert_eq!(libc::tcgetattr(f.as_raw_fd(), &mut t), 0);
            t.c_lflag
        }
    }

    /// What the line editor and the game do to the terminal: raw mode at
    /// the prompt, and NOFLSH.
    fn make_raw(f: &File) {
        // SAFETY: tcgetattr/tcsetattr with a termios we own.
        unsafe {
            let mut t: libc::termios = std::mem::zeroed();
            assert_eq!(libc::tcgetattr(f.as_raw_fd(), &mut t), 0);
            t.c_lflag &= !(libc::ECHO | libc::ICANON | libc::ISIG);
            t.c_lflag |= libc::NOFLSH;
            assert_eq!(libc::tcsetattr(f.as_raw_fd(), libc::TCSANOW, &t), 0);
        }
    }

    const COOKED: libc::tcflag_t = libc::ECHO | libc::ICANON | libc::ISIG;

    #[test]
    fn saved_settings_come_back_with_or_without_noflsh() {
        let (_master, slave) = pty();
        let modes = super::modes_of(&[slave.as_raw_fd()]);
        assert_eq!(modes.len(), 1);
        assert_eq!(lflag(&slave) & COOKED, COOKED);
        make_raw(&slave);
        assert_eq!(lflag(&slave) & COOKED, 0);
        super::put_back(&modes, true);
        assert_eq!(lflag(&slave) & COOKED, COOKED);
        assert_ne!(lflag(&slave) & libc::NOFLSH, 0, "kept");
        make_raw(&slave);
        super::put_back(&modes, false);
        assert_eq!(lflag(&slave) & (COOKED | libc::NOFLSH), COOKED);
        // Only terminals are saved.
        let (r, _w) = std::io::pipe().unwrap();
        assert!(super::modes_of(&[r.as_raw_fd()]).is_empty());
    }

    /// A panic on the main thread gives the terminal its echo, line
    /// editing and signal keys back before it unwinds.
    #[test]
    fn a_panic_on_the_main_thread_puts_the_terminal_back() {
        let (_master, slave) = pty();
        *super::SAVED.lock().unwrap() = Some(super::modes_of(&[slave.as_raw_fd()]));
        super::restore_on_panic();
        make_raw(&slave);
        let other = std::thread::Builder::new().name("search".into()).spawn(|| panic!("a search")).unwrap();
        assert!(other.join().is_err());
        assert_eq!(lflag(&slave) & COOKED, 0, "a panic elsewhere changes nothing");
        let main = std::thread::Builder::new().name("main".into()).spawn(|| panic!("the game")).unwrap();
        assert!(main.join().is_err());
        *super::SAVED.lock().unwrap() = None;
        assert_eq!(lflag(&slave) & COOKED, COOKED);
    }

    /// 16 KB of lines the screen has not read yet, then Ctrl-C, then an
    /// end mark: every line still arrives, and the terminal's setting
    /// comes back afterwards.
    #[test]
    fn ctrl_c_keeps_the_lines_the_screen_has_not_drawn() {
        let (mut master, slave) = pty();
        assert!(!noflsh(&slave));
        let keep = KeepOutput::on(slave.as_raw_fd());
        assert!(noflsh(&slave));
        // A writer the screen does not keep up with: it blocks once the
        // terminal's buffers are full, and Ctrl-C comes meanwhile.
        let line = "Red (X) plays 4 (perfect, 0.02 s)\n";
        let mut writer = slave.try_clone().unwrap();
        let w = std::thread::spawn(move || {
            writer.write_all(line.repeat(500).as_bytes()).unwrap();
            writer.write_all(b"END\n").unwrap();
        });
        std::thread::sleep(std::time::Duration::from_millis(100));
        master.write_all(b"\x03").unwrap();
        // Read until the end mark, with a safety net (without the flag
        // the mark itself can be thrown away).
        // SAFETY: fcntl on a descriptor we own.
        unsafe { libc::fcntl(master.as_raw_fd(), libc::F_SETFL, libc::O_NONBLOCK) };
        let safety = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&seen).contains("END") && std::time::Instant::now() < safety {
            match master.read(&mut buf) {
                Ok(n) => seen.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                Err(e) => panic!("{e}"),
            }
        }
        let seen = String::from_utf8_lossy(&seen);
        assert_eq!(seen.matches(line.trim_end()).count(), 500);
        w.join().unwrap();
        drop(keep);
        assert!(!noflsh(&slave));
    }
}
