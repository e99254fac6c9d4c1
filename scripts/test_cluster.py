#!/usr/bin/env python3
"""Tests of `--cluster` (the referee's games on a Dask cluster) and of
book_cluster.py. They need dask[distributed]: run them with the virtual
environment's python, `target/cluster-venv/bin/python scripts/test_cluster.py`
(made by `bash scripts/setup-test-deps.sh`; `cargo test --test cluster`
runs them so), with MEEPLE_BIN set to a built meeple.

  * a 20-game Connect Four match on `--cluster local:2` stores its games,
    prints its scores and report in the same form as `--concurrency 2`;
  * `--annotate` on the cluster: the workers review their games; a
    reviewer that dies on a worker costs its games their annotations only;
  * a worker process killed in the middle of a match (a scheduler and two
    `dask worker` processes, as on several machines): every game is stored
    once, the match finishes, the killed worker's engines do not outlive it;
  * a book built through the cluster is the local build's, byte for byte,
    also when the coordinator is interrupted and run again;
  * an engine that kills its worker (issue 43, item 7): the coordinator
    waited forever once no worker was left; now a cluster without a live
    worker for --cluster-wait seconds, or a game that keeps killing its
    worker past --cluster-retries, stops the match with a message, and
    `--resume` finishes it. Every referee run has its own timeout, so the
    test fails instead of hanging.
"""

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
FAKE = os.path.join(HERE, "fake_engine.py")
REFEREE = os.path.join(HERE, "referee.py")
BOOK = os.path.join(HERE, "book_cluster.py")
MEEPLE = os.environ.get("MEEPLE_BIN")
PY = sys.executable
DASK = os.path.join(os.path.dirname(PY), "dask")

try:
    import distributed  # noqa: F401
except ImportError:
    sys.exit("test_cluster.py needs dask[distributed]: run it with target/cluster-venv/bin/python "
             "(bash scripts/setup-test-deps.sh makes it)")
if not MEEPLE:
    sys.exit("test_cluster.py needs MEEPLE_BIN (a built meeple)")


