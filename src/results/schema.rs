//! The schema meeple expects in `results.sqlite`, and the check that the
//! file holds nothing else (issue 43 item 3).
//!
//! Anyone who can write the file can add a trigger (every game a draw,
//! winners swapped, a loop that never ends), a view (`Ann: 1000 won`, a
//! recursive view that never ends) or alter a table. So before anything is
//! read or written, every entry of `sqlite_schema` (type, name, table and
//! SQL text) must be one meeple made for the file's schema version, one the
//! referee (`scripts/referee/store.py`, whose default `--db` is this file)
//! makes in any of its versions, or SQLite's own statistics table; anything
//! else is refused with a message that names it. The expected entries are
//! not written down by hand: they are what the migrations (and the
//! referee's DDL, copied below from store.py) make in an empty database in
//! memory, with the same SQLite.

use std::collections::{BTreeMap, HashSet};
use std::sync::OnceLock;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, params};

use super::names::{check_person_name, fold, without_invisible};
use crate::text::clip;

/// One step of the schema: its SQL, then (if any) what the program does in
/// the same transaction.
pub(super) struct Migration {
    pub sql: &'static str,
    pub then: Option<fn(&Connection) -> rusqlite::Result<()>>,
}

/// The migrations, in order: `MIGRATIONS[v]` takes a database of schema
/// version `v` to `v + 1` (version 0 is an empty database).
pub(super) const MIGRATIONS: &[Migration] = &[
    Migration { sql: include_str!("schema_v1.sql"), then: None },
    Migration { sql: include_str!("schema_v2.sql"), then: Some(refold_people) },
];

/// The referee's tables, as `scripts/referee/store.py` creates them
/// (`SCHEMA`, unchanged since its first version), then the columns it adds
/// to an older database on open (`ADDED_COLUMNS`, in order: each version of
/// the referee added to the end of that list). Keep in step with store.py:
/// `tests/leaderboard.rs` opens a file with the referee's own code.
pub(super) const REFEREE_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    created TEXT NOT NULL,
    game_type TEXT NOT NULL,
    config TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    game_index INTEGER NOT NULL,
    game_type TEXT NOT NULL,
    first_player TEXT NOT NULL,
    second_player TEXT NOT NULL,
    first_side TEXT,
    second_side TEXT,
    first_options TEXT NOT NULL,
    second_options TEXT NOT NULL,
    opening TEXT NOT NULL,
    result TEXT NOT NULL,
    winner TEXT,
    reason TEXT NOT NULL,
    detail TEXT,
    final TEXT NOT NULL,
    plies INTEGER NOT NULL,
    first_points INTEGER,
    second_points INTEGER,
    started TEXT,
    finished TEXT,
    UNIQUE (tournament_id, game_index)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    side TEXT NOT NULL,
    player TEXT NOT NULL,
    move TEXT NOT NULL,
    ms INTEGER NOT NULL,
    illegal INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, ply)
);
";

/// store.py's `ADDED_COLUMNS`: (table, column, declaration).
const REFEREE_ADDED: [(&str, &str, &str); 8] = [
    ("games", "secret", "TEXT"),
    ("games", "pairing", "INTEGER"),
    ("moves", "late", "INTEGER NOT NULL DEFAULT 0"),
    ("moves", "score", "INTEGER"),
    ("moves", "depth", "INTEGER"),
    ("games", "review", "TEXT"),
    ("games", "first_accuracy", "REAL"),
    ("games", "second_accuracy", "REAL"),
];

/// One entry of `sqlite_schema`. Text that is not text (a blob, a number
/// planted there) is kept as `None`... and then matches nothing expected.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Entry {
    pub kind: Option<String>,
    pub name: Option<String>,
    pub table: Option<String>,
    pub sql: Option<String>,
}

impl Entry {
    /// `trigger 'draws' on table 'game'`, for a message.
    fn describe(&self) -> String {
        let show = |s: &Option<String>| s.as_deref().map(clip).unwrap_or_else(|| "?".to_string());
        let kind = self.kind.as_deref().map(clip).unwrap_or_else(|| "entry".to_string());
        let name = show(&self.name);
        let table = show(&self.table);
        match self.kind.as_deref() {
            Some("trigger") | Some("index") if table != name => format!("{kind} '{name}' on table '{table}'"),
            _ => format!("{kind} '{name}'"),
        }
    }
}

fn text(v: ValueRef<'_>) -> Option<String> {
    match v {
        ValueRef::Text(t) => std::str::from_utf8(t).ok().map(str::to_string),
        _ => None,
    }
}

