"""How the referee talks to an engine: one client class per protocol.

  meeple  meeple's own protocol: every reply ends with `ok`; `newgame`
          then `isready` (the engine's set-up, such as an opening book
          being read, is done before the clock starts), `play`,
          `setoption`, `go ...` -> `info`..., `bestmove M`, `ok`
  uhp     the Universal Hive Protocol: `newgame`, `play`, `pass`,
          `options set`, `bestmove time hh:mm:ss|depth N` -> `M`, `ok`;
          it cannot be stopped, so a late engine is restarted
  uci     `uci`/`uciok`, `setoption`, `ucinewgame`, `isready`/`readyok`,
          `position fen <GameString> moves m1 m2`, `go wtime ...` ->
          `info ... score cp N`, `bestmove M`; no `ok` lines
  ugi     like uci with `ugi`/`ugiok`, `uginewgame` and
          `go p1time p2time p1inc p2inc`

In UCI and UGI a move is one token: a space inside a move (Hive's
`wS1 bG1-`) is sent as `_`. A token read back is handed to the arbiter
exactly as the engine wrote it: meeple reads `_` as a space only for
games whose moves contain spaces, and keeps it where `_` is a symbol
(Mastermind's blank, `1_23`); the referee then records the arbiter's
own form of the move.
"""

import math

from .errors import RefereeError, SeatFailure
from .gamestring import GameString
from .process import first_error

PROTOCOLS = ("meeple", "uhp", "uci", "ugi")


def to_token(move):
    return move.replace(" ", "_")


class Client:
    """What every protocol offers the engine seat."""

    terminated_by_ok = True
    stop_line = "stop"
    quit_line = "quit"

    def __init__(self, proc, label, timeout):
        self.proc = proc
        self.label = label
        self.timeout = timeout

    # -- helpers ----------------------------------------------------------
    def check_in_step(self):
        """Lines nobody asked for (a stray `ok`, a second `bestmove`) mean
        the engine is out of step with the referee: a desync."""
        for line in self.proc.pending():
            if line.strip() and not line.startswith("info"):
                raise SeatFailure("desync", "%s: unexpected line %r" % (self.label, line[:200]))

    def command(self, line):
        self.check_in_step()
        return self.proc.command(line, self.timeout)

    def gamestring_reply(self, line):
        out = self.command(line)
        err = first_error(out)
        if err:
            raise SeatFailure("error", "%s refused %r: %s" % (self.label, line, err))
        try:
            return GameString(out[-1])
        except (IndexError, ValueError):
            raise SeatFailure("desync", "%s answered %r with %r" % (self.label, line, out[:3]))

    # -- the interface ----------------------------------------------------
    def handshake(self, game_type):
        raise NotImplementedError

    def set_option(self, name, value):
        raise NotImplementedError

    def new_game(self, gamestring):
        raise NotImplementedError

    def tell(self, move):
        raise NotImplementedError

    def search_lines(self, fields, allowed):
        """The lines to write for a search (the last one starts the clock)."""
        raise NotImplementedError

    def search_time(self, fields, allowed):
        """The seconds the engine was given (UHP rounds up to whole seconds)."""
        return allowed

    def move_of(self, line):
        """The move in a line of the search's reply, or None."""
        if line.startswith("bestmove"):
            return line[len("bestmove"):].strip().split(" ponder ")[0].strip()
        return None


class MeepleClient(Client):
    def handshake(self, game_type):
        self.proc.reply(self.timeout, "the greeting")  # the unasked `info` + ok
        # A game of the match's type first, so that unqualified options
        # (`option.Strategy=knuth`) address that game's family.
        out = self.command("newgame " + game_type)
        err = first_error(out)
        if err:
            raise RefereeError("engine %s cannot play %s: %s" % (self.label, game_type, err))

    def option_line(self, name, value):
        return "setoption name %s value %s" % (name, value)

    def set_option(self, name, value):
        line = self.option_line(name, value)
        err = first_error(self.command(line))
        if err:
            raise SeatFailure("error", "%s refused %r: %s" % (self.label, line, err))

    def new_game(self, gamestring):
        self.gamestring_reply("newgame " + gamestring)
        # As UCI runners do: the first move's clock starts once the
        # engine has finished what the new game set going.
        self.command("isready")

    def tell(self, move):
        self.gamestring_reply("pass" if move.lower() == "pass" else "play " + move)

    def search_lines(self, fields, allowed):
        return ["go " + " ".join("%s %s" % kv for kv in fields) if fields else "go"]


class UhpClient(MeepleClient):
    stop_line = None

    def option_line(self, name, value):
        return "options set %s %s" % (name, value)

    def _uhp_seconds(self, allowed):
        return max(1, int(math.ceil(allowed - 1e-9)))  # hh:mm:ss has whole seconds

    def search_lines(self, fields, allowed):
        depth = dict(fields).get("depth")
        if allowed is None:
            return ["bestmove depth %d" % (depth or 4)]
        secs = self._uhp_seconds(allowed)
        return ["bestmove time %02d:%02d:%02d" % (secs // 3600, secs // 60 % 60, secs % 60)]

    def search_time(self, fields, allowed):
        return None if allowed is None else float(self._uhp_seconds(allowed))

    def move_of(self, line):
        text = line.strip()
        if not text or text.startswith(("info", "err", "invalidmove")) or text == "ok":
            return None
        return text.split(";")[0].strip()


class UciClient(Client):
    terminated_by_ok = False
    hello, hello_ok, newgame_line = "uci", "uciok", "ucinewgame"

    def __init__(self, proc, label, timeout):
        super().__init__(proc, label, timeout)
        self.options = set()
        self.start = None
        self.moves = []

    def sync(self):
        self.check_in_step()
        self.proc.send("isready")
        self.proc.read_until(lambda s: s.strip() == "readyok", self.timeout, "isready")

    def handshake(self, game_type):
        self.proc.send(self.hello)
        out = self.proc.read_until(lambda s: s.strip() == self.hello_ok, self.timeout, self.hello)
        for line in out:
            words = line.split()
            if words[:2] == ["option", "name"] and "type" in words:
                self.options.add(" ".join(words[2:words.index("type")]).lower())
        if "uci_variant" in self.options:
            self.set_option("UCI_Variant", game_type)
        self.sync()

    def set_option(self, name, value):
        self.check_in_step()
        self.proc.send("setoption name %s value %s" % (name, value))

    def new_game(self, gamestring):
        self.check_in_step()
        self.proc.send(self.newgame_line)
        self.start = gamestring
        self.moves = []
        self.sync()

    def tell(self, move):
        self.moves.append(to_token(move))

    def position_line(self):
        line = "position fen " + self.start
        if self.moves:
            line += " moves " + " ".join(self.moves)
        return line

    def search_lines(self, fields, allowed):
        return [self.position_line(),
                "go " + " ".join("%s %s" % kv for kv in fields) if fields else "go infinite"]

    def move_of(self, line):
        move = super().move_of(line)
        if move is None:
            return None
        # As written: the arbiter knows whether `_` is a space or a symbol.
        return move.split()[0] if move.split() else ""


class UgiClient(UciClient):
    hello, hello_ok, newgame_line = "ugi", "ugiok", "uginewgame"
    NAMES = {"wtime": "p1time", "btime": "p2time", "winc": "p1inc", "binc": "p2inc"}

    def search_lines(self, fields, allowed):
        fields = [(self.NAMES.get(k, k), v) for k, v in fields]
        return super().search_lines(fields, allowed)


CLIENTS = {"meeple": MeepleClient, "uhp": UhpClient, "uci": UciClient, "ugi": UgiClient}
