#!/usr/bin/env python3
"""How far meeple's moves land from their time limits.

For each game and strategy, plays random positions and asks for a move with
`go movetime 100` and with UHP's `bestmove time 00:00:01`, measuring the wall
time from writing the command to reading the `bestmove` line (what a client
or a referee sees). Prints, per game, strategy and limit, the median, the
99th percentile and the maximum of (elapsed - limit) in milliseconds:
negative = early, positive = late. `Move Overhead` keeps its default unless
--overhead is given.

    python3 scripts/time_limits.py --engine target/release/meeple --moves 40

Standard library only.
"""

import argparse
import random
import statistics
import subprocess
import sys
import time

CASES = [
    ("Connect4", ["perfect", "attack", "defense", "random"]),
    ("Base+MLP", ["alphabeta", "random"]),
    ("Base", ["alphabeta"]),
    ("Mastermind", ["entropy", "knuth", "genetic", "optimal", "expected", "mostparts", "random"]),
    ("Mastermind+5x8", ["entropy", "genetic"]),
]


class Engine:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.reply()

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def reply(self):
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("engine closed its output")
            line = line.rstrip("\n")
            lines.append(line)
            if line == "ok":
                return lines

    def cmd(self, line):
        self.send(line)
        return self.reply()[:-1]

    def close(self):
        self.send("quit")
        self.p.wait(timeout=10)


def timed(engine, command, is_move):
    """Seconds from writing `command` to reading its move line."""
    t0 = time.perf_counter()
    engine.send(command)
    while True:
        line = engine.p.stdout.readline().rstrip("\n")
        if is_move(line):
            elapsed = time.perf_counter() - t0
            break
    assert engine.p.stdout.readline().rstrip("\n") == "ok"
    return elapsed, line


def random_position(engine, game, rng, plies):
    engine.cmd(f"newgame {game}")
    for _ in range(rng.randrange(plies + 1)):
        moves = engine.cmd("validmoves")
        if not moves or moves[0].startswith("err"):
            break
        ms = moves[0].split(";")
        r = engine.cmd(f"play {rng.choice(ms)}")
        if r and ("Wins" in r[0].split(";")[1] or r[0].split(";")[1] == "Draw"):
            engine.cmd("undo")
            break


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--engine", default="target/release/meeple")
    ap.add_argument("--moves", type=int, default=30, help="moves measured per game, strategy and limit")
    ap.add_argument("--overhead", type=int, help="Move Overhead in ms (default: the engine's)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", help="only games whose type contains this text")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    print(f"{'game':<16}{'strategy':<11}{'limit':<22}{'median':>8}{'p99':>8}{'max':>8}  (ms past the limit)")
    late = 0
    for game, strategies in CASES:
        if a.only and a.only not in game:
            continue
        for strat in strategies:
            e = Engine([a.engine, "--game", game])
            family = "Connect4" if game.startswith("Connect4") else "Mastermind" if game.startswith("Mastermind") else "Hive"
            e.cmd(f"setoption name {family}.Strategy value {strat}")
            if a.overhead is not None:
                e.cmd(f"setoption name Move Overhead value {a.overhead}")
            for label, command, limit, is_move in [
                ("go movetime 100", "go movetime 100", 0.1, lambda l: l.startswith("bestmove ")),
                ("bestmove time 1 s", "bestmove time 00:00:01", 1.0, lambda l: not l.startswith("info ") and l != "ok"),
            ]:
                over = []
                for _ in range(a.moves):
                    random_position(e, game, rng, 12 if not game.startswith("Mastermind") else 3)
                    elapsed, _ = timed(e, command, is_move)
                    over.append((elapsed - limit) * 1000)
                late += sum(1 for x in over if x > 0)
                print(f"{game:<16}{strat:<11}{label:<22}{statistics.median(over):8.1f}{pct(over, 0.99):8.1f}{max(over):8.1f}",
                      flush=True)
            e.close()
    print(f"moves past their limit: {late}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
