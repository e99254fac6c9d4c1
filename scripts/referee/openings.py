"""Openings: the start position, N random plies, or a file.

`--openings file=F format=gamestring|moves|pgn order=sequential|random
start=N plies=N` (a bare `--openings F` = `file=F`): one opening a line
(`format=gamestring`: a GameString; `moves`: moves separated by `;`; the
default, `auto`, takes either, and `pgn` for a `.pgn` file), or the games of
a PGN file (the referee's own `--pgnout` files read back). `order=random`
shuffles them with the match seed, `start=N` begins at the N-th (from 1),
`plies=N` keeps the first N plies of each. Each opening is played twice,
colours swapped; the list is cycled when the match needs more.

Mastermind has no openings but secrets: each pair of rounds gets its own,
drawn from the match seed among the arbiter's codes.
"""

import os
import random

from . import pgn
from .errors import RefereeError
from .gamestring import is_mastermind

FORMATS = ("auto", "gamestring", "moves", "pgn")
ORDERS = ("sequential", "random")


def parse_openings_arg(tokens):
    """The `--openings` tokens -> dict; ValueError with a one-line message."""
    spec = {"file": None, "format": "auto", "order": "sequential", "start": 1, "plies": None}
    for tok in tokens:
        key, eq, value = tok.partition("=")
        if not eq:
            if spec["file"]:
                raise ValueError("--openings: give one file (file=F)")
            spec["file"] = tok
        elif key == "file":
            spec["file"] = value
        elif key == "format":
            if value not in FORMATS[1:] and value != "auto":
                raise ValueError("--openings: format must be one of %s" % "|".join(FORMATS))
            spec["format"] = value
        elif key == "order":
            if value not in ORDERS:
                raise ValueError("--openings: order must be sequential or random")
            spec["order"] = value
        elif key in ("start", "plies"):
            try:
                spec[key] = int(value)
            except ValueError:
                raise ValueError("--openings: %s must be a whole number, not %r" % (key, value))
            if spec[key] < (1 if key == "start" else 0):
                raise ValueError("--openings: %s out of range: %r" % (key, value))
        else:
            raise ValueError("--openings: unknown parameter %r" % tok)
    if not spec["file"]:
        raise ValueError("--openings needs file=F")
    if not os.path.isfile(spec["file"]):
        raise ValueError("--openings: no such file %s" % spec["file"])
    if spec["format"] == "auto" and spec["file"].lower().endswith(".pgn"):
        spec["format"] = "pgn"
    return spec


def _from_line(arbiter, game_type, line, fmt):
    canonical_type = arbiter.newgame(game_type).game_type.lower()
    err = None
    if fmt in ("auto", "gamestring"):
        gs, err = arbiter.try_newgame(line)
        if gs and gs.game_type.lower() == canonical_type:
            return gs
        if fmt == "gamestring":
            raise RefereeError("opening %r: %s" % (line[:200], err or "another game type"))
    gs, err2 = arbiter.position(game_type, line)
    if err2:
        raise RefereeError("opening %r: %s" % (line[:200], err or err2))
    return gs


def read_file(arbiter, game_type, spec):
    """The openings of a file as GameString texts, in file order."""
    texts = []
    with open(spec["file"], encoding="utf-8", errors="replace") as f:
        if spec["format"] == "pgn":
            lines = [";".join(g["moves"]) for g in pgn.read(f.read())]
        else:
            lines = [raw.strip() for raw in f]
    for line in lines:
        if line.startswith("#") or (not line and spec["format"] != "pgn"):
            continue
        gs = _from_line(arbiter, game_type, line, spec["format"]) if line else \
            arbiter.newgame(game_type)
        if spec["plies"] is not None and len(gs.moves) > spec["plies"]:
            gs = _from_line(arbiter, game_type, ";".join(gs.moves[:spec["plies"]]), "moves")
        if gs.finished:
            raise RefereeError("opening %r is a finished game" % line[:200])
        texts.append(gs.text)
    if not texts:
        raise RefereeError("no openings in %s" % spec["file"])
    return texts


def make_openings(arbiter, game_type, count, plies, spec, seed):
    """`count` openings as GameString texts."""
    if is_mastermind(game_type) or (not spec and not plies):
        gs = arbiter.newgame(game_type)
        return [gs.text] * count
    if spec:
        texts = read_file(arbiter, game_type, spec)
        if spec["order"] == "random":
            random.Random("%s:openings" % seed).shuffle(texts)
        first = (spec["start"] - 1) % len(texts)
        return [texts[(first + i) % len(texts)] for i in range(count)]
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


def draw_secrets(arbiter, game_type, count, seed):
    """Mastermind: `count` secrets drawn reproducibly from `seed` among the
    codes the arbiter lists as the first guesses (None when it cannot list
    them: the codemaker engines then keep their own)."""
    if not is_mastermind(game_type):
        return [None] * count
    arbiter.newgame(game_type)
    codes = arbiter.validmoves()
    if not codes:
        return [None] * count
    rng = random.Random("%s:secrets" % seed)
    return [rng.choice(codes) for _ in range(count)]
