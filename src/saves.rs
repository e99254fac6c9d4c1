//! Named saved games: JSON files in `<data-dir>/saves/`, written
//! atomically (temporary file, then rename).

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

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
            name.chars().take(80).collect::<String>()
        ))
    }
}

/// The saves folder of a data directory.
pub struct Saves {
    dir: PathBuf,
}

impl Saves {
    pub fn new(data_dir: &Path) -> Self {
        Saves { dir: data_dir.join("saves") }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.json"))
    }

    /// Writes a save atomically.
    pub fn save(&self, name: &str, file: &SaveFile) -> Result<(), String> {
        check_name(name)?;
        fs::create_dir_all(&self.dir).map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        let json = serde_json::to_string_pretty(file).map_err(|e| e.to_string())?;
        let tmp = self.dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let write = || -> std::io::Result<()> {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(json.as_bytes())?;
            f.write_all(b"\n")?;
            f.sync_all()?;
            fs::rename(&tmp, self.path(name))
        };
        write().map_err(|e| {
            let _ = fs::remove_file(&tmp);
            format!("cannot save '{name}': {e}")
        })
    }

    /// Reads and checks a save.
    pub fn load(&self, name: &str) -> Result<SaveFile, String> {
        check_name(name)?;
        let path = self.path(name);
        let text = fs::read_to_string(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("no saved game named '{name}'"),
            _ => format!("cannot read save '{name}': {e}"),
        })?;
        let file: SaveFile =
            serde_json::from_str(&text).map_err(|e| format!("save '{name}' is corrupt: {e}"))?;
        if file.format != FORMAT || file.version != VERSION {
            return Err(format!(
                "save '{name}' is not a meeple save of version {VERSION} (format '{}', version {})",
                file.format, file.version
            ));
        }
        Ok(file)
    }

    /// Names of all saves, sorted.
    pub fn list(&self) -> Vec<String> {
        let Ok(rd) = fs::read_dir(&self.dir) else { return Vec::new() };
        let mut v: Vec<String> = rd
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter_map(|n| n.strip_suffix(".json").map(str::to_string))
            .filter(|n| check_name(n).is_ok())
            .collect();
        v.sort();
        v
    }
}

#[cfg(test)]
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
