//! Results kept while the database cannot be written (issue 43 item 5):
//! locked past the busy timeout, read-only, damaged, or refused (a planted
//! schema, a newer version). Each result is one file,
//! `<data-dir>/pending-results/<key>.json`, written atomically (a new
//! temporary file created exclusively, never through a link, synced, then
//! renamed) and removed once the result is in the database.
//!
//! One file per result rather than an append-only journal: a file is whole
//! or absent (a journal can be left with a torn last line, and two
//! processes appending at once must lock it); storing one result and
//! removing its file touches nothing else; two processes that flush at once
//! need no lock of their own, because the database keeps every result's key
//! (`result_key`, unique): whoever stores a result first stores it, the
//! other finds the key there and only removes the file, and a process
//! killed between storing and removing leaves a file that the next flush
//! removes without storing it again. Exactly once.
//!
//! The folder is hostile like the rest of the data directory: it must be a
//! real folder (a link is refused); only regular files of at most
//! [`MAX_PENDING_BYTES`] are read, without following a link or blocking on
//! a FIFO; a file that cannot be read is left where it is and counted.

use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::{GameRecord, MatchRecord};
use crate::text::clip;

/// The folder of the data directory where results wait.
pub const PENDING_DIR: &str = "pending-results";
/// The largest pending file read (a 4 MB GameString, escaped, fits).
pub const MAX_PENDING_BYTES: u64 = 64 << 20;
/// A temporary file older than this was left by a process killed midway.
const STALE_TMP: Duration = Duration::from_secs(3600);
const FORMAT: &str = "meeple-pending-result";

/// A finished contest to record: a game, or a match of rounds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Contest {
    Game(GameRecord),
    Match(MatchRecord),
}

#[derive(Serialize, Deserialize)]
struct PendingFile {
    format: String,
    version: u32,
    key: String,
    contest: Contest,
}

/// A new key for a result: the time in nanoseconds (so that names sort in
/// the order the results were kept), the process and a counter.
pub(super) fn new_key() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let salt: u32 = rand::random();
    format!("{nanos:020}-{}-{n}-{salt:08x}", std::process::id())
}

/// A key as [`new_key`] makes them: digits, `-` and hex digits.
fn valid_key(k: &str) -> bool {
    !k.is_empty() && k.len() <= 80 && k.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

/// The folder of `data_dir`'s pending results.
pub fn folder(data_dir: &Path) -> PathBuf {
    data_dir.join(PENDING_DIR)
}

/// The folder must be a real one: `Ok(false)` if absent.
fn check_dir(dir: &Path) -> Result<bool, String> {
    match fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => Ok(true),
        Ok(_) => Err(format!("{} is not a folder (a symbolic link is refused)", dir.display())),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(false),
        Err(e) => Err(format!("cannot use {}: {e}", dir.display())),
    }
}

/// Keeps `contest` under `key`: the file it is in.
pub(super) fn keep(data_dir: &Path, key: &str, contest: &Contest) -> Result<PathBuf, String> {
    let dir = folder(data_dir);
    fs::create_dir_all(data_dir).map_err(|e| format!("cannot create {}: {e}", data_dir.display()))?;
    if !check_dir(&dir)? {
        match fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
        check_dir(&dir)?;
    }
    remove_stale_temporaries(&dir);
    let json = serde_json::to_string(&PendingFile {
        format: FORMAT.to_string(),
        version: 1,
        key: key.to_string(),
        contest: contest.clone(),
    })
    .map_err(|e| e.to_string())?;
    let path = dir.join(format!("{key}.json"));
    let tmp = dir.join(format!(".{key}.tmp"));
    let mut o = fs::OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o644).custom_flags(libc::O_NOFOLLOW);
    }
    let write = || -> std::io::Result<()> {
        let mut f = o.open(&tmp)?;
        f.write_all(json.as_bytes())?;
        f.write_all(b"\n")?;
        f.sync_all()?;
        fs::rename(&tmp, &path)?;
        // The rename itself reaches the disk.
        if let Ok(d) = fs::File::open(&dir) {
            let _ = d.sync_all();
        }
        Ok(())
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })?;
    Ok(path)
}

/// Removes temporary files older than [`STALE_TMP`], never following a link.
fn remove_stale_temporaries(dir: &Path) {
    let Ok(rd) = fs::read_dir(dir) else { return };
    let now = SystemTime::now();
    for e in rd.filter_map(Result::ok) {
        let name = e.file_name();
        let Some(n) = name.to_str() else { continue };
        if !(n.starts_with('.') && n.ends_with(".tmp")) {
            continue;
        }
        let Ok(m) = fs::symlink_metadata(e.path()) else { continue };
        let old = m.modified().ok().and_then(|t| now.duration_since(t).ok()).is_some_and(|a| a >= STALE_TMP);
        if !m.is_dir() && old {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// The pending files, oldest first (`Ok(empty)` if there is no folder).
pub(super) fn list(data_dir: &Path) -> Result<Vec<PathBuf>, String> {
    let dir = folder(data_dir);
    if !check_dir(&dir)? {
        return Ok(Vec::new());
    }
    let rd = fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut files: Vec<PathBuf> = rd
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_str().is_some_and(|n| !n.starts_with('.') && n.ends_with(".json")))
        .map(|e| e.path())
        .collect();
    files.sort();
    Ok(files)
}

/// How many results wait in `data_dir` (files that cannot be read
/// included: they are results too, until someone looks).
pub fn count(data_dir: &Path) -> Result<usize, String> {
    list(data_dir).map(|v| v.len())
}

/// A pending file's key and contest: a regular file of at most
/// [`MAX_PENDING_BYTES`], read without following a link or blocking.
pub(super) fn read(path: &Path) -> Result<(String, Contest), String> {
    let show = || path.display().to_string();
    let mut o = fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let f = o.open(path).map_err(|e| format!("cannot read {}: {e}", show()))?;
    let m = f.metadata().map_err(|e| format!("cannot read {}: {e}", show()))?;
    if !m.is_file() {
        return Err(format!("{} is not a regular file: refused", show()));
    }
    if m.len() > MAX_PENDING_BYTES {
        return Err(format!("{} is too large ({} bytes)", show(), m.len()));
    }
    let mut bytes = Vec::new();
    f.take(MAX_PENDING_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", show()))?;
    let p: PendingFile = serde_json::from_slice(&bytes)
        .map_err(|e| format!("{} is corrupt: {}", show(), clip(&e.to_string())))?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    if p.format != FORMAT || p.version != 1 || !valid_key(&p.key) || p.key != stem {
        return Err(format!("{} is not a pending result of this meeple", show()));
    }
    Ok((p.key, p.contest))
}

/// Removes a pending file once its result is in the database (another
/// process may have removed it already).
pub(super) fn remove(path: &Path) -> Result<(), String> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot remove {}: {e}", path.display())),
    }
}
