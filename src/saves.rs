//! Named saved games, behind one storage seam: natively JSON files in
//! `<data-dir>/saves/`, written atomically (temporary file, then rename);
//! in the browser (WebAssembly, where there are no files) a
//! [`MemoryStore`] the page loads from its storage and keeps (every write
//! is handed to it at once). Either way a save is the same text, so a
//! file moves between `meeple` and the browser as it is; reading checks it
//! the same way, and a corrupt or tampered save is refused naming what is
//! wrong.
//!
//! The folder is treated as hostile: the temporary file is created
//! exclusively under an unpredictable name (a planted file or symbolic
//! link is never followed nor overwritten) and stale ones are removed; only
//! regular files of bounded size are read, opened without following a
//! symbolic link and without blocking (a FIFO or a device is refused); a
//! saves folder that is itself a symbolic link is refused; no field read
//! from a file may carry a control character or a line break, so nothing
//! read can inject a line into the protocol output.
//!
//! `saves` reads only what it lists: each file up to [`MAX_LISTED_BYTES`]
//! (a larger one is listed as too large, unread), and every line of the
//! listing starts with the word `save`, so no save name, whatever it is
//! (`ok`, `err`, `bestmove`, ...), can start a line that reads as another
//! kind of reply.

use std::collections::BTreeMap;
#[cfg(not(target_arch = "wasm32"))]
use std::fs;
#[cfg(not(target_arch = "wasm32"))]
use std::io::{Read, Write};
use std::path::Path;
#[cfg(not(target_arch = "wasm32"))]
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
#[cfg(not(target_arch = "wasm32"))]
use std::time::SystemTime;

use crate::text::{is_unprintable, printable};
use serde::{Deserialize, Serialize};

/// The content of a save file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaveFile {
    pub format: String,
    pub version: u32,
    /// The GameString.
    pub game: String,
    /// The game family's option values when saved, as text.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
}

pub const FORMAT: &str = "meeple-save";
pub const VERSION: u32 = 1;

/// Largest save file read (a Hive game of 100 000 plies fits).
pub const MAX_SAVE_BYTES: u64 = 4 << 20;
/// A temporary file older than this is the leftover of a killed save.
pub const STALE_TMP: Duration = Duration::from_secs(60);
/// `saves` lists at most this many saves.
pub const MAX_LISTED: usize = 1000;
/// Largest save file `saves` reads to list it (a Hive game of some 1900
/// plies; real games are far shorter). A larger file is listed as too
/// large without being read; `load` still reads it (up to
/// [`MAX_SAVE_BYTES`]). With [`MAX_LISTED`] saves this bounds what one
/// `saves` reads and replays to 16 MB (1000 Hive games of 1900 plies: 5 s
/// on a busy machine; real saves of a few kB: milliseconds).
pub const MAX_LISTED_BYTES: u64 = 16384;

/// What reading a save found.
enum Found {
    Text(String),
    /// The file is larger than the limit of the read (its size): not read.
    TooLarge(u64),
}

/// Checks a save name: 1..64 of `A-Z a-z 0-9 _ - .`, not starting with `.`.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "bad save name '{}': use 1-64 characters of A-Z a-z 0-9 _ - . not starting with .",
            printable(&name.chars().take(80).collect::<String>())
        ))
    }
}

/// The first field of `file` holding a control character or a line
/// break, if any.
fn control_field(file: &SaveFile) -> Option<String> {
    let bad = |s: &str| s.chars().any(is_unprintable);
    if bad(&file.format) {
        return Some("format".into());
    }
    if bad(&file.game) {
        return Some("game".into());
    }
    file.options.iter().find(|(k, v)| bad(k) || bad(v)).map(|(k, _)| format!("option '{}'", printable(k)))
}

/// Called with a save's name and text each time one is written to a
/// [`MemoryStore`] (the browser's page keeps it in its storage).
pub type OnWrite = Arc<dyn Fn(&str, &str) + Send + Sync>;

/// Saves kept in memory, by name (without `.json`), each the text of its
/// file: the browser's storage as the engine sees it. Clones share the
/// same saves.
#[derive(Clone, Default)]
pub struct MemoryStore {
    files: Arc<Mutex<BTreeMap<String, String>>>,
    on_write: Option<OnWrite>,
}

