"""`--cluster ADDRESS`: the games of a match played on a Dask cluster.

The referee (the coordinator) submits each game as a task
(`worker.play`); a worker plays it with engine processes of its own
machine and returns the record; the coordinator stores the records in its
database as they come (`Match.game_done`, the code the local threads use),
each game index once. Tasks are submitted a window at a time (twice the
cluster's threads), so that an SPRT decision or an error stops new
submissions and cancels the queued ones. A worker lost in a game makes
Dask run the task again on another worker; a task that kept killing its
workers (Dask gives it up as `KilledWorker` once its worker died
`distributed.scheduler.allowed-failures` + 1 times, 4 by default) is
submitted again up to `--cluster-retries` times (default 1), then the match
stops. The coordinator never waits on the cluster without watching it: a
cluster with no live worker for `--cluster-wait` seconds (default 120: at
the start, or after the last worker died) stops the match too. Either way
the games stored are kept and the tournament stays unfinished, so
`--resume` goes on with it.

`ADDRESS` is a scheduler's address (`tcp://HOST:8786`, started with
`dask scheduler`) or `local:N`, a cluster of N worker processes (one game
at a time each) on this machine. The `referee` package is sent to the
workers (`Client.upload_file`): a worker machine needs Python with
dask[distributed] and the engines, not a checkout of the referee.

Dask is imported here only: the referee without --cluster needs the
standard library alone.
"""

import collections
import logging
import os
import sys
import tempfile
import time
import uuid
import zipfile

from .errors import RefereeError, UsageError
from .seats import EngineSeat
from . import worker

REQUIREMENTS = "scripts/requirements-cluster.txt"
DEFAULT_RETRIES = 1
DEFAULT_WAIT = 120.0
POLL = 0.1  # seconds between looks at the games in flight
WATCH = 1.0  # seconds between looks at the cluster's workers
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def parse_address(text):
    """('local', N) or ('remote', address); UsageError for a bad one."""
    if text.startswith("local:"):
        n = text[len("local:"):]
        if not n.isdigit() or not 1 <= int(n) <= 256:
            raise UsageError("--cluster local:N wants N in 1..256, not %r" % n)
        return "local", int(n)
    if text == "local":
        return "local", os.cpu_count() or 1
    if not text or any(c.isspace() for c in text):
        raise UsageError("--cluster wants a scheduler address (tcp://HOST:8786) or local:N, "
                         "not %r" % text)
    return "remote", text


def import_distributed():
    try:
        import distributed
    except ImportError:
        raise UsageError("--cluster needs Dask's distributed package, not installed for %s; "
                         "install it with `pip install -r %s` (bash scripts/setup-test-deps.sh "
                         "makes the virtual environment target/cluster-venv with it)"
                         % (sys.executable, REQUIREMENTS))
    return distributed


def package_zip(directory):
    """The referee package as a zip for Client.upload_file."""
    path = os.path.join(directory, "meeple_referee.zip")
    with zipfile.ZipFile(path, "w") as z:
        for name in sorted(os.listdir(PACKAGE_DIR)):
            if name.endswith(".py") and not name.startswith("test_"):
                z.write(os.path.join(PACKAGE_DIR, name), "referee/" + name)
    return path


class NoWorker(RefereeError):
    """The cluster had no live worker for longer than its wait."""


class WorkerWatch:
    """The cluster's live workers, looked at every WATCH seconds while the
    coordinator waits: how many left (died, or were lost) since the
    watch began, and since when none is there. `poll` raises NoWorker once
    there was none for `wait` seconds, and says when the last one left."""

    def __init__(self, cluster, wait, what):
        self.cluster = cluster
        self.wait = wait
        self.what = what
        self.seen = None
        self.lost = 0
        self.none_since = None
        self.last = None

    def poll(self, force=False):
        now = time.monotonic()
        if not force and self.last is not None and now - self.last < WATCH:
            return
        self.last = now
        workers = self.cluster.workers()
        if self.seen is not None:
            self.lost += len(self.seen - workers)
        self.seen = workers
        if workers:
            self.none_since = None
            return
        if self.none_since is None:
            self.none_since = now
            self.cluster.say("no live worker in the cluster %s%s: waiting up to %g s for one "
                             "(--cluster-wait)" % (self.cluster.address, self.lost_text(),
                                                   self.wait))
        elif now - self.none_since >= self.wait:
            raise NoWorker("no live worker in the cluster %s for %g s (--cluster-wait) %s%s; "
                           "the games stored are kept: continue with --resume once the "
                           "cluster has workers"
                           % (self.cluster.address, self.wait,
                              self.what() if callable(self.what) else self.what,
                              self.lost_text(hint=True)))

    def lost_text(self, hint=False):
        if not self.lost:
            return ""
        return " (%d worker%s lost since the match began%s)" % (
            self.lost, "" if self.lost == 1 else "s",
            ": an engine that kills its worker?" if hint else "")


