"""Who sits at the board: engine seats (any protocol) and people.

`SeatSpec` is one `--engine` argument; `EngineSeat` runs its process and
plays through a protocol client (protocols.py); `PersonSeat` is a person at
this terminal or over a TCP connection.
"""

import os
import queue
import shutil
import socket
import subprocess
import sys
import time

from .adjudication import parse_depth, parse_score
from .clocks import DEFAULT_TIMEMARGIN, Limits, go_fields, parse_count, parse_seconds, parse_tc
from .errors import RefereeError, SeatFailure
from .gamestring import is_mastermind
from .process import Process, split_command
from .protocols import CLIENTS, PROTOCOLS

MAX_PERSON_LINE = 4096


class SeatSpec:
    """One `--engine` argument: key=value tokens, or `human`, or `remote=H:P`.
    Bad tokens raise ValueError with a one-line message."""

    def __init__(self, tokens, each=(), check=True):
        self.name = None
        self.kind = "engine"
        self.cmd = None
        self.dir = None
        self.proto = "meeple"
        self.options = {}
        self.st = None
        self.tc = None
        self.depth = None
        self.nodes = None
        self.timemargin = None
        self.restart = False
        self.address = None
        for tok in list(each) + list(tokens):
            self._apply(tok)
        if self.kind == "engine":
            if not self.cmd:
                raise ValueError("an engine seat needs cmd=...: %s" % " ".join(tokens))
            args = split_command(self.cmd)
        # The binary is looked for here unless it runs elsewhere (--cluster:
        # a worker checks it).
        if self.kind == "engine" and check:
            exe = args[0]
            if os.sep in exe:
                path = exe if os.path.isabs(exe) or not self.dir else os.path.join(self.dir, exe)
                if not os.path.isfile(path):
                    raise ValueError("engine binary %s not found" % exe)
                if not os.access(path, os.X_OK):
                    raise ValueError("engine binary %s is not executable" % exe)
            elif shutil.which(exe) is None:
                raise ValueError("engine binary %s not found in PATH" % exe)
        if not self.name:
            if self.kind == "engine":
                base = os.path.basename(split_command(self.cmd)[0])
                strat = self.options.get("Strategy") or self.options.get("strategy")
                self.name = base + ("-" + strat if strat else "")
            else:
                self.name = self.kind if self.kind == "human" else "remote"

    def _apply(self, tok):
        key, eq, value = tok.partition("=")
        low = key.lower()
        if not eq:
            if low == "human":
                self.kind = "human"
                return
            raise ValueError("bad seat token %r (want key=value)" % tok)
        if low == "name":
            if not value:
                raise ValueError("name= needs a name")
            self.name = value
        elif low == "cmd":
            split_command(value)
            self.cmd = value
        elif low == "dir":
            self.dir = value
        elif low == "proto":
            if value not in PROTOCOLS:
                raise ValueError("proto must be one of %s, not %r" % ("|".join(PROTOCOLS), value))
            self.proto = value
        elif low.startswith("option."):
            self.options[key[len("option."):]] = value
        elif low == "st":
            self.st = parse_seconds(value, "st")
        elif low == "tc":
            self.tc = parse_tc(value)
        elif low == "depth":
            self.depth = parse_count(value, "depth")
        elif low == "nodes":
            self.nodes = parse_count(value, "nodes")
        elif low == "timemargin":
            self.timemargin = parse_seconds(value, "timemargin", allow_zero=True)
        elif low == "restart":
            if value not in ("on", "off"):
                raise ValueError("restart must be on or off, not %r" % value)
            self.restart = value == "on"
        elif low == "remote":
            host, colon, port = value.rpartition(":")
            if not colon:
                raise ValueError("remote= wants HOST:PORT, not %r" % value)
            try:
                number = int(port)
            except ValueError:
                raise ValueError("remote=%s: the port must be a number, not %r" % (value, port))
            if not 0 <= number <= 65535:
                raise ValueError("remote=%s: the port must be 0..65535" % value)
            self.kind = "remote"
            self.address = (host or "127.0.0.1", number)
        else:
            raise ValueError("unknown seat key %r" % key)

    def limits(self, default_st=None, default_tc=None, default_margin=DEFAULT_TIMEMARGIN):
        st, tc = self.st, self.tc
        if st is None and tc is None:
            st, tc = default_st, default_tc
        margin = self.timemargin if self.timemargin is not None else default_margin
        return Limits(st=st, tc=tc, depth=self.depth, nodes=self.nodes, timemargin=margin)

    def to_json(self):
        data = dict(self.__dict__)
        data["tc"] = list(self.tc) if self.tc else None
        data["address"] = list(self.address) if self.address else None
        return data

    @classmethod
    def from_json(cls, data):
        spec = cls.__new__(cls)
        for key, default in (("nodes", None), ("timemargin", None), ("restart", False)):
            setattr(spec, key, default)
        spec.__dict__.update(data)
        spec.tc = tuple(spec.tc) if spec.tc else None
        spec.address = tuple(spec.address) if spec.address else None
        return spec