impl MemoryStore {
    /// A store holding `files` (name → text, as the page kept them; they
    /// are checked when read, like files), telling `on_write` of every
    /// save written.
    pub fn new(files: BTreeMap<String, String>, on_write: Option<OnWrite>) -> Self {
        MemoryStore { files: Arc::new(Mutex::new(files)), on_write }
    }

    /// The saves held now (name → text).
    pub fn files(&self) -> BTreeMap<String, String> {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.files.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self, name: &str, text: &str) {
        if let Some(w) = &self.on_write {
            w(name, text);
        }
        self.lock().insert(name.to_string(), text.to_string());
    }

    fn read(&self, name: &str, limit: u64) -> Result<Found, String> {
        match self.lock().get(name) {
            None => Err(format!("no saved game named '{name}'")),
            Some(t) if t.len() as u64 > limit => Ok(Found::TooLarge(t.len() as u64)),
            Some(t) => Ok(Found::Text(t.clone())),
        }
    }
}

/// Where the saves are.
enum Store {
    /// The saves folder of a data directory.
    #[cfg(not(target_arch = "wasm32"))]
    Dir(Dir),
    Memory(MemoryStore),
}

/// The saved games.
pub struct Saves {
    store: Store,
}

impl Saves {
    /// The saves of a data directory (natively; also removes stale
    /// temporaries left by saves killed midway). In WebAssembly, where
    /// there are no files, an empty [`MemoryStore`] until the web worker
    /// gives the session the page's own (see [`Saves::in_memory`]).
    pub fn new(data_dir: &Path) -> Self {
        #[cfg(not(target_arch = "wasm32"))]
        {
            let d = Dir { dir: data_dir.join("saves") };
            d.remove_stale_temporaries();
            Saves { store: Store::Dir(d) }
        }
        #[cfg(target_arch = "wasm32")]
        {
            let _ = data_dir;
            Saves::in_memory(MemoryStore::default())
        }
    }

    /// Saves kept in `store` (the browser's, or a test's).
    pub fn in_memory(store: MemoryStore) -> Self {
        Saves { store: Store::Memory(store) }
    }

    /// Writes a save (natively atomically: see [`Dir`]).
    pub fn save(&self, name: &str, file: &SaveFile) -> Result<(), String> {
        check_name(name)?;
        if let Some(field) = control_field(file) {
            return Err(format!("cannot save '{name}': {field} holds a control character"));
        }
        let mut text = serde_json::to_string_pretty(file).map_err(|e| e.to_string())?;
        text.push('\n');
        match &self.store {
            #[cfg(not(target_arch = "wasm32"))]
            Store::Dir(d) => d.write(name, &text),
            Store::Memory(m) => {
                m.write(name, &text);
                Ok(())
            }
        }
    }

    /// The text of a save of at most `limit` bytes; a larger one is not
    /// read.
    fn read_file(&self, name: &str, limit: u64) -> Result<Found, String> {
        match &self.store {
            #[cfg(not(target_arch = "wasm32"))]
            Store::Dir(d) => d.read(name, limit),
            Store::Memory(m) => m.read(name, limit),
        }
    }

    /// Reads and checks a save.
    pub fn load(&self, name: &str) -> Result<SaveFile, String> {
        check_name(name)?;
        match self.read_file(name, MAX_SAVE_BYTES)? {
            Found::Text(text) => parse(name, &text),
            Found::TooLarge(n) => {
                Err(format!("save '{name}' is too large ({n} bytes or more, at most {MAX_SAVE_BYTES})"))
            }
        }
    }

    /// Names of all saves, sorted.
    pub fn list(&self) -> Vec<String> {
        let mut v: Vec<String> = match &self.store {
            #[cfg(not(target_arch = "wasm32"))]
            Store::Dir(d) => d.names(),
            Store::Memory(m) => m.lock().keys().cloned().collect(),
        };
        v.retain(|n| check_name(n).is_ok());
        v.sort();
        v
    }