/// Every entry of the schema, as found.
pub(super) fn entries(c: &Connection) -> rusqlite::Result<Vec<Entry>> {
    let mut st = c.prepare("SELECT type, name, tbl_name, sql FROM sqlite_schema")?;
    let rows = st.query_map([], |r| {
        Ok(Entry {
            kind: text(r.get_ref(0)?),
            name: text(r.get_ref(1)?),
            table: text(r.get_ref(2)?),
            sql: text(r.get_ref(3)?),
        })
    })?;
    rows.collect()
}

/// What may be found beside meeple's own entries.
struct Neighbours {
    /// The referee's entries: each table with every text a version of the
    /// referee leaves (its first, then after each added column), and its
    /// automatic indexes.
    referee: HashSet<Entry>,
    /// SQLite's statistics tables (`ANALYZE`), as SQLite makes them.
    stats: HashSet<Entry>,
}

struct Expected {
    /// `ours[v]`: meeple's entries at schema version `v`.
    ours: Vec<HashSet<Entry>>,
    others: Neighbours,
}

fn memory() -> Connection {
    Connection::open_in_memory().expect("an in-memory database")
}

fn expected() -> &'static Expected {
    static E: OnceLock<Expected> = OnceLock::new();
    E.get_or_init(|| {
        let c = memory();
        let mut ours = vec![HashSet::new()];
        for m in MIGRATIONS {
            c.execute_batch(m.sql).expect("meeple's own schema");
            ours.push(entries(&c).expect("schema").into_iter().collect());
        }
        c.execute_batch("ANALYZE").expect("ANALYZE");
        let stats = entries(&c)
            .expect("schema")
            .into_iter()
            .filter(|e| e.name.as_deref().is_some_and(|n| n.starts_with("sqlite_stat")))
            .collect();
        let r = memory();
        r.execute_batch(REFEREE_SCHEMA).expect("the referee's schema");
        let mut referee: HashSet<Entry> = entries(&r).expect("schema").into_iter().collect();
        for (table, column, decl) in REFEREE_ADDED {
            r.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {decl}")).expect("ALTER");
            referee.extend(entries(&r).expect("schema"));
        }
        Expected { ours, others: Neighbours { referee, stats } }
    })
}

/// Whether the file holds only what meeple's schema version `version`, the
/// referee and SQLite make; an error naming what else is there (or what of
/// meeple's is missing) otherwise.
pub(super) fn check(found: &[Entry], version: i64) -> Result<(), Problem> {
    let e = expected();
    let Some(ours) = usize::try_from(version).ok().and_then(|v| e.ours.get(v)) else {
        return Err(Problem::Unknown(Vec::new()));
    };
    // A table found twice (the referee's, at two of its versions) cannot
    // happen: names are unique in sqlite_schema.
    let unknown: Vec<&Entry> = found
        .iter()
        .filter(|x| !ours.contains(x) && !e.others.referee.contains(x) && !e.others.stats.contains(x))
        .collect();
    if !unknown.is_empty() {
        // Named like one of ours or the referee's but not as made: altered.
        let known_name =
            |x: &Entry| ours.iter().chain(&e.others.referee).any(|k| k.name == x.name && k.kind == x.kind);
        let (altered, planted): (Vec<&Entry>, Vec<&Entry>) = unknown.into_iter().partition(|x| known_name(x));
        if version == 0 {
            let all = altered.iter().chain(&planted);
            return Err(Problem::Foreign(all.map(|x| x.describe()).collect()));
        }
        let mut what: Vec<String> = altered.iter().map(|x| format!("{} (altered)", x.describe())).collect();
        what.extend(planted.iter().map(|x| x.describe()));
        return Err(Problem::Unknown(what));
    }
    let missing: BTreeMap<String, ()> =
        ours.iter().filter(|x| !found.contains(x)).map(|x| (x.describe(), ())).collect();
    if !missing.is_empty() {
        return Err(Problem::Missing(missing.into_keys().collect()));
    }
    Ok(())
}

/// Why a schema is refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Problem {
    /// Entries meeple did not make, or altered.
    Unknown(Vec<String>),
    /// An empty meeple database with another program's tables.
    Foreign(Vec<String>),
    /// meeple's own entries that are not there.
    Missing(Vec<String>),
}

impl Problem {
    /// The message, for the file at `path`.
    pub fn message(&self, path: &str) -> String {
        let list = |v: &[String]| {
            let mut s = v.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
            if v.len() > 5 {
                s.push_str(&format!(" and {} more", v.len() - 5));
            }
            s
        };
        match self {
            Problem::Unknown(v) if v.is_empty() => format!("{path}: unknown schema version: refused"),
            Problem::Unknown(v) => format!(
                "{path} holds what meeple did not make: {}; refused, nothing read or written \
                 (someone changed the file: remove it with the sqlite3 tool, e.g. DROP TRIGGER name, \
                 or move the file away)",
                list(v)
            ),
            Problem::Foreign(v) => {
                format!("{path} is not a meeple results database (it holds other tables: {})", list(v))
            }
            Problem::Missing(v) => format!("{path} lacks part of meeple's schema: {}; refused", list(v)),
        }
    }
}

