#!/usr/bin/env python3
"""End-to-end tests of the referee (unittest, standard library only), and
the runner of the unit tests beside each module (referee/test_*.py).

Run: python3 scripts/test_referee.py   (or via `cargo test --test referee`).
Most tests pair tiny fake engines (fake_engine.py, which also serves as the
arbiter). With MEEPLE_BIN set to a built meeple, the RealEngine tests also
play the real engine (the cargo integration test sets it).
"""

import json
import os
import re
import shlex
import signal
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


def default_sigint():
    """In the referee child: Ctrl-C acts as in a terminal even when these
    tests run in the background (where SIGINT is inherited as ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


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

    def test_long_input_line_is_refused(self):
        rc, out = self.referee("--engine", "human", "name=me",
                               "--engine", "name=bot", "cmd=" + fake("--mode", "first"),
                               "--games", "1", stdin="9" * 100000 + "\nresign\n")
        self.assertEqual(rc, 0, out)
        self.assertIn("that line is too long", out)
        self.assertEqual([(r[3], r[4]) for r in self.games()], [("bot", "resign")])

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



class WrongResults(Tmp):
    """The five wrong results of issue 11, each with a fake engine."""

    def test_mastermind_rounds_get_fresh_secrets_from_the_seed(self):
        args = ("--game", "Mastermind", "--engine", "name=A", "cmd=" + fake("--seed", "1"),
                "--engine", "name=B", "cmd=" + fake("--seed", "2"), "--rounds", "8",
                "--st", "2", "--seed", "5")
        rc, out = self.referee(*args)
        self.assertEqual(rc, 0, out)
        conn = sqlite3.connect(self.db)
        rows = conn.execute("SELECT secret, final, detail FROM games ORDER BY game_index"
                            ).fetchall()
        secrets = [r[0] for r in rows]
        self.assertTrue(all(secrets), rows)
        # One secret per pair of rounds (both codebreakers face it), not one
        # for the whole match; recorded with the result.
        self.assertEqual(secrets[0::2], secrets[1::2])
        self.assertGreater(len(set(secrets)), 1, secrets)
        for secret, final, detail in rows:
            self.assertIn("Secret=" + secret, detail)
            self.assertTrue(final.endswith("Secret=" + secret), final)
        conn.close()
        os.remove(self.db)
        rc, out = self.referee(*args)
        again = [r[0] for r in sqlite3.connect(self.db).execute(
            "SELECT secret FROM games ORDER BY game_index")]
        self.assertEqual(again, secrets)

    def test_default_margin_absorbs_a_slow_reply(self):
        # 0.2 s for a 0.05 s move: the delay a busy machine adds; the default
        # margin takes it (a deliberate 1 s is still a time loss).
        rc, out = self.referee("--engine", "name=slowish",
                               "cmd=" + fake("--mode", "slow", "--delay", "0.2"),
                               "--engine", "name=B", "cmd=" + fake("--mode", "first"),
                               "--games", "2", "--st", "0.05")
        self.assertEqual(rc, 0, out)
        self.assertEqual([r[4] for r in self.games()], ["rules", "rules"], out)

    def test_late_move_is_stored_and_shown(self):
        rc, out = self.referee("--engine", "name=good", "cmd=" + fake(), "st=10",
                               "--engine", "name=late",
                               "cmd=" + fake("--mode", "slow", "--delay", "0.5", "--score", "17"),
                               "st=0.05", "--games", "2", "--timemargin", "0.1", "--recover")
        self.assertEqual(rc, 0, out)
        conn = sqlite3.connect(self.db)
        late = conn.execute("SELECT player, ms, score, depth FROM moves WHERE late = 1").fetchall()
        self.assertEqual(len(late), 2, late)
        # The late move keeps the score and depth its engine gave with it
        # (`info depth 1 ... score cp 17`).
        self.assertTrue(all(p == "late" and ms >= 400 and s == 17 and d == 1
                            for p, ms, s, d in late), late)
        # A move without a score has no depth either.
        self.assertEqual(conn.execute("SELECT COUNT(*) FROM moves WHERE player = 'good'"
                                      " AND (score IS NOT NULL OR depth IS NOT NULL)").fetchone()[0], 0)
        rc, shown = self.referee("show", "2", "--db", self.db, "--arbiter", fake())
        self.assertEqual(rc, 0, shown)
        self.assertIn("Game 2 of tournament 1", shown)
        self.assertIn("(late: lost on time)", shown)
        self.assertIn("score 17  depth 1", shown)
        # The log's numbers are the ones `show` takes.
        self.assertIn("Finished game 2 (late vs good)", out)
        self.assertIn("late", shown.split("Moves:")[0])

    def test_late_uhp_engine_loses_on_time_not_by_crash(self):
        rc, out = self.referee("--engine", "name=uhp", "proto=uhp",
                               "cmd=" + fake("--uhp", "--mode", "late", "--delay", "3"),
                               "--engine", "name=B", "cmd=" + fake("--mode", "first"),
                               "--games", "2", "--st", "0.05", "--timemargin", "0.1",
                               "--stall-timeout", "5")
        self.assertEqual(rc, 0, out)
        rows = self.games()
        self.assertEqual([(r[3], r[4]) for r in rows], [("B", "time")] * 2, out)
        # The message names the limit applied: the whole second it was told.
        self.assertIn("no move within 1.000 s (told as `bestmove time 00:00:01`)", rows[0][5])

    def test_uhp_seat_is_judged_by_the_whole_seconds_it_was_told(self):
        # Issue 27 item 11: UHP's `bestmove time` has whole seconds, so
        # st=0.1 is told as 00:00:01; a move in 0.6 s obeys it, and lost on
        # time against 0.1 s + margin ("used 0.609 s of 1.000 s").
        rc, out = self.referee("--engine", "name=uhp", "proto=uhp",
                               "cmd=" + fake("--uhp", "--mode", "slow", "--delay", "0.6"),
                               "--engine", "name=B", "cmd=" + fake("--mode", "first"),
                               "--games", "2", "--st", "0.1", "--timemargin", "0.2",
                               "--max-plies", "4", "--stall-timeout", "5")
        self.assertEqual(rc, 0, out)
        self.assertEqual([r[4] for r in self.games()], ["maxplies"] * 2, out)
        self.assertIn("st=0.1 is told as 1 s, and the seat is judged by 1 s", out)

    def test_sprt_report_agrees_with_the_stop(self):
        rc, out = self.referee("--engine", "name=good", "cmd=" + fake("--seed", "11"),
                               "--engine", "name=flaky",
                               "cmd=" + fake("--mode", "flaky", "--p", "0.6"),
                               "--games", "400", "--st", "2", "--concurrency", "3",
                               "--rating-interval", "0", "--sprt", "elo0=0", "elo1=100")
        self.assertEqual(rc, 0, out)
        stop = re.search(r"Match stopped: SPRT \((normalized, pentanomial over \d+ pairs)\): "
                         r"H1 accepted \(llr (-?[\d.]+)\)", out)
        self.assertIsNotNone(stop, out)
        final = re.search(r"SPRT \(([^)]*)\): llr (-?[\d.]+), .* - (.*)$", out, re.M)
        self.assertEqual((final.group(1), final.group(2), final.group(3)),
                         (stop.group(1), stop.group(2), "H1 was accepted"), out)
        n = len(self.games())
        self.assertLess(n, 400)
        self.assertIn("] %d\n" % n, out)

    def test_stray_ok_restarts_the_seat(self):
        flag = os.path.join(self.dir.name, "strayed")
        rc, out = self.referee("--engine", "name=good", "cmd=" + fake("--seed", "3"),
                               "--engine", "name=stray",
                               "cmd=" + fake("--mode", "strayok", "--flag", flag),
                               "--games", "4", "--st", "2", "--recover")
        self.assertEqual(rc, 0, out)
        reasons = [r[4] for r in self.games()]
        # One stray `ok` in game 1: that game is a desync loss, and the
        # restarted seat plays every later game in step.
        self.assertEqual(reasons, ["desync", "rules", "rules", "rules"], out)
        rc, out = self.referee("--engine", "name=good", "cmd=" + fake("--seed", "3"),
                               "--engine", "name=stray", "cmd=" + fake("--mode", "strayok"),
                               "--games", "4", "--st", "2")
        self.assertEqual(rc, 1, out)
        self.assertIn("use --recover", out)

    def test_overlong_line_is_refused(self):
        rc, out = self.referee("--engine", "name=good", "cmd=" + fake(),
                               "--engine", "name=long", "cmd=" + fake("--mode", "longline"),
                               "--games", "2", "--st", "5", "--recover")
        self.assertEqual(rc, 0, out)
        rows = self.games()
        self.assertEqual([r[4] for r in rows], ["desync"] * 2)
        self.assertIn("longer than", rows[0][5])


class Tournaments(Tmp):
    def test_round_robin_of_three_with_ratings_and_pgn(self):
        path = os.path.join(self.dir.name, "games.pgn")
        rc, out = self.referee("--engine", "name=A", "cmd=" + fake("--seed", "1"),
                               "--engine", "name=B", "cmd=" + fake("--seed", "2"),
                               "--engine", "name=C", "cmd=" + fake("--mode", "first"),
                               "--games", "4", "--st", "2", "--concurrency", "2",
                               "--pgnout", path, "--rating-interval", "0")
        self.assertEqual(rc, 0, out)
        rows = self.games()
        self.assertEqual(len(rows), 12)
        pairs = {}
        for r in rows:
            key = tuple(sorted((r[1], r[2])))
            pairs[key] = pairs.get(key, 0) + 1
        self.assertEqual(pairs, {("A", "B"): 4, ("A", "C"): 4, ("B", "C"): 4})
        self.assertIn("Ratings (maximum likelihood", out)
        table = [l for l in out.splitlines() if re.match(r"^[123]\s+[ABC]\s", l)]
        self.assertEqual(len(table), 3, out)
        for line in table:
            self.assertRegex(line, r"^\d\s+\w\s+-?\d+\.\d\s+\d+\.\d\s+8\s")
        with open(path) as f:
            games = pgn.read(f.read())
        self.assertEqual(len(games), 12)
        conn = sqlite3.connect(self.db)
        finals = conn.execute("SELECT game_index, first_player, second_player, result, final"
                              " FROM games ORDER BY game_index").fetchall()
        by_round = {int(g["tags"]["Round"]): g for g in games}
        for index, first, second, result, final in finals:
            g = by_round[index + 1]
            self.assertEqual((g["tags"]["White"], g["tags"]["Black"], g["tags"]["Result"]),
                             (first, second, result))
            self.assertEqual(g["moves"], gamestring.GameString(final).moves)
            self.assertEqual(g["tags"]["GameType"], "Connect4")
            self.assertEqual(g["tags"]["TimeControl"], "1/2")
            self.assertEqual(g["tags"]["Termination"], "normal")

    def test_gauntlet_each_and_per_engine_limits(self):
        rc, out = self.referee("--tournament", "gauntlet",
                               "--engine", "name=hero", "cmd=" + fake(), "depth=3",
                               "--engine", "name=x", "cmd=" + fake("--seed", "4"),
                               "restart=on", "nodes=100",
                               "--engine", "name=y", "cmd=" + fake("--seed", "5"), "tc=30+1",
                               "--each", "timemargin=1", "--games", "2", "--st", "3")
        self.assertEqual(rc, 0, out)
        rows = self.games()
        self.assertEqual(len(rows), 4)
        self.assertTrue(all("hero" in (r[1], r[2]) for r in rows), rows)
        conn = sqlite3.connect(self.db)
        opts = dict(conn.execute("SELECT first_player, first_options FROM games"))
        self.assertEqual(json.loads(opts["hero"])["depth"], 3)
        self.assertEqual(json.loads(opts["x"])["nodes"], 100)
        self.assertEqual(json.loads(opts["y"])["tc"], [30000, 1000, 0])

    def test_uci_and_ugi_engines(self):
        for proto in ("uci", "ugi"):
            rc, out = self.referee("--engine", "name=" + proto, "proto=" + proto,
                                   "cmd=" + fake("--seed", "2"),
                                   "--engine", "name=meeple", "cmd=" + fake("--mode", "first"),
                                   "--games", "2", "--tc", "20+0.1")
            self.assertEqual(rc, 0, out)
        rows = self.games()
        self.assertEqual(len(rows), 4)
        self.assertEqual([r[4] for r in rows], ["rules"] * 4, rows)

    def test_adjudication_from_scores(self):
        rc, out = self.referee("--engine", "name=hopeless", "cmd=" + fake("--score", "-900"),
                               "--engine", "name=B", "cmd=" + fake("--score", "900"),
                               "--games", "2", "--st", "2",
                               "--resign", "movecount=2", "score=500")
        self.assertEqual(rc, 0, out)
        rows = self.games()
        self.assertEqual([(r[3], r[4]) for r in rows], [("B", "adjudication")] * 2, out)
        self.assertIn("hopeless resigns", rows[0][5])
        os.remove(self.db)
        rc, out = self.referee("--engine", "name=A", "cmd=" + fake("--score", "0"),
                               "--engine", "name=B", "cmd=" + fake("--score", "3"),
                               "--games", "2", "--st", "2",
                               "--draw", "movenumber=2", "movecount=2", "score=5")
        self.assertEqual(rc, 0, out)
        conn = sqlite3.connect(self.db)
        for reason, winner, plies in conn.execute("SELECT reason, winner, plies FROM games"):
            self.assertEqual((reason, winner, plies), ("adjudication", None, 4))

    def test_openings_file_options_and_pgn_openings(self):
        path = os.path.join(self.dir.name, "book.txt")
        with open(path, "w") as f:
            f.write("1;1\n2;2\n3;3\n4;4\n")
        rc, out = self.referee("--engine", "name=A", "cmd=" + fake(),
                               "--engine", "name=B", "cmd=" + fake("--mode", "first"),
                               "--games", "4", "--st", "2",
                               "--openings", "file=" + path, "format=moves", "start=3")
        self.assertEqual(rc, 0, out)
        conn = sqlite3.connect(self.db)
        openings = [r[0] for r in conn.execute("SELECT opening FROM games ORDER BY game_index")]
        self.assertEqual([gamestring.GameString(o).moves for o in openings],
                         [["3", "3"]] * 2 + [["4", "4"]] * 2)
        conn.close()
        # order=random is reproducible from the seed; a PGN file (the
        # referee's own output) serves as openings, cut to plies=N.
        pgn_path = os.path.join(self.dir.name, "book.pgn")
        with open(pgn_path, "w") as f:
            f.write(pgn.game_text({"Event": "x", "Site": "?", "Date": "?", "Round": "1",
                                   "White": "a", "Black": "b", "Result": "*",
                                   "GameType": "Connect4"}, ["7", "6", "5", "4"]))
        os.remove(self.db)
        rc, out = self.referee("--engine", "name=A", "cmd=" + fake(),
                               "--engine", "name=B", "cmd=" + fake("--mode", "first"),
                               "--games", "2", "--st", "2",
                               "--openings", "file=" + pgn_path, "plies=3")
        self.assertEqual(rc, 0, out)
        conn = sqlite3.connect(self.db)
        openings = [r[0] for r in conn.execute("SELECT opening FROM games")]
        self.assertEqual([gamestring.GameString(o).moves for o in openings], [["7", "6", "5"]] * 2)

    def test_arbiter_option_reaches_the_arbiter(self):
        rc, out = self.referee("--engine", "cmd=" + fake(), "--engine", "cmd=" + fake(),
                               "--games", "2", "--st", "1", "--arbiter-option", "Bogus=1")
        self.assertEqual(rc, 2, out)
        self.assertIn("arbiter refused option Bogus=1", out)
        self.assertFalse(os.path.exists(self.db))


def games_in(path):
    with open(path) as f:
        return pgn.read(f.read())


class Annotate(Tmp):
    """--annotate with the fake engine as the reviewer (its `review` labels
    the plies best, inaccuracy, mistake, blunder, good, forced in turn)."""

    def match(self, *extra, pgnout="games.pgn", games="4"):
        path = os.path.join(self.dir.name, pgnout)
        rc, out = self.referee("--engine", "name=A", "cmd=" + fake("--seed", "3"),
                               "--engine", "name=B", "cmd=" + fake("--seed", "4"),
                               "--games", games, "--st", "2", "--pgnout", path, *extra)
        return rc, out, path

    def stored(self):
        conn = sqlite3.connect(self.db)
        rows = conn.execute("SELECT game_index, final, review, first_accuracy, second_accuracy"
                            " FROM games ORDER BY game_index").fetchall()
        conn.close()
        return rows

    def test_games_are_annotated_and_their_pgn_is_remade_the_same(self):
        rc, out, path = self.match("--annotate", "movetime=10")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("warning", out)
        rows = self.stored()
        games = games_in(path)
        self.assertEqual(len(games), 4)
        for (index, final, kept, acc1, acc2), game in zip(rows, games):
            kept = json.loads(kept)
            self.assertEqual((acc1, acc2), (77.7, 77.7))
            self.assertEqual(game["moves"], gamestring.GameString(final).moves)
            self.assertEqual(game["tags"]["Annotator"], "fake-engine v0.0.1, review movetime 10")
            self.assertEqual((game["tags"]["WhiteAccuracy"], game["tags"]["BlackAccuracy"]),
                             ("77.7", "77.7"))
            glyphs = {"inaccuracy": [6], "mistake": [2], "blunder": [4]}
            for p_, note in zip(kept["plies"], game["notes"]):
                self.assertEqual(note["nags"], glyphs.get(p_["label"], []), p_)
                self.assertEqual(len(note["comments"]), 1)
                self.assertTrue(note["comments"][0].startswith("[%eval "), note)
        rc, out = self.referee("show", "1", "--db", self.db, "--arbiter", fake())
        self.assertEqual(rc, 0, out)
        self.assertIn("Review (fake-engine v0.0.1, movetime 10): accuracy A 77.7, B 77.7", out)
        self.assertRegex(out, r"\n +2\. Yellow +B .* ms  inaccuracy( \(best 4\))?\n")
        rc, out = self.referee("leaderboard", "--db", self.db)
        self.assertEqual(rc, 0, out)
        self.assertRegex(out, r"accuracy \(reviewed\)\n1 +[AB] .* 77\.7 \(4\)\n")
        # A resumed match remakes a game's PGN from the database: the
        # annotated text is the same, so nothing is added twice and a
        # record lost from the file comes back as it was.
        with open(path) as f:
            whole = f.read()
        first = whole[:whole.index("\n\n[Event") + 2]
        with open(path, "w") as f:
            f.write(first)
        rc, out = self.referee("--resume", "1", "--pgnout", path)
        self.assertEqual(rc, 0, out)
        self.assertIn("3 stored games added", out)
        with open(path) as f:
            self.assertEqual(f.read(), whole)

    def test_without_annotate_nothing_changes(self):
        rc, out, path = self.match()
        self.assertEqual(rc, 0, out)
        with open(path) as f:
            text = f.read()
        for needle in ("{", "$", "Accuracy", "Annotator", "..."):
            self.assertNotIn(needle, text)
        self.assertEqual([r[2:] for r in self.stored()], [(None, None, None)] * 4)

    def test_a_reviewer_that_fails_leaves_games_unannotated_and_the_match_going(self):
        for mode in ("hang", "die", "garbage"):
            with self.subTest(mode=mode):
                self.db = os.path.join(self.dir.name, mode + ".sqlite")
                rc, out, path = self.match("--annotate", "movetime=10", "--stall-timeout", "0.5",
                                           "--reviewer", fake("--review", mode),
                                           pgnout=mode + ".pgn", games="2")
                self.assertEqual(rc, 0, out)
                self.assertIn("Finished match", out)
                self.assertEqual(len(self.stored()), 2, out)
                for n in (1, 2):
                    self.assertRegex(out, r"warning: game %d: not annotated: the review \(.*"
                                     r"fake_engine.py --review %s, at most \d+\.\d s for \d+"
                                     r" plies\) failed: " % (n, mode))
                with open(path) as f:
                    text = f.read()
                self.assertNotIn("Annotator", text)
                self.assertNotIn("$", text)
                # Each game says why it is not annotated, in one comment
                # before its first move, and has no other.
                games = pgn.read(text)
                self.assertEqual(len(games), 2)
                for game in games:
                    self.assertEqual(len(game["comments"]), 1, text)
                    self.assertRegex(game["comments"][0], r"^not annotated: the review \(.*"
                                     r"--review %s, at most .* failed: " % mode)
                    self.assertEqual(text.count("{"), 2, text)
                rows = self.stored()
                self.assertEqual([r[3:] for r in rows], [(None, None)] * 2)
                self.assertEqual([sorted(json.loads(r[2])) for r in rows], [["failed"]] * 2)
                rc, shown = self.referee("show", "2", "--db", self.db)
                self.assertIn("Not annotated: the review (", shown)
                # A resume remakes a lost record with its comment.
                with open(path, "w") as f:
                    f.write(text[:text.index("\n\n[Event") + 2])
                rc, out = self.referee("--resume", "1", "--pgnout", path)
                self.assertEqual(rc, 0, out)
                with open(path) as f:
                    self.assertEqual(f.read(), text)


class ClearErrors(Tmp):
    """Each bad input: one line, exit status 2, the database unchanged."""

    def setUp(self):
        super().setUp()
        # A database with one finished match in it.
        rc, out = self.referee("--engine", "name=A", "cmd=" + fake(),
                               "--engine", "name=B", "cmd=" + fake("--mode", "first"),
                               "--games", "2", "--st", "1")
        self.assertEqual(rc, 0, out)
        self.before = self.db_bytes()

    def check(self, *args, needle="", db=None):
        engines = ("--engine", "name=A", "cmd=" + fake(), "--engine", "name=B", "cmd=" + fake())
        cmd = [sys.executable, REFEREE] + list(args)
        if "--engine" not in args and "--resume" not in args:
            cmd += engines
        cmd += ["--db", db or self.db, "--arbiter", fake(), "--db-wait", "0.5"]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        text = p.stdout + p.stderr
        self.assertEqual(p.returncode, 2, (args, text))
        self.assertNotIn("Traceback", text)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, (args, text))
        self.assertIn(needle, p.stderr)
        self.assertTrue(self.db_bytes() == self.before, "%s changed the database" % (args,))
        return p.stderr

    def test_bad_seat_tokens(self):
        py = shlex.quote(sys.executable)
        for tokens, needle in ((["st=abc"], "st"), (["depth=x"], "depth"),
                               (["remote=localhost:notaport"], "port"),
                               (["remote=localhost:99999"], "port"),
                               (["cmd=\"%s -c pass" % py], "quotation"),
                               (["cmd=/no/such/engine"], "not found")):
            cmd = ["--engine", "name=A", "cmd=" + fake()]
            second = ["--engine"] + (tokens if tokens[0].startswith(("cmd", "remote"))
                                     else ["cmd=" + fake()] + tokens)
            self.check(*(cmd + second), needle=needle)

    def test_engine_that_refuses_an_option_or_cannot_start(self):
        self.check("--engine", "name=A", "cmd=" + fake(), "option.Bogus=1",
                   "--engine", "name=B", "cmd=" + fake(), needle="refused")
        self.check("--engine", "name=A", "cmd=" + fake("--mode", "crash"),
                   "--engine", "name=B", "cmd=%s -c pass" % shlex.quote(sys.executable),
                   needle="does not start")

    def test_cluster_without_dask_is_refused_in_one_line(self):
        # The referee stays standard-library Python: Dask is imported for
        # --cluster only, and its absence is one clear line, nothing written.
        probe = subprocess.run([sys.executable, "-c", "import distributed"],
                               capture_output=True)
        if probe.returncode == 0:
            self.skipTest("this python has Dask (scripts/test_cluster.py tests --cluster)")
        rc, out = self.referee("--engine", "name=A", "cmd=" + fake(), "--engine", "name=B",
                               "cmd=" + fake(), "--games", "2", "--cluster", "local:2")
        self.assertEqual(rc, 2, out)
        self.assertIn("--cluster needs Dask", out)
        self.assertIn("requirements-cluster.txt", out)
        self.assertEqual(len(out.strip().splitlines()), 1, out)
        self.assertEqual(self.db_bytes(), self.before)

    def test_bad_values(self):
        for args, needle in ((("--st", "nan"), "--st"), (("--st", "inf"), "--st"),
                             (("--st", "-1"), "--st"), (("--games", "0"), "--games"),
                             (("--games", "-3"), "--games"), (("--max-plies", "-1"), "--max-plies"),
                             (("--random-plies", "-1"), "--random-plies"),
                             (("--stall-timeout", "-1"), "--stall-timeout"),
                             (("--sprt", "alpha=0"), "alpha"),
                             (("--annotate", "movetime=0"), "movetime"),
                             (("--annotate", "time=5"), "unknown token"),
                             (("--annotate", "option.Bogus=1"),
                              "does not start: refused `setoption name Bogus value 1`"),
                             (("--annotate", "--reviewer", "/no/such/meeple"),
                              "reviewer '/no/such/meeple' does not start"),
                             (("--openings", "/no/such/file"), "no such file"),
                             (("--resume", "abc"), "tournament number")):
            self.check(*args, needle=needle)

    def test_unwritable_database(self):
        blocker = os.path.join(self.dir.name, "file")
        with open(blocker, "w") as f:
            f.write("x")
        self.check(needle="database", db=os.path.join(blocker, "sub", "r.sqlite"))
        self.assertFalse(os.path.exists(os.path.join(blocker, "sub")))

    def test_corrupt_and_truncated_database(self):
        with open(self.db, "wb") as f:
            f.write(self.before[:len(self.before) // 2])
        self.before = self.db_bytes()
        self.check(needle="corrupt")
        with open(self.db, "wb") as f:
            f.write(b"this is not a database at all" * 100)
        self.before = self.db_bytes()
        self.check(needle="database")

    def test_locked_database_at_start(self):
        conn = sqlite3.connect(self.db, timeout=0)
        conn.execute("BEGIN EXCLUSIVE")
        try:
            self.check(needle="locked")
        finally:
            conn.rollback()
            conn.close()

    def test_database_locked_mid_match(self):
        cmd = [sys.executable, REFEREE, "--db", self.db, "--arbiter", fake(), "--db-wait", "0.5",
               "--engine", "name=A", "cmd=" + fake("--mode", "slow", "--delay", "0.05"),
               "--engine", "name=B", "cmd=" + fake("--mode", "first"), "--games", "6", "--st", "2"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        conn = None
        try:
            for line in p.stdout:
                if line.startswith("Finished game 1 "):
                    conn = sqlite3.connect(self.db, timeout=5)
                    conn.execute("BEGIN EXCLUSIVE")
                    break
            rest = p.stdout.read()
            rc = p.wait(timeout=60)
        finally:
            if conn:
                conn.rollback()
                conn.close()
            p.stdout.close()
        self.assertEqual(rc, 2, rest)
        self.assertIn("locked for 0.5 s", rest)
        self.assertIn("--resume", rest)
        self.assertNotIn("Traceback", rest)

    def test_two_resumes_of_one_match(self):
        conn = sqlite3.connect(self.db)
        conn.execute("UPDATE tournaments SET finished = 0")
        conn.commit()
        conn.close()
        self.before = self.db_bytes()
        lock = store.TournamentLock(self.db, 2)  # another tournament: no conflict
        lock.release()
        held = subprocess.Popen([sys.executable, "-c",
                                 "import sys, time; sys.path.insert(0, %r);"
                                 "from referee import store;"
                                 "l = store.TournamentLock(%r, 2 - 1); print('held', flush=True);"
                                 "time.sleep(30)" % (HERE, self.db)],
                                stdout=subprocess.PIPE, text=True)
        try:
            self.assertEqual(held.stdout.readline().strip(), "held")
            self.check("--resume", needle="already being played")
        finally:
            held.kill()
            held.wait()
            held.stdout.close()

    def test_ctrl_c_while_waiting_for_a_remote_player(self):
        cmd = [sys.executable, REFEREE, "--db", self.db, "--arbiter", fake(),
               "--engine", "remote=127.0.0.1:0", "name=friend",
               "--engine", "name=bot", "cmd=" + fake(), "--games", "1"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             preexec_fn=default_sigint)
        try:
            for line in p.stdout:
                if line.startswith("Waiting for friend"):
                    break
            time.sleep(0.3)
            p.send_signal(signal.SIGINT)
            rest = p.stdout.read()
            rc = p.wait(timeout=30)
        finally:
            if p.poll() is None:
                p.kill()
            p.stdout.close()
        self.assertEqual(rc, 130, rest)
        self.assertNotIn("Traceback", rest)
        self.assertIn("--resume", rest)


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
        rc, out = self.referee("--game", "Mastermind", "--engine", "name=knuth", "cmd=" + bin_,
                               "option.Strategy=knuth", "--engine", "name=maker", "cmd=" + bin_,
                               "option.Strategy=random", "option.Codemaker=adversarial",
                               "--rounds", "2", "--st", "5", arbiter=bin_)
        self.assertEqual(rc, 0, out)
        conn = sqlite3.connect(self.db)
        rows = conn.execute("SELECT first_player, reason, final, first_points, second_points"
                            " FROM games ORDER BY game_index").fetchall()
        self.assertEqual([r[0] for r in rows], ["knuth", "maker"])
        # The adversarial codemaker keeps no secret; knuth, codemaker in
        # round 2, gets the referee's secret (the arbiter holds it too).
        secrets = [r[0] for r in conn.execute("SELECT secret FROM games ORDER BY game_index")]
        self.assertIsNone(secrets[0])
        self.assertRegex(secrets[1] or "", r"^[1-6]{4}$")
        self.assertTrue(rows[1][2].endswith("Secret=" + secrets[1]), rows[1][2])
        for first, reason, final, p1, p2 in rows:
            gs = gamestring.GameString(final)
            self.assertEqual(reason, "rules", out)
            guesses = sum(1 for m in gs.moves if not m.startswith("Secret=")) // 2
            self.assertEqual((p1, p2), (0, guesses + (gs.state != "BreakerWins")))
        self.assertIn("Points: knuth %d, maker %d" % (rows[1][4], rows[0][4]), out)

    def test_forfeited_rounds_score_by_the_arbiter_s_rule(self):
        """A round lost before the rules end it scores as the game says in
        `board json`'s `forfeit`: the codebreaker's forfeit leaves the code
        unbroken after all the rows (rows + 1 = 11, not the rows used + 1),
        the codemaker's scores the guesses made (not 0)."""
        bin_ = shlex.quote(os.environ["MEEPLE_BIN"])
        rc, out = self.referee("--game", "Mastermind", "--engine", "name=crash",
                               "cmd=" + fake("--mode", "crash"), "--engine", "name=meeple",
                               "cmd=" + bin_, "--rounds", "2", "--st", "5", "--recover",
                               arbiter=bin_)
        self.assertEqual(rc, 0, out)
        rows = sqlite3.connect(self.db).execute(
            "SELECT first_player, reason, winner, first_points, second_points FROM games"
            " ORDER BY game_index").fetchall()
        # Round 1: crash breaks and crashes at once; meeple keeps the code.
        self.assertEqual(rows[0], ("crash", "crash", "meeple", 0, 11), out)
        # Round 2: meeple breaks; crash, codemaker, fails on the first guess.
        self.assertEqual(rows[1][0], "meeple", out)
        self.assertNotEqual(rows[1][1], "rules", out)
        self.assertEqual(rows[1][2:], ("meeple", 0, 1), out)
        self.assertIn("Points: crash 1, meeple 11", out)

    def test_one_token_moves_over_uci_and_ugi(self):
        """`_` is Hive's space but Mastermind's blank: both end by the rules."""
        bin_ = shlex.quote(os.environ["MEEPLE_BIN"])
        for game, proto, count in (("Mastermind+blanks", "ugi", "--rounds"),
                                   ("Base", "uci", "--games")):
            with self.subTest(game=game):
                self.db = os.path.join(self.dir.name, proto + ".sqlite")
                rc, out = self.referee("--game", game, "--engine", "name=a", "cmd=" + bin_,
                                       "proto=" + proto, "option.Strategy=random",
                                       "--engine", "name=b", "cmd=" + bin_, "proto=" + proto,
                                       "option.Strategy=random", count, "2",
                                       "--max-plies", "30", "--st", "0.05",
                                       "--timemargin", "2", arbiter=bin_)
                self.assertEqual(rc, 0, out)
                rows = self.games()
                self.assertEqual(len(rows), 2, out)
                self.assertTrue(all(r[4] != "illegal" for r in rows), rows)
                if game.startswith("Mastermind"):
                    self.assertTrue(all(r[4] == "rules" for r in rows), rows)

    # Red's fifth ply, column 1, throws the win away (column 4 wins);
    # every other move is meeple's perfect play (`go` at each position).
    BLUNDER_GAME = ("4;4;4;4;1;4;3;2;6;5;5;5;5;6;7;3;5;2;1;2;2;5;1;1;4;2;6;6;6;2;6;1;1;"
                    "7;7;7;7;7;3;3")

    def test_annotated_connect4_game_shows_its_blunder(self):
        bin_ = shlex.quote(os.environ["MEEPLE_BIN"])
        path = os.path.join(self.dir.name, "c4.pgn")
        script = fake("--mode", "script", "--moves", shlex.quote(self.BLUNDER_GAME))
        rc, out = self.referee("--engine", "name=A", "cmd=" + script,
                               "--engine", "name=B", "cmd=" + script, "--games", "2",
                               "--st", "2", "--pgnout", path, "--annotate", "movetime=1000",
                               arbiter=bin_)
        self.assertEqual(rc, 0, out)
        self.assertNotIn("warning", out)
        moves = self.BLUNDER_GAME.split(";")
        # The fact, checked apart from the review: before ply 5, `analyze`
        # scores column 4 a win for Red and column 1 a loss.
        before = "Connect4;InProgress;Red[3];" + ";".join(moves[:4])
        p = subprocess.run([os.environ["MEEPLE_BIN"]], input="newgame %s\nanalyze\n" % before,
                           capture_output=True, text=True, timeout=120)
        scores = [l.split() for l in p.stdout.splitlines()
                  if re.match(r"^-?\d+( -?\d+){6}$", l)][0]
        self.assertGreater(int(scores[3]), 0, p.stdout)
        self.assertLess(int(scores[0]), 0, p.stdout)
        conn = sqlite3.connect(self.db)
        rows = conn.execute("SELECT review, first_accuracy, second_accuracy FROM games"
                            " ORDER BY game_index").fetchall()
        with open(path) as f:
            text = f.read()
        games = pgn.read(text)
        self.assertEqual(len(games), 2)
        for game, (kept, acc1, acc2) in zip(games, rows):
            kept = json.loads(kept)
            self.assertEqual(game["moves"], moves)
            self.assertEqual(game["notes"][4]["nags"], [4], text)
            self.assertEqual(game["notes"][4]["comments"], ["[%eval -2] best: 4"], text)
            glyphs = {"inaccuracy": [6], "mistake": [2], "blunder": [4]}
            for n, (p_, note) in enumerate(zip(kept["plies"], game["notes"]), 1):
                self.assertEqual(note["nags"], glyphs.get(p_["label"], []), (n, p_))
                if n != 5:
                    self.assertNotIn(4, note["nags"], (n, text))
                if re.match(r"^-?\d+$", p_.get("value", "")):  # exact (not bounds)
                    self.assertEqual(note["comments"][0].split("]")[0],
                                     "[%%eval %d" % (int(p_["value"]) * (1 if n % 2 else -1)))
            # Red blundered, Yellow did not.
            self.assertEqual(game["tags"]["BlackAccuracy"], "100.0")
            self.assertLess(float(game["tags"]["WhiteAccuracy"]), 100.0)
            self.assertEqual((acc1, acc2), (float(game["tags"]["WhiteAccuracy"]), 100.0))
            self.assertTrue(game["tags"]["Annotator"].startswith("meeple v"))
        # Values from White's (Red's) side, as PGN's evaluations are.
        self.assertIn("1. 4 {[%eval 1]} 1... 4 {[%eval 1]} 2. 4", " ".join(text.split("\n")))

    def test_annotated_hive_and_mastermind_games(self):
        bin_ = shlex.quote(os.environ["MEEPLE_BIN"])
        path = os.path.join(self.dir.name, "hive.pgn")
        rc, out = self.referee("--game", "Base", "--engine", "name=a", "cmd=" + bin_,
                               "option.Strategy=random", "--engine", "name=b", "cmd=" + bin_,
                               "option.Strategy=random", "--games", "1", "--max-plies", "10",
                               "--st", "0.05", "--timemargin", "2", "--pgnout", path,
                               "--annotate", "movetime=50", arbiter=bin_)
        self.assertEqual(rc, 0, out)
        self.assertNotIn("warning", out)
        final = gamestring.GameString(sqlite3.connect(self.db).execute(
            "SELECT final FROM games").fetchone()[0])
        with open(path) as f:
            text = f.read()
        game = pgn.read(text)[0]
        self.assertEqual(game["moves"], final.moves)
        lines = text.splitlines()
        for n, move in enumerate(final.moves, 1):
            # The viewer's one-move line, unchanged; the annotation below it.
            i = lines.index("%d. %s" % (n, move))
            self.assertRegex(lines[i + 1], r"^\{(\$[246] )?\[%eval (-?\d+\.\d\d|#-?\d+)\]"
                             r"( best: [^{}]+)?\}$")
        self.assertIn("WhiteAccuracy", game["tags"])

        path = os.path.join(self.dir.name, "mm.pgn")
        self.db = os.path.join(self.dir.name, "mm.sqlite")
        rc, out = self.referee("--game", "Mastermind", "--engine", "name=knuth", "cmd=" + bin_,
                               "option.Strategy=knuth", "--engine", "name=rnd", "cmd=" + bin_,
                               "option.Strategy=random", "--rounds", "2", "--st", "5",
                               "--pgnout", path, "--annotate", arbiter=bin_)
        self.assertEqual(rc, 0, out)
        self.assertNotIn("warning", out)
        for game in games_in(path):
            for n, note in enumerate(game["notes"]):
                if n % 2 == 0:  # a guess: judged
                    self.assertRegex(note["comments"][0], r"^\[%eval \d+\.\d\d\]")
                else:  # the feedback: not judged
                    self.assertEqual(note, {"nags": [], "comments": []})
            self.assertIn("WhiteAccuracy", game["tags"])  # the breaker's
            self.assertNotIn("BlackAccuracy", game["tags"])  # the maker is not judged

    def test_illegal_move_against_real_arbiter(self):
        bin_ = shlex.quote(os.environ["MEEPLE_BIN"])
        rc, out = self.referee("--engine", "name=real", "cmd=" + bin_, "option.Strategy=random",
                               "--engine", "name=bad", "cmd=" + fake("--mode", "illegal"),
                               "--games", "2", "--st", "0.05", "--timemargin", "2",
                               arbiter=bin_)
        self.assertEqual(rc, 0, out)
        self.assertEqual([(r[3], r[4]) for r in self.games()], [("real", "illegal")] * 2)


def load_tests(loader, tests, pattern):
    """Also the unit tests beside each module (referee/test_*.py)."""
    tests.addTests(loader.discover(os.path.join(HERE, "referee"), pattern="test_*.py",
                                   top_level_dir=HERE))
    return tests


if __name__ == "__main__":
    unittest.main()
