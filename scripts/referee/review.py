"""`--annotate`: every finished game reviewed by a meeple process, its
values and labels kept with the game and written into its PGN.

After each game, in the thread (or the cluster's worker) that played it,
a reviewer (`--reviewer`, default the arbiter's command: a meeple) is given
the final GameString (`newgame <GameString>`) and asked `review movetime
MS [depth N] [nodes N]` (protocol.md section 3). Its reply is read by the
protocol's rules: `info` lines skipped, one `ply ...` line per ply, then one
`side ...` line per side, then `ok`; any other line, an `err`, a line that
does not match the game, a reviewer that exits or that has not answered
when the review's time is up is a failed review: the game is kept without
annotations and a warning says why. The time is bounded: the per-position
budget times the positions (plies + 1), a quarter more, plus a margin
(`--stall-timeout`); past it the reviewer is killed (a new one starts for
the next game).

What is kept (`review_record`): the reviewer's `ply` and `side` lines as
key-value dicts, the limits, the reviewer's `id`, and each side's accuracy
over the moves its player chose: the reviewer's own figure, or, when the
game began from an opening of given plies (`--random-plies`, `--openings`),
the same formula over the plies after the opening (protocol.md: the mean of
the arithmetic and the harmonic mean of the moves' accuracies, each at
least 1 in the harmonic mean). The opening's moves are annotated but not
counted for anyone.

A review that failed is kept as `{"failed": why}` (`failed_record`), so
that the game's PGN says why it is not annotated whenever it is made (a
resume remakes it the same).

`annotations` turns a kept review into PGN notes: after each move a
comment with its value (`[%eval ...]`, from White's side, White being the
side that moved first, as PGN's evaluations are) and the best move when
the move was not the best; `inaccuracy`, `mistake`, `blunder` as the glyphs
`$6`, `$2`, `$4` (nothing for best, good, forced, unproven, none); a failed
review as one comment before the first move. What the reviewer said (its
`id`, values, moves, the reason it failed) reaches the PGN only through
pgn.py's comment writer or `_printable`: it cannot end a comment, a tag or
a line.
"""

import json
import math
import queue
import re
import time

from .errors import RefereeError, SeatFailure
from .gamestring import GameString, is_hive, is_mastermind
from .process import Process, first_error, is_info

DEFAULT_MOVETIME = 200  # ms per position
KEYS = ("movetime", "depth", "nodes")
NAGS = {"inaccuracy": 6, "mistake": 2, "blunder": 4}
JUDGED = ("best", "good", "inaccuracy", "mistake", "blunder")
START_TIMEOUT = 30.0  # the reviewer's greeting, at the start of a match
POLL = 0.2  # how often a review in progress looks whether the match stops
COMMENT_MAX = 230  # the reason in a failed review's PGN comment (`show` has it whole)


class ReviewFailed(Exception):
    """The review did not give a usable reply (the reason)."""


class ReviewAborted(Exception):
    """The match is stopping: the review was cut short."""


def parse_annotate(tokens):
    """`--annotate [movetime=MS] [depth=N] [nodes=N] [option.NAME=VALUE]...`
    -> {"movetime": MS, "depth": N or None, "nodes": N or None, "options":
    {NAME: VALUE}}; ValueError on a bad token. `movetime` always applies
    (default 200): it bounds the review's time; `depth` and `nodes` may end
    a position's search sooner; the options are set on the reviewer (after
    the match's rules options), e.g. `option.Hash=64`."""
    spec = {"movetime": DEFAULT_MOVETIME, "depth": None, "nodes": None, "options": {}}
    for tok in tokens or []:
        key, eq, value = tok.partition("=")
        if eq and key.startswith("option.") and len(key) > len("option.") and value:
            if any(c in tok for c in "\r\n"):
                raise ValueError("--annotate: a line break in %r" % tok)
            spec["options"][key[len("option."):]] = value
            continue
        if not eq or key not in KEYS:
            raise ValueError("--annotate: unknown token %r (want movetime=MS depth=N nodes=N"
                             " option.NAME=VALUE)" % tok)
        if not value.isdigit() or not 1 <= int(value) <= 10 ** 9:
            raise ValueError("--annotate: %s must be a whole number from 1, not %r"
                             % (key, value))
        spec[key] = int(value)
    return spec