def default_sigint():
    """In the referee child: Ctrl-C acts as in a terminal even when these
    tests run in the background (where SIGINT is inherited as ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def seats(st="0.02"):
    m = shlex.quote(MEEPLE)
    return ["--engine", "name=attack", "cmd=" + m, "option.Strategy=attack", "st=" + st,
            "--engine", "name=defense", "cmd=" + m, "option.Strategy=defense", "st=" + st,
            "--game", "Connect4", "--random-plies", "2", "--seed", "5", "--timemargin", "2"]


def children(pid):
    """The pids whose parent is `pid` (Linux /proc)."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[1]) == pid:
            out.append(int(name))
    return out


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Tmp(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.procs = []

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait(10)
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def referee(self, db, *args, timeout=240):
        p = subprocess.run([PY, REFEREE, "--db", db, "--arbiter", shlex.quote(MEEPLE)]
                           + list(args), capture_output=True, text=True, timeout=timeout,
                           cwd=self.dir.name)
        return p.returncode, p.stdout + p.stderr

    def rows(self, db):
        conn = sqlite3.connect(db)
        try:
            return conn.execute(
                "SELECT g.game_index, g.first_player, g.second_player, g.first_side,"
                " g.second_side, g.first_options, g.second_options, g.opening, g.result,"
                " g.winner, g.reason, g.plies, g.pairing, COUNT(m.ply)"
                " FROM games g LEFT JOIN moves m ON m.game_id = g.id"
                " GROUP BY g.id ORDER BY g.game_index").fetchall()
        finally:
            conn.close()


def form(line):
    """A report line with its numbers and names of results blanked."""
    line = re.sub(r"\{[^}]*\}", "{...}", line)
    line = re.sub(r"db \S+", "db FILE", line)
    line = re.sub(r"(1-0|0-1|1/2-1/2)", "R", line)
    return re.sub(r"[-+]?(\d+(\.\d+)?|inf)", "N", line)


class Match(Tmp):
    def test_local_cluster_has_the_same_form_as_concurrency(self):
        a, b = self.path("threads.sqlite"), self.path("cluster.sqlite")
        rc, out_a = self.referee(a, *seats(), "--games", "20", "--concurrency", "2")
        self.assertEqual(rc, 0, out_a)
        rc, out_b = self.referee(b, *seats(), "--games", "20", "--cluster", "local:2")
        self.assertEqual(rc, 0, out_b)
        ra, rb = self.rows(a), self.rows(b)
        self.assertEqual([r[0] for r in rb], list(range(20)), out_b)
        for x, y in zip(ra, rb):
            # Same game: same players, sides, options, opening (the seed);
            # results may differ (timed searches), their form may not.
            self.assertEqual(x[:8], y[:8])
            self.assertEqual(y[10], "rules", y)
            self.assertIn(y[8], ("1-0", "0-1", "1/2-1/2"))
            self.assertEqual(y[9] is None, y[8] == "1/2-1/2")
            self.assertEqual(y[13], y[11] - len(y[7].split(";")[3:]), y)  # every move stored
            self.assertEqual(y[12], 0)
        fa = [form(l) for l in out_a.splitlines()]
        fb = [form(l) for l in out_b.splitlines()]
        self.assertEqual(sorted(fa), sorted(fb), "\n%s\n---\n%s" % (out_a, out_b))
        self.assertEqual(fa[-4:], fb[-4:])  # the final report, in order
        self.assertIn("Finished match", out_b)
        self.assertRegex(out_b, r"Score of attack vs defense: \d+ - \d+ - \d+ +\[[\d.]+\] 20")
        games = re.findall(r"Finished game (\d+) ", out_b)
        self.assertEqual(sorted(map(int, games)), list(range(1, 21)))
        p = subprocess.run([PY, REFEREE, "leaderboard", "--db", b], capture_output=True,
                           text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"attack +20 ")

    def test_games_are_annotated_by_the_worker_that_played_them(self):
        """--annotate on the cluster: each worker reviews the games it
        played (with a meeple of its own) and sends the review back with
        the record; a reviewer that dies there costs that game its
        annotations only, said by the coordinator."""
        db, pgn_path = self.path("a.sqlite"), self.path("a.pgn")
        rc, out = self.referee(db, *seats(), "--games", "4", "--cluster", "local:2",
                               "--pgnout", pgn_path, "--annotate", "movetime=50")
        self.assertEqual(rc, 0, out)
        self.assertNotIn("warning", out)
        with open(pgn_path) as f:
            text = f.read()
        self.assertEqual(text.count("[Annotator \"meeple v"), 4, text)
        self.assertEqual(text.count("[WhiteAccuracy "), 4, text)
        conn = sqlite3.connect(db)
        reviewed = conn.execute("SELECT COUNT(*) FROM games WHERE review IS NOT NULL"
                                " AND first_accuracy IS NOT NULL").fetchone()[0]
        conn.close()
        self.assertEqual(reviewed, 4)
        db, pgn_path = self.path("b.sqlite"), self.path("b.pgn")
        dying = "%s %s --review die" % (shlex.quote(PY), shlex.quote(FAKE))
        rc, out = self.referee(db, *seats(), "--games", "2", "--cluster", "local:2",
                               "--pgnout", pgn_path, "--annotate", "movetime=50",
                               "--reviewer", dying)
        self.assertEqual(rc, 0, out)
        self.assertEqual(len(re.findall(r"warning: game \d: not annotated: .*exited", out)), 2,
                         out)
        with open(pgn_path) as f:
            text = f.read()
        self.assertNotIn("Annotator", text)
        # Each game says why in its PGN, as the coordinator said it.
        self.assertEqual(len(re.findall(r"\{not annotated: the review \(.*exited", text)), 2,
                         text)

    def test_resume_sprt_and_errors(self):
        db = self.path("r.sqlite")
        # Interrupted after 6 of 40 games (a Ctrl-C), resumed on the cluster. (With
        # 12 games a loaded machine let the match end before the Ctrl-C.)
        p = subprocess.Popen([PY, REFEREE, "--db", db, "--arbiter", shlex.quote(MEEPLE)]
                             + seats("0.05") + ["--games", "40", "--cluster", "local:2"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             cwd=self.dir.name, preexec_fn=default_sigint)
        self.procs.append(p)
        # The Ctrl-C goes after the sixth game's line (the referee flushes
        # each one); polling the database missed it on a loaded machine.
        head = []
        for line in p.stdout:
            head.append(line)
            if sum("Finished game" in x for x in head) >= 6:
                break
        p.send_signal(signal.SIGINT)
        out = "".join(head) + p.communicate(timeout=60)[0]
        self.assertEqual(p.returncode, 130, out)
        self.assertIn("continue with --resume", out)
        stored = len(self.rows(db))
        self.assertLess(stored, 40, out)
        rc, out = self.referee(db, "--resume", "--cluster", "local:2")
        self.assertEqual(rc, 0, out)
        self.assertIn("Resuming tournament 1", out)
        self.assertEqual(len(re.findall(r"Finished game", out)), 40 - stored, out)
        self.assertEqual([r[0] for r in self.rows(db)], list(range(40)))
        # SPRT: attack crushes random; the match stops early, its report
        # agrees with the games stored, queued games are cancelled.
        db2 = self.path("sprt.sqlite")
        m = shlex.quote(MEEPLE)
        rc, out = self.referee(db2, "--engine", "name=attack", "cmd=" + m,
                               "option.Strategy=attack", "--engine", "name=random", "cmd=" + m,
                               "option.Strategy=random", "--st", "0.02", "--games", "400",
                               "--sprt", "elo0=0", "elo1=200", "--cluster", "local:2")
        self.assertEqual(rc, 0, out)
        self.assertIn("SPRT", out)
        self.assertIn("H1 accepted", out)
        n = len(self.rows(db2))
        self.assertLess(n, 100, out)
        self.assertRegex(out, r"Score of attack vs random: \d+ - \d+ - \d+ +\[[\d.]+\] %d\n" % n)
        # An engine that does not start on the workers: one clear line,
        # nothing recorded.
        db3 = self.path("bad.sqlite")
        rc, out = self.referee(db3, "--engine", "name=a", "cmd=/nonexistent/engine",
                               "--engine", "name=b", "cmd=" + m, "--games", "2",
                               "--cluster", "local:1", timeout=120)
        self.assertEqual(rc, 2, out)
        self.assertIn("engine a does not start", out)
        self.assertFalse(os.path.exists(db3) and self.rows(db3))
        rc, out = self.referee(db3, *seats(), "--cluster", "local:x")
        self.assertEqual(rc, 2, out)
        self.assertIn("local:N", out)

    def test_killed_worker_game_is_played_again_once(self):
        port = free_port()
        address = "tcp://127.0.0.1:%d" % port
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)  # the workers get the referee from the cluster
        sched = subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                  "--no-dashboard"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, cwd=self.dir.name, env=env)
        self.procs.append(sched)
        for n in range(2):
            w = subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--nworkers", "1",
                                  "--no-dashboard", "--name", "w%d" % n],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 cwd=self.dir.name, env=env)
            self.procs.append(w)
        client = distributed.Client(address, timeout=60)
        try:
            client.wait_for_workers(2, timeout=60)
            db = self.path("kill.sqlite")
            ref = subprocess.Popen([PY, REFEREE, "--db", db, "--arbiter", shlex.quote(MEEPLE)]
                                   + seats("0.05") + ["--games", "20", "--cluster", address],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   cwd=self.dir.name)
            self.procs.append(ref)
            deadline = time.monotonic() + 120
            n = 0
            while time.monotonic() < deadline and ref.poll() is None and n < 4:
                time.sleep(0.2)
                if os.path.exists(db):
                    conn = sqlite3.connect(db)
                    try:
                        n = conn.execute("SELECT COUNT(*) FROM games").fetchone()[0]
                    except sqlite3.OperationalError:
                        pass
                    conn.close()
            self.assertIsNone(ref.poll(), "the match ended before a worker could be killed")
            pids = client.run(os.getpid)
            victim = max(pids.values(), key=lambda pid: len(children(pid)))
            engines = children(victim)
            self.assertGreaterEqual(len(engines), 3, "a game in flight: arbiter + 2 engines")
            os.kill(victim, signal.SIGKILL)
            gone = time.monotonic() + 10
            while time.monotonic() < gone and any(alive(e) for e in engines):
                time.sleep(0.1)
            self.assertFalse([e for e in engines if alive(e)],
                             "engines of the killed worker still running")
            out = ref.communicate(timeout=180)[0]
            self.assertEqual(ref.returncode, 0, out)
            self.assertIn("Finished match", out)
            rows = self.rows(db)
            self.assertEqual([r[0] for r in rows], list(range(20)), out)
            games = re.findall(r"Finished game (\d+) ", out)
            self.assertEqual(sorted(map(int, games)), list(range(1, 21)), out)
            self.assertRegex(out, r"Score of attack vs defense: \d+ - \d+ - \d+ +\[[\d.]+\] 20")
        finally:
            client.close()