/// Version 2's step in the program: every person's key recomputed with
/// [`fold`]; people whose keys are now equal (`Ann` and `A<U+00AD>nn`, `é`
/// composed and decomposed) become one, the first recorded, their games and
/// matches moved to that one. A name kept by an older meeple that holds
/// invisible characters is shown without them when that makes a valid
/// name.
fn refold_people(c: &Connection) -> rusqlite::Result<()> {
    let people: Vec<(i64, String)> = {
        let mut st = c.prepare("SELECT id, name FROM person ORDER BY id")?;
        let rows = st.query_map([], |r| {
            let name = match r.get_ref(1)? {
                ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
                ValueRef::Integer(i) => i.to_string(),
                ValueRef::Real(f) => f.to_string(),
                ValueRef::Null => String::new(),
            };
            Ok((r.get(0)?, name))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    // Out of the way of the unique constraint while keys change.
    c.execute("UPDATE person SET fold = '#' || id", [])?;
    let mut first: BTreeMap<String, i64> = BTreeMap::new();
    for (id, name) in people {
        let key = fold(&name);
        if let Some(&keep) = first.get(&key) {
            c.execute("UPDATE game_seat SET person_id = ?1 WHERE person_id = ?2", params![keep, id])?;
            c.execute("UPDATE match_seat SET person_id = ?1 WHERE person_id = ?2", params![keep, id])?;
            c.execute("DELETE FROM person WHERE id = ?", [id])?;
            continue;
        }
        first.insert(key.clone(), id);
        let shown = check_person_name(&name)
            .or_else(|_| check_person_name(&without_invisible(&name)))
            .unwrap_or(name);
        c.execute("UPDATE person SET name = ?1, fold = ?2 WHERE id = ?3", params![shown, key, id])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expected_schema_is_what_the_migrations_make() {
        let e = expected();
        assert_eq!(e.ours.len(), MIGRATIONS.len() + 1);
        let names = |v: usize| -> Vec<String> {
            let mut n: Vec<String> = e.ours[v].iter().filter_map(|x| x.name.clone()).collect();
            n.sort();
            n
        };
        assert!(names(0).is_empty());
        assert!(names(1).contains(&"standing".to_string()));
        assert!(names(2).contains(&"result_key".to_string()));
        // The referee's three tables at each of their versions (games: as
        // created, + secret, + pairing, + review, + first_accuracy, +
        // second_accuracy), and their automatic indexes.
        let games = e.others.referee.iter().filter(|x| x.name.as_deref() == Some("games")).count();
        let moves = e.others.referee.iter().filter(|x| x.name.as_deref() == Some("moves")).count();
        assert_eq!((games, moves), (6, 4));
        assert!(e.others.referee.iter().any(|x| x.name.as_deref() == Some("sqlite_autoindex_games_1")));
    }

    #[test]
    fn a_planted_entry_is_named() {
        let c = memory();
        for m in MIGRATIONS {
            c.execute_batch(m.sql).unwrap();
        }
        let v = MIGRATIONS.len() as i64;
        assert_eq!(check(&entries(&c).unwrap(), v), Ok(()));
        c.execute_batch(REFEREE_SCHEMA).unwrap();
        assert_eq!(check(&entries(&c).unwrap(), v), Ok(()));
        c.execute_batch(
            "CREATE TRIGGER draws AFTER INSERT ON game BEGIN UPDATE game SET result = 'draw'; END",
        )
        .unwrap();
        let Err(Problem::Unknown(what)) = check(&entries(&c).unwrap(), v) else { panic!() };
        assert_eq!(what, ["trigger 'draws' on table 'game'"]);
        c.execute_batch("DROP TRIGGER draws; DROP VIEW standing; CREATE VIEW standing AS SELECT 1").unwrap();
        let Err(Problem::Unknown(what)) = check(&entries(&c).unwrap(), v) else { panic!() };
        assert_eq!(what, ["view 'standing' (altered)"]);
        // Missing: a table of ours dropped.
        let c = memory();
        for m in MIGRATIONS {
            c.execute_batch(m.sql).unwrap();
        }
        c.execute_batch("DROP TABLE result_key").unwrap();
        let Err(Problem::Missing(what)) = check(&entries(&c).unwrap(), v) else { panic!() };
        assert_eq!(what, ["table 'result_key'"]);
    }
}
