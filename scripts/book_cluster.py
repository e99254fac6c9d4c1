#!/usr/bin/env python3
"""book_cluster.py: build a Connect Four opening book on a Dask cluster.

The same book as `meeple book connect4 build --plies D --out FILE`, bit for
bit, with the solving spread over a cluster's workers:

  1. `meeple book connect4 pending` lists the positions of ply D whose score
     is not yet in FILE.progress;
  2. they are cut into chunks, one task each; a worker solves its chunk with
     its own meeple (`meeple book connect4 solve-keys`);
  3. the scores are appended to FILE.progress as each chunk comes back
     (flushed: a coordinator stopped at any point resumes where it was when
     run again with the same arguments);
  4. `meeple book connect4 build` then finds every score in FILE.progress
     and writes FILE.

  python3 scripts/book_cluster.py --cluster local:2 --plies 4 --size 6x5 --out book-6x5.bin
  python3 scripts/book_cluster.py --cluster tcp://HOST:8786 --plies 10 --out book.bin

Needs dask[distributed] (scripts/requirements-cluster.txt). Each worker
runs MEEPLE_BIN if it is set there, else the path of --meeple (default:
this checkout's target/release/meeple), which must then exist on the
workers. See scripts/README.md.
"""

import argparse
import os
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from referee import booktask  # noqa: E402
from referee.arbiter import default_arbiter  # noqa: E402
from referee.errors import RefereeError, UsageError  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(prog="book_cluster.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--cluster", required=True, metavar="ADDRESS",
                    help="a Dask scheduler (tcp://HOST:8786) or local:N")
    ap.add_argument("--plies", type=int, required=True)
    ap.add_argument("--out", required=True, help="the book file (FILE.progress beside it)")
    ap.add_argument("--size", default="7x6")
    ap.add_argument("--chunk", type=int, default=20, help="positions per task (default 20)")
    ap.add_argument("--hash", type=int, default=64, help="table MB of each solving meeple")
    ap.add_argument("--meeple", default=None,
                    help="meeple's command (default $MEEPLE_BIN or target/release/meeple)")
    ap.add_argument("--max-chunks", type=int, default=0,
                    help="stop after N chunks (0: all), leaving the rest to a later run")
    args = ap.parse_args(argv)
    if args.chunk < 1:
        ap.error("--chunk must be at least 1")
    meeple = args.meeple or default_arbiter()
    base = shlex.split(meeple) + ["book", "connect4"]
    geo = ["--plies", str(args.plies), "--out", args.out, "--size", args.size]
    p = subprocess.run(base + ["pending"] + geo, capture_output=True, text=True)
    if p.returncode != 0:
        print("book_cluster.py: error: %s" % p.stderr.strip(), file=sys.stderr)
        return 2
    keys = [int(k) for k in p.stdout.split()]
    chunks = [keys[i:i + args.chunk] for i in range(0, len(keys), args.chunk)]
    if args.max_chunks:
        chunks = chunks[:args.max_chunks]
    print("book %s plies %d: %d positions to solve in %d chunks of %d"
          % (args.size, args.plies, len(keys), len(chunks), args.chunk), flush=True)
    solved = 0
    t0 = time.monotonic()
    if chunks:
        try:
            from referee.cluster import Cluster
            cluster = Cluster(args.cluster, out=sys.stdout)
        except (UsageError, RefereeError) as e:
            print("book_cluster.py: error: %s" % e, file=sys.stderr)
            return 2
        try:
            cluster.wait_for_workers()
            t0 = time.monotonic()
            client = cluster.client
            futures = [client.submit(booktask.solve_chunk, meeple, args.size, args.hash, c,
                                     pure=False) for c in chunks]
            progress = args.out + ".progress"
            with open(progress, "a", encoding="ascii") as f:
                for fut in cluster.distributed.as_completed(futures):
                    try:
                        pairs = fut.result()
                    except Exception as e:  # noqa: BLE001 - one line, then stop
                        print("book_cluster.py: error: %s" % e, file=sys.stderr)
                        client.cancel(futures)
                        return 1
                    f.write("".join("%d %d\n" % kv for kv in pairs))
                    f.flush()
                    os.fsync(f.fileno())
                    solved += len(pairs)
                    print("solved %d/%d" % (solved, len(keys)), flush=True)
        finally:
            cluster.close()
    secs = time.monotonic() - t0
    if solved:
        print("solved %d positions in %.1f s on the cluster: %.0f positions/min"
              % (solved, secs, 60.0 * solved / max(secs, 1e-9)), flush=True)
    if solved < len(keys):
        print("%d positions left: run again to go on" % (len(keys) - solved))
        return 0
    p = subprocess.run(base + ["build"] + geo + ["--hash", "16"], capture_output=True,
                       text=True)
    if p.returncode != 0:
        print("book_cluster.py: error: build: %s" % p.stderr.strip(), file=sys.stderr)
        return 2
    print(p.stdout.strip().splitlines()[-1] if p.stdout.strip() else "built %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