def start_scheduler(test):
    """A scheduler on a free port (killed at the test's end); its address."""
    port = free_port()
    address = "tcp://127.0.0.1:%d" % port
    sched = subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                              "--no-dashboard"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, cwd=test.dir.name, env=worker_env())
    test.procs.append(sched)
    return address


def start_worker(test, address, *extra):
    w = subprocess.Popen([DASK, "worker", address, "--nthreads", "1", "--no-dashboard"]
                         + list(extra), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         cwd=test.dir.name, env=worker_env())
    test.procs.append(w)
    return w


def worker_env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # the workers get the referee from the cluster
    return env


class DyingWorkers(Tmp):
    """Issue 43, item 7: an engine that kills its own Dask worker. After
    the workers were gone the coordinator waited with no output, forever
    (killed by hand at 150 s and 280 s). The killer kills only while its
    flag file exists, so that the stopped match can then be resumed."""

    def setUp(self):
        super().setUp()
        self.flag = self.path("kill.flag")
        open(self.flag, "w").close()

    def killer_seats(self):
        fake = "%s %s" % (shlex.quote(PY), shlex.quote(FAKE))
        return ["--engine", "name=killer",
                "cmd=%s --mode killparent --flag %s" % (fake, shlex.quote(self.flag)),
                "--engine", "name=other", "cmd=" + fake,
                "--game", "Connect4", "--st", "0.2", "--timemargin", "2", "--games", "2"]

    def assert_stopped_and_resumable(self, rc, out, db, cluster, expect):
        self.assertEqual(rc, 2, out)
        self.assertIn(expect, out)
        self.assertIn("continue with --resume", out)
        self.assertNotIn("Traceback", out)
        conn = sqlite3.connect(db)
        try:
            self.assertEqual(conn.execute("SELECT finished FROM tournaments").fetchall(), [(0,)])
        finally:
            conn.close()
        os.unlink(self.flag)  # the engine plays from now on
        rc, out = self.referee(db, "--resume", "--cluster", cluster, timeout=180)
        self.assertEqual(rc, 0, out)
        self.assertIn("Resuming tournament 1", out)
        self.assertIn("Finished match", out)
        self.assertEqual([r[0] for r in self.rows(db)], [0, 1])

    def test_a_cluster_without_workers_stops_the_match(self):
        # Workers without a nanny are not restarted: the first game kills
        # the only one, and none is left.
        address = start_scheduler(self)
        start_worker(self, address, "--no-nanny", "--name", "mortal")
        client = distributed.Client(address, timeout=60)
        try:
            client.wait_for_workers(1, timeout=60)
        finally:
            client.close()
        db = self.path("none.sqlite")
        try:
            rc, out = self.referee(db, *self.killer_seats(), "--cluster", address,
                                   "--cluster-wait", "5", timeout=120)
        except subprocess.TimeoutExpired as e:
            self.fail("the coordinator waited for a worker forever: %s" % (e.output,))
        self.assertIn("no live worker in the cluster %s for 5 s" % address, out)
        start_worker(self, address, "--name", "fresh")
        self.assert_stopped_and_resumable(rc, out, db, address, "(--cluster-wait)")

    def test_a_game_that_keeps_killing_its_worker_stops_the_match(self):
        # A local cluster's nanny restarts each killed worker: Dask gives a
        # game up after 4 deaths (allowed-failures 3), and with
        # --cluster-retries 0 the referee does not play it again.
        db = self.path("retries.sqlite")
        try:
            rc, out = self.referee(db, *self.killer_seats(), "--cluster", "local:1",
                                   "--cluster-retries", "0", "--cluster-wait", "60",
                                   timeout=180)
        except subprocess.TimeoutExpired as e:
            self.fail("the coordinator never stopped: %s" % (e.output,))
        self.assert_stopped_and_resumable(rc, out, db, "local:1",
                                          "killed its worker every time it was played")


