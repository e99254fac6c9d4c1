"""What a Dask worker runs for scripts/book_cluster.py (standard library
only): one chunk of Connect Four book positions solved by this machine's
meeple (`meeple book connect4 solve-keys`, one kept running per worker
thread), returned as (key, score) pairs.
It lives in the referee package so that the package sent to the workers
(cluster.py) carries it."""

import os
import shlex
import subprocess
import tempfile
import threading

from . import process


def meeple_here(meeple):
    """This machine's meeple: MEEPLE_BIN if set here, else `meeple` (the
    coordinator's path)."""
    return os.environ.get("MEEPLE_BIN") or meeple


_lock = threading.Lock()
# thread -> {(command, size, hash): Popen}: each worker thread keeps its
# solving meeple from chunk to chunk, so that its table stays warm (as a
# local build's threads keep theirs); it dies with the worker.
_solvers = {}


def _solver(cmd):
    me = threading.current_thread()
    with _lock:
        mine = _solvers.setdefault(me, {})
    key = tuple(cmd)
    p = mine.get(key)
    if p is None or p.poll() is not None:
        try:
            p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=tempfile.TemporaryFile(), text=True, bufsize=1,
                                 preexec_fn=process._die_with_parent())
        except OSError as e:
            raise RuntimeError("cannot run %s on %s: %s" % (cmd[0], os.uname().nodename, e))
        mine[key] = p
    return p


def solve_chunk(meeple, size, hash_mb, keys):
    """[(key, score)] for the positions `keys` (ints) of a WxH book."""
    cmd = shlex.split(meeple_here(meeple)) + ["book", "connect4", "solve-keys", "--size", size,
                                              "--hash", str(hash_mb)]
    p = _solver(cmd)
    out = []
    try:
        for k in keys:
            p.stdin.write("%d\n" % k)
            p.stdin.flush()
            line = p.stdout.readline()
            got, _, v = line.partition(" ")
            if not line or got != str(k):
                raise ValueError(line)
            out.append((k, int(v)))
    except (OSError, ValueError) as e:
        p.kill()
        p.wait()
        raise RuntimeError("%s failed on %s (status %s) at %r"
                           % (" ".join(cmd), os.uname().nodename, p.returncode, str(e)[:200]))
    return out
