#!/usr/bin/env python3
"""referee.py: pair two engines (or people) at a meeple game, keep the results.

Python 3 standard library only. Three subcommands:

  referee.py match --engine name=A cmd="target/release/meeple" option.Strategy=attack \\
                   --engine name=B cmd="target/release/meeple" option.Strategy=random \\
                   --game Connect4 --games 100 --st 0.05 --concurrency 2
  referee.py leaderboard [--db FILE] [--game G]
  referee.py show GAME_ID [--db FILE]

`match` is the default: `referee.py --engine ... --engine ...` works too.
Run `referee.py match --help` for every option.

The referee is the authority. It keeps each game in an arbiter meeple process
of its own and checks every move there; it learns everything from the
arbiter's GameStrings (`GameType;GameState;Turn;moves...`): the side to move
from the Turn field, the end and the winner from the GameState (`Draw`,
`<Side>Wins`). So it is game-agnostic. A seat loses by an illegal move, a
crash (process exit or EOF), a stall (no reply within --stall-timeout after
its time ran out, or to any other command) or on time (a reply after its
time plus --timemargin); the record tells these apart.
"""

import argparse
import datetime
import json
import math
import os
import queue
import random
import re
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time

DEFAULT_GAMES = 100
DEFAULT_HUMAN_GAMES = 2
DEFAULT_DB = os.path.join("meeple-data", "results.sqlite")
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Why a game ended. `rules` = by the rules of the game (win or draw).
REASONS = ("rules", "illegal", "crash", "stall", "time", "error", "resign",
           "disconnect", "maxplies")


# ---------------------------------------------------------------------------
# Statistics (formulas of ../shared/reference/protocol.md)
# ---------------------------------------------------------------------------

def elo_from_score(mu):
    """Elo difference for an expected score mu (0 < mu < 1)."""
    if mu <= 0.0:
        return -math.inf
    if mu >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / mu - 1.0)


def los(wins, losses):
    """Likelihood of superiority of the side with `wins` wins."""
    if wins + losses == 0:
        return 0.5
    return 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses)))


def score_stats(wins, draws, losses):
    """Score, Elo with its 95% error bar, LOS and draw ratio."""
    n = wins + draws + losses
    if n == 0:
        return {"n": 0, "score": 0.5, "elo": 0.0, "error": math.inf, "los": 0.5,
                "draw_ratio": 0.0}
    w, d, l = wins / n, draws / n, losses / n
    mu = w + d / 2.0
    s2 = w * (1 - mu) ** 2 + d * (0.5 - mu) ** 2 + l * mu ** 2
    delta = 1.96 * math.sqrt(s2 / n)
    lo, hi = elo_from_score(mu - delta), elo_from_score(mu + delta)
    error = (hi - lo) / 2.0 if math.isfinite(hi - lo) else math.inf
    return {"n": n, "score": mu, "elo": elo_from_score(mu), "error": error,
            "los": los(wins, losses), "draw_ratio": d}


def sprt_bounds(alpha, beta):
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt_llr(wins, draws, losses, elo0, elo1):
    """Generalized log-likelihood ratio of H1 (elo1) against H0 (elo0)."""
    n = wins + draws + losses
    if n == 0:
        return 0.0
    w, d, l = wins / n, draws / n, losses / n
    mu = w + d / 2.0
    s2 = w * (1 - mu) ** 2 + d * (0.5 - mu) ** 2 + l * mu ** 2
    if s2 <= 0.0:
        # All results equal: no variance estimate yet, so no evidence either
        # way (cutechess waits for the same).
        return 0.0
    s0 = 1.0 / (1.0 + 10.0 ** (-elo0 / 400.0))
    s1 = 1.0 / (1.0 + 10.0 ** (-elo1 / 400.0))
    return n * (s1 - s0) * (2.0 * mu - s0 - s1) / (2.0 * s2)


def pentanomial(rows, name):
    """Counts of game pairs (indices 2k, 2k+1: one opening, colours
    swapped) in which `name` scored 0, 0.5, 1, 1.5 and 2 points. rows:
    (game_index, winner name or None)."""
    by_index = {i: w for i, w in rows}
    counts = [0] * 5
    for i in sorted(by_index):
        if i % 2 == 0 and i + 1 in by_index:
            pts = sum(2 if by_index[j] == name else 1 if by_index[j] is None else 0
                      for j in (i, i + 1))
            counts[pts] += 1
    return counts


def fmt_elo(x):
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return "%.1f" % (x + 0.0) if round(x, 1) != 0 else "0.0"


def rating_lines(name_a, name_b, wins, draws, losses, sprt=None):
    """The report printed at the end and every --rating-interval games."""
    st = score_stats(wins, draws, losses)
    n = st["n"]
    lines = ["Score of %s vs %s: %d - %d - %d  [%.3f] %d"
             % (name_a, name_b, wins, losses, draws, st["score"], n),
             "Elo difference: %s +/- %s, LOS: %.1f %%, DrawRatio: %.1f %%"
             % (fmt_elo(st["elo"]), fmt_elo(st["error"]), 100 * st["los"],
                100 * st["draw_ratio"])]
    if sprt:
        llr = sprt_llr(wins, draws, losses, sprt["elo0"], sprt["elo1"])
        lo, hi = sprt_bounds(sprt["alpha"], sprt["beta"])
        verdict = ("H1 was accepted" if llr >= hi else
                   "H0 was accepted" if llr <= lo else "continue")
        lines.append("SPRT: llr %.3f, lbound %.3f, ubound %.3f (elo0=%g elo1=%g) - %s"
                     % (llr, lo, hi, sprt["elo0"], sprt["elo1"], verdict))
    return lines


# ---------------------------------------------------------------------------
# GameStrings
# ---------------------------------------------------------------------------

TURN_RE = re.compile(r"^\s*([A-Za-z]+)\[(\d+)\]\s*$")


class GameString:
    """`GameType;GameState;Turn[;move...]` as printed by the arbiter."""

    def __init__(self, text):
        self.text = text.strip()
        fields = self.text.split(";")
        if len(fields) < 3:
            raise ValueError("not a GameString: %r" % text)
        self.game_type, self.state = fields[0], fields[1]
        m = TURN_RE.match(fields[2])
        if not m:
            raise ValueError("bad Turn field in GameString: %r" % text)
        self.turn_side, self.turn_number = m.group(1), int(m.group(2))
        self.moves = fields[3:]

    @property
    def finished(self):
        return self.state not in ("NotStarted", "InProgress")

    @property
    def winner_side(self):
        if self.state.endswith("Wins"):
            return self.state[:-4]
        return None

    def __str__(self):
        return self.text


def is_mastermind(game_type):
    return game_type.lower().startswith("mastermind")


# ---------------------------------------------------------------------------
# Seats: engines and people
# ---------------------------------------------------------------------------

class SeatFailure(Exception):
    """A seat loses the game: reason is one of REASONS."""

    def __init__(self, reason, detail=""):
        super().__init__("%s: %s" % (reason, detail))
        self.reason = reason
        self.detail = detail


class RefereeError(Exception):
    """A problem of the referee's own (arbiter, configuration): abort."""


