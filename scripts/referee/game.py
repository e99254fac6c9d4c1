"""One game: the move loop between two seats, refereed by the arbiter."""

import datetime

from .adjudication import Adjudicator
from .clocks import Clock
from .errors import SeatFailure
from .gamestring import is_mastermind


class GameAborted(Exception):
    """The match stopped (SPRT decided, Ctrl-C) while this game was played:
    it is not recorded (a resumed match plays it again)."""


def now_text():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class MoveContext:
    def __init__(self, arbiter, clocks, me, first_seat, side, opponent_name, last_move):
        self.arbiter = arbiter
        self.clocks = clocks
        self.me = me
        self.first_seat = first_seat
        self.side = side
        self.opponent_name = opponent_name
        self.last_move = last_move
        self.checked = None

    def check(self, move):
        """For people: play the move in the arbiter; None if legal, else the reason."""
        gs, err = self.arbiter.play(move)
        if err:
            return err
        self.checked = (move, gs)
        return None


def with_secret(gamestring, secret):
    return gamestring + ";Secret=" + secret if secret else gamestring


def play_game(arbiter, seats, limits, first_seat, opening, settings, aborted=lambda: False):
    """Plays one game. seats[0], seats[1]: the pairing's two seats, limits
    their Limits; first_seat (0 or 1) plays the side that moves first.
    opening: {"gamestring", "secret" (Mastermind, or None)}. Returns the
    record as a dict; raises GameAborted when aborted() turns true."""
    start_gs = arbiter.newgame(opening["gamestring"].split(";")[0])
    first_side = start_gs.turn_side
    sides = {first_side: first_seat}
    names = [None, None]
    names[first_seat] = first_side
    # The second side's name: the Turn field after any first move.
    moves = arbiter.validmoves()
    if moves:
        after, _ = arbiter.play(moves[0])
        if after and after.turn_side != first_side:
            sides[after.turn_side] = 1 - first_seat
            names[1 - first_seat] = after.turn_side
    secret = opening.get("secret")
    maker = 1 - first_seat
    if secret and (seats[maker].is_person or seats[maker].codemaker_choice() != "random"):
        secret = None  # a person, or an adversarial engine, keeps no secret
    gs = arbiter.newgame(with_secret(opening["gamestring"], secret))

    def seat_of(side):
        if side not in sides:
            sides[side] = 1 - first_seat
            names[1 - first_seat] = side
        return sides[side]

    seat_of(gs.turn_side)
    record = {"opening": opening["gamestring"], "moves": [], "started": now_text(),
              "secret": secret}
    clocks = [Clock(limits[0]), Clock(limits[1])]
    adjudicator = Adjudicator(settings.draw, settings.resign)
    failure, loser, verdict = None, None, None
    for i, seat in enumerate(seats):
        try:
            seat.prepare(gs.game_type, i == first_seat)
            text = with_secret(opening["gamestring"], secret if i == maker else None)
            seat.new_game(text, names[i] or "the second side", names)
        except SeatFailure as e:
            failure, loser = e, i
            break
    opening_plies = ply = len(gs.moves)
    last_move = None
    while failure is None and not gs.finished:
        if aborted():
            raise GameAborted()
        if settings.max_plies and ply - opening_plies >= settings.max_plies:
            break
        me = seat_of(gs.turn_side)
        seat = seats[me]
        ctx = MoveContext(arbiter, clocks, me, first_seat, gs.turn_side, seats[1 - me].name,
                          last_move)
        try:
            move, used, score, depth = seat.get_move(ctx)
        except SeatFailure as e:
            if aborted():
                raise GameAborted()
            failure, loser = e, me
            late = getattr(e, "move", None)
            if late is not None:  # the move that lost on time
                record["moves"].append({"side": gs.turn_side, "player": seat.name, "move": late,
                                        "ms": int(round(e.used * 1000)), "late": True,
                                        "score": getattr(e, "score", None),
                                        "depth": getattr(e, "depth", None)})
            break
        if ctx.checked and ctx.checked[0] == move:
            new_gs = ctx.checked[1]
        else:
            new_gs, err = arbiter.play(move)
            if err:
                failure, loser = SeatFailure("illegal", "%s played %r: %s"
                                             % (seat.name, move, err)), me
                record["moves"].append({"side": gs.turn_side, "player": seat.name, "move": move,
                                        "ms": int(round(used * 1000)), "illegal": True,
                                        "score": score, "depth": depth})
                break
        canonical = new_gs.moves[ply] if len(new_gs.moves) > ply else move
        ply += 1
        record["moves"].append({"side": gs.turn_side, "player": seat.name, "move": canonical,
                                "ms": int(round(used * 1000)), "score": score, "depth": depth})
        clocks[me].spend(used)
        if not seat.is_person:
            adjudicator.record(me, score)
        gs = new_gs
        last_move = canonical
        for i in (0, 1):
            try:
                seats[i].tell(canonical)
            except SeatFailure as e:
                failure, loser = e, i
                break
        if failure is None and not gs.finished and not any(s.is_person for s in seats):
            verdict = adjudicator.verdict((ply - opening_plies) // 2)
            if verdict:
                break
    seat_of(gs.turn_side)
    record["final"] = gs.text
    record["sides"] = [names[0], names[1]]
    record["first_seat"] = first_seat
    if failure is not None:
        record["winner"] = 1 - loser
        record["reason"] = failure.reason
        record["detail"] = failure.detail
    elif gs.finished:
        ws = gs.winner_side
        record["winner"] = seat_of(ws) if ws else None
        record["reason"] = "rules"
        record["detail"] = gs.state
    elif verdict:
        record["reason"] = "adjudication"
        if verdict[0] == "draw":
            record["winner"], record["detail"] = None, "draw: " + verdict[1]
        else:
            record["winner"] = 1 - verdict[1]
            record["detail"] = "%s resigns: %s" % (seats[verdict[1]].name, verdict[2])
    else:
        record["winner"] = None
        record["reason"] = "maxplies"
        record["detail"] = "adjudicated a draw after %d plies" % settings.max_plies
    record["plies"] = ply
    if any(s.is_person for s in seats):
        board = arbiter.show()
        for s in seats:
            if s.is_person:
                s.game_over("\n%s\nFinal: %s" % (board, gs.text))
    if is_mastermind(gs.game_type):
        # A round lost before the rules ended it is scored by the game's
        # own rule for a forfeit (the arbiter holds the position it was
        # lost in: a late or illegal move is not played there).
        forfeit = (arbiter.forfeit()
                   if record["reason"] != "rules" and record["winner"] is not None else None)
        record["points"] = mastermind_points(record, first_seat, ply, forfeit)
        if not secret:
            secret = gs.extras.get("Secret")
            record["secret"] = secret
        if secret:
            record["detail"] = "%s, Secret=%s" % (record["detail"], secret)
    record["finished"] = now_text()
    return record


def mastermind_points(record, breaker_seat, plies, forfeit=None):
    """Points of the two seats in a Mastermind round. The codebreaker moves
    first (a guess), the codemaker answers (a feedback). The codemaker scores
    one point per guess plus one if the code is not broken. A round a seat
    lost before the rules ended it (time, crash, illegal move, resignation)
    is scored by `forfeit`, the arbiter's `board json` rule (protocol.md
    section 11: a codebreaker's forfeit leaves the code unbroken after all
    the rows, rows + 1; a codemaker's scores the guesses made). Without it
    (an arbiter that does not give it), the older rule: a codemaker that
    forfeits scores 0, a codebreaker's forfeit counts as not broken after
    the guesses made."""
    maker = 1 - breaker_seat
    guesses = (plies + 1) // 2
    points = [0, 0]
    if forfeit is not None and record["reason"] != "rules" and record["winner"] is not None:
        loser = 1 - record["winner"]
        by_side = forfeit[0 if loser == breaker_seat else 1]
        points[breaker_seat], points[maker] = by_side[0], by_side[1]
    elif record["reason"] != "rules" and record["winner"] == breaker_seat:
        points[maker] = 0
    else:
        broken = record["reason"] == "rules" and record["winner"] == breaker_seat
        points[maker] = guesses + (0 if broken else 1)
    return points
