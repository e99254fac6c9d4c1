"""PGN export (`--pgnout FILE`) and reading it back.

Every game gets the seven standard tags (Event, Site, Date, Round, White,
Black, Result) plus GameType, TimeControl, Termination (and Secret for a
Mastermind round that had one). White is the player of the side that moves
first. Moves are written in the game's own notation:

- Hive (game types `Base...`) the way MzingaViewer reads its `.pgn` game
  records: `[Result "WhiteWins"]`, then one numbered line per ply with the
  UHP MoveString (`3. wQ wS1/`), then the result (`WhiteWins`, `BlackWins`,
  `Draw`) on a line of its own;
- other games as standard PGN movetext: `1. 4 4 2. 3 5 1-0`.

A reviewed game (`--annotate`, review.py) carries after each move its
numeric annotation glyph (`$6`, `$2`, `$4`) and a comment with its value
(`{[%eval 0.32] best: 4}`): in standard movetext after the move (a second
side's move after one is numbered again, `1... 4`, as PGN's export format
asks); in a Hive record as a comment line of its own after the move's line,
the glyph first inside it (`{$4 [%eval -1.17] best: wQ wB1-}`), which is
where MzingaViewer reads a move's commentary (a glyph on the move's line
would make the viewer refuse the move).

A game that `--annotate` could not review carries one comment before its
first move saying why (`{not annotated: ...}`; in a Hive record a line of
its own, where MzingaViewer reads the commentary of the game's start).
Comments hold no brace and no character that is not printable (a line
break, a control character, a Unicode line or paragraph separator), so
nothing a reviewer says can end a comment, a line or a record early.
"""

import re

from .gamestring import is_hive

ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
TERMINATION = {"rules": "normal", "resign": "normal", "time": "time forfeit",
               "illegal": "rules infraction", "error": "rules infraction",
               "desync": "rules infraction", "crash": "abandoned", "stall": "abandoned",
               "disconnect": "abandoned", "maxplies": "adjudication",
               "adjudication": "adjudication"}
HIVE_RESULTS = {"1-0": "WhiteWins", "0-1": "BlackWins", "1/2-1/2": "Draw"}


def _quote(value):
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