    /// The lines of the `saves` command, one per save, each starting with
    /// the word `save` (so no name can make a line read as another kind of
    /// reply): `save <name> <GameString>`, the GameString the public one of
    /// the loaded game (a hidden secret is not shown); `save <name>
    /// unreadable: <why>`; or `save <name> too large to list (<N> bytes)`
    /// for a file over [`MAX_LISTED_BYTES`], which is not read. At most
    /// [`MAX_LISTED`] saves, then one line `more <N> saves not listed`. No
    /// line holds a control character or a line break.
    pub fn listing(&self) -> Vec<String> {
        let names = self.list();
        let mut out: Vec<String> = names.iter().take(MAX_LISTED).map(|n| self.list_line(n)).collect();
        if names.len() > MAX_LISTED {
            out.push(format!("more {} saves not listed", names.len() - MAX_LISTED));
        }
        out
    }

    /// The listing line of save `name` (a valid name), from a bounded read.
    fn list_line(&self, name: &str) -> String {
        let shown = self.read_file(name, MAX_LISTED_BYTES).and_then(|read| match read {
            Found::TooLarge(n) => Ok(format!("too large to list ({n} bytes)")),
            Found::Text(text) => parse(name, &text).and_then(|f| {
                crate::registry::load_with_defaults(&f.game)
                    .map(|g| g.game_string())
                    .map_err(|e| format!("bad game: {e}"))
            }),
        });
        match shown {
            Ok(s) => printable(&format!("save {name} {s}")),
            Err(e) => printable(&format!("save {name} unreadable: {e}")),
        }
    }

    /// The saves folder (natively; tests).
    #[cfg(all(test, not(target_arch = "wasm32")))]
    fn dir(&self) -> &Dir {
        match &self.store {
            Store::Dir(d) => d,
            Store::Memory(_) => panic!("saves in memory"),
        }
    }
}

/// The saves folder of a data directory, treated as hostile (see the
/// module's documentation).
#[cfg(not(target_arch = "wasm32"))]
struct Dir {
    dir: PathBuf,
}

