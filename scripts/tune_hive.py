#!/usr/bin/env python3
"""Fit Hive's evaluation weights to self-play games (Texel's method).

    python3 scripts/tune_hive.py --work /tmp/tune1 --games 2000 --nodes 20000 \
        --out src/games/hive/weights.rs

Three steps, each skipped when its result is already in --work, so the same
command goes on where it stopped:

1. Self-play through the referee: meeple (--meeple, default
   target/release/meeple) against itself, --games games per game type
   (--game, repeatable; default Base and Base+MLP), each from a random
   opening of --random-plies plies (seeded), each move searched --nodes
   nodes (or --st seconds; the second seat an eighth more, so that an
   opening's two games differ), threefold repetition a draw, a draw after
   --max-plies plies. The games are kept in WORK/selfplay-<type>.sqlite;
   --concurrency N plays N at once, --cluster ADDRESS on a Dask cluster
   (as the referee's own flags).
2. Export: every game that ended by the rules or by the ply limit, once
   (a game played twice is written once), as `<White's score> <GameString>`
   lines, to WORK/games.txt (the referee's databases given with --also are
   added).
3. Fit: `meeple bench hive --tune WORK/games.txt` (see src/games/hive/tune.rs)
   prints the old and new weights; with --out the new weights file names
   this command as the run that produced it.

Whether the new weights play better is for a match to say: build them and
run an SPRT against the previous build (scripts/README.md, "Tuning Hive").
"""

import argparse
import os
import shlex
import sqlite3
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFEREE = os.path.join(ROOT, "scripts", "referee.py")

SCORE = {"1-0": "1", "0-1": "0", "1/2-1/2": "0.5"}
KEPT_REASONS = ("rules", "maxplies")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", required=True, help="directory of the databases and the data file")
    p.add_argument("--meeple", default=os.environ.get("MEEPLE_BIN", os.path.join(ROOT, "target/release/meeple")),
                   help="the meeple that plays, referees and fits (default target/release/meeple)")
    p.add_argument("--game", action="append", help="game type (repeatable; default Base and Base+MLP)")
    p.add_argument("--games", type=int, default=1000, help="self-play games per game type (default 1000)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--nodes", type=int, help="nodes a move (default 20000)")
    limit.add_argument("--st", type=float, help="seconds a move instead of --nodes")
    p.add_argument("--random-plies", type=int, default=6, help="plies of each random opening (default 6)")
    p.add_argument("--max-plies", type=int, default=300, help="a draw after this many plies (default 300)")
    p.add_argument("--seed", type=int, default=1, help="seed of the openings (default 1)")
    p.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    p.add_argument("--cluster", help="play on a Dask cluster (the referee's --cluster)")
    p.add_argument("--also", action="append", default=[], help="another referee database whose games are added")
    p.add_argument("--skip", type=int, help="plies left out at each game's start (default: --random-plies)")
    p.add_argument("--pv-depth", type=int, default=2, help="depth of the search giving each quiet position")
    p.add_argument("--l2", type=float, default=1e-5, help="ridge penalty towards the current weights")
    p.add_argument("--out", help="write the new weights here (src/games/hive/weights.rs)")
    a = p.parse_args(argv)
    if a.nodes is None and a.st is None:
        a.nodes = 20000
    a.game = a.game or ["Base", "Base+MLP"]
    if a.skip is None:
        a.skip = a.random_plies
    if a.games < 2 or a.games % 2:
        p.error("--games must be even and at least 2 (each opening is played twice, colours swapped)")
    return a


def tournament_state(db):
    """(finished, games stored) of the database's last tournament, or None."""
    if not os.path.exists(db):
        return None
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        if con.execute("select 1 from sqlite_master where name = 'tournaments'").fetchone() is None:
            return None
        row = con.execute("select id, finished from tournaments order by id desc limit 1").fetchone()
        if row is None:
            return None
        n = con.execute("select count(*) from games where tournament_id = ?", (row[0],)).fetchone()[0]
        return bool(row[1]), n
    finally:
        con.close()


def selfplay(a, game_type):
    db = os.path.join(a.work, f"selfplay-{game_type}.sqlite")
    state = tournament_state(db)
    if state and state[0]:
        print(f"{game_type}: {state[1]} self-play games in {db} already", flush=True)
        return db
    # The two seats differ a little (an eighth more nodes or time for the
    # second): one search against itself plays each opening's two games
    # (colours swapped) as the same game twice.
    if a.nodes is not None:
        limits = [f"nodes={a.nodes}", f"nodes={a.nodes + a.nodes // 8}"]
    else:
        limits = [f"st={a.st}", f"st={a.st * 1.125:.4f}"]
    cmd = [sys.executable, REFEREE, "match", "--game", game_type, "--games", str(a.games),
           "--random-plies", str(a.random_plies), "--seed", str(a.seed), "--max-plies", str(a.max_plies),
           "--game-option", "RepetitionDraw=true", "--arbiter", a.meeple, "--db", db,
           "--rating-interval", "100", "--recover",
           "--engine", "name=selfplay-a", f"cmd={a.meeple}", limits[0],
           "--engine", "name=selfplay-b", f"cmd={a.meeple}", limits[1]]
    if a.cluster:
        cmd += ["--cluster", a.cluster]
    else:
        cmd += ["--concurrency", str(a.concurrency)]
    if state:
        cmd.append("--resume")
    print("+ " + shlex.join(cmd), flush=True)
    r = subprocess.run(cmd)
    if r.returncode != 0:
        sys.exit(f"tune_hive.py: the referee ended with status {r.returncode}")
    return db


def export(dbs, path):
    """Writes the kept games of `dbs` to `path`; returns how many."""
    n = 0
    seen = set()
    with open(path + ".tmp", "w") as f:
        f.write("# White's score, then the game (written by scripts/tune_hive.py)\n")
        for db in dbs:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            try:
                rows = con.execute("select result, reason, final from games order by id").fetchall()
            finally:
                con.close()
            for result, reason, final in rows:
                if reason in KEPT_REASONS and result in SCORE and final not in seen:
                    seen.add(final)
                    f.write(f"{SCORE[result]} {final}\n")
                    n += 1
    os.replace(path + ".tmp", path)
    return n


def main(argv):
    a = parse_args(argv)
    os.makedirs(a.work, exist_ok=True)
    t0 = time.monotonic()
    dbs = [selfplay(a, g) for g in a.game] + a.also
    t1 = time.monotonic()
    data = os.path.join(a.work, "games.txt")
    n = export(dbs, data)
    print(f"{n} games written to {data} (self-play {t1 - t0:.0f} s)", flush=True)
    run = "python3 scripts/tune_hive.py " + shlex.join(argv)
    cmd = [a.meeple, "bench", "hive", "--tune", data, "--skip", str(a.skip), "--pv-depth", str(a.pv_depth),
           "--l2", str(a.l2), "--run", f"{run} ({n} games, {time.strftime('%Y-%m-%d')})"]
    if a.out:
        cmd += ["--out", a.out]
    print("+ " + shlex.join(cmd), flush=True)
    r = subprocess.run(cmd)
    print(f"total {time.monotonic() - t0:.0f} s", flush=True)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
