"""The referee's own meeple process: it keeps each game and checks every move.

The referee learns everything from the arbiter's GameStrings (the side to
move from the Turn field, the end and the winner from the GameState), so it
knows no game's rules itself.
"""

import json
import os
import shlex
import sys

from .errors import RefereeError, SeatFailure
from .gamestring import GameString, is_mastermind
from .process import Process, first_error

ARBITER_MAX_LINE = 1 << 24
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def default_arbiter():
    env = os.environ.get("MEEPLE_BIN")
    if env:
        return shlex.quote(env)
    for sub in ("release", "debug"):
        path = os.path.join(REPO_ROOT, "target", sub, "meeple")
        if os.path.exists(path):
            return shlex.quote(path)
    return "meeple"


class Arbiter:
    def __init__(self, cmd, timeout=30.0, options=None):
        self.cmd = cmd
        self.timeout = timeout
        try:
            # The arbiter is the referee's own meeple: its lines may be
            # long (`validmoves` of Mastermind+5x8 lists 32768 codes).
            self.proc = Process(cmd, label="arbiter", max_line=ARBITER_MAX_LINE)
            self.proc.reply(timeout, "the greeting")
        except (SeatFailure, ValueError) as e:
            raise RefereeError("arbiter %r does not start: %s"
                               % (cmd, getattr(e, "detail", None) or e))
        self.options = dict(options or {})

    def _command(self, line):
        try:
            return self.proc.command(line, self.timeout)
        except SeatFailure as e:
            raise RefereeError("arbiter failed on %r: %s" % (line[:200], e.detail))

    def _gamestring(self, line):
        out = self._command(line)
        err = first_error(out)
        if err:
            return None, err
        if not out:
            raise RefereeError("arbiter gave no GameString for %r" % line[:200])
        return GameString(out[-1]), None

    def prepare(self, game_type):
        """Sets the arbiter's options (`--arbiter-option`, `--game-option`)
        after a game of the match's type, so that unqualified names reach
        that game's options. Mastermind: the arbiter keeps no secret of its
        own (`Codemaker=none`); the referee gives it each round's secret."""
        self._gamestring("newgame " + game_type)
        if is_mastermind(game_type):
            err = first_error(self._command("setoption name Mastermind.Codemaker value none"))
            if err:
                print("warning: arbiter: %s" % err, file=sys.stderr)
        for name, value in self.options.items():
            err = first_error(self._command("setoption name %s value %s" % (name, value)))
            if err:
                raise RefereeError("arbiter refused option %s=%s: %s" % (name, value, err))

    def set_color(self):
        self._command("setoption name Color value always")

    def newgame(self, arg):
        gs, err = self._gamestring("newgame " + arg)
        if err:
            raise RefereeError("arbiter refused %r: %s" % (arg[:200], err))
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

    def forfeit(self):
        """The game's own scores if a side forfeits now: `forfeit` of the
        arbiter's `board json` ([[by side if side 0 forfeits], [.. side
        1]]), or None (a game without a score, a finished game, or an
        arbiter that does not give it)."""
        out = self._command("board json")
        if first_error(out) or not out:
            return None
        try:
            value = json.loads(out[-1]).get("forfeit")
        except (ValueError, AttributeError):
            return None
        ok = (isinstance(value, list) and len(value) == 2
              and all(isinstance(r, list) and len(r) == 2
                      and all(isinstance(p, int) and not isinstance(p, bool) for p in r)
                      for r in value))
        return value if ok else None

    def show(self):
        return "\n".join(self._command("show"))

    def close(self):
        self.proc.close()
