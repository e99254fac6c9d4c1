"""Time controls and clocks.

A seat's limits: `st` (seconds a move), `tc` (a game's time with increment,
optionally N moves a period: `40/60+0.6`), `depth`, `nodes`, and its
`timemargin`, the seconds a reply may come after its time before it is a
time loss. The referee measures each move from the moment the search
command is written to the moment the move is read; a shared machine delays
both the engine and the referee, so the default margin is generous.
"""

import math

DEFAULT_TIMEMARGIN = 0.5


def parse_seconds(text, what, allow_zero=False):
    """A finite number of seconds, > 0 (or >= 0 with allow_zero)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise ValueError("%s must be a number of seconds, not %r" % (what, text))
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        raise ValueError("%s must be a finite number of seconds %s 0, not %r"
                         % (what, ">=" if allow_zero else ">", text))
    return value


def parse_count(text, what, minimum=1):
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise ValueError("%s must be a whole number, not %r" % (what, text))
    if value < minimum:
        raise ValueError("%s must be at least %d, not %r" % (what, minimum, text))
    return value


def parse_tc(text):
    """`60+0.5` -> (60000, 500, 0) in ms; `40/60+0.6` -> (60000, 600, 40):
    40 moves a period, the base added again after each period."""
    moves = 0
    body = text
    if "/" in text:
        head, body = text.split("/", 1)
        moves = parse_count(head, "the moves of a time control period")
    base, _, inc = body.partition("+")
    try:
        base_s = parse_seconds(base, "a time control's base")
        inc_s = parse_seconds(inc or "0", "a time control's increment", allow_zero=True)
    except ValueError as e:
        raise ValueError("bad time control %r (want 60+0.5 or 40/60+0.6): %s" % (text, e))
    return int(round(base_s * 1000)), int(round(inc_s * 1000)), moves


def tc_text(tc):
    base, inc, moves = (list(tc) + [0])[:3]
    text = "%g+%g" % (base / 1000.0, inc / 1000.0)
    return ("%d/" % moves + text) if moves else text


class Limits:
    """One seat's search limits."""

    def __init__(self, st=None, tc=None, depth=None, nodes=None, timemargin=DEFAULT_TIMEMARGIN):
        self.st = st
        self.tc = tuple(tc) if tc else None
        if self.tc and len(self.tc) == 2:
            self.tc = self.tc + (0,)
        self.depth = depth
        self.nodes = nodes
        self.timemargin = timemargin

    def pgn_text(self):
        """The PGN TimeControl tag: `60+0.5`, `40/60+0.6`, `1/0.05` (st), `-`."""
        if self.tc:
            return tc_text(self.tc)
        if self.st:
            return "1/%g" % self.st
        return "-"


class Clock:
    """The time left to one seat in one game (ms), for `tc`."""

    def __init__(self, limits):
        self.limits = limits
        tc = limits.tc
        self.left = tc[0] if tc else 0
        self.inc = tc[1] if tc else 0
        self.period = tc[2] if tc else 0
        self.moves = 0

    def moves_to_go(self):
        if not self.period:
            return None
        return self.period - self.moves % self.period

    def allowed(self):
        """Seconds this move may take (before the margin), None = no limit."""
        if self.limits.st is not None:
            return self.limits.st
        if self.limits.tc:
            return max(0.0, self.left / 1000.0)
        return None

    def spend(self, seconds):
        if not self.limits.tc:
            return
        self.left -= seconds * 1000.0
        self.left += self.inc
        self.moves += 1
        if self.period and self.moves % self.period == 0:
            self.left += self.limits.tc[0]

    def late(self, seconds):
        allowed = self.allowed()
        return allowed is not None and seconds > allowed + self.limits.timemargin


def go_fields(clocks, me, first):
    """The clock fields of a search command, as (name, value) pairs in
    milliseconds: wtime/btime are the clocks of the side that moves first
    and of the other one. clocks: [Clock of seat 0, Clock of seat 1]; me:
    the seat to move; first: the seat of the side that moves first."""
    mine = clocks[me].limits
    out = []
    if mine.depth is not None:
        out.append(("depth", mine.depth))
    if mine.nodes is not None:
        out.append(("nodes", mine.nodes))
    if mine.st is not None:
        out.append(("movetime", max(1, int(round(mine.st * 1000)))))
    elif mine.tc:
        a, b = clocks[first], clocks[1 - first]
        out += [("wtime", max(1, int(a.left))), ("btime", max(1, int(b.left))),
                ("winc", int(a.inc)), ("binc", int(b.inc))]
        if clocks[me].moves_to_go():
            out.append(("movestogo", clocks[me].moves_to_go()))
    return out