class Cluster:
    """A connection to a Dask cluster (or a local one it starts).

    retries: how many times a game Dask gave up on (its worker died in it
    too often) or lost is submitted again before the match stops; wait: the
    longest time without a live worker (seconds)."""

    def __init__(self, address, out=None, connect_timeout=30, retries=DEFAULT_RETRIES,
                 wait=DEFAULT_WAIT):
        self.retries = retries
        self.wait = wait
        kind, where = parse_address(address)
        distributed = import_distributed()
        self.distributed = distributed
        self.local = None
        self.out = out
        self.address = address
        logging.getLogger("distributed").setLevel(logging.ERROR)
        try:
            if kind == "local":
                self.local = distributed.LocalCluster(
                    n_workers=where, threads_per_worker=1, processes=True,
                    dashboard_address=":0", silence_logs=logging.ERROR)
                self.client = distributed.Client(self.local)
            else:
                self.client = distributed.Client(where, timeout=connect_timeout)
        except (OSError, TimeoutError) as e:
            self.close()
            raise UsageError("cannot reach the Dask scheduler %s: %s" % (address, e))
        try:
            with tempfile.TemporaryDirectory() as tmp:
                self.client.upload_file(package_zip(tmp))
        except Exception as e:  # noqa: BLE001 - any failure: a clear one-line error
            self.close()
            raise RefereeError("cannot send the referee package to the cluster %s: %s"
                               % (address, e))

    def say(self, line):
        if self.out:
            print(line, file=self.out, flush=True)

    def _info(self):
        try:
            return self.client.scheduler_info().get("workers", {})
        except Exception:  # noqa: BLE001 - an unreachable scheduler has no workers
            return {}

    def threads(self):
        return sum(w.get("nthreads", 1) for w in self._info().values())

    def workers(self):
        """The addresses of the live workers."""
        return set(self._info())

    def wait_for_workers(self, timeout=None):
        """Blocks until one worker is there (a remote cluster may have none
        yet), saying so while waiting; NoWorker after `timeout` seconds
        (default: the cluster's wait) without one."""
        if self.threads():
            return
        wait = self.wait if timeout is None else timeout
        self.say("waiting for a worker of %s (up to %g s, --cluster-wait)" % (self.address, wait))
        try:
            self.client.wait_for_workers(1, timeout=wait)
        except Exception as e:  # noqa: BLE001 - TimeoutError, or a scheduler gone
            raise NoWorker("no worker joined the cluster %s in %g s (--cluster-wait): %s"
                           % (self.address, wait, type(e).__name__))

    def result(self, fut, what):
        """fut.result(), watching the workers while it is computed:
        NoWorker if none is there for the cluster's wait."""
        watch = WorkerWatch(self, self.wait, what)
        while not fut.done():
            watch.poll()
            time.sleep(POLL)
        return fut.result()

    def check_seats(self, plan, settings):
        """Starts each engine seat once on a worker (RefereeError if one
        does not start there), as the referee does locally."""
        self.wait_for_workers()
        fut = self.client.submit(worker.check_seats, plan, settings, pure=False)
        try:
            return self.result(fut, "while the engines were checked")
        except RefereeError:
            raise
        except Exception as e:  # noqa: BLE001
            raise RefereeError("checking the engines on the cluster: %s" % e)
        finally:
            if not fut.done():
                self.client.cancel([fut])

    def play(self, match, todo):
        """Plays the games `todo` of `match` on the cluster; returns when
        all are stored or the match stopped."""
        d = self.distributed
        token = "%d-%s" % (match.tid, uuid.uuid4().hex[:12])
        plan = match.plan
        settings = match.settings
        seats_here = {}

        def seats_of(index):
            i, j = plan.job(index)["seats"]
            for k in (i, j):
                if k not in seats_here:
                    seats_here[k] = EngineSeat(match.specs[k], settings)
            return [seats_here[i], seats_here[j]]

        queue = collections.deque(todo)
        running = {}
        tries = collections.Counter()
        done = d.as_completed()

        def submit_more():
            window = max(2, 2 * self.threads())
            while queue and len(running) < window and not match.stop.is_set():
                index = queue.popleft()
                tries[index] += 1
                fut = self.client.submit(worker.play, token, plan, settings, index, pure=False,
                                         key="game-%s-%d-%d" % (token, index, tries[index]))
                running[fut] = index
                done.add(fut)

        def left():
            n = len(queue) + len(running)
            return "with %d game%s left to play" % (n, "" if n == 1 else "s")
        watch = WorkerWatch(self, self.wait, left)

        def handle(fut):
            index = running.pop(fut, None)
            if index is None or match.stop.is_set():
                return
            if fut.status == "error":
                exc = fut.exception()
                if isinstance(exc, d.KilledWorker) and tries[index] <= self.retries:
                    self.say("game %d: its worker died each time it was played; playing it "
                             "again (%d of %d, --cluster-retries)"
                             % (index + 1, tries[index], self.retries))
                    queue.appendleft(index)
                elif isinstance(exc, d.KilledWorker):
                    match.fail(RefereeError(
                        "game %d killed its worker every time it was played on the cluster "
                        "(Dask gave it up %d time%s, --cluster-retries %d)%s: an engine that "
                        "kills its worker, or a worker machine that cannot play it? The games "
                        "stored are kept: continue with --resume"
                        % (index + 1, tries[index], "" if tries[index] == 1 else "s",
                           self.retries, watch.lost_text())))
                elif isinstance(exc, RefereeError):
                    match.fail(exc)
                else:
                    match.fail(RefereeError("game %d failed on the cluster: %s: %s"
                                            % (index + 1, type(exc).__name__, exc)))
            elif fut.status == "finished":
                try:
                    record = fut.result()
                except Exception as e:  # noqa: BLE001
                    match.fail(RefereeError("game %d: %s" % (index + 1, e)))
                else:
                    record.pop("worker_pid", None)
                    match.game_done(index, seats_of(index), record)
            elif tries[index] <= self.retries:
                # "lost": the game finished, but the worker holding its
                # record died before it was read (the status changes after
                # `as_completed` gave the future); "cancelled": the
                # scheduler forgot the task. Played again, as a killed
                # worker's game is.
                logging.getLogger(__name__).warning(
                    "game %d came back %s from the cluster; submitting it again",
                    index + 1, fut.status)
                queue.appendleft(index)
            else:
                match.fail(RefereeError("game %d came back %s from the cluster %d times"
                                        % (index + 1, fut.status, tries[index])))

        try:
            if todo:
                self.wait_for_workers()
            submit_more()
            # Never a blocking wait on the cluster: the games that came back
            # are taken as they come, and between them the workers are
            # watched (a cluster left without any stops the match).
            while (running or queue) and not match.stop.is_set():
                batch = done.next_batch(block=False)
                if not batch:
                    watch.poll()
                    time.sleep(POLL)
                    continue
                for fut in batch:
                    handle(fut)
                    if match.stop.is_set():
                        break
                submit_more()
        except NoWorker as e:
            match.fail(e)
        finally:
            pending = list(running)
            if pending:
                self.client.cancel(pending)
            try:
                self.client.run(worker.release, token)
            except Exception:  # noqa: BLE001 - best effort: workers may be gone
                pass

    def close(self):
        client = getattr(self, "client", None)
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001
                pass
        if self.local is not None:
            try:
                self.local.close()
            except Exception:  # noqa: BLE001
                pass