def limits_text(spec):
    """The `review` command's limits: `movetime 200 depth 8`."""
    return " ".join("%s %d" % (k, spec[k]) for k in KEYS if spec.get(k))


def time_bound(spec, plies, margin):
    """Seconds a review of a game of `plies` plies may take: its budget
    (one position per ply and the start, `movetime` each), a quarter
    more, plus `margin`."""
    return (plies + 1) * spec["movetime"] / 1000.0 * 1.25 + margin


def pairs(line):
    """A reply line's key-value tokens as a dict (its first word is the
    first key); None if they do not pair up."""
    words = line.split()
    if len(words) % 2:
        return None
    out = {}
    for k, v in zip(words[::2], words[1::2]):
        if k in out:
            return None
        out[k] = v
    return out


class Reviewer:
    """A meeple process that reviews games, started when first needed and
    kept from game to game (a fresh one after a failure)."""

    def __init__(self, cmd, options=None):
        self.cmd = cmd
        self.options = dict(options or {})
        self.proc = None
        self.ident = None
        self.game_type = None

    def _reply(self, line, deadline):
        self.proc.send(line)
        return self.proc.reply(max(0.0, deadline - time.monotonic()), repr(line[:80]))

    def start(self, game_type, deadline):
        """Starts the process (if not running) and sets it up for
        `game_type`: `newgame` of the type (so that unqualified option names
        reach its options), Mastermind's codemaker off, the match's rules
        options (those the arbiter was given)."""
        if self.proc is not None and self.proc.alive() and self.game_type == game_type:
            return
        self.close()
        self.proc = Process(self.cmd, label="reviewer")
        greeting = self.proc.reply(max(0.0, deadline - time.monotonic()), "the greeting")
        self.ident = next((l[3:].strip() for l in greeting if l.startswith("id ")), None)
        err = first_error(self._reply("newgame " + game_type, deadline))
        if err:
            raise ReviewFailed("refused `newgame %s`: %s" % (game_type, err))
        commands = []
        if is_mastermind(game_type):
            commands.append("setoption name Mastermind.Codemaker value none")
        commands += ["setoption name %s value %s" % kv for kv in self.options.items()]
        for line in commands:
            err = first_error(self._reply(line, deadline))
            if err and "Codemaker" not in line:
                raise ReviewFailed("refused `%s`: %s" % (line, err))
        self.game_type = game_type

    def review(self, final, spec, deadline, aborted=lambda: False):
        """(ply dicts, side dicts) of the review of the game `final` (a
        GameString's text). ReviewFailed, SeatFailure or ReviewAborted
        otherwise (the caller then kills the process)."""
        gs = GameString(final)
        self.start(gs.game_type, deadline)
        reply = self._reply("newgame " + final, deadline)
        err = first_error(reply)
        if err:
            raise ReviewFailed("refused the game: %s" % err)
        self.proc.send("review " + limits_text(spec))
        plies, sides = [], []
        while True:
            now = time.monotonic()
            if aborted():
                raise ReviewAborted()
            if now >= deadline:
                raise ReviewFailed("no whole reply within the review's time")
            try:
                line, _ = self.proc.next_line(min(deadline, now + POLL))
            except queue.Empty:
                continue
            if line is None:
                raise ReviewFailed("the reviewer exited (status %s)" % self.proc.status())
            word = line.split(" ", 1)[0]
            if is_info(line):
                continue
            if line.strip() == "ok":
                return plies, sides
            if word in ("ply", "side"):
                kv = pairs(line)
                if kv is None or (word == "ply" and sides):
                    raise ReviewFailed("a line out of the protocol: %r" % line[:200])
                (plies if word == "ply" else sides).append(kv)
                continue
            raise ReviewFailed("answered %r" % line[:200])

    def close(self):
        if self.proc is not None:
            self.proc.close()
        self.proc = None
        self.game_type = None

    def kill(self):
        if self.proc is not None:
            self.proc.kill()
        self.proc = None
        self.game_type = None