class Book(Tmp):
    def build_local(self, plies, size):
        out = self.path("local-%s-%d.bin" % (size, plies))
        p = subprocess.run([MEEPLE, "book", "connect4", "build", "--plies", str(plies),
                            "--size", size, "--out", out, "--threads", "1", "--hash", "32"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out, "rb") as f:
            return f.read()

    def book_cluster(self, out, *args):
        p = subprocess.run([PY, BOOK, "--cluster", "local:2", "--meeple", shlex.quote(MEEPLE),
                            "--out", out, "--hash", "16"] + list(args), capture_output=True,
                           text=True, timeout=180)
        return p.returncode, p.stdout + p.stderr

    def test_cluster_book_is_the_local_book_and_resumes(self):
        local = self.build_local(6, "5x4")
        out = self.path("cluster.bin")
        # An interrupted coordinator: only 5 chunks done, then run again.
        rc, log = self.book_cluster(out, "--plies", "6", "--size", "5x4", "--chunk", "100",
                                    "--max-chunks", "5")
        self.assertEqual(rc, 0, log)
        self.assertIn("1500 positions to solve in 5 chunks of 100", log)
        self.assertIn("1000 positions left", log)
        self.assertFalse(os.path.exists(out))
        with open(out + ".progress") as f:
            self.assertEqual(len(f.read().splitlines()), 500)
        rc, log = self.book_cluster(out, "--plies", "6", "--size", "5x4", "--chunk", "100")
        self.assertEqual(rc, 0, log)
        self.assertIn("1000 positions to solve", log)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), local)
        # Killed mid-way (SIGKILL, no clean-up): resumed, the same bytes.
        out2 = self.path("killed.bin")
        p = subprocess.Popen([PY, BOOK, "--cluster", "local:2", "--meeple", shlex.quote(MEEPLE),
                              "--out", out2, "--plies", "6", "--size", "5x4", "--chunk", "10",
                              "--hash", "16"], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
        self.procs.append(p)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and p.poll() is None:
            if os.path.exists(out2 + ".progress") and os.path.getsize(out2 + ".progress") > 0:
                break
            time.sleep(0.05)
        os.killpg(p.pid, signal.SIGKILL)  # the coordinator and its local cluster
        p.wait(30)
        with open(out2 + ".progress") as f:
            done = len(f.read().splitlines())
        rc, log = self.book_cluster(out2, "--plies", "6", "--size", "5x4", "--chunk", "100")
        self.assertEqual(rc, 0, log)
        self.assertIn("%d positions to solve" % (1500 - done), log)
        with open(out2, "rb") as f:
            self.assertEqual(f.read(), local)


if __name__ == "__main__":
    unittest.main(verbosity=2)
