#!/usr/bin/env python3
"""A tiny engine speaking the meeple protocol, for the referee's tests.

It knows the rules of Connect Four (7x6 only) and of a toy Mastermind (see
MiniMastermind), so it can also serve as the referee's arbiter. Its
behaviour when asked to move is chosen by --mode:

  good      plays the lowest legal column that wins at once, else a random
            legal column (seeded by --seed)
  first     always the lowest legal column
  crash     exits (status 3) when it receives `go` or `bestmove`
  stall     never answers `go`/`bestmove` (and ignores `stop`)
  illegal   answers `go` with column 8, which does not exist on 7x6
  slow      sleeps --delay seconds before answering `go`/`bestmove`
  flaky     like good, but plays the illegal column 8 with probability --p
  strayok   like good, but prints one stray `ok` after its first search reply
            (only once over all its processes when --flag FILE is given:
            the first creates FILE)
  longline  prints a line of --size bytes (default 10 MB) instead of a move
  late      like good, but answers only after --delay seconds and `stop`
            is ignored (a UHP engine that cannot be stopped)
  flood     like good, but prints `info ... score cp N` lines without pause
            for 90 % of the search's `movetime` (default 1 s), then its move;
            --size N pads each info line to N bytes
  floodall  like flood, and also between searches: a thread prints `info`
            lines without pause from the start (between whole replies)
  killparent kills its parent process (SIGKILL) when asked to move: on a
            cluster, the Dask worker that plays its game (with --flag
            FILE: only while FILE exists; else it plays as good)
  script    plays the move of --moves M1;M2;... at the ply it is asked
            (give both seats the whole game's moves); past them, as good

`review` (protocol.md section 3, for `--annotate`) answers by --review:
  ok        one `ply` line per ply (labels best, inaccuracy, mistake,
            blunder, good, forced in turn, from ply 1; values -2..2; the best
            move `4` or the Mastermind guess `11` when not the move played),
            `info review` lines among them, two `side` lines, `ok`
  hang      never answers `review` (other commands as usual)
  die       exits (status 3) when it receives `review`
  err       answers `err unknown command review`
  garbage   answers a line no review has, then `ok`
  short     judges every ply but the last

--score N adds `score cp N` to its `info` lines (for adjudication tests).
`uci` and `ugi` switch it to UCI or UGI mode (no `ok` lines), where moves
come as `position fen <GameString> moves m1 m2` and searches as `go ...`.

--uhp makes it reject the meeple-only commands (`go`, `setoption`, `stop`),
like a Universal Hive Protocol engine.
"""

import argparse
import os
import random
import re
import signal
import sys
import threading
import time

W, H = 7, 6
SIDES = ("Red", "Yellow")