def _number(text):
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def side_accuracy(accuracies):
    """A side's accuracy from its judged moves' (protocol.md section 3):
    the mean of their arithmetic mean and their harmonic mean (each at least
    1 there); None without any."""
    if not accuracies:
        return None
    arith = sum(accuracies) / len(accuracies)
    harmonic = len(accuracies) / sum(1.0 / max(1.0, a) for a in accuracies)
    return (arith + harmonic) / 2


def check_reply(final, plies, sides):
    """ReviewFailed unless the reply judges every move of `final`, in
    order, and has a line for each of the two sides."""
    moves = GameString(final).moves
    if len(plies) != len(moves):
        raise ReviewFailed("judged %d plies of %d" % (len(plies), len(moves)))
    for n, (p, m) in enumerate(zip(plies, moves), 1):
        if p.get("ply") != str(n) or p.get("move") not in (m, m.replace(" ", "_")):
            raise ReviewFailed("ply %d is %r, not the game's %r"
                               % (n, " ".join(p.get(k, "?") for k in ("ply", "move")), m))
        if "label" not in p or "side" not in p:
            raise ReviewFailed("ply %d has no label or side" % n)
    if len(sides) != 2:
        raise ReviewFailed("%d side lines, not 2" % len(sides))


def review_record(reviewer, record, spec, margin, aborted=lambda: False):
    """Reviews a finished game (its record) with `reviewer`: (what is kept,
    None) or (None, why not). A game with no move has nothing to review:
    (None, None). Never raises for the reviewer's failures; a review that
    fails kills the reviewer."""
    final = record.get("final")
    try:
        plies_played = len(GameString(final).moves)
    except (TypeError, ValueError):
        return None, None
    if not plies_played:
        return None, None
    bound = time_bound(spec, plies_played, margin)
    began = time.monotonic()
    try:
        plies, sides = reviewer.review(final, spec, began + bound, aborted)
        check_reply(final, plies, sides)
    except ReviewAborted:
        reviewer.kill()
        return None, "the match stopped during its review"
    except (ReviewFailed, SeatFailure, ValueError, OSError) as e:
        reviewer.kill()
        why = getattr(e, "detail", None) or str(e)
        return None, "the review (%s, at most %.1f s for %d plies) failed: %s" % (
            reviewer.cmd, bound, plies_played, why)
    ms = int(round((time.monotonic() - began) * 1000))
    try:
        opening = len(GameString(record.get("opening") or "").moves)
    except ValueError:
        opening = 0
    first_side = plies[0]["side"]
    accuracy = []
    for k, line in enumerate(sides):
        if opening == 0:
            accuracy.append(_number(line.get("accuracy")))
            continue
        side = line.get("side", first_side if k == 0 else None)
        accs = [_number(p.get("accuracy")) for n, p in enumerate(plies)
                if n >= opening and p["side"] == side and p["label"] in JUDGED]
        value = side_accuracy([a for a in accs if a is not None])
        accuracy.append(None if value is None else round(value, 1))
    review = {"by": reviewer.ident, "limits": limits_text(spec), "ms": ms,
              "opening": opening, "plies": plies, "sides": sides, "accuracy": accuracy}
    return review, None


def failed_record(why):
    """What is kept of a game whose review failed: the reason, which its
    PGN says in a comment."""
    return {"failed": str(why)}


def reviewer_options(settings):
    """The options set on the reviewer: the arbiter's (the match's rules,
    so that it sees the game as the arbiter did), then --annotate's own."""
    out = dict(settings.arbiter_options or {})
    out.update((getattr(settings, "annotate", None) or {}).get("options") or {})
    return out


