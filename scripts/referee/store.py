"""The SQLite database: tournaments, games, moves.

Games are numbered per tournament from 1 (`game_index` + 1), the number the
log prints and `show` takes. Every game is written in one transaction when
it ends; a database locked by another process is waited for (`--db-wait`
seconds) and then reported. The database, its journal files and the lock
file are written only as regular files (safefile.py): a link or a FIFO
there is refused before anything is played, and checked again before each
game is stored.
"""

import errno
import fcntl
import json
import os
import sqlite3
import time
import urllib.parse

from . import safefile
from .errors import RefereeError, UsageError
from .gamestring import GameString

SCHEMA = """
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
"""

# Columns added after the first release (older databases get them on open).
# A reviewed game (--annotate) keeps its review (`review`: JSON, see
# review.py) and each side's accuracy (`first_accuracy` for the side that
# moved first, 0 to 100); NULL when the game was not reviewed.
ADDED_COLUMNS = (("games", "secret", "TEXT"), ("games", "pairing", "INTEGER"),
                 ("moves", "late", "INTEGER NOT NULL DEFAULT 0"),
                 ("moves", "score", "INTEGER"), ("moves", "depth", "INTEGER"),
                 ("games", "review", "TEXT"), ("games", "first_accuracy", "REAL"),
                 ("games", "second_accuracy", "REAL"))

DEFAULT_DB_WAIT = 30.0


def _locked(e):
    return isinstance(e, sqlite3.OperationalError) and "locked" in str(e).lower()


def check_files(path, error=UsageError):
    """Refuses (`error`) a database whose file or journal files
    (`-journal`, `-wal`, `-shm`) or lock file (`.lock`) is a link or not a
    regular file; True if the database exists."""
    try:
        exists = safefile.check_sqlite(path)
        safefile.check(path + ".lock")
    except safefile.NotRegular as e:
        raise error("cannot use the database: %s" % e.strerror)
    except OSError as e:
        raise error("cannot use the database %s: %s" % (path, e.strerror or e))
    return exists


def _uri(path, mode):
    return "file:%s?mode=%s" % (urllib.parse.quote(os.path.abspath(path)), mode)


def hot_journal(path):
    """True if `path` has a rollback journal left by a write that did not
    finish (a referee killed mid-transaction): SQLite rolls it back on the
    first read, which needs write access."""
    journal = path + "-journal"
    return os.path.exists(journal) and os.path.getsize(journal) > 0


def check_db(path):
    """Refuses a file that is not a sound SQLite database. It writes
    nothing of its own, but a database left with a hot journal by a process
    killed mid-write is opened read-write, so that SQLite rolls the
    unfinished transaction back (a read-only check cannot, and would fail
    on every retry). A link or a non-regular file is refused unopened."""
    if not check_files(path):
        return
    directory = os.path.dirname(os.path.abspath(path))
    writable = os.access(path, os.W_OK) and os.access(directory, os.W_OK)
    try:
        conn = sqlite3.connect(_uri(path, "rw" if writable else "ro"), uri=True, timeout=0.5)
        try:
            row = conn.execute("PRAGMA quick_check(1)").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        if _locked(e):
            return  # checked again, with the wait, when opened
        if hot_journal(path):
            raise UsageError("database %s has an unfinished write of a killed process (%s-journal)"
                             " that cannot be rolled back%s: %s"
                             % (path, path, "" if writable else " (the file or its folder is "
                                "not writable)", e))
        raise UsageError("database %s is corrupt or not a SQLite file: %s" % (path, e))
    if not row or row[0] != "ok":
        raise UsageError("database %s is corrupt: %s" % (path, row[0] if row else "?"))


def precheck(path):
    """Refuses, without writing anything, a database that cannot be used."""
    check_db(path)
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise UsageError("cannot write the database %s: not writable" % path)
        return
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise UsageError("cannot write the database %s: %s is not a writable directory"
                         % (path, parent))


class Connection(sqlite3.Connection):
    """A connection that checks the database's files (check_files) before
    every statement, once `path` is set: a link or a FIFO planted beside
    the database during a match (a journal SQLite would write through, or
    block on) stops the match with a RefereeError naming it, before SQLite
    touches it."""

    path = None

    def _check(self):
        if self.path is not None:
            check_files(self.path, RefereeError)

    def execute(self, *args):
        self._check()
        return super().execute(*args)

    def executemany(self, *args):
        self._check()
        return super().executemany(*args)

    def executescript(self, *args):
        self._check()
        return super().executescript(*args)


