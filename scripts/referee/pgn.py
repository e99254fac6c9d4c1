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


def game_text(tags, moves):
    """One game. tags: a dict with at least the roster and GameType (Result
    as `1-0`, `0-1`, `1/2-1/2` or `*`); moves: all moves from the start."""
    hive = is_hive(tags.get("GameType", ""))
    tags = dict(tags)
    result = tags.get("Result", "*")
    if hive:
        tags["Result"] = HIVE_RESULTS.get(result, "InProgress")
    order = ["GameType"] + list(ROSTER) if hive else list(ROSTER) + ["GameType"]
    order += [k for k in tags if k not in order]
    lines = ['[%s "%s"]' % (k, _quote(tags.get(k, "?" if k in ROSTER else ""))) for k in order]
    lines.append("")
    if hive:
        lines += ["%d. %s" % (i, m) for i, m in enumerate(moves, 1)]
        if result in HIVE_RESULTS:
            lines += ["", HIVE_RESULTS[result]]
    else:
        words = []
        for i, m in enumerate(moves):
            if i % 2 == 0:
                words.append("%d." % (i // 2 + 1))
            words.append(m)
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


def read(text):
    """The games of a PGN text: [{"tags": {...}, "moves": [...]}]. Reads both
    the standard movetext and MzingaViewer's one-ply-a-line records."""
    games, tags, body = [], None, []

    def flush():
        if tags is None:
            return
        moves = []
        if is_hive(tags.get("GameType", "")):
            for line in body:
                m = re.match(r"^\d+\.\s*(.+)$", line)
                if m:
                    moves.append(m.group(1).strip())
        else:
            movetext = re.sub(r"\{[^}]*\}", " ", " ".join(body))
            for w in movetext.split():
                if re.match(r"^\d+\.+$", w) or w in RESULTS:
                    continue
                w = re.sub(r"^\d+\.+", "", w)
                if w:
                    moves.append(w)
        games.append({"tags": tags, "moves": moves})

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