def parse_tc(text):
    """`60+0.5` -> (60000, 500) in ms; `40/60+0.6` is accepted, moves ignored."""
    if "/" in text:
        text = text.split("/", 1)[1]
    base, _, inc = text.partition("+")
    try:
        return int(round(float(base) * 1000)), int(round(float(inc or 0) * 1000))
    except ValueError:
        raise argparse.ArgumentTypeError("bad time control %r (want 60+0.5)" % text)


class SeatSpec:
    """One `--engine` argument: key=value tokens, or `human`, or `remote=H:P`."""

    def __init__(self, tokens, each=()):
        self.name = None
        self.kind = "engine"
        self.cmd = None
        self.dir = None
        self.proto = "meeple"
        self.options = {}
        self.st = None
        self.tc = None
        self.depth = None
        self.address = None
        for tok in list(each) + list(tokens):
            self._apply(tok)
        if self.kind == "engine" and not self.cmd:
            raise argparse.ArgumentTypeError("engine seat needs cmd=...: %s" % " ".join(tokens))
        if not self.name:
            if self.kind == "engine":
                base = os.path.basename(shlex.split(self.cmd)[0])
                strat = self.options.get("Strategy") or self.options.get("strategy")
                self.name = base + ("-" + strat if strat else "")
            elif self.kind == "human":
                self.name = "human"
            else:
                self.name = "remote"

    def _apply(self, tok):
        key, eq, value = tok.partition("=")
        low = key.lower()
        if not eq:
            if low == "human":
                self.kind = "human"
                return
            raise argparse.ArgumentTypeError("bad seat token %r (want key=value)" % tok)
        if low == "name":
            self.name = value
        elif low == "cmd":
            self.cmd = value
        elif low == "dir":
            self.dir = value
        elif low == "proto":
            if value not in ("meeple", "uhp"):
                raise argparse.ArgumentTypeError("proto must be meeple or uhp")
            self.proto = value
        elif low.startswith("option."):
            self.options[key[len("option."):]] = value
        elif low == "st":
            self.st = float(value)
        elif low == "tc":
            self.tc = parse_tc(value)
        elif low == "depth":
            self.depth = int(value)
        elif low == "remote":
            host, _, port = value.rpartition(":")
            self.kind = "remote"
            self.address = (host or "127.0.0.1", int(port))
        else:
            raise argparse.ArgumentTypeError("unknown seat key %r" % key)

    def to_json(self):
        return {"name": self.name, "kind": self.kind, "cmd": self.cmd, "dir": self.dir,
                "proto": self.proto, "options": self.options, "st": self.st,
                "tc": list(self.tc) if self.tc else None, "depth": self.depth,
                "address": list(self.address) if self.address else None}

    @classmethod
    def from_json(cls, data):
        spec = cls.__new__(cls)
        spec.__dict__.update(data)
        spec.tc = tuple(data["tc"]) if data.get("tc") else None
        spec.address = tuple(data["address"]) if data.get("address") else None
        return spec


class Process:
    """A child speaking a line protocol whose replies end with `ok`."""

    def __init__(self, cmd, cwd=None, label="engine", stderr=None):
        self.label = label
        args = shlex.split(cmd) if isinstance(cmd, str) else list(cmd)
        try:
            self.proc = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=stderr if stderr is not None else subprocess.DEVNULL,
                cwd=cwd, text=True, bufsize=1, encoding="utf-8", errors="replace",
                # Own session: a Ctrl-C at the terminal reaches the referee
                # only (meeple exits on a second SIGINT within two seconds).
                start_new_session=True)
        except OSError as e:
            raise SeatFailure("crash", "cannot start %s (%s): %s" % (label, cmd, e))
        self.lines = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        try:
            for line in self.proc.stdout:
                self.lines.put((line.rstrip("\r\n"), time.monotonic()))
        except (OSError, ValueError):
            pass
        self.lines.put((None, time.monotonic()))

    def send(self, line):
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise SeatFailure("crash", "%s: cannot write (exit status %s)"
                              % (self.label, self.proc.poll()))

    def next_line(self, deadline):
        """(line, arrival time); line None = EOF; raises queue.Empty at deadline."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return self.lines.get_nowait()
        return self.lines.get(timeout=remaining)

    def reply(self, timeout):
        """Lines up to the terminating `ok`. Crash on EOF, stall on timeout."""
        deadline = time.monotonic() + timeout
        out = []
        while True:
            try:
                line, _ = self.next_line(deadline)
            except queue.Empty:
                raise SeatFailure("stall", "%s: no reply within %.1f s" % (self.label, timeout))
            if line is None:
                raise SeatFailure("crash", "%s: exited (status %s)" % (self.label, self._status()))
            if line.strip() == "ok":
                return out
            out.append(line)

    def _status(self):
        try:
            return self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return None

    def command(self, line, timeout):
        self.send(line)
        return self.reply(timeout)

    def alive(self):
        return self.proc.poll() is None

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def first_error(lines):
    for line in lines:
        if line.startswith("err") or line.startswith("invalidmove"):
            return line
    return None


class Arbiter:
    """The referee's own meeple process: keeps the game and checks moves."""

    def __init__(self, cmd, timeout=30.0):
        self.cmd = cmd
        self.timeout = timeout
        try:
            self.proc = Process(cmd, label="arbiter")
            self.proc.reply(timeout)
        except SeatFailure as e:
            raise RefereeError("arbiter %r does not start: %s" % (cmd, e.detail))

    def _command(self, line):
        try:
            return self.proc.command(line, self.timeout)
        except SeatFailure as e:
            raise RefereeError("arbiter failed on %r: %s" % (line, e.detail))

    def _gamestring(self, line):
        out = self._command(line)
        err = first_error(out)
        if err:
            return None, err
        if not out:
            raise RefereeError("arbiter gave no GameString for %r" % line)
        return GameString(out[-1]), None

    def prepare(self, game_type):
        """Mastermind: the arbiter keeps no secret (`Codemaker=none`), so it
        accepts every feedback some code fits; the codemaker seat's engine
        holds the secret."""
        if is_mastermind(game_type):
            err = first_error(self._command("setoption name Mastermind.Codemaker value none"))
            if err:
                print("warning: arbiter: %s" % err, file=sys.stderr)

    def set_color(self):
        """ANSI colours in `show` (for a person at a terminal)."""
        self._command("setoption name Color value always")

    def newgame(self, arg):
        gs, err = self._gamestring("newgame " + arg)
        if err:
            raise RefereeError("arbiter refused %r: %s" % (arg, err))
        return gs

    def try_newgame(self, arg):
        return self._gamestring("newgame " + arg)

    def play(self, move):
        """(GameString, None) or (None, the arbiter's `invalidmove`/`err` line)."""
        if move.strip().lower() == "pass":
            return self._gamestring("pass")
        return self._gamestring("play " + move)

    def position(self, game_type, moves):
        return self._gamestring("position %s moves %s" % (game_type, moves))

    def validmoves(self):
        out = self._command("validmoves")
        if first_error(out) or not out:
            return []
        return [m for m in out[-1].split(";") if m.strip()]

    def show(self):
        return "\n".join(self._command("show"))

    def close(self):
        self.proc.close()