def open_db(path, wait=DEFAULT_DB_WAIT, create=True):
    """A connection with the schema in place. UsageError (one line) for a
    database that cannot be used: not writable, corrupt, locked too long, a
    link or not a regular file (the file is created here, never through a
    link, and SQLite opens it only once it is a regular file: `mode=rw`)."""
    if not create and not check_files(path):
        raise UsageError("no database at %s" % path)
    check_db(path)
    directory = os.path.dirname(path)
    try:
        if directory:
            os.makedirs(directory, exist_ok=True)
        if not os.path.lexists(path):
            os.close(safefile.open_rw(path))
        elif not os.access(path, os.W_OK):
            raise OSError(errno.EACCES, "not writable")
    except safefile.NotRegular as e:
        raise UsageError("cannot use the database: %s" % e.strerror)
    except OSError as e:
        raise UsageError("cannot write the database %s: %s" % (path, e.strerror or e))
    check_files(path)
    try:
        conn = sqlite3.connect(_uri(path, "rw"), uri=True, check_same_thread=False,
                               timeout=wait, factory=Connection)
        conn.path = path
        conn.executescript(SCHEMA)
        for table, column, decl in ADDED_COLUMNS:
            have = [r[1] for r in conn.execute("PRAGMA table_info(%s)" % table)]
            if column not in have:
                conn.execute("ALTER TABLE %s ADD COLUMN %s %s" % (table, column, decl))
        conn.commit()
    except sqlite3.DatabaseError as e:
        if _locked(e):
            raise UsageError("database %s is locked by another process (waited %g s)"
                             % (path, wait))
        raise UsageError("cannot use the database %s: %s" % (path, e))
    return conn


def with_retry(fn, wait, what):
    """Runs fn(); while the database is locked, retries for `wait` seconds."""
    deadline = time.monotonic() + wait
    while True:
        try:
            return fn()
        except sqlite3.OperationalError as e:
            if not _locked(e) or time.monotonic() >= deadline:
                if _locked(e):
                    raise RefereeError("the database stayed locked for %g s while %s; "
                                       "continue later with --resume" % (wait, what))
                raise RefereeError("database error while %s: %s" % (what, e))
            time.sleep(0.2)


class TournamentLock:
    """One running referee per tournament: a byte-range lock on `<db>.lock`,
    released by the system when the process ends, even by kill -9."""

    def __init__(self, db_path, tournament_id):
        self.path = db_path + ".lock"
        try:
            self.fd = safefile.open_rw(self.path)
        except safefile.NotRegular as e:
            raise UsageError("cannot use the database's lock file: %s" % e.strerror)
        except OSError as e:
            raise UsageError("cannot open the lock file %s: %s" % (self.path, e.strerror or e))
        try:
            fcntl.lockf(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, tournament_id)
        except OSError:
            os.close(self.fd)
            self.fd = None
            raise UsageError("tournament %d is already being played by another referee"
                             % tournament_id)

    def release(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def seat_options_json(spec):
    data = {"kind": spec.kind, "options": spec.options}
    if spec.cmd:
        data["cmd"] = spec.cmd
    for key in ("st", "tc", "depth", "nodes"):
        if getattr(spec, key, None) is not None:
            data[key] = getattr(spec, key)
    if spec.proto != "meeple":
        data["proto"] = spec.proto
    return json.dumps(data, sort_keys=True)


def result_text(record):
    first, winner = record["first_seat"], record["winner"]
    if winner is None:
        return "1/2-1/2"
    return "1-0" if winner == first else "0-1"


def store_game(conn, tournament_id, index, game_type, seats, record, wait=DEFAULT_DB_WAIT):
    """Writes one finished game and its moves in one transaction; returns its
    id, or None if game `index` of the tournament is stored already: the
    UNIQUE (tournament_id, game_index) key makes a game played twice (a
    cluster's worker lost after the game, say) count once."""
    first, second = record["first_seat"], 1 - record["first_seat"]
    winner = record["winner"]
    points = record.get("points")
    kept = record.get("review")
    accuracy = (list(kept.get("accuracy") or []) + [None, None])[:2] if kept else [None, None]

    def write():
        with conn:
            try:
                cur = insert_game()
            except sqlite3.IntegrityError:
                if conn.execute("SELECT 1 FROM games WHERE tournament_id = ? AND game_index = ?",
                                (tournament_id, index)).fetchone():
                    return None
                raise
            game_id = cur.lastrowid
            base = len(GameString(record["opening"]).moves)
            conn.executemany(
                "INSERT INTO moves (game_id, ply, side, player, move, ms, illegal, late, score,"
                " depth) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [(game_id, base + k + 1, m["side"], m["player"], m["move"], m["ms"],
                  1 if m.get("illegal") else 0, 1 if m.get("late") else 0, m.get("score"),
                  m.get("depth"))
                 for k, m in enumerate(record["moves"])])
        return game_id

    def insert_game():
        return conn.execute(
            "INSERT INTO games (tournament_id, game_index, game_type, first_player,"
            " second_player, first_side, second_side, first_options, second_options,"
            " opening, result, winner, reason, detail, final, plies, first_points,"
            " second_points, started, finished, secret, pairing, review, first_accuracy,"
            " second_accuracy)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (tournament_id, index, game_type, seats[first].name, seats[second].name,
             record["sides"][first], record["sides"][second],
             seat_options_json(seats[first].spec), seat_options_json(seats[second].spec),
             record["opening"], result_text(record),
             None if winner is None else seats[winner].name,
             record["reason"], record.get("detail"), record["final"], record["plies"],
             points[first] if points else None, points[second] if points else None,
             record["started"], record["finished"], record.get("secret"),
             record.get("pairing"), json.dumps(kept, sort_keys=True) if kept else None,
             accuracy[0], accuracy[1]))
    return with_retry(write, wait, "storing game %d" % (index + 1))
