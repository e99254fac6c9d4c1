"""Ending games early from the engines' reported scores (cutechess style).

`--draw movenumber=N movecount=M score=S`: a draw once at least N full moves
were played and both engines' scores stayed within S (centipawns, from
zero) for their last M moves each. `--resign movecount=M score=S
[twosided=true]`: a loss for an engine whose score stayed at -S or below
for its last M moves (twosided: and its opponent's at S or above).

Scores come from the last `info ... score ...` line before each move, from
the mover's side: `cp N`; `mate N` and `win`/`loss` count as +-MATE;
`exact N` (a proven value in the game's own convention) by its sign; a move
without a score breaks the run.
"""

import re

MATE = 100000

SCORE_RE = re.compile(r"\bscore\s+(cp|mate|exact|win|loss|draw)\b(?:\s+(-?\d+))?")
DEPTH_RE = re.compile(r"^info\b.*?\bdepth\s+(\d+)\b")
# `info string` carries free text to its end: no field of it counts.
STRING_RE = re.compile(r"^info\s+string\b")


def parse_depth(info_line):
    """The search depth an `info` line gives (`depth N`, not `seldepth`),
    or None."""
    m = None if STRING_RE.match(info_line) else DEPTH_RE.search(info_line)
    return int(m.group(1)) if m else None


def parse_score(info_line):
    """The score of an `info` line in centipawns (None if it has none or
    only a bound)."""
    m = None if STRING_RE.match(info_line) else SCORE_RE.search(info_line)
    if not m:
        return None
    kind, value = m.group(1), m.group(2)
    rest = info_line[m.end():].split()
    if rest and rest[0] in ("lowerbound", "upperbound"):
        return None
    if kind == "win":
        return MATE
    if kind == "loss":
        return -MATE
    if kind == "draw":
        return 0
    if value is None:
        return None
    n = int(value)
    if kind == "cp":
        return n
    if kind == "mate":
        return MATE - abs(n) if n > 0 else -MATE + abs(n)
    return MATE if n > 0 else -MATE if n < 0 else 0


def parse_rule(text, keys, what):
    """`movenumber=40 movecount=8 score=10` -> dict, checked."""
    values = {}
    for tok in text.replace(",", " ").split():
        key, eq, value = tok.partition("=")
        if not eq or key not in keys:
            raise ValueError("%s: unknown parameter %r (want %s)"
                             % (what, tok, " ".join(k + "=" for k in keys)))
        if key == "twosided":
            if value.lower() not in ("true", "false"):
                raise ValueError("%s: twosided must be true or false" % what)
            values[key] = value.lower() == "true"
            continue
        try:
            values[key] = int(value)
        except ValueError:
            raise ValueError("%s: %s must be a whole number, not %r" % (what, key, value))
        if values[key] < 0 or (key == "movecount" and values[key] < 1):
            raise ValueError("%s: %s out of range: %r" % (what, key, value))
    for key in keys:
        if key not in values and key != "twosided":
            if key == "movenumber":
                values[key] = 0
            else:
                raise ValueError("%s needs %s=" % (what, key))
    return values


class Adjudicator:
    def __init__(self, draw=None, resign=None):
        self.draw = draw
        self.resign = resign
        self.scores = ([], [])

    def record(self, seat, score):
        self.scores[seat].append(score)

    def _run(self, seat, count, test):
        s = self.scores[seat]
        return len(s) >= count and all(v is not None and test(v) for v in s[-count:])

    def verdict(self, full_moves):
        """None, ("draw", detail) or ("loss", seat, detail)."""
        if self.resign:
            n, lim = self.resign["movecount"], self.resign["score"]
            for seat in (0, 1):
                if self._run(seat, n, lambda v: v <= -lim) and (
                        not self.resign.get("twosided")
                        or self._run(1 - seat, n, lambda v: v >= lim)):
                    return ("loss", seat, "score at or below -%d for %d moves" % (lim, n))
        if self.draw and full_moves >= self.draw["movenumber"]:
            n, lim = self.draw["movecount"], self.draw["score"]
            if all(self._run(seat, n, lambda v: abs(v) <= lim) for seat in (0, 1)):
                return ("draw", "both scores within %d of 0 for %d moves" % (lim, n))
        return None