class EngineSeat:
    """An engine process in a seat; restarted after a crash or a stall."""

    is_person = False

    def __init__(self, spec, settings):
        self.spec = spec
        self.name = spec.name
        self.settings = settings
        self.proc = None
        self.failed = False
        self.codemaker = None
        self.last_reply = None

    def ensure_ready(self, recover):
        if self.proc is not None and not self.failed and self.proc.alive():
            return
        if self.proc is not None:
            if not recover:
                raise RefereeError("engine %s failed and --recover is not set" % self.name)
            self.proc.kill()
        self.failed = False
        self.codemaker = None
        self.proc = Process(self.spec.cmd, cwd=self.spec.dir, label=self.name,
                            stderr=None if self.settings.engine_stderr else subprocess.DEVNULL)
        try:
            self.proc.reply(self.settings.stall_timeout)  # the unasked `info` + ok
            # A game of the match's type first, so that unqualified options
            # (`option.Strategy=knuth`) address that game's family.
            out = self.proc.command("newgame " + self.settings.game_type,
                                    self.settings.stall_timeout)
            err = first_error(out)
            if err:
                raise RefereeError("engine %s cannot play %s: %s"
                                   % (self.name, self.settings.game_type, err))
            for name, value in self.spec.options.items():
                if self.spec.proto == "uhp":
                    line = "options set %s %s" % (name, value)
                else:
                    line = "setoption name %s value %s" % (name, value)
                out = self.proc.command(line, self.settings.stall_timeout)
                err = first_error(out)
                if err:
                    raise RefereeError("engine %s refused %r: %s" % (self.name, line, err))
        except SeatFailure as e:
            self.failed = True
            raise RefereeError("engine %s does not start: %s" % (self.name, e.detail))

    def _guard(self, fn, *args):
        try:
            return fn(*args)
        except SeatFailure as e:
            if e.reason in ("crash", "stall"):
                # The process is gone or out of step: it is restarted (with
                # --recover) before the next game.
                self.failed = True
                if self.proc:
                    self.proc.kill()
            raise

    def prepare(self, game_type, moves_first):
        """Mastermind: the codebreaker's engine must keep no secret (else it
        would refuse the codemaker's feedback), the codemaker's engine keeps
        its own (the seat's option Codemaker, default random)."""
        if not is_mastermind(game_type) or self.spec.proto != "meeple":
            return
        user = "random"
        for key, value in self.spec.options.items():
            if key.lower() in ("codemaker", "mastermind.codemaker"):
                user = value
        want = "none" if moves_first else user
        if want != self.codemaker:
            def run():
                line = "setoption name Mastermind.Codemaker value " + want
                err = first_error(self.proc.command(line, self.settings.stall_timeout))
                if err:
                    raise SeatFailure("error", "%s refused %r: %s" % (self.name, line, err))
            self._guard(run)
            self.codemaker = want

    def new_game(self, gs, side, sides):
        def run():
            out = self.proc.command("newgame " + gs.text, self.settings.stall_timeout)
            err = first_error(out)
            if err:
                raise SeatFailure("error", "%s refused the position: %s" % (self.name, err))
        self._guard(run)

    def tell(self, move):
        def run():
            line = "pass" if move.lower() == "pass" else "play " + move
            out = self.proc.command(line, self.settings.stall_timeout)
            err = first_error(out)
            if err:
                raise SeatFailure("error", "%s refused %r: %s" % (self.name, line, err))
            self.last_reply = out[-1] if out else None
        self._guard(run)

    def go_command(self, clocks, me, first_side_seat):
        """The search command and the time this move may take (s, or None)."""
        spec = self.spec
        if spec.proto == "uhp":
            if spec.depth is not None and spec.st is None and spec.tc is None:
                return "bestmove depth %d" % spec.depth, None
            if spec.st is not None:
                allowed = spec.st
            elif spec.tc is not None:
                clock, inc = clocks[me]
                allowed = max(0.001, min(clock / 20000.0 + 0.75 * inc / 1000.0,
                                         clock / 1000.0 - 0.05))
            else:
                return "bestmove depth %d" % (spec.depth or 4), None
            secs = max(1, int(math.ceil(allowed)))  # hh:mm:ss has whole seconds
            return ("bestmove time %02d:%02d:%02d" % (secs // 3600, secs // 60 % 60, secs % 60),
                    float(secs) if spec.tc is None else clocks[me][0] / 1000.0)
        parts = ["go"]
        allowed = None
        if spec.depth is not None:
            parts += ["depth", str(spec.depth)]
        if spec.st is not None:
            parts += ["movetime", str(max(1, int(round(spec.st * 1000))))]
            allowed = spec.st
        elif spec.tc is not None:
            first, second = first_side_seat, 1 - first_side_seat
            parts += ["wtime", str(max(0, int(clocks[first][0]))),
                      "btime", str(max(0, int(clocks[second][0]))),
                      "winc", str(int(clocks[first][1])), "binc", str(int(clocks[second][1]))]
            allowed = clocks[me][0] / 1000.0
        return " ".join(parts), allowed

    def get_move(self, ctx):
        """(move, seconds used); raises SeatFailure (crash, stall, time, error)."""
        return self._guard(self._get_move, ctx)

    def _get_move(self, ctx):
        line, allowed = self.go_command(ctx.clocks, ctx.me, ctx.first_side_seat)
        margin = self.settings.timemargin
        stall = self.settings.stall_timeout
        proc = self.proc
        start = time.monotonic()
        proc.send(line)
        deadline = start + (allowed + margin if allowed is not None else stall)
        lines, late, stopped = [], False, False
        while True:
            try:
                text, at = proc.next_line(deadline)
            except queue.Empty:
                if stopped or allowed is None:
                    raise SeatFailure("stall", "%s: no reply to %r" % (self.name, line))
                # Out of time: ask for the move now; no answer at all = stall.
                late, stopped = True, True
                if self.spec.proto == "uhp":
                    try:
                        proc.proc.send_signal(signal.SIGINT)
                    except OSError:
                        pass
                else:
                    proc.send("stop")
                deadline = time.monotonic() + stall
                continue
            if text is None:
                raise SeatFailure("crash", "%s: exited during %r (status %s)"
                                  % (self.name, line, proc._status()))
            if text.strip() == "ok":
                break
            lines.append((text, at))
        if stopped and self.spec.proto != "uhp":
            proc.reply(stall)  # stop's own `ok`
        err = first_error([t for t, _ in lines])
        move, at = None, None
        if self.spec.proto == "uhp":
            content = [(t, a) for t, a in lines if t.strip()]
            if content:
                move, at = content[-1][0].split(";")[0].strip(), content[-1][1]
        else:
            for t, a in lines:
                if t.startswith("bestmove"):
                    move, at = t[len("bestmove"):].strip(), a
        used = (at if at is not None else time.monotonic()) - start
        if allowed is not None and (late or used > allowed + margin):
            raise SeatFailure("time", "%s used %.3f s of %.3f s (+%.3f margin)"
                              % (self.name, used, allowed, margin))
        if err or not move:
            raise SeatFailure("error", "%s answered %r with %r" % (self.name, line, err or lines))
        return move, used

    def game_over(self, text):
        pass

    def close(self):
        if self.proc:
            self.proc.close()


class PersonSeat:
    """A person: `human` on this terminal or `remote` over a TCP connection.

    The board (from the arbiter's `show`) and a prompt are written; a move is
    read and checked by the arbiter; an invalid move is explained and asked
    again. `resign` resigns; `moves` lists the legal moves.
    """

    is_person = True

    def __init__(self, spec, settings, listen_socket=None):
        self.spec = spec
        self.name = spec.name
        self.settings = settings
        self.listener = listen_socket
        self.conn = None
        self.rfile = self.wfile = None
        if spec.kind == "human":
            self.rfile, self.wfile = sys.stdin, sys.stdout

    def ensure_ready(self, recover):
        if self.spec.kind == "remote" and self.conn is None:
            host, port = self.listener.getsockname()[:2]
            if host in ("0.0.0.0", "::"):
                host = "<this machine's address>"
            print("Waiting for %s to join: nc %s %d" % (self.name, host, port), flush=True)
            self.conn, peer = self.listener.accept()
            self.rfile = self.conn.makefile("r", encoding="utf-8", errors="replace", newline=None)
            self.wfile = self.conn.makefile("w", encoding="utf-8", newline="\n")
            print("%s joined from %s:%d" % (self.name, peer[0], peer[1]), flush=True)
            self.write("Welcome %s. Type a move at the prompt; 'moves' lists them, "
                       "'resign' gives up.\n" % self.name)

    def write(self, text):
        try:
            self.wfile.write(text)
            self.wfile.flush()
        except (OSError, ValueError):
            self._drop()
            raise SeatFailure("disconnect", "%s left" % self.name)

    def _drop(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except OSError:
                pass
        if self.spec.kind == "remote":
            self.conn = None

    def prepare(self, game_type, moves_first):
        pass

    def new_game(self, gs, side, sides):
        self.side = side
        self.write("\nNew game %s: you play %s.\n" % (gs.game_type, side))

    def tell(self, move):
        pass

    def get_move(self, ctx):
        self.write("\n%s\n" % ctx.arbiter.show())
        if ctx.last_move:
            self.write("%s played %s.\n" % (ctx.opponent_name, ctx.last_move))
        while True:
            self.write("%s (%s) to move> " % (self.name, ctx.side))
            start = time.monotonic()
            try:
                line = self.rfile.readline()
            except (OSError, ValueError):
                line = ""
            if not line:
                self._drop()
                raise SeatFailure("disconnect", "%s: end of input" % self.name)
            move = line.strip()
            if not move:
                continue
            if move.lower() in ("resign", "quit"):
                raise SeatFailure("resign", "%s resigned" % self.name)
            if move.lower() in ("moves", "validmoves", "?"):
                self.write("legal moves: %s\n" % ";".join(ctx.arbiter.validmoves()))
                continue
            err = ctx.check(move)
            if err:
                self.write("%s; try again ('moves' lists the legal moves)\n" % err)
                continue
            return move, time.monotonic() - start

    def game_over(self, text):
        try:
            self.write(text + "\n")
        except SeatFailure:
            pass

    def close(self):
        if self.spec.kind == "remote":
            try:
                self.write("Match over. Goodbye.\n")
            except SeatFailure:
                pass
            self._drop()


class MoveContext:
    def __init__(self, arbiter, clocks, me, first_side_seat, side, opponent_name, last_move):
        self.arbiter = arbiter
        self.clocks = clocks
        self.me = me
        self.first_side_seat = first_side_seat
        self.side = side
        self.opponent_name = opponent_name
        self.last_move = last_move
        self.checked = None

    def check(self, move):
        """For people: play the move in the arbiter; None if legal, else the reason."""
        gs, err = self.arbiter.play(move)
        if err:
            return err
        self.checked = (move, gs)
        return None


# ---------------------------------------------------------------------------
# One game
# ---------------------------------------------------------------------------

def play_game(arbiter, seats, first_seat, opening, settings):
    """Plays one game. seats[0] and seats[1] are the match's seats A and B;
    first_seat (0 or 1) plays the side that moves first in the game type.
    Returns the record as a dict (result from the arbiter's GameString)."""
    start_gs = arbiter.newgame(opening["type"])
    first_side = start_gs.turn_side
    sides = {first_side: first_seat}
    names = [None, None]
    names[first_seat] = first_side
    # The second side's name: the Turn field after any first move.
    moves = arbiter.validmoves()
    if moves:
        after, err = arbiter.play(moves[0])
        if after and after.turn_side != first_side:
            sides[after.turn_side] = 1 - first_seat
            names[1 - first_seat] = after.turn_side
    gs = arbiter.newgame(opening["gamestring"])

    def seat_of(side):
        if side not in sides:
            sides[side] = 1 - first_seat
            names[1 - first_seat] = side
        return sides[side]

    seat_of(gs.turn_side)
    record = {"opening": opening["gamestring"], "moves": [], "started": now_text()}
    clocks = []
    for s in seats:
        tc = s.spec.tc or settings.tc
        clocks.append([tc[0], tc[1]] if tc else [0, 0])
    failure, loser = None, None
    for i, seat in enumerate(seats):
        try:
            seat.prepare(gs.game_type, i == first_seat)
            seat.new_game(gs, names[i] or "the second side", names)
        except SeatFailure as e:
            failure, loser = e, i
            break
    # Plies are counted here rather than read from the GameString, which may
    # carry extra fields after the moves once the game is over (Mastermind's
    # secret).
    opening_plies = ply = len(gs.moves)
    last_move = None
    while failure is None and not gs.finished:
        if settings.max_plies and ply - opening_plies >= settings.max_plies:
            break
        me = seat_of(gs.turn_side)
        seat = seats[me]
        ctx = MoveContext(arbiter, clocks, me, first_seat, gs.turn_side, seats[1 - me].name,
                          last_move)
        try:
            move, used = seat.get_move(ctx)
        except SeatFailure as e:
            failure, loser = e, me
            break
        if ctx.checked and ctx.checked[0] == move:
            new_gs = ctx.checked[1]
        else:
            new_gs, err = arbiter.play(move)
            if err:
                failure, loser = SeatFailure("illegal", "%s played %r: %s" % (seat.name, move, err)), me
                record["moves"].append({"side": gs.turn_side, "player": seat.name, "move": move,
                                        "ms": int(round(used * 1000)), "illegal": True})
                break
        canonical = new_gs.moves[ply] if len(new_gs.moves) > ply else move
        ply += 1
        record["moves"].append({"side": gs.turn_side, "player": seat.name, "move": canonical,
                                "ms": int(round(used * 1000))})
        if clocks[me][0] or clocks[me][1]:
            clocks[me][0] = clocks[me][0] - used * 1000 + clocks[me][1]
        gs = new_gs
        last_move = canonical
        for i in (0, 1):
            try:
                seats[i].tell(canonical)
            except SeatFailure as e:
                failure, loser = e, i
                break
    seat_of(gs.turn_side)
    record["final"] = gs.text
    record["sides"] = [names[0], names[1]]
    record["first_seat"] = first_seat
    if failure is not None:
        record["winner"] = 1 - loser
        record["reason"] = failure.reason
        record["detail"] = failure.detail
    elif gs.finished:
        ws = gs.winner_side
        record["winner"] = seat_of(ws) if ws else None
        record["reason"] = "rules"
        record["detail"] = gs.state
    else:
        record["winner"] = None
        record["reason"] = "maxplies"
        record["detail"] = "adjudicated a draw after %d plies" % settings.max_plies
    record["plies"] = ply
    if any(s.is_person for s in seats):
        board = arbiter.show()
        for s in seats:
            if s.is_person:
                s.game_over("\n%s\nFinal: %s" % (board, gs.text))
    if is_mastermind(gs.game_type):
        record["points"] = mastermind_points(record, first_seat, ply, gs)
        # The secret is known to the codemaker's engine only.
        maker_reply = getattr(seats[1 - first_seat], "last_reply", None) or ""
        secret = [f for f in maker_reply.split(";") if f.startswith("Secret=")]
        if secret and failure is None:
            record["detail"] = "%s, %s" % (record["detail"], secret[0])
    record["finished"] = now_text()
    return record


def mastermind_points(record, breaker_seat, plies, gs):
    """Points of seats A and B in a Mastermind round. The codebreaker moves
    first (a guess), the codemaker answers (a feedback). The codemaker scores
    one point per guess plus one if the code is not broken. A codemaker that
    loses by forfeit scores 0; a codebreaker's forfeit counts as not broken."""
    maker = 1 - breaker_seat
    guesses = (plies + 1) // 2
    points = [0, 0]
    if record["reason"] != "rules" and record["winner"] == breaker_seat:
        points[maker] = 0
    else:
        broken = record["reason"] == "rules" and record["winner"] == breaker_seat
        points[maker] = guesses + (0 if broken else 1)
    return points


def now_text():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


# ---------------------------------------------------------------------------
# Database
# ---------------------------------------------------------------------------

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    id INTEGER PRIMARY KEY,
    created TEXT NOT NULL,
    game_type TEXT NOT NULL,
    config TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
    game_index INTEGER NOT NULL,
    game_type TEXT NOT NULL,
    first_player TEXT NOT NULL,
    second_player TEXT NOT NULL,
    first_side TEXT,
    second_side TEXT,
    first_options TEXT NOT NULL,
    second_options TEXT NOT NULL,
    opening TEXT NOT NULL,
    result TEXT NOT NULL,
    winner TEXT,
    reason TEXT NOT NULL,
    detail TEXT,
    final TEXT NOT NULL,
    plies INTEGER NOT NULL,
    first_points INTEGER,
    second_points INTEGER,
    started TEXT,
    finished TEXT,
    UNIQUE (tournament_id, game_index)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    side TEXT NOT NULL,
    player TEXT NOT NULL,
    move TEXT NOT NULL,
    ms INTEGER NOT NULL,
    illegal INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (game_id, ply)
);
"""


def open_db(path):
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
    conn.executescript(SCHEMA)
    return conn


def seat_options_json(spec):
    data = {"kind": spec.kind, "options": spec.options}
    if spec.cmd:
        data["cmd"] = spec.cmd
    for key in ("st", "tc", "depth"):
        if getattr(spec, key) is not None:
            data[key] = getattr(spec, key)
    if spec.proto != "meeple":
        data["proto"] = spec.proto
    return json.dumps(data, sort_keys=True)


def store_game(conn, tournament_id, index, game_type, seats, record):
    first, second = record["first_seat"], 1 - record["first_seat"]
    winner = record["winner"]
    if winner is None:
        result = "1/2-1/2"
    else:
        result = "1-0" if winner == first else "0-1"
    points = record.get("points")
    with conn:
        cur = conn.execute(
            "INSERT INTO games (tournament_id, game_index, game_type, first_player, second_player,"
            " first_side, second_side, first_options, second_options, opening, result, winner,"
            " reason, detail, final, plies, first_points, second_points, started, finished)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (tournament_id, index, game_type, seats[first].name, seats[second].name,
             record["sides"][first], record["sides"][second],
             seat_options_json(seats[first].spec), seat_options_json(seats[second].spec),
             record["opening"], result, None if winner is None else seats[winner].name,
             record["reason"], record.get("detail"), record["final"], record["plies"],
             points[first] if points else None, points[second] if points else None,
             record["started"], record["finished"]))
        game_id = cur.lastrowid
        base = len(GameString(record["opening"]).moves)
        conn.executemany(
            "INSERT INTO moves (game_id, ply, side, player, move, ms, illegal) VALUES (?,?,?,?,?,?,?)",
            [(game_id, base + k + 1, m["side"], m["player"], m["move"], m["ms"],
              1 if m.get("illegal") else 0) for k, m in enumerate(record["moves"])])
    return game_id


# ---------------------------------------------------------------------------
# Openings
# ---------------------------------------------------------------------------

def make_openings(arbiter, game_type, count, plies, path, seed):
    """`count` openings as GameStrings: from a file (cycled in order) or by
    `plies` random moves (games that end inside the opening are redrawn)."""
    if is_mastermind(game_type) or (not path and not plies):
        gs = arbiter.newgame(game_type)
        return [gs.text] * count
    if path:
        texts = []
        with open(path, encoding="utf-8") as f:
            for raw in f:
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                gs, err = arbiter.try_newgame(line)
                if err or gs.game_type.lower() != arbiter.newgame(game_type).game_type.lower():
                    gs, err2 = arbiter.position(game_type, line)
                    if err2:
                        raise RefereeError("opening %r: %s" % (line, err or err2))
                if gs.finished:
                    raise RefereeError("opening %r is a finished game" % line)
                texts.append(gs.text)
        if not texts:
            raise RefereeError("no openings in %s" % path)
        return [texts[i % len(texts)] for i in range(count)]
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        for _attempt in range(100):
            gs = arbiter.newgame(game_type)
            for _ in range(plies):
                moves = arbiter.validmoves()
                if not moves:
                    break
                gs, err = arbiter.play(rng.choice(moves))
                if err:
                    raise RefereeError("arbiter rejected its own valid move: %s" % err)
                if gs.finished:
                    break
            if not gs.finished:
                break
        else:
            raise RefereeError("cannot draw a %d-ply opening that does not end the game" % plies)
        out.append(gs.text)
    return out


# ---------------------------------------------------------------------------
# The match
# ---------------------------------------------------------------------------

class Settings:
    pass


def default_arbiter():
    env = os.environ.get("MEEPLE_BIN")
    if env:
        return shlex.quote(env)
    for sub in ("release", "debug"):
        path = os.path.join(REPO_ROOT, "target", sub, "meeple")
        if os.path.exists(path):
            return shlex.quote(path)
    return "meeple"


class Match:
    def __init__(self, conn, tournament_id, config, settings, out=sys.stdout):
        self.conn = conn
        self.tid = tournament_id
        self.config = config
        self.settings = settings
        self.out = out
        self.specs = [SeatSpec.from_json(s) for s in config["seats"]]
        self.game_type = config["game_type"]
        self.openings = config["openings"]
        self.total = config["games"]
        self.lock = threading.RLock()
        self.stop = threading.Event()
        self.stop_reason = None
        self.error = None
        self.wdl = [0, 0, 0]
        self.points = [0, 0]
        self.done = 0
        for row in conn.execute(
                "SELECT first_player, winner, first_points, second_points FROM games"
                " WHERE tournament_id = ?", (tournament_id,)):
            self._count(row[0], row[1], row[2], row[3])
            self.done += 1

    def _count(self, first_player, winner, first_points, second_points):
        a = self.specs[0].name
        if winner is None:
            self.wdl[1] += 1
        elif winner == a:
            self.wdl[0] += 1
        else:
            self.wdl[2] += 1
        if first_points is not None:
            a_first = first_player == a
            self.points[0] += first_points if a_first else second_points
            self.points[1] += second_points if a_first else first_points

    def say(self, *lines):
        for line in lines:
            print(line, file=self.out, flush=True)

    def report(self):
        names = (self.specs[0].name, self.specs[1].name)
        if is_mastermind(self.game_type):
            # Round winners say little here (a codebreaker nearly always
            # breaks the code): the match is decided by points.
            a, b = self.points
            lead = ("%s leads" % names[0] if a > b else "%s leads" % names[1] if b > a
                    else "level")
            self.say("Mastermind %s vs %s after %d rounds: points %s %d, %s %d (%s)"
                     % (names[0], names[1], sum(self.wdl), names[0], a, names[1], b, lead),
                     "Points: %s %d, %s %d" % (names[0], a, names[1], b))
            return
        lines = rating_lines(names[0], names[1], *self.wdl, sprt=self.settings.sprt)
        with self.lock:
            rows = self.conn.execute("SELECT game_index, winner FROM games WHERE tournament_id = ?",
                                     (self.tid,)).fetchall()
        lines.insert(1, "Ptnml(0-2) of %s over game pairs (same opening, colours swapped): %s"
                     % (names[0], pentanomial(rows, names[0])))
        self.say(*lines)

    def pending(self):
        done = {r[0] for r in self.conn.execute(
            "SELECT game_index FROM games WHERE tournament_id = ?", (self.tid,))}
        return [i for i in range(self.total) if i not in done]

    def run(self):
        todo = self.pending()
        work = queue.Queue()
        for i in todo:
            work.put(i)
        people = any(s.kind != "engine" for s in self.specs)
        shared_people = {}
        for k, spec in enumerate(self.specs):
            if spec.kind == "remote":
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                sock.bind(spec.address)
                sock.listen(1)
                shared_people[k] = PersonSeat(spec, self.settings, sock)
            elif spec.kind == "human":
                shared_people[k] = PersonSeat(spec, self.settings)
        workers = 1 if people else max(1, min(self.settings.concurrency, len(todo) or 1))
        threads = [threading.Thread(target=self._worker, args=(work, shared_people), daemon=True)
                   for _ in range(workers)]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.2)
        except KeyboardInterrupt:
            self.stop.set()
            self.stop_reason = "interrupted"
            for t in threads:
                t.join(5)
        for seat in shared_people.values():
            seat.close()
            if seat.listener:
                seat.listener.close()
        finished = not self.pending()
        sprt_stop = bool(self.stop_reason and self.stop_reason.startswith("SPRT"))
        if finished or sprt_stop:
            with self.lock, self.conn:
                self.conn.execute("UPDATE tournaments SET finished = 1 WHERE id = ?", (self.tid,))
        self.say("Finished match" if finished else "Match stopped: %s" % (self.stop_reason or self.error))
        self.report()
        # 0: complete (or decided by SPRT); 2: referee error; 130: Ctrl-C;
        # 1: stopped by an engine failure without --recover.
        if self.error is not None:
            return 2
        if finished or sprt_stop:
            return 0
        return 130 if self.stop_reason == "interrupted" else 1

    def _worker(self, work, shared_people):
        seats = [shared_people.get(k) or EngineSeat(spec, self.settings)
                 for k, spec in enumerate(self.specs)]
        arbiter = None
        try:
            arbiter = Arbiter(self.settings.arbiter)
            arbiter.prepare(self.game_type)
            if any(s.kind == "human" for s in self.specs) and sys.stdout.isatty():
                arbiter.set_color()
            while not self.stop.is_set():
                try:
                    index = work.get_nowait()
                except queue.Empty:
                    break
                for seat in seats:
                    seat.ensure_ready(self.settings.recover)
                first_seat = index % 2
                opening = {"type": self.game_type, "gamestring": self.openings[index // 2]}
                record = play_game(arbiter, seats, first_seat, opening, self.settings)
                self._finish(index, seats, record)
                if not self.settings.recover:
                    for k, seat in enumerate(seats):
                        if getattr(seat, "failed", False):
                            self.stop_reason = ("engine %s %s; use --recover to restart it"
                                                % (seat.name, record["reason"]))
                            self.stop.set()
        except Exception as e:  # noqa: BLE001 - any failure stops the match cleanly
            if not isinstance(e, RefereeError):
                import traceback
                traceback.print_exc()
            with self.lock:
                self.error = str(e)
                self.stop_reason = "referee error: %s" % e
            self.say("referee error: %s" % e)
            self.stop.set()
        finally:
            for k, seat in enumerate(seats):
                if k not in shared_people:
                    seat.close()
            if arbiter:
                arbiter.close()

    def _finish(self, index, seats, record):
        with self.lock:
            game_id = store_game(self.conn, self.tid, index, self.game_type, seats, record)
            first = record["first_seat"]
            winner = record["winner"]
            points = record.get("points")
            self._count(seats[first].name, None if winner is None else seats[winner].name,
                        points[first] if points else None,
                        points[1 - first] if points else None)
            self.done += 1
            result = "1/2-1/2" if winner is None else ("1-0" if winner == first else "0-1")
            why = record["reason"] + (": " + record["detail"] if record.get("detail") else "")
            a = self.specs[0].name
            sc = self.wdl[0] + self.wdl[1] / 2.0
            line = ("Finished game %d (%s vs %s): %s {%s}  #%d"
                    % (index + 1, seats[first].name, seats[1 - first].name, result, why, game_id))
            if points:
                line += "  points %d-%d, match %s %d - %d %s" % (
                    points[first], points[1 - first], a, self.points[0], self.points[1],
                    self.specs[1].name)
            else:
                line += "  %s %.1f/%d" % (a, sc, sum(self.wdl))
            self.say(line)
            text = "Game over: %s (%s)" % (result, why)
            for seat in seats:
                seat.game_over(text)
            n = sum(self.wdl)
            if self.settings.rating_interval and n % self.settings.rating_interval == 0 \
                    and self.done < self.total:
                self.report()
            sprt = self.settings.sprt
            if sprt and not self.stop.is_set() and not is_mastermind(self.game_type):
                llr = sprt_llr(*self.wdl, sprt["elo0"], sprt["elo1"])
                lo, hi = sprt_bounds(sprt["alpha"], sprt["beta"])
                if llr >= hi or llr <= lo:
                    self.stop_reason = "SPRT: %s accepted (llr %.3f)" % ("H1" if llr >= hi else "H0", llr)
                    self.stop.set()


def parse_sprt(text):
    values = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05}
    for tok in text.replace(",", " ").split():
        key, _, value = tok.partition("=")
        if key not in values:
            raise argparse.ArgumentTypeError("unknown SPRT parameter %r" % key)
        values[key] = float(value)
    return values


def match_parser():
    ap = argparse.ArgumentParser(
        prog="referee.py match",
        description="Play a match between two seats (engines or people) and record it.")
    ap.add_argument("--engine", action="append", nargs="+", default=[], metavar="KEY=VALUE",
                    help="a seat, given twice: name=N cmd=\"COMMAND\" option.NAME=VALUE st=SEC "
                         "tc=BASE+INC depth=N proto=meeple|uhp dir=DIR; or `human` (this "
                         "terminal) or remote=HOST:PORT (listen; join with nc), optionally name=N")
    ap.add_argument("--each", nargs="+", default=[], metavar="KEY=VALUE",
                    help="tokens applied to both engine seats (e.g. option.Depth=4 st=0.1)")
    ap.add_argument("--game", default="Connect4", help="game type (default Connect4)")
    ap.add_argument("--games", type=int, default=None,
                    help="number of games (Mastermind: rounds, even); default %d between engines, "
                         "%d with a person" % (DEFAULT_GAMES, DEFAULT_HUMAN_GAMES))
    ap.add_argument("--rounds", type=int, default=None, help="same as --games (Mastermind)")
    ap.add_argument("--st", type=float, default=None, help="seconds per move")
    ap.add_argument("--tc", type=parse_tc, default=None, help="per game: BASE+INC seconds, e.g. 60+0.5")
    ap.add_argument("--timemargin", type=float, default=0.1,
                    help="seconds an engine may exceed its time (default 0.1)")
    ap.add_argument("--stall-timeout", type=float, default=10.0,
                    help="seconds without a reply, beyond the move's time, that count as a "
                         "stall (default 10)")
    ap.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    ap.add_argument("--openings", default=None, help="file of openings: GameStrings or move lists")
    ap.add_argument("--random-plies", type=int, default=0,
                    help="openings of N random plies (default 0: the start position)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the random openings")
    ap.add_argument("--max-plies", type=int, default=0,
                    help="adjudicate a draw after N plies past the opening (default 0 = never)")
    ap.add_argument("--rating-interval", type=int, default=10,
                    help="print the rating every N games (default 10, 0 = only at the end)")
    ap.add_argument("--sprt", nargs="+", default=None, metavar="KEY=VALUE",
                    help="elo0=0 elo1=10 alpha=0.05 beta=0.05 (these are the defaults): stop "
                         "when the LLR crosses a bound")
    ap.add_argument("--recover", action="store_true",
                    help="restart an engine that crashed or stalled (it loses that game)")
    ap.add_argument("--db", default=DEFAULT_DB, help="SQLite file (default %s)" % DEFAULT_DB)
    ap.add_argument("--resume", nargs="?", const="last", default=None, metavar="TOURNAMENT",
                    help="continue an interrupted tournament (default: the last unfinished one)")
    ap.add_argument("--arbiter", default=None,
                    help="the arbiter's command (default $MEEPLE_BIN or target/release/meeple)")
    ap.add_argument("--engine-stderr", action="store_true", help="show the engines' stderr")
    return ap


def cmd_match(argv, out=sys.stdout):
    args = match_parser().parse_args(argv)
    settings = Settings()
    settings.arbiter = args.arbiter or default_arbiter()
    settings.timemargin = args.timemargin
    settings.stall_timeout = args.stall_timeout
    settings.concurrency = args.concurrency
    settings.recover = args.recover
    settings.rating_interval = args.rating_interval
    try:
        settings.sprt = parse_sprt(" ".join(args.sprt)) if args.sprt else None
    except (argparse.ArgumentTypeError, ValueError) as e:
        print("referee.py: --sprt: %s" % e, file=sys.stderr)
        return 2
    settings.engine_stderr = args.engine_stderr
    if args.resume:
        if not os.path.exists(args.db):
            print("nothing to resume in %s (no such file)" % args.db, file=sys.stderr)
            return 1
        conn = open_db(args.db)
        if args.resume == "last":
            row = conn.execute("SELECT id, config FROM tournaments WHERE finished = 0"
                               " ORDER BY id DESC LIMIT 1").fetchone()
        else:
            row = conn.execute("SELECT id, config FROM tournaments WHERE id = ?",
                               (int(args.resume),)).fetchone()
        if not row:
            print("nothing to resume in %s" % args.db, file=sys.stderr)
            return 1
        tid, config = row[0], json.loads(row[1])
        print("Resuming tournament %d" % tid, file=out, flush=True)
    else:
        try:
            specs = [SeatSpec(tokens, args.each if not tokens[0].startswith(("human", "remote"))
                              else ()) for tokens in args.engine]
        except argparse.ArgumentTypeError as e:
            print("referee.py: %s" % e, file=sys.stderr)
            return 2
        if len(specs) != 2:
            print("referee.py: give exactly two seats (--engine ... twice)", file=sys.stderr)
            return 2
        if specs[0].name == specs[1].name:
            specs[1].name += "-2"
        games = args.games or args.rounds
        if games is None:
            people = any(s.kind != "engine" for s in specs)
            games = DEFAULT_HUMAN_GAMES if people else DEFAULT_GAMES
        if is_mastermind(args.game) and games % 2:
            print("referee.py: a Mastermind match needs an even number of rounds", file=sys.stderr)
            return 2
        seed = args.seed if args.seed is not None else random.randrange(1 << 30)
        try:
            arbiter = Arbiter(settings.arbiter)
            try:
                arbiter.prepare(args.game)
                game_type = arbiter.newgame(args.game).game_type
                openings = make_openings(arbiter, game_type, (games + 1) // 2,
                                         args.random_plies, args.openings, seed)
            finally:
                arbiter.close()
        except RefereeError as e:
            print("referee.py: %s" % e, file=sys.stderr)
            return 2
        config = {"seats": [s.to_json() for s in specs], "game_type": game_type, "games": games,
                  "openings": openings, "seed": seed,
                  "st": args.st, "tc": list(args.tc) if args.tc else None,
                  "max_plies": args.max_plies}
        conn = open_db(args.db)
        with conn:
            tid = conn.execute("INSERT INTO tournaments (created, game_type, config) VALUES (?,?,?)",
                               (now_text(), game_type, json.dumps(config))).lastrowid
        print("Tournament %d: %s vs %s, %s, %d games, db %s"
              % (tid, specs[0].name, specs[1].name, game_type, games, args.db), file=out, flush=True)
    settings.st = config.get("st")
    settings.tc = tuple(config["tc"]) if config.get("tc") else None
    settings.max_plies = config.get("max_plies") or 0
    settings.game_type = config["game_type"]
    for spec in config["seats"]:
        if spec["kind"] == "engine":
            if spec.get("st") is None and spec.get("tc") is None:
                spec["st"] = settings.st
                spec["tc"] = list(settings.tc) if settings.tc else None
    match = Match(conn, tid, config, settings, out)
    return match.run()


# ---------------------------------------------------------------------------
# leaderboard and show
# ---------------------------------------------------------------------------

def fit_ratings(games, players, iterations=200):
    """Elo ratings by maximum likelihood (logistic model, a draw = half a
    win), each player given one virtual draw against a 0-rated anchor so that
    perfect scores stay finite. games: (a, b, score of a)."""
    r = {p: 0.0 for p in players}
    k = math.log(10) / 400.0
    for _ in range(iterations):
        grad = {p: 0.0 for p in players}
        hess = {p: 0.0 for p in players}
        for a, b, s in games:
            e = 1.0 / (1.0 + math.exp(-k * (r[a] - r[b])))
            grad[a] += s - e
            grad[b] += (1 - s) - (1 - e)
            hess[a] += e * (1 - e)
            hess[b] += e * (1 - e)
        for p in players:
            e = 1.0 / (1.0 + math.exp(-k * r[p]))
            grad[p] += 0.5 - e
            hess[p] += e * (1 - e)
            # Damped Newton step (simultaneous full steps can overshoot).
            r[p] += max(-100.0, min(100.0, grad[p] / (k * hess[p])))
    return r


def leaderboard_rows(conn, game=None):
    query = "SELECT first_player, second_player, winner, first_points, second_points FROM games"
    params = ()
    if game:
        query += " WHERE lower(game_type) LIKE ?"
        params = (game.lower() + "%",)
    stats, games = {}, []
    for first, second, winner, p1, p2 in conn.execute(query, params):
        for name in (first, second):
            stats.setdefault(name, {"games": 0, "wins": 0, "draws": 0, "losses": 0, "points": 0})
        for name, pts in ((first, p1), (second, p2)):
            st = stats[name]
            st["games"] += 1
            st["points"] += pts or 0
            if winner is None:
                st["draws"] += 1
            elif winner == name:
                st["wins"] += 1
            else:
                st["losses"] += 1
        games.append((first, second, 0.5 if winner is None else (1.0 if winner == first else 0.0)))
    ratings = fit_ratings(games, list(stats)) if stats else {}
    for name, st in stats.items():
        st["name"] = name
        st["elo"] = ratings.get(name, 0.0)
        st["score"] = (st["wins"] + st["draws"] / 2.0) / st["games"] if st["games"] else 0.0
    return list(stats.values())


def cmd_leaderboard(argv, out=sys.stdout):
    ap = argparse.ArgumentParser(prog="referee.py leaderboard",
                                 description="Players ranked by wins and by Elo.")
    ap.add_argument("--db", default=DEFAULT_DB)
    ap.add_argument("--game", default=None, help="only games whose type starts with G")
    args = ap.parse_args(argv)
    if not os.path.exists(args.db):
        print("no database at %s" % args.db, file=sys.stderr)
        return 1
    rows = leaderboard_rows(open_db(args.db), args.game)
    if not rows:
        print("no games recorded", file=out)
        return 0
    mm = any(r["points"] for r in rows)
    head = "%-4s %-24s %6s %6s %6s %6s %7s" % ("rank", "player", "games", "wins", "draws",
                                              "losses", "score")
    print("By wins:", file=out)
    print(head + ("  points" if mm else ""), file=out)
    by_wins = sorted(rows, key=lambda r: (-r["wins"], r["losses"], r["name"]))
    for i, r in enumerate(by_wins, 1):
        print("%-4d %-24s %6d %6d %6d %6d %6.1f%%" % (i, r["name"], r["games"], r["wins"],
                                                      r["draws"], r["losses"], 100 * r["score"])
              + ("  %6d" % r["points"] if mm else ""), file=out)
    print("\nBy Elo (maximum likelihood, mean near 0):", file=out)
    print("%-4s %-24s %7s %6s" % ("rank", "player", "elo", "games"), file=out)
    for i, r in enumerate(sorted(rows, key=lambda r: (-r["elo"], r["name"])), 1):
        print("%-4d %-24s %7.0f %6d" % (i, r["name"], r["elo"], r["games"]), file=out)
    return 0


def cmd_show(argv, out=sys.stdout):
    ap = argparse.ArgumentParser(prog="referee.py show",
                                 description="A game's record and its final board.")
    ap.add_argument("game_id", type=int)
    ap.add_argument("--db", default=DEFAULT_DB)
    ap.add_argument("--arbiter", default=None)
    args = ap.parse_args(argv)
    if not os.path.exists(args.db):
        print("no database at %s" % args.db, file=sys.stderr)
        return 1
    conn = open_db(args.db)
    row = conn.execute(
        "SELECT tournament_id, game_index, game_type, first_player, second_player, first_side,"
        " second_side, first_options, second_options, opening, result, winner, reason, detail,"
        " final, plies, first_points, second_points, started, finished FROM games WHERE id = ?",
        (args.game_id,)).fetchone()
    if not row:
        print("no game %d in %s" % (args.game_id, args.db), file=sys.stderr)
        return 1
    (tid, index, game_type, p1, p2, s1, s2, o1, o2, opening, result, winner, reason, detail,
     final, plies, pts1, pts2, started, finished) = row
    print("Game %d (tournament %d, game %d): %s" % (args.game_id, tid, index + 1, game_type), file=out)
    print("%s: %s %s" % (s1 or "first", p1, o1), file=out)
    print("%s: %s %s" % (s2 or "second", p2, o2), file=out)
    print("Opening: %s" % opening, file=out)
    print("Result: %s, winner %s, reason %s%s" % (result, winner or "none", reason,
                                                 " (%s)" % detail if detail else ""), file=out)
    if pts1 is not None:
        print("Points: %s %d, %s %d" % (p1, pts1, p2, pts2), file=out)
    print("Played %s .. %s" % (started, finished), file=out)
    print("Moves:", file=out)
    for ply, side, player, move, ms, illegal in conn.execute(
            "SELECT ply, side, player, move, ms, illegal FROM moves WHERE game_id = ? ORDER BY ply",
            (args.game_id,)):
        print("  %3d. %-8s %-12s %-16s %6d ms%s" % (ply, side, player, move, ms,
                                                   "  (illegal)" if illegal else ""), file=out)
    print("Final: %s" % final, file=out)
    try:
        arbiter = Arbiter(args.arbiter or default_arbiter(), timeout=10)
        try:
            arbiter.prepare(game_type)
            arbiter.newgame(final)
            print(arbiter.show(), file=out)
        finally:
            arbiter.close()
    except RefereeError as e:
        print("(no board: %s)" % e, file=out)
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "leaderboard":
        return cmd_leaderboard(argv[1:])
    if argv and argv[0] == "show":
        return cmd_show(argv[1:])
    if argv and argv[0] == "match":
        argv = argv[1:]
    if not argv or argv[0] in ("-h", "--help") and len(argv) == 1:
        print(__doc__)
        if not argv:
            return 2
    return cmd_match(argv)


if __name__ == "__main__":
    sys.exit(main())
