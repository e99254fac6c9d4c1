"""What a Dask worker runs for `--cluster` (standard library only: the
coordinator's side, which needs Dask, is cluster.py).

A task is one game: `play(token, plan, settings, index)` plays game `index`
of the tournament and returns its record; the coordinator stores it. Each
worker thread keeps one `match.Player` (its arbiter and engine processes,
started on this machine from each seat's `cmd=`) from task to task of the
same tournament, as the referee's own threads do; `release(token)` closes
them at the end. Engines are started so that they die with the worker
(process.DIE_WITH_PARENT): a killed worker leaves no engine behind.
"""

import os
import shlex
import threading

from . import process, review
from .match import Player
from .seats import SeatSpec, check_engine_seats

_lock = threading.Lock()
# thread -> [token, Player, busy, retired]. Keyed by the Thread object, not
# its id: a new thread (whose id may be an old one's) starts afresh.
_players = {}


def _settings_here(settings):
    """The settings as this machine needs them: the arbiter is MEEPLE_BIN
    if set here, else the command the referee resolved."""
    if not getattr(settings, "arbiter_given", True) and os.environ.get("MEEPLE_BIN"):
        settings.arbiter = shlex.quote(os.environ["MEEPLE_BIN"])
    return settings


def play(token, plan, settings, index):
    """Plays game `index` of `plan` (match.Plan); its record (a dict)."""
    process.DIE_WITH_PARENT = True
    me = threading.current_thread()
    with _lock:
        entry = _players.get(me)
        stale = entry if entry is not None and entry[0] != token else None
        if stale:
            del _players[me]
            entry = None
    if stale:
        stale[1].close()
    if entry is None:
        specs = [SeatSpec.from_json(s) for s in plan.seats]
        player = Player(specs, _settings_here(settings), plan.game_type)
        entry = [token, player, False, False]
        with _lock:
            _players[me] = entry
    entry[2] = True
    try:
        record, _ = entry[1].play(plan.job(index))
    except BaseException:
        with _lock:
            _players.pop(me, None)
        entry[1].close()
        raise
    finally:
        entry[2] = False
    with _lock:
        retired = entry[3]
        if retired:
            _players.pop(me, None)
    if retired:
        entry[1].close()
    record["worker_pid"] = os.getpid()
    return record


def release(token):
    """Closes this worker's engines of tournament `token` (those busy in a
    game close when it ends); the number closed or marked."""
    closing = []
    with _lock:
        for me, entry in list(_players.items()):
            if entry[0] != token:
                continue
            entry[3] = True
            if not entry[2]:
                closing.append(entry[1])
                del _players[me]
    for player in closing:
        player.close()
    return len(closing)


def check_seats(plan, settings):
    """Starts every engine seat on this worker and sets its options, as the
    referee does before recording a new match (and the reviewer, with
    --annotate); RefereeError if one fails."""
    process.DIE_WITH_PARENT = True
    settings = _settings_here(settings)
    check_engine_seats(plan.seats, settings)
    review.check_reviewer(settings, plan.game_type)
    return os.uname().nodename