class EngineSeat:
    """An engine process in a seat. After a crash, a stall or a desync the
    seat is `broken` (restarted only with --recover); after any other
    failure it is restarted quietly before its next game."""

    is_person = False

    def __init__(self, spec, settings):
        self.spec = spec
        self.name = spec.name
        self.settings = settings
        self.limits = spec.limits(settings.st, settings.tc, settings.timemargin)
        self.proc = None
        self.client = None
        self.broken = False
        self.dirty = False
        self.codemaker = None
        self.games = 0

    def ensure_ready(self, recover):
        fresh = self.spec.restart and self.games > 0
        if (self.proc is not None and not self.broken and not self.dirty and not fresh
                and self.proc.alive()):
            return
        if self.proc is not None:
            if (self.broken or not self.proc.alive()) and not recover:
                raise RefereeError("engine %s failed and --recover is not set" % self.name)
            self.proc.kill()
        self.broken = self.dirty = False
        self.codemaker = None
        try:
            self.proc = Process(self.spec.cmd, cwd=self.spec.dir, label=self.name,
                                stderr=None if self.settings.engine_stderr else subprocess.DEVNULL,
                                score_of=parse_score)
        except SeatFailure as e:
            self.broken = True
            raise RefereeError("engine %s does not start: %s" % (self.name, e.detail))
        self.client = CLIENTS[self.spec.proto](self.proc, self.name, self.settings.stall_timeout)
        try:
            self.client.handshake(self.settings.game_type)
            for name, value in list(self.settings.game_options.items()) + list(
                    self.spec.options.items()):
                self.client.set_option(name, value)
            if self.spec.proto in ("uci", "ugi"):
                self.client.sync()
        except SeatFailure as e:
            self.broken = True
            raise RefereeError("engine %s does not start: %s" % (self.name, e.detail))

    def _guard(self, fn, *args):
        try:
            return fn(*args)
        except SeatFailure as e:
            if e.reason in ("crash", "stall", "desync"):
                self.broken = True
            elif e.reason != "illegal":
                self.dirty = True
            raise

    def codemaker_choice(self):
        for key, value in self.spec.options.items():
            if key.lower() in ("codemaker", "mastermind.codemaker"):
                return value.lower()
        return "random"

    def prepare(self, game_type, moves_first):
        """Mastermind: the codebreaker's engine keeps no secret (else it
        would refuse the codemaker's feedback)."""
        if not is_mastermind(game_type) or self.spec.proto != "meeple":
            return
        want = "none" if moves_first else self.codemaker_choice()
        if want != self.codemaker:
            self._guard(self.client.set_option, "Mastermind.Codemaker", want)
            self.codemaker = want

    def new_game(self, gamestring, side, sides):
        self.games += 1
        self._guard(self.client.new_game, gamestring)

    def tell(self, move):
        self._guard(self.client.tell, move)

    def get_move(self, ctx):
        """(move, seconds used, score, depth): the score and depth of the
        last `info` line with a score. Raises SeatFailure (crash, stall,
        time, error, desync); a time loss carries the late move."""
        return self._guard(self._get_move, ctx)

    def _get_move(self, ctx):
        client, proc = self.client, self.proc
        clock = ctx.clocks[ctx.me]
        fields = go_fields(ctx.clocks, ctx.me, ctx.first_seat)
        # The seat is judged by the time it was told, which UHP can only
        # say in whole seconds (`bestmove time 00:00:01` for st=0.1).
        allowed = client.search_time(fields, clock.allowed())
        margin = self.limits.timemargin
        stall = self.settings.stall_timeout
        client.check_in_step()
        lines = client.search_lines(fields, clock.allowed())
        for line in lines[:-1]:
            proc.send(line)
        start = proc.send(lines[-1])
        deadline = start + (allowed + margin if allowed is not None else stall)
        move = score = depth = arrived = None
        late = stopped = stop_ok = False
        oks = 0
        while True:
            try:
                text, at = proc.next_line(deadline)
            except queue.Empty:
                if stopped or allowed is None:
                    raise SeatFailure("stall", "%s: no reply to %r" % (self.name, lines[-1]))
                late = True
                if client.stop_line is None:
                    # UHP cannot be stopped: the time is lost now, and the
                    # engine restarted before its next game.
                    self.dirty = True
                    raise SeatFailure("time", "%s: no move within %s (+%.3f margin)"
                                      % (self.name, told_text(client, allowed, lines[-1]),
                                         margin))
                stopped = True
                proc.send(client.stop_line)
                deadline = time.monotonic() + stall
                continue
            if text is None:
                raise SeatFailure("crash", "%s: exited during %r (status %s)"
                                  % (self.name, lines[-1], proc.status()))
            if text.startswith("info"):
                value = parse_score(text)
                if value is not None:
                    score, depth = value, parse_depth(text)
                continue
            if text.startswith(("err", "invalidmove")) and move is None:
                raise SeatFailure("error", "%s answered %r with %r"
                                  % (self.name, lines[-1], text[:200]))
            if client.terminated_by_ok and text.strip() == "ok":
                oks += 1
                if move is None:
                    if stopped and not stop_ok:
                        stop_ok = True  # stop's own `ok` came first
                        continue
                    raise SeatFailure("desync", "%s: `ok` before a move (an earlier stray `ok`?)"
                                      % self.name)
                if stopped and not stop_ok:
                    proc.reply(stall, "stop")  # stop's own `ok`
                break
            found = client.move_of(text)
            if found is not None and move is None:
                move, arrived = found, at
                if not client.terminated_by_ok:
                    break
            elif found is not None:
                raise SeatFailure("desync", "%s: a second move %r" % (self.name, text[:200]))
        used = arrived - start
        if not move or move in ("(none)", "0000"):
            raise SeatFailure("error", "%s gave no move to %r" % (self.name, lines[-1]))
        if late or (allowed is not None and used > allowed + margin):
            failure = SeatFailure("time", "%s used %.3f s of %s (+%.3f margin)"
                                  % (self.name, used, told_text(client, allowed, lines[-1]),
                                     margin))
            failure.move, failure.used, failure.score, failure.depth = move, used, score, depth
            raise failure
        return move, used, score, depth

    def game_over(self, text):
        pass

    def close(self):
        if self.proc:
            if self.broken or self.dirty:
                self.proc.kill()  # it may be busy or out of step: no `quit`
            else:
                self.proc.close()