#[cfg(not(target_arch = "wasm32"))]
impl Dir {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.json"))
    }

    /// The folder must be a real directory, not a symbolic link to
    /// somewhere else. `Ok(false)` if it does not exist.
    fn check_dir(&self) -> Result<bool, String> {
        match fs::symlink_metadata(&self.dir) {
            Ok(m) if m.is_dir() => Ok(true),
            Ok(_) => Err(format!("{} is not a directory (a symbolic link is refused)", self.dir.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(format!("cannot use {}: {e}", self.dir.display())),
        }
    }

    /// Writes a save atomically: a new temporary file, created exclusively
    /// (never a planted file or link) under an unpredictable name, then
    /// renamed over the save (a link there is replaced, not followed).
    fn write(&self, name: &str, text: &str) -> Result<(), String> {
        fs::create_dir_all(&self.dir).map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        self.check_dir()?;
        self.remove_stale_temporaries();
        let (tmp, mut f) = self.create_temporary(name).map_err(|e| format!("cannot save '{name}': {e}"))?;
        let write = |f: &mut fs::File| -> std::io::Result<()> {
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            fs::rename(&tmp, self.path(name))
        };
        write(&mut f).map_err(|e| {
            let _ = fs::remove_file(&tmp);
            format!("cannot save '{name}': {e}")
        })
    }

    /// A new file `.<name>.<random>.tmp`, created with `O_EXCL` (which
    /// never follows a symbolic link): a name taken is retried.
    fn create_temporary(&self, name: &str) -> std::io::Result<(PathBuf, fs::File)> {
        let mut last = None;
        for _ in 0..16 {
            let tag: u64 = rand::random();
            let tmp = self.dir.join(format!(".{name}.{tag:016x}.tmp"));
            let mut o = fs::OpenOptions::new();
            o.write(true).create_new(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                o.mode(0o644).custom_flags(libc::O_NOFOLLOW);
            }
            match o.open(&tmp) {
                Ok(f) => return Ok((tmp, f)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
                Err(e) => return Err(e),
            }
        }
        Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
    }

    /// Removes temporary files (or links) older than [`STALE_TMP`]: the
    /// leftovers of saves killed midway. Never follows a link.
    pub fn remove_stale_temporaries(&self) {
        // Never inside a folder reached through a link.
        if !self.check_dir().unwrap_or(false) {
            return;
        }
        let Ok(rd) = fs::read_dir(&self.dir) else { return };
        let now = SystemTime::now();
        for e in rd.filter_map(|e| e.ok()) {
            let n = e.file_name();
            let Some(n) = n.to_str() else { continue };
            if !(n.starts_with('.') && n.ends_with(".tmp")) {
                continue;
            }
            let Ok(m) = fs::symlink_metadata(e.path()) else { continue };
            if m.is_dir() {
                continue;
            }
            let old = m
                .modified()
                .ok()
                .and_then(|t| now.duration_since(t).ok())
                .is_some_and(|age| age >= STALE_TMP);
            if old {
                let _ = fs::remove_file(e.path());
            }
        }
    }

    /// The bytes of a save: a regular file of at most `limit` bytes,
    /// opened without following a link and without blocking; a larger one
    /// is not read.
    fn read(&self, name: &str, limit: u64) -> Result<Found, String> {
        let path = self.path(name);
        if !self.check_dir()? {
            return Err(format!("no saved game named '{name}'"));
        }
        let mut o = fs::OpenOptions::new();
        o.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
        }
        let f = o.open(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("no saved game named '{name}'"),
            _ if fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) => {
                format!("save '{name}' is a symbolic link: refused")
            }
            _ => format!("cannot read save '{name}': {e}"),
        })?;
        let m = f.metadata().map_err(|e| format!("cannot read save '{name}': {e}"))?;
        if !m.is_file() {
            return Err(format!("save '{name}' is not a regular file: refused"));
        }
        if m.len() > limit {
            return Ok(Found::TooLarge(m.len()));
        }
        let mut bytes = Vec::new();
        f.take(limit + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read save '{name}': {e}"))?;
        if bytes.len() as u64 > limit {
            // It grew since it was looked at.
            return Ok(Found::TooLarge(bytes.len() as u64));
        }
        String::from_utf8(bytes).map(Found::Text).map_err(|_| format!("save '{name}' is corrupt: not UTF-8"))
    }

    /// The names of the files `<name>.json` of the folder.
    fn names(&self) -> Vec<String> {
        if !self.check_dir().unwrap_or(false) {
            return Vec::new();
        }
        let Ok(rd) = fs::read_dir(&self.dir) else { return Vec::new() };
        rd.filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
            .collect()
    }
}