def game_text(tags, moves, notes=None, comment=None):
    """One game. tags: a dict with at least the roster and GameType (Result
    as `1-0`, `0-1`, `1/2-1/2` or `*`); moves: all moves from the start;
    notes (a reviewed game): for each move (nag, comment), either None;
    comment: a comment on the whole game, written before its first move. A
    game without notes or comment is written exactly as before they
    existed."""
    hive = is_hive(tags.get("GameType", ""))
    tags = dict(tags)
    result = tags.get("Result", "*")
    if hive:
        tags["Result"] = HIVE_RESULTS.get(result, "InProgress")
    order = ["GameType"] + list(ROSTER) if hive else list(ROSTER) + ["GameType"]
    order += [k for k in tags if k not in order]
    lines = ['[%s "%s"]' % (k, _quote(tags.get(k, "?" if k in ROSTER else ""))) for k in order]
    lines.append("")

    def note(i):
        if not notes or i >= len(notes) or notes[i] is None:
            return None, None
        nag, comment = notes[i]
        return nag, (_comment_text(comment) if comment else None)

    intro = _comment_text(comment) if comment else None
    if hive:
        if intro:
            lines.append("{%s}" % intro)
        for i, m in enumerate(moves):
            lines.append("%d. %s" % (i + 1, m))
            nag, comment = note(i)
            if nag or comment:
                inside = " ".join(w for w in ("$%d" % nag if nag else None, comment) if w)
                lines.append("{%s}" % inside)
        if result in HIVE_RESULTS:
            lines += ["", HIVE_RESULTS[result]]
    else:
        words = ["{%s}" % intro] if intro else []
        annotated = False  # the word before is a glyph or a comment
        for i, m in enumerate(moves):
            if i % 2 == 0:
                words.append("%d." % (i // 2 + 1))
            elif annotated:
                words.append("%d..." % (i // 2 + 1))
            words.append(m)
            nag, comment = note(i)
            if nag:
                words.append("$%d" % nag)
            if comment:
                words.append("{%s}" % comment)
            annotated = bool(nag or comment)
        words.append(result)
        line = ""
        for w in words:  # lines of at most 79 characters
            if line and len(line) + 1 + len(w) > 79:
                lines.append(line)
                line = w
            else:
                line = (line + " " + w) if line else w
        lines.append(line)
    return "\n".join(lines) + "\n\n"


def _comment_text(text):
    """A comment's text that cannot end the comment, the line or the record
    early: no braces, nothing that is not printable (control characters,
    and the Unicode line and paragraph separators that str.splitlines and
    other readers break lines at), one line."""
    return "".join("?" if c in "{}" or not c.isprintable() else c for c in str(text)).strip()


def record_starts(data):
    """Where the games of a PGN file's bytes begin: 0, and after every
    blank line that a tag line follows (`game_text` ends each game with a
    blank line and starts the next with a tag)."""
    if not data:
        return []
    starts = [0]
    i = data.find(b"\n\n[")
    while i >= 0:
        starts.append(i + 2)
        i = data.find(b"\n\n[", i + 2)
    return starts


TAG_RE = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
BOARD_STATES = ("WhiteWins", "BlackWins", "Draw", "InProgress", "NotStarted")


TOKEN_RE = re.compile(r"\{[^}]*\}?|;[^\n]*|\$\d+|[^\s{;$]+")
NAG_RE = re.compile(r"^\$(\d+)$")


def read(text):
    """The games of a PGN text: [{"tags": {...}, "moves": [...], "notes":
    [...]}]. Reads both the standard movetext and MzingaViewer's
    one-ply-a-line records. `notes` has for each move {"nags": [numbers],
    "comments": [texts]}: the glyphs (`$4`, or `?!` `?` `??` `!` `!!` `!?`
    written after the move) and comments after it (in a Hive record: the
    comment lines after its line, a glyph first inside them counted as a
    glyph). `comments` has the comments before the first move (a game that
    could not be reviewed says why there)."""
    games, tags, body = [], None, []

    def flush():
        if tags is None:
            return
        moves, notes, intro = [], [], []

        def annotate(kind, value):
            if notes:
                notes[-1][kind].append(value)
            elif kind == "comments":
                intro.append(value)

        if is_hive(tags.get("GameType", "")):
            comment = None
            for line in body:
                if comment is not None or line.startswith("{"):
                    comment = line if comment is None else comment + " " + line
                    if comment.endswith("}"):
                        inside = comment[1:-1].strip()
                        m = NAG_RE.match(inside.split(" ", 1)[0]) if inside else None
                        if m:
                            annotate("nags", int(m.group(1)))
                            inside = inside.split(" ", 1)[1] if " " in inside else ""
                        annotate("comments", inside)
                        comment = None
                    continue
                m = re.match(r"^\d+\.\s*(.+)$", line)
                if m:
                    move, nags, comments = _move_line(m.group(1))
                    moves.append(move)
                    notes.append({"nags": nags, "comments": comments})
        else:
            for w in TOKEN_RE.findall("\n".join(body)):
                if w.startswith("{"):
                    annotate("comments", w[1:].rstrip("}").strip())
                    continue
                if w.startswith(";"):
                    annotate("comments", w[1:].strip())
                    continue
                m = NAG_RE.match(w)
                if m:
                    annotate("nags", int(m.group(1)))
                    continue
                if re.match(r"^\d+\.+$", w) or w in RESULTS:
                    continue
                w = re.sub(r"^\d+\.+", "", w)
                w, suffix = _split_suffix(w)
                if w:
                    moves.append(w)
                    notes.append({"nags": [SUFFIX_NAGS[suffix]] if suffix else [],
                                  "comments": []})
        games.append({"tags": tags, "moves": moves, "notes": notes, "comments": intro})

    for raw in text.splitlines():
        line = raw.strip()
        m = TAG_RE.match(line)
        if m:
            if tags is not None and body:
                flush()
                tags, body = None, []
            if tags is None:
                tags = {}
            tags[m.group(1)] = re.sub(r"\\(.)", r"\1", m.group(2))
        elif line and tags is not None and line not in BOARD_STATES:
            body.append(line)
    flush()
    return games


SUFFIX_NAGS = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}


def _split_suffix(word):
    """A move and its suffix glyph (`4??` -> `4`, `??`); no game's move ends
    in `!` or `?`."""
    m = re.match(r"^(.*?)(!!|\?\?|!\?|\?!|!|\?)$", word)
    return (m.group(1), m.group(2)) if m else (word, None)


def _move_line(rest):
    """A Hive record's move line after its number: the move, and any glyphs
    and comment written after it on the same line (another writer's)."""
    nags, comments = [], []
    cut = re.search(r"\s+(\$\d+|\{)", rest)
    if cut:
        tail = rest[cut.start():]
        rest = rest[:cut.start()]
        for w in TOKEN_RE.findall(tail):
            m = NAG_RE.match(w)
            if m:
                nags.append(int(m.group(1)))
            elif w.startswith("{"):
                comments.append(w[1:].rstrip("}").strip())
    return rest.strip(), nags, comments