def told_text(client, allowed, line):
    """The limit a seat was judged by, as a time-loss message names it:
    `1.000 s` (told as `bestmove time 00:00:01` for a UHP seat)."""
    text = "%.3f s" % (allowed or 0)
    if client.stop_line is None and line.startswith("bestmove time"):
        text += " (told as `%s`)" % line
    return text


def check_engine_seats(seat_data, settings):
    """Starts every engine seat of `seat_data` (SeatSpec JSON) once, sets its
    options and stops it again, as the referee does before recording a new
    match; RefereeError if one fails."""
    for data in seat_data:
        if data["kind"] != "engine":
            continue
        seat = EngineSeat(SeatSpec.from_json(data), settings)
        try:
            seat.ensure_ready(False)
        finally:
            if seat.proc is not None:
                seat.proc.kill()


class PersonSeat:
    """A person: `human` on this terminal or `remote` over a TCP connection.
    The board (from the arbiter's `show`) and a prompt are written; a move is
    read and checked by the arbiter; an invalid move is asked again.
    `resign` resigns; `moves` lists the legal moves."""

    is_person = True

    def __init__(self, spec, settings, listen_socket=None, stop=None):
        self.spec = spec
        self.name = spec.name
        self.settings = settings
        self.listener = listen_socket
        self.stop = stop
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
            self.listener.settimeout(0.2)
            while True:
                if self.stop is not None and self.stop.is_set():
                    raise RefereeError("stopped while waiting for %s to join" % self.name)
                try:
                    self.conn, peer = self.listener.accept()
                    break
                except socket.timeout:
                    continue
            self.conn.settimeout(None)
            self.rfile = self.conn.makefile("rb")
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

    def readline(self):
        """A line of at most MAX_PERSON_LINE bytes ('' at the end)."""
        try:
            if self.spec.kind == "remote":
                raw = self.rfile.readline(MAX_PERSON_LINE + 1)
                if len(raw) > MAX_PERSON_LINE and not raw.endswith(b"\n"):
                    while True:
                        more = self.rfile.readline(MAX_PERSON_LINE + 1)
                        if not more or more.endswith(b"\n"):
                            break
                    return "\x00long"
                return raw.decode("utf-8", "replace")
            line = self.rfile.readline(MAX_PERSON_LINE + 1)
            if len(line) > MAX_PERSON_LINE:
                while line and not line.endswith("\n"):
                    line = self.rfile.readline(MAX_PERSON_LINE + 1)
                return "\x00long"
            return line
        except (OSError, ValueError):
            return ""

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

    def codemaker_choice(self):
        return "person"

    def new_game(self, gamestring, side, sides):
        self.side = side
        self.write("\nNew game %s: you play %s.\n" % (gamestring.split(";")[0], side))

    def tell(self, move):
        pass

    def get_move(self, ctx):
        self.write("\n%s\n" % ctx.arbiter.show())
        if ctx.last_move:
            self.write("%s played %s.\n" % (ctx.opponent_name, ctx.last_move))
        while True:
            self.write("%s (%s) to move> " % (self.name, ctx.side))
            start = time.monotonic()
            line = self.readline()
            if not line:
                self._drop()
                raise SeatFailure("disconnect", "%s: end of input" % self.name)
            if line == "\x00long":
                self.write("that line is too long (at most %d bytes)\n" % MAX_PERSON_LINE)
                continue
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
            return move, time.monotonic() - start, None, None

    def game_over(self, text):
        try:
            self.write(text + "\n")
        except SeatFailure:
            pass

    def close(self):
        if self.spec.kind == "remote" and self.wfile is not None:
            try:
                self.write("Match over. Goodbye.\n")
            except SeatFailure:
                pass
            self._drop()
