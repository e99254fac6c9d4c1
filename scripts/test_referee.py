#!/usr/bin/env python3
"""End-to-end tests of the referee (unittest, standard library only), and
the runner of the unit tests beside each module (referee/test_*.py).

Run: python3 scripts/test_referee.py   (or via `cargo test --test referee`).
Most tests pair tiny fake engines (fake_engine.py, which also serves as the
arbiter). With MEEPLE_BIN set to a built meeple, the RealEngine tests also
play the real engine (the cargo integration test sets it).
"""

import io
import math
import os
import re
import shlex
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from referee import gamestring, pgn, store  # noqa: E402

REFEREE = os.path.join(HERE, "referee.py")
FAKE = "%s %s" % (shlex.quote(sys.executable), shlex.quote(os.path.join(HERE, "fake_engine.py")))


def fake(*args):
    return FAKE + "".join(" " + a for a in args)


class Tmp(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.dir.name, "results.sqlite")

    def tearDown(self):
        self.dir.cleanup()

    def referee(self, *args, timeout=60, stdin=None, arbiter=None):
        cmd = [sys.executable, REFEREE] + list(args)
        if args and args[0] not in ("leaderboard", "show"):
            cmd += ["--db", self.db, "--arbiter", arbiter or fake()]
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr

    def db_bytes(self):
        if not os.path.exists(self.db):
            return None
        with open(self.db, "rb") as f:
            return f.read()

    def games(self):
        conn = sqlite3.connect(self.db)
        rows = conn.execute(
            "SELECT game_index, first_player, second_player, winner, reason, detail, result,"
            " first_points, second_points FROM games ORDER BY game_index").fetchall()
        conn.close()
        return rows


