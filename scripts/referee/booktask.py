"""What a Dask worker runs for scripts/book_cluster.py (standard library
only): one chunk of Connect Four book positions solved by this machine's
meeple (`meeple book connect4 solve-keys`), returned as progress lines.
It lives in the referee package so that the package sent to the workers
(cluster.py) carries it."""

import os
import shlex
import subprocess

from . import process


def meeple_here(meeple):
    """This machine's meeple: MEEPLE_BIN if set here, else `meeple` (the
    coordinator's path)."""
    return os.environ.get("MEEPLE_BIN") or meeple


def solve_chunk(meeple, size, hash_mb, keys):
    """`<key> <score>` lines for the positions `keys` (ints) of a WxH book."""
    cmd = shlex.split(meeple_here(meeple)) + ["book", "connect4", "solve-keys", "--size", size,
                                              "--hash", str(hash_mb)]
    text = "".join("%d\n" % k for k in keys)
    try:
        p = subprocess.run(cmd, input=text, capture_output=True, text=True,
                           preexec_fn=process._die_with_parent())
    except OSError as e:
        raise RuntimeError("cannot run %s on %s: %s" % (cmd[0], os.uname().nodename, e))
    if p.returncode != 0:
        raise RuntimeError("%s failed on %s (status %d): %s"
                           % (" ".join(cmd), os.uname().nodename, p.returncode,
                              p.stderr.strip()[-500:]))
    lines = p.stdout.splitlines()
    got = {}
    for line in lines:
        k, _, v = line.partition(" ")
        got[int(k)] = int(v)
    missing = [k for k in keys if k not in got]
    if missing:
        raise RuntimeError("%s answered %d of %d keys" % (cmd[0], len(keys) - len(missing),
                                                          len(keys)))
    return [(k, got[k]) for k in keys]
