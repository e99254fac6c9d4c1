"""`--cluster ADDRESS`: the games of a match played on a Dask cluster.

The referee (the coordinator) submits each game as a task
(`worker.play`); a worker plays it with engine processes of its own
machine and returns the record; the coordinator stores the records in its
database as they come (`Match.game_done`, the code the local threads use),
each game index once. Tasks are submitted a window at a time (twice the
cluster's threads), so that an SPRT decision or an error stops new
submissions and cancels the queued ones. A worker lost in a game makes
Dask run the task again on another worker; a task that kept killing its
workers is submitted again (up to RETRIES times) before the match stops.

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
import uuid
import zipfile

from .errors import RefereeError, UsageError
from .seats import EngineSeat
from . import worker

REQUIREMENTS = "scripts/requirements-cluster.txt"
RETRIES = 3
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


class Cluster:
    """A connection to a Dask cluster (or a local one it starts)."""

    def __init__(self, address, out=None, connect_timeout=30):
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

    def threads(self):
        try:
            info = self.client.scheduler_info()
            return sum(w.get("nthreads", 1) for w in info.get("workers", {}).values())
        except Exception:  # noqa: BLE001 - a count for the window only
            return 0

    def wait_for_workers(self, timeout=None):
        """Blocks until one worker is there (a remote cluster may have none
        yet); says so while waiting."""
        if self.threads():
            return
        if self.out:
            print("waiting for a worker of %s" % self.address, file=self.out, flush=True)
        self.client.wait_for_workers(1, timeout=timeout)

    def check_seats(self, plan, settings):
        """Starts each engine seat once on a worker (RefereeError if one
        does not start there), as the referee does locally."""
        self.wait_for_workers()
        fut = self.client.submit(worker.check_seats, plan, settings, pure=False)
        try:
            return fut.result()
        except RefereeError:
            raise
        except Exception as e:  # noqa: BLE001
            raise RefereeError("checking the engines on the cluster: %s" % e)

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
        if todo:
            self.wait_for_workers()
        submit_more()
        try:
            for fut in done:
                index = running.pop(fut, None)
                if index is None or match.stop.is_set():
                    continue
                if fut.status == "error":
                    exc = fut.exception()
                    if isinstance(exc, d.KilledWorker) and tries[index] <= RETRIES:
                        queue.appendleft(index)
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
                elif tries[index] <= RETRIES:
                    # "lost": the game finished, but the worker holding its
                    # record died before it was read (the status changes
                    # after `as_completed` gave the future); "cancelled": the
                    # scheduler forgot the task. Played again, as a killed
                    # worker's game is.
                    logging.getLogger(__name__).warning(
                        "game %d came back %s from the cluster; submitting it again",
                        index + 1, fut.status)
                    queue.appendleft(index)
                else:
                    match.fail(RefereeError("game %d came back %s from the cluster %d times"
                                            % (index + 1, fut.status, tries[index])))
                if match.stop.is_set():
                    break
                submit_more()
                if not running and not queue:
                    break
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