class Board:
    """Connect Four, 7x6."""

    def __init__(self):
        self.cols = [[] for _ in range(W)]
        self.moves = []
        self.winner = None

    def legal(self):
        if self.winner is not None or len(self.moves) == W * H:
            return []
        return [c + 1 for c in range(W) if len(self.cols[c]) < H]

    def play(self, text):
        if self.winner is not None or len(self.moves) == W * H:
            return "err game is over"
        if not text.isdigit() or not 1 <= int(text) <= W:
            return "invalidmove cannot parse move: " + text
        c = int(text) - 1
        if len(self.cols[c]) >= H:
            return "invalidmove illegal move: column %d is full" % (c + 1)
        side = len(self.moves) % 2
        self.cols[c].append(side)
        self.moves.append(c + 1)
        if self.wins(c, len(self.cols[c]) - 1, side):
            self.winner = side
        return None

    def cell(self, c, r):
        if 0 <= c < W and 0 <= r < len(self.cols[c]):
            return self.cols[c][r]
        return None

    def wins(self, c, r, side):
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            n = 1
            for s in (1, -1):
                k = 1
                while self.cell(c + s * k * dc, r + s * k * dr) == side:
                    n += 1
                    k += 1
            if n >= 4:
                return True
        return False

    def gamestring(self):
        ply = len(self.moves)
        if self.winner is not None:
            state = SIDES[self.winner] + "Wins"
        elif ply == W * H:
            state = "Draw"
        elif ply == 0:
            state = "NotStarted"
        else:
            state = "InProgress"
        parts = ["Connect4", state, "%s[%d]" % (SIDES[ply % 2], 1 + ply // 2)]
        parts += [str(m) for m in self.moves]
        return ";".join(parts)

    def choose(self, rng, mode):
        legal = self.legal()
        for m in legal:
            trial = Board()
            for old in self.moves:
                trial.play(str(old))
            trial.play(str(m))
            if trial.winner is not None:
                return str(m)
        if mode == "first":
            return str(legal[0])
        return str(rng.choice(legal))

    def show(self):
        rows = []
        for r in range(H - 1, -1, -1):
            rows.append(" ".join(".XO"[1 + v] if v is not None else "." for v in
                                 (self.cell(c, r) for c in range(W))))
        rows.append(" ".join(str(c + 1) for c in range(W)))
        return rows


class MiniMastermind:
    """A toy Mastermind shaped like meeple's (src/games/mastermind): sides
    Breaker (moves first: a guess of PEGS digits 1..SYMBOLS) and Maker
    (answers a feedback `<b>B<w>W`); `BreakerWins` on an all-black feedback,
    `MakerWins` when ROWS guesses were answered. With a secret (option
    Codemaker=random, the default) the only legal feedback is the true one;
    with Codemaker=none any feedback some code fits is legal. A finished
    game's GameString ends with `Secret=<code>` when the secret is known."""

    PEGS, SYMBOLS, ROWS = 2, 3, 4
    SIDES = ("Breaker", "Maker")

    def __init__(self, rng, with_secret):
        self.moves = []
        codes = [""]
        for _ in range(self.PEGS):
            codes = [c + str(d) for c in codes for d in range(1, self.SYMBOLS + 1)]
        self.codes = codes
        self.secret = rng.choice(codes) if with_secret else None

    @staticmethod
    def feedback(guess, code):
        black = sum(1 for a, b in zip(guess, code) if a == b)
        common = sum(min(guess.count(d), code.count(d)) for d in set(guess))
        return "%dB%dW" % (black, common - black)

    def possible(self, moves):
        return [c for c in self.codes
                if all(self.feedback(moves[i], c) == moves[i + 1] for i in range(0, len(moves) - 1, 2))]

    def winner(self):
        if len(self.moves) % 2 == 0 and self.moves:
            if self.moves[-1] == "%dB0W" % self.PEGS:
                return 0
            if len(self.moves) == 2 * self.ROWS:
                return 1
        return None

    def legal(self):
        if self.winner() is not None:
            return []
        if len(self.moves) % 2 == 0:
            return list(self.codes)
        guess = self.moves[-1]
        if self.secret:
            return [self.feedback(guess, self.secret)]
        return sorted({self.feedback(guess, c) for c in self.possible(self.moves[:-1])})

    def play(self, text):
        if self.winner() is not None:
            return "err game is over"
        if text not in self.legal():
            return "invalidmove illegal move: %s" % text
        self.moves.append(text)
        return None

    def choose(self, rng, mode):
        if len(self.moves) % 2 == 1:
            return self.legal()[0] if self.secret else rng.choice(self.legal())
        options = self.possible(self.moves)
        return options[0] if mode == "first" else rng.choice(options)

    def gamestring(self):
        ply = len(self.moves)
        w = self.winner()
        state = (self.SIDES[w] + "Wins" if w is not None else
                 "NotStarted" if ply == 0 else "InProgress")
        parts = ["Mastermind", state, "%s[%d]" % (self.SIDES[ply % 2], 1 + ply // 2)] + self.moves
        if w is not None and self.secret:
            parts.append("Secret=" + self.secret)
        return ";".join(parts)

    def show(self):
        return ["%s %s" % (self.moves[i], self.moves[i + 1] if i + 1 < len(self.moves) else "")
                for i in range(0, len(self.moves), 2)] or ["(no guess yet)"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="good")
    ap.add_argument("--delay", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--p", type=float, default=0.5)
    ap.add_argument("--uhp", action="store_true")
    ap.add_argument("--score", type=int, default=None)
    ap.add_argument("--flag", default=None)
    ap.add_argument("--size", type=int, default=10 << 20)
    ap.add_argument("--moves", default="")
    ap.add_argument("--review", default="ok",
                    choices=("ok", "hang", "die", "err", "garbage", "short"))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    lock = threading.RLock()
    board = None
    codemaker = "random"
    dialect = ["meeple"]
    stray = [args.mode == "strayok"]

    def may_stray():
        """Once per process; with --flag, once over all processes (the
        first to stray creates the file)."""
        if not stray[0]:
            return False
        stray[0] = False
        if args.flag:
            import os
            try:
                os.close(os.open(args.flag, os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                return False
        return True

    def out(*lines):
        with lock:
            for line in lines:
                sys.stdout.write(line + "\n")
            if dialect[0] == "meeple":
                sys.stdout.write("ok\n")
            sys.stdout.flush()

    def load(rest):
        """A board from `GameString` or `GameType moves m1;m2` (None + error)."""
        if " moves " not in rest and rest.startswith("fen "):
            rest = rest[4:]
        if rest.startswith("fen "):
            rest = rest[4:]
        head = rest.split(" moves ")[0].strip()
        fields = head.split(";") if head else ["Connect4"]
        secret = [f[len("Secret="):] for f in fields if f.startswith("Secret=")]
        fields = [f for f in fields if "=" not in f]
        if fields[0].lower() == "connect4":
            new = Board()
        elif fields[0].lower() == "mastermind":
            new = MiniMastermind(rng, codemaker == "random" or bool(secret))
            if secret:
                new.secret = secret[0]
        else:
            return None, "err unknown game type " + fields[0]
        moves = fields[3:]
        if " moves " in rest:
            tail = rest.split(" moves ", 1)[1].strip()
            if dialect[0] != "meeple":
                moves += [m.replace("_", " ") for m in tail.split()]
            else:
                moves += tail.split(";") if ";" in tail else list(tail.replace(" ", ""))
        for i, m in enumerate(moves):
            e = new.play(m)
            if e:
                return None, "invalidmove move %d: %s" % (i + 1, e)
        return new, None

    pad = max(0, args.size - 60) if args.size != 10 << 20 else 0
    block = "".join("info depth %d score cp %d nodes %d nps 1 time 0%s\n"
                    % (d % 64, d % 200 - 100, d, " string " + "x" * pad if pad else "")
                    for d in range(1000))

    def flood(limit):
        """`info` lines as fast as the pipe takes them, until 90 % of the
        move's time."""
        end = time.monotonic() + 0.9 * limit
        while time.monotonic() < end:
            with lock:
                sys.stdout.write(block)
                sys.stdout.flush()

    def flood_forever():
        try:
            while True:
                with lock:
                    sys.stdout.write(block)
                    sys.stdout.flush()
        except (OSError, ValueError):
            os._exit(0)

    def search_reply(uhp_form, limit=1.0):
        if board is None:
            return out("err no game in progress")
        if not board.legal():
            return out("err game is over")
        if args.mode == "crash":
            sys.exit(3)
        if args.mode == "killparent" and (not args.flag or os.path.exists(args.flag)):
            os.kill(os.getppid(), signal.SIGKILL)
            sys.exit(3)
        if args.mode == "stall":
            while True:
                time.sleep(3600)
        if args.mode in ("slow", "late"):
            time.sleep(args.delay)
        if args.mode in ("flood", "floodall"):
            flood(limit)
        if args.mode == "longline":
            sys.stdout.write("x" * args.size + "\n")
            sys.stdout.flush()
        illegal = args.mode == "illegal" or (args.mode == "flaky" and rng.random() < args.p)
        script = [m for m in args.moves.split(";") if m]
        if args.mode == "script" and len(board.moves) < len(script):
            move = script[len(board.moves)]
        else:
            move = "8" if illegal else board.choose(rng, args.mode)
        score = "" if args.score is None else " score cp %d" % args.score
        if uhp_form:
            out(move)
        else:
            out("info depth 1 nodes 1 nps 1 time 0" + score, "bestmove " + move.replace(
                " ", "_" if dialect[0] != "meeple" else " "))
        if may_stray():
            sys.stdout.write("ok\n")
            sys.stdout.flush()

    def review_reply():
        if board is None:
            return out("err no game in progress")
        if args.review == "die":
            sys.exit(3)
        if args.review == "hang":
            while True:
                time.sleep(3600)
        if args.review == "err":
            return out("err unknown command review")
        if args.review == "garbage":
            return out("bestmove 4")
        sides = getattr(board, "SIDES", SIDES)
        labels = ("best", "inaccuracy", "mistake", "blunder", "good", "forced")
        lines = []
        moves = [str(m) for m in board.moves]
        if args.review == "short":
            moves = moves[:-1]
        for i, move in enumerate(moves):
            label = labels[i % len(labels)]
            best = move if label in ("best", "forced") else (
                "11" if isinstance(board, MiniMastermind) else "4")
            lines.append("info review positions %d of %d time 0 nodes 0" % (i + 1, len(moves) + 1))
            lines.append("ply %d side %s move %s label %s value %d best %s bestvalue 2"
                         " accuracy %.1f graph 0.000"
                         % (i + 1, sides[i % 2], move, label, i % 5 - 2, best, 100.0 - 10 * (i % 6)))
        for k in (0, 1):
            lines.append("side %s moves %d best 0 good 0 inaccuracy 0 mistake 0 blunder 0 forced 0"
                         " unproven 0 none 0 accuracy %s"
                         % (sides[k], len(moves[k::2]), "77.7" if moves[k::2] else "none"))
        out(*lines)

    out("id fake-engine v0.0.1", "games Connect4", "Connect4")
    if args.mode == "floodall":
        threading.Thread(target=flood_forever, daemon=True).start()
    for raw in sys.stdin:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        words = line.split()
        cmd, rest = words[0].lower(), line[len(words[0]):].strip()
        if args.uhp and cmd in ("go", "setoption", "stop", "isready"):
            out("err unknown command " + cmd)
        elif cmd in ("quit", "exit"):
            return
        elif cmd in ("uci", "ugi"):
            dialect[0] = cmd
            print("id name fake-engine")
            print("option name UCI_Variant type combo default Connect4 var Connect4 var Mastermind")
            print("option name Move Overhead type spin default 30 min 0 max 5000")
            print(cmd + "ok", flush=True)
        elif dialect[0] != "meeple" and cmd in ("ucinewgame", "uginewgame"):
            board = None
        elif dialect[0] != "meeple" and cmd == "position":
            new, e = load(rest)
            if e:
                print("info string " + e, flush=True)
            else:
                board = new
        elif dialect[0] != "meeple" and cmd == "setoption":
            m = re.match(r"(?i)setoption name\s+(mastermind\.)?codemaker\s+value\s+(\S+)$", line)
            if m:
                codemaker = m.group(2).lower()
        elif dialect[0] != "meeple" and cmd == "stop":
            pass
        elif dialect[0] == "ugi" and cmd == "query":
            print("response " + ("true" if board and not board.legal() else "false"), flush=True)
        elif cmd == "info":
            out("id fake-engine v0.0.1", "games Connect4", "Connect4")
        elif cmd in ("newgame", "position"):
            if cmd == "position":
                rest = rest.replace("startpos", "Connect4")
            new, e = load(rest)
            if e:
                out(e)
            else:
                board = new
                out(board.gamestring())
        elif cmd == "play":
            if board is None:
                out("err no game in progress")
                continue
            e = board.play(rest)
            out(e) if e else out(board.gamestring())
        elif cmd == "pass":
            out("invalidmove pass is not allowed in Connect Four")
        elif cmd == "validmoves":
            if board is None:
                out("err no game in progress")
            elif not board.legal():
                out("err game is over")
            else:
                out(";".join(str(m) for m in board.legal()))
        elif cmd == "show":
            out(*board.show()) if board else out("err no game in progress")
        elif cmd == "go":
            m = re.search(r"\bmovetime\s+(\d+)", line)
            search_reply(False, int(m.group(1)) / 1000.0 if m else 1.0)
        elif cmd == "bestmove":
            search_reply(True)
        elif cmd == "review" and not args.uhp:
            review_reply()
        elif cmd == "stop":
            if args.mode != "late":
                out()
        elif cmd == "isready":
            out("readyok")
        elif cmd == "setoption" or (cmd == "options" and rest):
            m = re.match(r"(?i)(setoption name|options set)\s+(mastermind\.)?codemaker\s+(value\s+)?(\S+)$",
                         line)
            if m:
                codemaker = m.group(4).lower()
            if "bogus" in line.lower():
                out("err unknown option")
            else:
                out()
        elif cmd == "options":
            out("Strategy;enum;good;good;good")
        else:
            out("err unknown command " + cmd)


if __name__ == "__main__":
    main()