class Failures(Tmp):
    """Each broken engine loses every game with the right reason; with
    --recover the match goes on to the end."""

    def check_losses(self, mode, reason, *extra, games=4, bad_st="5"):
        # The good engine gets ample time so that a loaded machine cannot
        # make it lose; the bad one the time its test needs.
        rc, out = self.referee("--engine", "name=good", "cmd=" + fake("--seed", "3"), "st=10",
                               "--engine", "name=bad", "cmd=" + fake("--mode", mode, *extra),
                               "st=" + bad_st, "--games", str(games), "--timemargin", "0.1",
                               "--stall-timeout", "0.5", "--recover")
        self.assertEqual(rc, 0, out)
        rows = self.games()
        self.assertEqual([r[0] for r in rows], list(range(games)), out)
        for r in rows:
            self.assertEqual((r[3], r[4]), ("good", reason), r)
        self.assertIn("Finished match", out)
        self.assertIn("Score of good vs bad: %d - 0 - 0" % games, out)
        self.assertIn("Ptnml(0-2) of good over game pairs (same opening, colours swapped):"
                      " [0, 0, 0, 0, %d]" % (games // 2), out)
        return rows

    def test_crash_on_go(self):
        rows = self.check_losses("crash", "crash")
        self.assertIn("exited", rows[0][5])

    def test_stall(self):
        self.check_losses("stall", "stall", bad_st="0.05")

    def test_illegal_move(self):
        rows = self.check_losses("illegal", "illegal")
        self.assertIn("invalidmove", rows[0][5])
        conn = sqlite3.connect(self.db)
        flagged = conn.execute("SELECT COUNT(*) FROM moves WHERE illegal = 1 AND move = '8'"
                               ).fetchone()[0]
        self.assertEqual(flagged, 4)

    def test_time_forfeit(self):
        rows = self.check_losses("slow", "time", "--delay", "0.4", bad_st="0.05")
        self.assertIn("used", rows[0][5])

    def test_time_forfeit_with_increment_clock(self):
        # 0.5 s + 0 per game; 0.12 s a move runs out on the 5th move.
        rc, out = self.referee("--engine", "name=good", "cmd=" + fake(), "tc=60+0",
                               "--engine", "name=bad", "cmd=" + fake("--mode", "slow", "--delay", "0.12"),
                               "--games", "2", "--tc", "0.5+0", "--timemargin", "0.05",
                               "--stall-timeout", "2")
        self.assertEqual(rc, 0, out)
        rows = self.games()
        self.assertEqual([(r[3], r[4]) for r in rows], [("good", "time")] * 2, out)

    def test_crash_without_recover_stops(self):
        rc, out = self.referee("--engine", "name=good", "cmd=" + fake(),
                               "--engine", "name=bad", "cmd=" + fake("--mode", "crash"),
                               "--games", "6", "--st", "5")
        self.assertEqual(rc, 1, out)
        rows = self.games()
        self.assertEqual(len(rows), 1, out)
        self.assertEqual(rows[0][4], "crash")
        self.assertIn("--recover", out)


class Matches(Tmp):
    def test_concurrency_openings_and_records(self):
        rc, out = self.referee("--engine", "name=A", "cmd=" + fake("--seed", "5"),
                               "--engine", "name=B", "cmd=" + fake("--mode", "first"),
                               "--games", "6", "--concurrency", "2", "--random-plies", "3",
                               "--seed", "7", "--st", "2", "--rating-interval", "2")
        self.assertEqual(rc, 0, out)
        self.assertEqual(len(re.findall(r"^Finished game \d+", out, re.M)), 6, out)
        self.assertGreaterEqual(out.count("Elo difference"), 3)
        conn = sqlite3.connect(self.db)
        rows = conn.execute("SELECT game_index, first_player, opening, reason, final, plies"
                            " FROM games ORDER BY game_index").fetchall()
        self.assertEqual(len(rows), 6)
        for i in range(0, 6, 2):
            a, b = rows[i], rows[i + 1]
            # Each opening twice, colours swapped.
            self.assertEqual(a[2], b[2])
            self.assertEqual({a[1], b[1]}, {"A", "B"})
            self.assertEqual(len(gamestring.GameString(a[2]).moves), 3)
        for r in rows:
            self.assertEqual(r[3], "rules")
            n = conn.execute("SELECT COUNT(*) FROM moves m JOIN games g ON g.id = m.game_id"
                             " WHERE g.game_index = ?", (r[0],)).fetchone()[0]
            self.assertEqual(n + 3, r[5])
        self.assertEqual(len({r[2] for r in rows}), 3)

    def test_openings_file_and_show_and_leaderboard(self):
        path = os.path.join(self.dir.name, "openings.txt")
        with open(path, "w") as f:
            f.write("# comment\n4;4\nConnect4;InProgress;Yellow[1];1\n")
        rc, out = self.referee("--engine", "name=A", "cmd=" + fake(),
                               "--engine", "name=B", "cmd=" + fake("--mode", "first"),
                               "--games", "4", "--openings", path, "--st", "2")
        self.assertEqual(rc, 0, out)
        conn = sqlite3.connect(self.db)
        openings = [r[0] for r in conn.execute("SELECT opening FROM games ORDER BY game_index")]
        self.assertEqual(openings, ["Connect4;InProgress;Red[2];4;4"] * 2
                         + ["Connect4;InProgress;Yellow[1];1"] * 2)
        rc, out = self.referee("show", "1", "--db", self.db, "--arbiter", fake())
        self.assertEqual(rc, 0, out)
        self.assertIn("Opening: Connect4;InProgress;Red[2];4;4", out)
        self.assertIn("1 2 3 4 5 6 7", out)  # the final board from the arbiter
        self.assertRegex(out, r"\n\s+3\. Red\s+A\s")
        rc, out = self.referee("leaderboard", "--db", self.db, "--game", "connect4")
        self.assertEqual(rc, 0, out)
        self.assertIn("By wins:", out)
        self.assertIn("By Elo", out)
        self.assertEqual(len(re.findall(r"^\d+\s+[AB]\s", out, re.M)), 4, out)
        rc, out = self.referee("leaderboard", "--db", self.db, "--game", "Base")
        self.assertIn("no games", out)

    def test_uhp_engine(self):
        rc, out = self.referee("--engine", "name=uhp", "cmd=" + fake("--uhp"), "proto=uhp",
                               "--engine", "name=B", "cmd=" + fake("--mode", "first"),
                               "--games", "2", "--st", "0.05", "--stall-timeout", "2")
        self.assertEqual(rc, 0, out)
        self.assertEqual([r[4] for r in self.games()], ["rules", "rules"])

    def test_sprt_stops_early(self):
        rc, out = self.referee("--engine", "name=good", "cmd=" + fake("--seed", "11"),
                               "--engine", "name=flaky", "cmd=" + fake("--mode", "flaky", "--p", "0.6"),
                               "--games", "200", "--st", "2",
                               "--sprt", "elo0=0", "elo1=200", "alpha=0.05", "beta=0.05",
                               "model=logistic")
        self.assertEqual(rc, 0, out)
        self.assertIn("Match stopped: SPRT (logistic, trinomial): H1 accepted", out)
        self.assertLess(len(self.games()), 200)

    def test_resume_after_kill(self):
        games = 6
        args = [sys.executable, REFEREE, "--db", self.db, "--arbiter", fake(),
                "--engine", "name=A", "cmd=" + fake("--mode", "slow", "--delay", "0.015"),
                "--engine", "name=B", "cmd=" + fake("--mode", "first"),
                "--games", str(games), "--st", "1"]
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        seen = 0
        for line in p.stdout:
            if line.startswith("Finished game"):
                seen += 1
                if seen == 2:
                    break
        p.kill()
        p.wait()
        p.stdout.close()
        before = self.games()
        self.assertGreaterEqual(len(before), 2)
        self.assertLess(len(before), games)
        rc, out = self.referee("--resume", "--timemargin", "0.5")
        self.assertEqual(rc, 0, out)
        self.assertIn("Resuming tournament 1", out)
        after = self.games()
        self.assertEqual([r[0] for r in after], list(range(games)))
        self.assertEqual(after[:len(before)] if before == after[:len(before)] else None, before)
        self.assertIn("Score of A vs B", out)
        rc, out = self.referee("--resume")
        self.assertNotEqual(rc, 0)
        self.assertIn("nothing to resume", out)


class Mastermind(Tmp):
    """The seed's match, against the toy Mastermind of fake_engine.py (the
    real engine's Mastermind GameString is assumed to have the same shape)."""

    def test_rounds_swap_roles_and_score(self):
        rc, out = self.referee("--game", "Mastermind", "--engine", "name=A", "cmd=" + fake("--seed", "1"),
                               "--engine", "name=B", "cmd=" + fake("--seed", "2"),
                               "--rounds", "4", "--st", "2")
        self.assertEqual(rc, 0, out)
        rows = self.games()
        self.assertEqual([r[1] for r in rows], ["A", "B", "A", "B"])  # codebreaker
        self.assertTrue(all("Secret=" in r[5] for r in rows), rows)
        conn = sqlite3.connect(self.db)
        totals = {"A": 0, "B": 0}
        for r in rows:
            final = gamestring.GameString(conn.execute(
                "SELECT final FROM games WHERE game_index = ?", (r[0],)).fetchone()[0])
            guesses = (len(final.moves) + 1) // 2
            broken = final.state == "BreakerWins"
            self.assertEqual(r[4], "rules")
            self.assertEqual(r[7], 0)  # the codebreaker scores nothing
            self.assertEqual(r[8], guesses + (0 if broken else 1))
            totals[r[2]] += r[8]
        self.assertIn("Points: A %d, B %d" % (totals["A"], totals["B"]), out)
        rc, out = self.referee("leaderboard", "--db", self.db)
        self.assertIn("points", out)

    def test_odd_number_of_rounds_is_refused(self):
        rc, out = self.referee("--game", "Mastermind", "--engine", "cmd=" + fake(),
                               "--engine", "cmd=" + fake(), "--rounds", "3")
        self.assertNotEqual(rc, 0)
        self.assertIn("even number of rounds", out)


class People(Tmp):
    def test_human_on_terminal(self):
        rc, out = self.referee("--engine", "human", "name=me",
                               "--engine", "name=bot", "cmd=" + fake("--mode", "first"),
                               "--games", "1", stdin="9\nmoves\n1\nresign\n")
        self.assertEqual(rc, 0, out)
        self.assertIn("try again", out)
        self.assertIn("legal moves: 1;2;3;4;5;6;7", out)
        rows = self.games()
        self.assertEqual([(r[3], r[4]) for r in rows], [("bot", "resign")])
        conn = sqlite3.connect(self.db)
        moves = conn.execute("SELECT player, move FROM moves ORDER BY ply").fetchall()
        self.assertEqual(moves, [("me", "1"), ("bot", "1")])

    def test_hotseat(self):
        rc, out = self.referee("--engine", "human", "name=p1", "--engine", "human", "name=p2",
                               "--games", "1", stdin="1\n2\n1\n2\n1\n2\n1\n")
        self.assertEqual(rc, 0, out)
        self.assertIn("p2 (Yellow) to move>", out)
        self.assertEqual([(r[3], r[4], r[5]) for r in self.games()], [("p1", "rules", "RedWins")])

    def test_remote_seat_over_loopback(self):
        cmd = [sys.executable, REFEREE, "--db", self.db, "--arbiter", fake(),
               "--engine", "remote=127.0.0.1:0", "name=netplayer",
               "--engine", "name=bot", "cmd=" + fake("--mode", "first"), "--games", "1"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            port = None
            for line in p.stdout:
                m = re.search(r"nc 127\.0\.0\.1 (\d+)", line)
                if m:
                    port = int(m.group(1))
                    break
            self.assertIsNotNone(port)
            sock = socket.create_connection(("127.0.0.1", port), timeout=20)
            buf, column, retries, prompts = "", 1, 0, 0
            while True:
                data = sock.recv(4096)
                if not data:
                    break
                buf += data.decode()
                while "to move> " in buf:
                    before, _, buf = buf.partition("to move> ")
                    if "try again" in before:
                        retries += 1
                        column += 1
                    prompts += 1
                    sock.sendall(("%d\n" % column).encode())
            sock.close()
            rest = p.stdout.read()
            self.assertEqual(p.wait(timeout=20), 0, rest)
        finally:
            if p.poll() is None:
                p.kill()
            p.stdout.close()
        # Both stack column 1 (the bot plays the lowest legal column); the
        # 4th try at column 1 is refused and the player moves on to column 2.
        self.assertGreaterEqual(retries, 1)
        self.assertIn("Game over", buf)
        rows = self.games()
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0][4], "rules")
        self.assertIn("netplayer", (rows[0][1], rows[0][2]))


@unittest.skipUnless(os.environ.get("MEEPLE_BIN"), "MEEPLE_BIN not set")
class RealEngine(Tmp):
    """The real meeple as engines and arbiter (MEEPLE_BIN)."""

    def test_attack_beats_random(self):
        bin_ = shlex.quote(os.environ["MEEPLE_BIN"])
        rc, out = self.referee("--engine", "name=attack", "cmd=" + bin_, "option.Strategy=attack",
                               "depth=4", "--engine", "name=random", "cmd=" + bin_,
                               "option.Strategy=random", "--games", "4", "--st", "0.05",
                               "--timemargin", "2", "--concurrency", "2", arbiter=bin_)
        self.assertEqual(rc, 0, out)
        rows = self.games()
        self.assertEqual(len(rows), 4, out)
        self.assertTrue(all(r[4] == "rules" for r in rows), rows)
        self.assertGreaterEqual(sum(1 for r in rows if r[3] == "attack"), 3, out)

    def test_mastermind_rounds(self):
        bin_ = shlex.quote(os.environ["MEEPLE_BIN"])
        info = subprocess.run([os.environ["MEEPLE_BIN"]], input="", capture_output=True,
                              text=True, timeout=30).stdout
        if "Mastermind" not in info:
            self.skipTest("this meeple has no Mastermind yet")
        rc, out = self.referee("--game", "Mastermind", "--engine", "name=knuth", "cmd=" + bin_,
                               "option.Strategy=knuth", "--engine", "name=maker", "cmd=" + bin_,
                               "option.Strategy=random", "option.Codemaker=adversarial",
                               "--rounds", "2", "--st", "5", arbiter=bin_)
        self.assertEqual(rc, 0, out)
        conn = sqlite3.connect(self.db)
        rows = conn.execute("SELECT first_player, reason, final, first_points, second_points"
                            " FROM games ORDER BY game_index").fetchall()
        self.assertEqual([r[0] for r in rows], ["knuth", "maker"])
        for first, reason, final, p1, p2 in rows:
            gs = gamestring.GameString(final)
            self.assertEqual(reason, "rules", out)
            guesses = sum(1 for m in gs.moves if not m.startswith("Secret=")) // 2
            self.assertEqual((p1, p2), (0, guesses + (gs.state != "BreakerWins")))
        self.assertIn("Points: knuth %d, maker %d" % (rows[1][4], rows[0][4]), out)

    def test_illegal_move_against_real_arbiter(self):
        bin_ = shlex.quote(os.environ["MEEPLE_BIN"])
        rc, out = self.referee("--engine", "name=real", "cmd=" + bin_, "option.Strategy=random",
                               "--engine", "name=bad", "cmd=" + fake("--mode", "illegal"),
                               "--games", "2", "--st", "0.05", "--timemargin", "2",
                               arbiter=bin_)
        self.assertEqual(rc, 0, out)
        self.assertEqual([(r[3], r[4]) for r in self.games()], [("real", "illegal")] * 2)


if __name__ == "__main__":
    unittest.main()
