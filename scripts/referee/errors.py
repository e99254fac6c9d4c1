"""Exceptions shared by the referee's modules."""

# Why a game ended. `rules` = by the rules of the game (win or draw).
REASONS = ("rules", "illegal", "crash", "stall", "time", "error", "desync", "resign",
           "disconnect", "maxplies", "adjudication")


class SeatFailure(Exception):
    """A seat loses the game: reason is one of REASONS."""

    def __init__(self, reason, detail=""):
        super().__init__("%s: %s" % (reason, detail))
        self.reason = reason
        self.detail = detail


class RefereeError(Exception):
    """A problem of the referee's own (arbiter, configuration): abort."""


class UsageError(Exception):
    """A bad argument: reported in one line, exit status 2, nothing written."""