def check_reviewer(settings, game_type):
    """With --annotate: the reviewer (settings.reviewer, or the arbiter's
    command) must start and take the match's options, as the arbiter must,
    before a match is recorded; RefereeError otherwise."""
    if not getattr(settings, "annotate", None):
        return
    cmd = getattr(settings, "reviewer", None) or settings.arbiter
    r = Reviewer(cmd, reviewer_options(settings))
    try:
        r.start(game_type, time.monotonic() + START_TIMEOUT)
    except (ReviewFailed, SeatFailure, ValueError) as e:
        raise RefereeError("reviewer %r does not start: %s"
                           % (cmd, getattr(e, "detail", None) or e))
    finally:
        r.kill()


# -- PGN ------------------------------------------------------------------

NUMBER_RE = re.compile(r"^-?\d+(\.\d+)?$")
MATE_RE = re.compile(r"^mate(-?)(\d+)$")


def _whites(value, side, first_side, game_type):
    """A ply's value as `[%eval ...]` takes it, from the first mover's
    (White's) side, or None if it is not a number (bounds, `?`):
    Hive: pawns (centipawns / 100) or `#N` / `#-N` (a proven win or loss of
    White in N moves); Connect Four: the exact score (section 9's
    benchmark convention, positive: the first mover wins, the larger the
    sooner); Mastermind: the codes the guess is expected to leave (the
    breaker's value: the fewer, the better)."""
    if value is None:
        return None
    sign = 1 if side == first_side else -1
    if is_mastermind(game_type):
        return value if NUMBER_RE.match(value) else None
    m = MATE_RE.match(value)
    if m and is_hive(game_type):
        n = int(m.group(2)) * (-1 if m.group(1) else 1) * sign
        return "#%d" % n if n >= 0 else "#-%d" % -n
    if not NUMBER_RE.match(value):
        return None
    if is_hive(game_type):
        pawns = sign * float(value) / 100.0
        return "%.2f" % (pawns + 0.0)
    number = sign * float(value)
    return ("%d" % number) if number == int(number) else ("%g" % number)


def _printable(text):
    """A reviewer's text for a tag: printable characters only (no line
    break, control character or Unicode line separator), one line."""
    return "".join(c if c.isprintable() else "?" for c in str(text)).strip()


def annotations(game_type, moves, review):
    """(notes for pgn.game_text, extra tags, the game's comment) of a kept
    review (the dict of review_record or failed_record, or its JSON text):
    (None, {}, None) without one, or when it does not match the moves; a
    failed review's comment says why the game is not annotated."""
    if isinstance(review, str):
        try:
            review = json.loads(review)
        except ValueError:
            return None, {}, None
    if isinstance(review, dict) and review.get("failed"):
        why = str(review["failed"])
        if len(why) > COMMENT_MAX:  # one PGN line (at most 255 characters)
            why = why[:COMMENT_MAX - 3] + "..."
        return None, {}, "not annotated: %s" % why
    if (not isinstance(review, dict) or not isinstance(review.get("plies"), list)
            or len(review["plies"]) != len(moves)
            or not all(isinstance(p, dict) and all(isinstance(v, str) for v in p.values())
                       for p in review["plies"])):
        return None, {}, None
    plies = review["plies"]
    first_side = plies[0].get("side") if plies else None
    notes = []
    for p, move in zip(plies, moves):
        label = p.get("label")
        parts = []
        ev = _whites(p.get("value"), p.get("side"), first_side, game_type)
        if ev is not None:
            parts.append("[%%eval %s]" % ev)
        elif p.get("value") is not None:
            parts.append("value %s for %s" % (p["value"], p.get("side", "?")))
        if label == "unproven":
            parts.append("(unproven)")
        best = p.get("best")
        if best and label not in ("best", "forced", "none"):
            best_text = best.replace("_", " ") if is_hive(game_type) else best
            if best_text != move:
                parts.append("best: %s" % best_text)
        notes.append((NAGS.get(label), " ".join(parts) or None))
    tags = {}
    limits = review.get("limits")
    if review.get("by") or limits:
        tags["Annotator"] = _printable(", ".join(
            str(x) for x in (review.get("by"), "review %s" % (limits or "")) if x))
    for name, acc in zip(("WhiteAccuracy", "BlackAccuracy"), review.get("accuracy") or []):
        if isinstance(acc, (int, float)):
            tags[name] = "%.1f" % acc
    return notes, tags, None