/// Parses and checks the text of save `name`.
fn parse(name: &str, text: &str) -> Result<SaveFile, String> {
    let file: SaveFile = serde_json::from_str(text)
        .map_err(|e| format!("save '{name}' is corrupt: {}", printable(&e.to_string())))?;
    if let Some(field) = control_field(&file) {
        return Err(format!("save '{name}' is corrupt: {field} holds a control character"));
    }
    if file.format != FORMAT || file.version != VERSION {
        return Err(format!(
            "save '{name}' is not a meeple save of version {VERSION} (format '{}', version {})",
            crate::text::clip(&file.format),
            file.version
        ));
    }
    Ok(file)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    fn tempdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("meeple-saves-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn names() {
        assert!(check_name("game-1.v2_x").is_ok());
        for bad in ["", ".hidden", "a/b", "..", "a\\b", "a b", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn round_trip_and_errors() {
        let d = tempdir("rt");
        let s = Saves::new(&d);
        assert!(s.list().is_empty());
        let f = SaveFile {
            format: FORMAT.into(),
            version: VERSION,
            game: "Connect4;InProgress;Yellow[1];4".into(),
            options: BTreeMap::from([("Strategy".into(), "attack".into())]),
        };
        s.save("g1", &f).unwrap();
        assert_eq!(s.load("g1").unwrap(), f);
        assert_eq!(s.list(), vec!["g1"]);
        assert!(s.load("nope").unwrap_err().contains("no saved game"));
        fs::write(d.join("saves/bad.json"), "{not json").unwrap();
        assert!(s.load("bad").unwrap_err().contains("corrupt"));
        fs::write(d.join("saves/old.json"), r#"{"format":"x","version":9,"game":""}"#).unwrap();
        assert!(s.load("old").is_err());
        // No temporary files are left behind.
        assert!(
            fs::read_dir(d.join("saves")).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_str()
                .unwrap()
                .ends_with(".tmp"))
        );
        fs::remove_dir_all(&d).unwrap();
    }
}

/// The browser's storage seam: saves in memory, the same text as files.
#[cfg(test)]
mod memory_tests {
    use super::*;

    fn file(game: &str) -> SaveFile {
        SaveFile { format: FORMAT.into(), version: VERSION, game: game.into(), options: BTreeMap::new() }
    }

    #[test]
    fn saves_in_memory_are_told_and_checked_like_files() {
        let written = Arc::new(Mutex::new(Vec::new()));
        let w = written.clone();
        let on_write: OnWrite =
            Arc::new(move |n: &str, t: &str| w.lock().unwrap().push((n.to_string(), t.to_string())));
        let planted = BTreeMap::from([
            ("bad".to_string(), "{not json".to_string()),
            ("big".to_string(), " ".repeat(MAX_SAVE_BYTES as usize + 1)),
            (".hidden".to_string(), serde_json::to_string(&file("Connect4")).unwrap()),
        ]);
        let store = MemoryStore::new(planted, Some(on_write));
        let s = Saves::in_memory(store.clone());
        s.save("g1", &file("Connect4;InProgress;Yellow[1];4")).unwrap();
        assert_eq!(s.load("g1").unwrap(), file("Connect4;InProgress;Yellow[1];4"));
        // The page was given the text a file would hold.
        let told = written.lock().unwrap().clone();
        let text = serde_json::to_string_pretty(&file("Connect4;InProgress;Yellow[1];4")).unwrap() + "\n";
        assert_eq!(told, vec![("g1".to_string(), text.clone())]);
        assert_eq!(store.files().get("g1"), Some(&text));
        assert!(s.load("nope").unwrap_err().contains("no saved game named 'nope'"));
        assert!(s.load("bad").unwrap_err().contains("save 'bad' is corrupt"));
        assert!(s.load("big").unwrap_err().contains("too large"));
        assert!(s.save("x", &file("Connect4\nok")).unwrap_err().contains("control character"));
        assert!(s.save("../x", &file("Connect4")).unwrap_err().contains("bad save name"));
        assert_eq!(s.list(), vec!["bad", "big", "g1"]);
        let listing = s.listing();
        assert_eq!(listing[2], "save g1 Connect4;InProgress;Yellow[1];4");
        assert!(listing[0].starts_with("save bad unreadable: "), "{listing:?}");
        assert!(listing[1].starts_with("save big too large to list ("), "{listing:?}");
    }

    /// A file written by `meeple` loads from the browser's storage as it
    /// is, and back.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn a_save_moves_between_a_folder_and_memory() {
        let d = std::env::temp_dir().join(format!("meeple-saves-move-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        let on_disk = Saves::new(&d);
        let f = file("Mastermind;InProgress;Breaker[2];1122;1B1W;Secret=1234");
        on_disk.save("mm", &f).unwrap();
        let text = std::fs::read_to_string(d.join("saves/mm.json")).unwrap();
        let store = MemoryStore::new(BTreeMap::from([("mm".to_string(), text.clone())]), None);
        let web = Saves::in_memory(store.clone());
        assert_eq!(web.load("mm").unwrap(), f);
        web.save("mm2", &f).unwrap();
        assert_eq!(store.files()["mm2"], text, "the same bytes as the file");
        std::fs::remove_dir_all(&d).unwrap();
    }
}

/// Issue 10 items 6-9: a hostile saves folder.
#[cfg(all(test, unix))]
mod hostile_tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::sync::mpsc::channel;

    fn tempdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("meeple-hostile-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(d.join("saves")).unwrap();
        d
    }

    fn file(game: &str) -> SaveFile {
        SaveFile { format: FORMAT.into(), version: VERSION, game: game.into(), options: BTreeMap::new() }
    }

    /// Runs `f` on a thread: a hang fails the test instead of blocking it.
    fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(Duration::from_secs(60)).expect("finished (did not hang)")
    }

    #[test]
    fn a_link_in_place_of_the_save_is_replaced_not_followed() {
        let d = tempdir("link");
        let outside = d.join("outside.txt");
        fs::write(&outside, "precious").unwrap();
        symlink(&outside, d.join("saves/g.json")).unwrap();
        Saves::new(&d).save("g", &file("Connect4")).unwrap();
        assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
        assert!(fs::symlink_metadata(d.join("saves/g.json")).unwrap().is_file());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn temporaries_are_new_unpredictable_and_stale_ones_removed() {
        let d = tempdir("tmp");
        let s = Saves::new(&d);
        let outside = d.join("outside.txt");
        fs::write(&outside, "precious").unwrap();
        // The old predictable name, planted as a link: never used.
        symlink(&outside, d.join(format!("saves/.g.{}.tmp", std::process::id()))).unwrap();
        let (a, _) = s.dir().create_temporary("g").unwrap();
        let (b, _) = s.dir().create_temporary("g").unwrap();
        assert_ne!(a, b);
        s.save("g", &file("Connect4")).unwrap();
        assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
        // Leftovers of killed saves: removed once stale (the planted link
        // goes too, its target stays), fresh ones kept.
        let old = SystemTime::now() - STALE_TMP - Duration::from_secs(5);
        for p in [&a, &b] {
            fs::File::options().write(true).open(p).unwrap().set_modified(old).unwrap();
        }
        let (fresh, _) = s.dir().create_temporary("h").unwrap();
        s.save("g", &file("Connect4")).unwrap();
        assert!(!a.exists() && !b.exists());
        assert!(fresh.exists());
        // At start too.
        fs::File::options().write(true).open(&fresh).unwrap().set_modified(old).unwrap();
        Saves::new(&d);
        assert!(!fresh.exists());
        assert_eq!(fs::read_to_string(&outside).unwrap(), "precious");
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn only_bounded_regular_files_are_read() {
        let d = tempdir("fifo");
        let st = std::process::Command::new("mkfifo").arg(d.join("saves/fifo.json")).status();
        let have_fifo = st.is_ok_and(|s| s.success());
        symlink("/dev/zero", d.join("saves/zero.json")).unwrap();
        let outside = d.join("outside.json");
        fs::write(&outside, serde_json::to_string(&file("Connect4")).unwrap()).unwrap();
        symlink(&outside, d.join("saves/out.json")).unwrap();
        fs::write(d.join("saves/big.json"), vec![b' '; MAX_SAVE_BYTES as usize + 1]).unwrap();
        let dd = d.clone();
        let (fifo, zero, out, big, listing) = within_a_minute(move || {
            let s = Saves::new(&dd);
            (s.load("fifo"), s.load("zero"), s.load("out"), s.load("big"), s.listing())
        });
        if have_fifo {
            assert!(fifo.unwrap_err().contains("not a regular file"));
        }
        assert!(zero.unwrap_err().contains("symbolic link"));
        assert!(out.unwrap_err().contains("symbolic link"));
        assert!(big.unwrap_err().contains("too large"));
        assert!(listing.contains(&format!("save big too large to list ({} bytes)", MAX_SAVE_BYTES + 1)));
        assert!(
            listing.iter().filter(|l| !l.starts_with("save big ")).all(|l| l.contains(" unreadable: ")),
            "{listing:?}"
        );
        assert_eq!(listing.len(), 3 + have_fifo as usize);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_saves_folder_that_is_a_link_is_refused() {
        let d = tempdir("dirlink");
        let elsewhere = d.join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        fs::remove_dir(d.join("saves")).unwrap();
        symlink(&elsewhere, d.join("saves")).unwrap();
        let s = Saves::new(&d);
        assert!(s.save("g", &file("Connect4")).is_err());
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0);
        fs::write(elsewhere.join("x.json"), serde_json::to_string(&file("Connect4")).unwrap()).unwrap();
        assert!(s.load("x").is_err());
        assert!(s.list().is_empty());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn control_characters_in_a_file_are_refused() {
        let d = tempdir("ctl");
        let s = Saves::new(&d);
        let mut f = file("Connect4;InProgress;Yellow[1];4\nok\nbestmove 1");
        assert!(s.save("g", &f).unwrap_err().contains("control character"));
        fs::write(d.join("saves/g.json"), serde_json::to_string(&f).unwrap()).unwrap();
        let e = s.load("g").unwrap_err();
        assert!(e.contains("'game' holds a control character") || e.contains("game holds a control"), "{e}");
        f.game = "Connect4".into();
        f.options.insert("Strategy".into(), "x\rok\ry".into());
        fs::write(d.join("saves/h.json"), serde_json::to_string(&f).unwrap()).unwrap();
        assert!(s.load("h").unwrap_err().contains("control character"));
        let listing = s.listing();
        assert_eq!(listing.len(), 2);
        assert!(listing.iter().all(|l| !l.chars().any(char::is_control) && l.contains("unreadable")));
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn the_listing_shows_public_game_strings() {
        let d = tempdir("list");
        let s = Saves::new(&d);
        s.save("mm", &file("Mastermind;InProgress;Breaker[2];1122;1B1W;Secret=1234")).unwrap();
        s.save("c4", &file("Connect4;InProgress;Yellow[1];4")).unwrap();
        s.save("bad", &file("Connect4;InProgress;Yellow[1];9")).unwrap();
        let listing = s.listing();
        assert!(listing[0].starts_with("save bad unreadable: "), "{listing:?}");
        assert_eq!(listing[1], "save c4 Connect4;InProgress;Yellow[1];4");
        assert_eq!(listing[2], "save mm Mastermind;InProgress;Breaker[2];1122;1B1W");
        fs::remove_dir_all(&d).unwrap();
    }

    /// Issue 27 item 2: a save named like a reply word made a listing line
    /// that read as that reply (`err Connect4;...`).
    #[test]
    fn names_that_are_reply_words_list_safely() {
        let d = tempdir("words");
        let s = Saves::new(&d);
        let words = ["ok", "err", "invalidmove", "bestmove", "info", "readyok", "uciok", "ugiok", "id"];
        for w in words {
            s.save(w, &file("Connect4;InProgress;Yellow[1];4")).unwrap();
        }
        // Planted on disk, unreadable or too large: the same.
        fs::write(d.join("saves/option.json"), "{").unwrap();
        fs::write(d.join("saves/response.json"), vec![b' '; MAX_LISTED_BYTES as usize + 1]).unwrap();
        let listing = s.listing();
        assert_eq!(listing.len(), words.len() + 2);
        for l in &listing {
            let mut w = l.split(' ');
            assert_eq!(w.next(), Some("save"), "{l}");
            assert!(w.next().is_some_and(|n| check_name(n).is_ok()), "{l}");
        }
        assert!(listing.contains(&"save ok Connect4;InProgress;Yellow[1];4".to_string()));
        assert!(listing.iter().any(|l| l.starts_with("save option unreadable: ")), "{listing:?}");
        assert!(listing.iter().any(|l| l.starts_with("save response too large to list (")), "{listing:?}");
        fs::remove_dir_all(&d).unwrap();
    }

    /// Issue 27 item 4: `saves` read and replayed every file whole (20
    /// files of 4 MB: 10.6 s, 222 MB). A file over the listing's limit is
    /// listed from its size alone: even one that is not a save at all.
    #[test]
    fn the_listing_reads_only_what_it_shows() {
        let d = tempdir("bounded");
        let s = Saves::new(&d);
        s.save("small", &file("Connect4;InProgress;Yellow[1];4")).unwrap();
        // Valid JSON around a game that would fail: were it read, the
        // line would say why.
        let mut big = serde_json::to_string(&file("Connect4;InProgress;Yellow[1];9")).unwrap();
        big.push_str(&" ".repeat(MAX_LISTED_BYTES as usize));
        fs::write(d.join("saves/big.json"), &big).unwrap();
        assert_eq!(s.load("big").unwrap().game, "Connect4;InProgress;Yellow[1];9", "load still reads it");
        let listing = s.listing();
        assert_eq!(
            listing,
            vec![
                format!("save big too large to list ({} bytes)", big.len()),
                "save small Connect4;InProgress;Yellow[1];4".to_string()
            ]
        );
        fs::remove_dir_all(&d).unwrap();
    }
}
