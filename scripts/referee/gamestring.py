"""GameStrings as printed by meeple and UHP engines: `GameType;GameState;Turn[;move...]`."""

import re

TURN_RE = re.compile(r"^\s*([A-Za-z]+)\[(\d+)\]\s*$")


class GameString:
    def __init__(self, text):
        self.text = text.strip()
        fields = self.text.split(";")
        if len(fields) < 3:
            raise ValueError("not a GameString: %r" % text[:200])
        self.game_type, self.state = fields[0], fields[1]
        m = TURN_RE.match(fields[2])
        if not m:
            raise ValueError("bad Turn field in GameString: %r" % text[:200])
        self.turn_side, self.turn_number = m.group(1), int(m.group(2))
        # Extra `Key=value` fields after the moves (Mastermind's `Secret=`)
        # are not moves.
        self.moves = [f for f in fields[3:] if "=" not in f]
        self.extras = dict(f.split("=", 1) for f in fields[3:] if "=" in f)

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


def is_hive(game_type):
    """Hive's game types are `Base` with expansions (`Base+MLP`)."""
    return game_type.split("+")[0] == "Base"
