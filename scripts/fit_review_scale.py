#!/usr/bin/env python3
"""Fit the logistic scale of Hive's review (SCALE in src/games/hive/review.rs).

    python3 scripts/fit_review_scale.py GAMES.txt [--review 'nodes 30000'] [--skip 6]

GAMES.txt holds finished games, one a line: White's score (1, 0.5 or 0), a
space, the GameString (what scripts/tune_hive.py writes to WORK/games.txt).
Each game is reviewed by meeple's own `review` command (--meeple, default
target/release/meeple) with the given limits per position; every judged
ply past --skip plies gives one sample: the value of the position before it
for its side to move (the ply line's `bestvalue`, in centipawns; proven
wins and losses are left out) and that side's score in the game. The scale
k of the law P(the side to move scores) = 1 / (1 + exp(-k v)) is fitted by
maximum likelihood (Newton's method on the mean cross-entropy, a draw
counting as half a win), and printed with its cross-entropy, the number of
samples and a table of predicted against observed scores by value band.
The review's winning chance on -1..1 is 2 P - 1.
"""

import argparse
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("games", help="finished games: White's score, a space, the GameString, one a line")
    p.add_argument("--meeple", default=os.environ.get("MEEPLE_BIN", os.path.join(ROOT, "target/release/meeple")))
    p.add_argument("--review", default="nodes 30000", help="the limits of review (default 'nodes 30000')")
    p.add_argument("--skip", type=int, default=6, help="plies left out at each game's start (default 6)")
    p.add_argument("--limit", type=int, help="only the first N games")
    return p.parse_args(argv)


class Engine:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.reply()

    def reply(self):
        out = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError("meeple ended")
            line = line.rstrip("\n")
            if line == "ok":
                return out
            out.append(line)

    def cmd(self, c):
        self.p.stdin.write(c + "\n")
        self.p.stdin.flush()
        return self.reply()

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def fields(line):
    toks = line.split(" ")
    return dict(zip(toks[2::2], toks[3::2])) | {"ply": toks[1]}


def samples_of(engine, score_white, game, review, skip):
    """(value for the side to move, that side's score) of each judged ply."""
    r = engine.cmd("newgame " + game)
    if r and r[0].startswith(("err", "invalidmove")):
        raise ValueError(f"{r[0]}: {game[:80]}")
    out = []
    for line in engine.cmd("review " + review):
        if not line.startswith("ply "):
            continue
        f = fields(line)
        if int(f["ply"]) <= skip or f.get("label") in ("forced", "unproven", None):
            continue
        v = f.get("bestvalue", "")
        if v.startswith("mate") or not v.lstrip("-").isdigit():
            continue
        side_white = f["side"] == "White"
        out.append((int(v), score_white if side_white else 1.0 - score_white))
    return out


def loss(samples, k):
    """Mean cross-entropy, and its first and second derivatives in k."""
    total = d1 = d2 = 0.0
    for v, y in samples:
        z = k * v
        p = 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0
        p = min(max(p, 1e-12), 1 - 1e-12)
        total -= y * math.log(p) + (1 - y) * math.log(1 - p)
        d1 += (p - y) * v
        d2 += p * (1 - p) * v * v
    n = len(samples)
    return total / n, d1 / n, d2 / n


def fit(samples):
    k = 0.005
    for _ in range(50):
        _, g, h = loss(samples, k)
        if h <= 0:
            break
        step = g / h
        k = max(k - step, 1e-6)
        if abs(step) < 1e-9:
            break
    return k


def main(argv):
    a = parse_args(argv)
    games = []
    with open(a.games) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            score, game = line.split(" ", 1)
            games.append((float(score), game))
    if a.limit:
        games = games[: a.limit]
    engine = Engine(a.meeple)
    samples = []
    for i, (score, game) in enumerate(games, 1):
        samples.extend(samples_of(engine, score, game, a.review, a.skip))
        if i % 20 == 0:
            print(f"{i}/{len(games)} games, {len(samples)} samples", file=sys.stderr, flush=True)
    engine.close()
    if not samples:
        sys.exit("no samples")
    k = fit(samples)
    ce, _, _ = loss(samples, k)
    base, _, _ = loss(samples, 0.0)
    print(f"games {len(games)} samples {len(samples)} review '{a.review}' skip {a.skip}")
    print(f"scale k = {k:.6f} per centipawn (1/k = {1 / k:.1f}); cross-entropy {ce:.5f} (k = 0: {base:.5f})")
    print("band (cp)        samples  predicted  observed")
    edges = [-10**9, -400, -200, -100, -50, 0, 50, 100, 200, 400, 10**9]
    for lo, hi in zip(edges, edges[1:]):
        band = [(v, y) for v, y in samples if lo <= v < hi]
        if not band:
            continue
        pred = sum(1 / (1 + math.exp(-k * v)) for v, _ in band) / len(band)
        obs = sum(y for _, y in band) / len(band)
        name = f"[{lo if lo > -10**9 else '-inf'}, {hi if hi < 10**9 else 'inf'})"
        print(f"{name:<16} {len(band):>7}  {pred:9.3f}  {obs:8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
