"""Tests of store.py: refusing bad databases, the lock, retrying."""

import json
import os
import sqlite3
import tempfile
import unittest

from referee import store
from referee.errors import RefereeError, UsageError


class Store(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.dir.name, "r.sqlite")

    def tearDown(self):
        self.dir.cleanup()

    def test_schema_and_old_databases_get_the_new_columns(self):
        conn = sqlite3.connect(self.db)
        conn.executescript(store.SCHEMA)  # a database of the first release
        conn.close()
        conn = store.open_db(self.db)
        cols = [r[1] for r in conn.execute("PRAGMA table_info(moves)")]
        self.assertIn("late", cols)
        self.assertIn("score", cols)
        cols = [r[1] for r in conn.execute("PRAGMA table_info(games)")]
        self.assertEqual(cols[-3:], ["review", "first_accuracy", "second_accuracy"])
        conn.close()

    def test_a_game_is_stored_once(self):
        # Game index k of a tournament is one row however often it is
        # stored (a cluster may play a game twice): the second store is a
        # no-op that returns None, its moves are not added.
        from referee.seats import SeatSpec

        class Seat:
            def __init__(self, name):
                self.name = name
                self.spec = SeatSpec(["name=" + name, "cmd=x"], check=False)
        conn = store.open_db(self.db)
        conn.execute("INSERT INTO tournaments (created, game_type, config) VALUES ('', 'C', '{}')")
        conn.commit()
        record = {"first_seat": 0, "winner": 1, "sides": ["Red", "Yellow"],
                  "opening": "Connect4;NotStarted;Red[1]", "reason": "rules",
                  "final": "Connect4;InProgress;Red[2];4;4", "plies": 2,
                  "started": "s", "finished": "f",
                  "moves": [{"side": "Red", "player": "a", "move": "1", "ms": 3},
                            {"side": "Yellow", "player": "b", "move": "2", "ms": 4}]}
        seats = [Seat("a"), Seat("b")]
        first = store.store_game(conn, 1, 7, "C", seats, record)
        self.assertIsNotNone(first)
        self.assertIsNone(store.store_game(conn, 1, 7, "C", seats, dict(record, winner=0)))
        self.assertIsNotNone(store.store_game(conn, 1, 8, "C", seats, record))
        self.assertEqual(conn.execute("SELECT game_index, winner FROM games ORDER BY id").fetchall(),
                         [(7, "b"), (8, "b")])
        self.assertEqual(conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0], 4)
        # A reviewed game keeps its review and each side's accuracy (the
        # side that moved first first); an unreviewed one NULLs.
        kept = {"by": "meeple", "plies": [{"ply": "1"}], "accuracy": [93.1, None]}
        store.store_game(conn, 1, 9, "C", seats, dict(record, first_seat=1, review=kept))
        rows = conn.execute("SELECT game_index, first_player, review, first_accuracy,"
                            " second_accuracy FROM games ORDER BY id").fetchall()
        self.assertEqual(rows[0][2:], (None, None, None))
        self.assertEqual(rows[2][:2], (9, "b"))
        self.assertEqual(json.loads(rows[2][2]), kept)
        self.assertEqual(rows[2][3:], (93.1, None))
        conn.close()

    def test_bad_databases_are_refused_without_writing(self):
        with open(self.db, "wb") as f:
            f.write(b"garbage" * 1000)
        self.assertRaises(UsageError, store.precheck, self.db)
        self.assertRaises(UsageError, store.open_db, self.db)
        with open(self.db, "rb") as f:
            self.assertEqual(f.read(), b"garbage" * 1000)
        blocker = os.path.join(self.dir.name, "file")
        open(blocker, "w").close()
        self.assertRaises(UsageError, store.precheck, os.path.join(blocker, "x", "r.sqlite"))
        self.assertRaises(UsageError, store.open_db, os.path.join(self.dir.name, "none"),
                          create=False)

    def test_retry_is_bounded(self):
        calls = []

        def locked():
            calls.append(1)
            raise sqlite3.OperationalError("database is locked")
        with self.assertRaises(RefereeError) as cm:
            store.with_retry(locked, 0.3, "testing")
        self.assertIn("locked for 0.3 s while testing", str(cm.exception))
        self.assertGreater(len(calls), 1)
        self.assertEqual(store.with_retry(lambda: 7, 0.3, "x"), 7)

    def test_tournament_lock_is_per_tournament(self):
        a = store.TournamentLock(self.db, 1)
        b = store.TournamentLock(self.db, 2)  # another tournament: fine
        # fcntl locks belong to the process, so the conflict is tested
        # between processes in test_referee.py (two --resume at once).
        a.release()
        b.release()


if __name__ == "__main__":
    unittest.main()
