"""The command line: `match` (the default), `leaderboard`, `show`.

Every bad input ends in one line on stderr (`referee.py: error: ...`) and
exit status 2, before the database is touched.
"""

import argparse
import json
import math
import os
import random
import sqlite3
import sys

from .adjudication import parse_rule
from .arbiter import Arbiter, default_arbiter
from .clocks import DEFAULT_TIMEMARGIN, parse_count, parse_seconds, parse_tc
from .cluster import DEFAULT_RETRIES as CLUSTER_RETRIES, DEFAULT_WAIT as CLUSTER_WAIT
from .errors import RefereeError, UsageError
from .game import now_text
from .gamestring import is_mastermind
from .match import Match, Plan, Settings, pairings_for
from .openings import draw_secrets, make_openings, parse_openings_arg
from .rating import SPRT_MODELS, fit_ratings
from . import review, safefile
from .seats import SeatSpec, check_engine_seats
from .store import DEFAULT_DB_WAIT, TournamentLock, open_db, precheck, with_retry

DEFAULT_GAMES = 100
DEFAULT_HUMAN_GAMES = 2
DEFAULT_DB = os.path.join("meeple-data", "results.sqlite")
DEFAULT_STALL = 10.0

USAGE = """referee.py: pair engines (or people) at a meeple game, keep the results.

  referee.py [match] --engine name=A cmd=target/release/meeple option.Strategy=attack \\
                     --engine name=B cmd=target/release/meeple option.Strategy=random \\
                     --game Connect4 --games 100 --st 0.05 --concurrency 2
  referee.py leaderboard [--db FILE] [--game G]
  referee.py show N [--tournament T] [--db FILE]

Run `referee.py match --help` for every option; scripts/README.md explains them."""


class Parser(argparse.ArgumentParser):
    """argparse whose errors are one line (UsageError), not usage + error."""

    def error(self, message):
        raise UsageError(message)


def _type(fn, what):
    def convert(text):
        try:
            return fn(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e) if str(e) else "bad %s %r" % (what, text))
    convert.__name__ = what
    return convert


def seconds(what, allow_zero=False):
    return _type(lambda t: parse_seconds(t, what, allow_zero), what)


def count(what, minimum):
    return _type(lambda t: parse_count(t, what, minimum), what)


def key_values(items, what):
    out = {}
    for item in items or []:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise UsageError("%s wants NAME=VALUE, not %r" % (what, item))
        out[key] = value
    return out


def parse_sprt(tokens):
    values = {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05, "model": "normalized"}
    for tok in " ".join(tokens).replace(",", " ").split():
        key, eq, value = tok.partition("=")
        if not eq or key not in values:
            raise UsageError("--sprt: unknown parameter %r (want elo0= elo1= alpha= beta= "
                             "model=)" % tok)
        if key == "model":
            if value not in SPRT_MODELS:
                raise UsageError("--sprt: model must be one of %s" % "|".join(SPRT_MODELS))
            values[key] = value
            continue
        try:
            values[key] = float(value)
        except ValueError:
            raise UsageError("--sprt: %s must be a number, not %r" % (key, value))
        if not math.isfinite(values[key]):
            raise UsageError("--sprt: %s must be finite" % key)
    for key in ("alpha", "beta"):
        if not 0.0 < values[key] < 0.5:
            raise UsageError("--sprt: %s must be between 0 and 0.5, not %g" % (key, values[key]))
    if values["elo0"] >= values["elo1"]:
        raise UsageError("--sprt: elo0 must be below elo1")
    return values


def match_parser():
    ap = Parser(prog="referee.py match",
                description="Play a match or a tournament between seats (engines or people) "
                            "and record it. scripts/README.md has an example for every flag.")
    ap.add_argument("--engine", action="append", nargs="+", default=[], metavar="KEY=VALUE",
                    help="a seat: name=N cmd=\"COMMAND\" proto=meeple|uhp|uci|ugi dir=DIR "
                         "option.NAME=VALUE st=SEC tc=BASE+INC depth=N nodes=N timemargin=SEC "
                         "restart=on|off; or `human`, or remote=HOST:PORT")
    ap.add_argument("--each", nargs="+", default=[], metavar="KEY=VALUE",
                    help="tokens applied to every engine seat (e.g. option.Hash=64 st=0.1)")
    ap.add_argument("--tournament", choices=("round-robin", "gauntlet"), default="round-robin",
                    help="with more than two engines: every pair (round-robin, default) or the "
                         "first engine against each other (gauntlet)")
    ap.add_argument("--game", default="Connect4", help="game type (default Connect4)")
    ap.add_argument("--games", type=count("--games", 1), default=None,
                    help="games per pairing (Mastermind: rounds, even); default %d between "
                         "engines, %d with a person" % (DEFAULT_GAMES, DEFAULT_HUMAN_GAMES))
    ap.add_argument("--rounds", type=count("--rounds", 1), default=None,
                    help="same as --games")
    ap.add_argument("--st", type=seconds("--st"), default=None, help="seconds per move")
    ap.add_argument("--tc", type=_type(parse_tc, "--tc"), default=None,
                    help="per game: BASE+INC seconds (60+0.5), or MOVES/BASE+INC (40/60+0.6)")
    ap.add_argument("--timemargin", type=seconds("--timemargin", True), default=None,
                    help="seconds a move may come after its time (default %g)"
                         % DEFAULT_TIMEMARGIN)
    ap.add_argument("--stall-timeout", type=seconds("--stall-timeout"), default=None,
                    help="seconds without an answer that count as a stall (default %g)"
                         % DEFAULT_STALL)
    ap.add_argument("--concurrency", type=count("--concurrency", 1), default=1,
                    help="games at once (default 1)")
    ap.add_argument("--openings", nargs="+", default=None, metavar="KEY=VALUE",
                    help="file=F [format=auto|gamestring|moves|pgn] [order=sequential|random] "
                         "[start=N] [plies=N]")
    ap.add_argument("--random-plies", type=count("--random-plies", 0), default=0,
                    help="openings of N random plies (default 0: the start position)")
    ap.add_argument("--seed", type=count("--seed", 0), default=None,
                    help="seed of random openings and Mastermind secrets (default: random)")
    ap.add_argument("--max-plies", type=count("--max-plies", 0), default=0,
                    help="adjudicate a draw after N plies past the opening (0 = never)")
    ap.add_argument("--draw", nargs="+", default=None, metavar="KEY=VALUE",
                    help="movenumber=N movecount=M score=S: draw when both scores stay within S")
    ap.add_argument("--resign", nargs="+", default=None, metavar="KEY=VALUE",
                    help="movecount=M score=S [twosided=true]: loss when a score stays <= -S")
    ap.add_argument("--rating-interval", type=count("--rating-interval", 0), default=10,
                    help="print the ratings every N games (default 10, 0 = at the end only)")
    ap.add_argument("--sprt", nargs="+", default=None, metavar="KEY=VALUE",
                    help="elo0=0 elo1=10 alpha=0.05 beta=0.05 model=normalized|logistic")
    ap.add_argument("--recover", action="store_true",
                    help="restart an engine that crashed, stalled or lost step")
    ap.add_argument("--db", default=DEFAULT_DB, help="SQLite file (default %s)" % DEFAULT_DB)
    ap.add_argument("--db-wait", type=seconds("--db-wait"), default=DEFAULT_DB_WAIT,
                    help="seconds to wait for a locked database (default %g)" % DEFAULT_DB_WAIT)
    ap.add_argument("--resume", nargs="?", const="last", default=None, metavar="TOURNAMENT",
                    help="continue an interrupted tournament (default: the last unfinished one)")
    ap.add_argument("--arbiter", default=None,
                    help="the arbiter's command (default $MEEPLE_BIN or target/release/meeple)")
    ap.add_argument("--arbiter-option", action="append", default=[], metavar="NAME=VALUE",
                    help="an option set on the arbiter only (e.g. RepetitionDraw=true)")
    ap.add_argument("--game-option", action="append", default=[], metavar="NAME=VALUE",
                    help="a rules option set on the arbiter and on every engine")
    ap.add_argument("--pgnout", default=None, metavar="FILE",
                    help="append every finished game to FILE as PGN")
    ap.add_argument("--annotate", nargs="*", default=None, metavar="KEY=VALUE",
                    help="review every finished game with meeple's `review` and write its "
                         "values and labels into the PGN (comments, glyphs $6 $2 $4, accuracy "
                         "tags) and the database: movetime=MS per position (default %d; it "
                         "bounds the review's time) [depth=N] [nodes=N] [option.NAME=VALUE] "
                         "(set on the reviewer, e.g. option.Hash=64)"
                         % review.DEFAULT_MOVETIME)
    ap.add_argument("--reviewer", default=None, metavar="COMMAND",
                    help="with --annotate: the meeple that reviews (default: the arbiter's "
                         "command)")
    ap.add_argument("--engine-stderr", action="store_true", help="show the engines' stderr")
    ap.add_argument("--cluster", default=None, metavar="ADDRESS",
                    help="play the games on a Dask cluster: a scheduler's address "
                         "(tcp://HOST:8786) or local:N (N worker processes here); needs "
                         "dask[distributed] (scripts/requirements-cluster.txt)")
    ap.add_argument("--cluster-retries", type=count("--cluster-retries", 0),
                    default=CLUSTER_RETRIES, metavar="N",
                    help="with --cluster: times a game whose worker kept dying is played again "
                         "before the match stops (default %d)" % CLUSTER_RETRIES)
    ap.add_argument("--cluster-wait", type=seconds("--cluster-wait"), default=CLUSTER_WAIT,
                    metavar="SEC",
                    help="with --cluster: the longest time without a live worker before the "
                         "match stops (default %g)" % CLUSTER_WAIT)
    return ap


def settings_from(args, config):
    s = Settings()
    s.arbiter = args.arbiter or default_arbiter()
    s.arbiter_given = bool(args.arbiter)
    s.arbiter_options = dict(config.get("arbiter_options") or {})
    s.game_options = dict(config.get("game_options") or {})
    s.arbiter_options = dict(list(s.game_options.items()) + list(s.arbiter_options.items()))
    s.timemargin = (args.timemargin if args.timemargin is not None
                    else config.get("timemargin", DEFAULT_TIMEMARGIN))
    s.stall_timeout = args.stall_timeout if args.stall_timeout is not None else DEFAULT_STALL
    s.concurrency = args.concurrency
    s.recover = args.recover
    s.rating_interval = args.rating_interval
    s.sprt = config.get("sprt")
    s.engine_stderr = args.engine_stderr
    s.st = config.get("st")
    s.tc = tuple(config["tc"]) if config.get("tc") else None
    s.max_plies = config.get("max_plies") or 0
    s.draw = config.get("draw")
    s.resign = config.get("resign")
    s.game_type = config["game_type"]
    s.pgnout = args.pgnout or config.get("pgnout")
    s.db_wait = args.db_wait
    s.annotate = (parse_annotate_arg(args.annotate) if args.annotate is not None
                  else config.get("annotate"))
    s.reviewer = args.reviewer
    return s


def parse_annotate_arg(tokens):
    try:
        return review.parse_annotate(tokens)
    except ValueError as e:
        raise UsageError(str(e))


def new_config(args):
    """Checks every argument of a new match; UsageError on the first bad one."""
    specs = []
    for tokens in args.engine:
        person = tokens[0].startswith(("human", "remote"))
        try:
            specs.append(SeatSpec(tokens, () if person else args.each,
                                  check=not args.cluster))
        except ValueError as e:
            raise UsageError(str(e))
    if len(specs) < 2:
        raise UsageError("give at least two seats (--engine ... twice)")
    people = any(s.kind != "engine" for s in specs)
    if people and len(specs) != 2:
        raise UsageError("a match with a person has exactly two seats")
    if people and args.cluster:
        raise UsageError("--cluster plays engines only, not a person's seat")
    seen = {}
    for s in specs:
        if s.name in seen:
            seen[s.name] += 1
            s.name = "%s-%d" % (s.name, seen[s.name])
        else:
            seen[s.name] = 1
    games = args.games or args.rounds
    if games is None:
        games = DEFAULT_HUMAN_GAMES if people else DEFAULT_GAMES
    if is_mastermind(args.game) and games % 2:
        raise UsageError("a Mastermind match needs an even number of rounds")
    sprt = parse_sprt(args.sprt) if args.sprt else None
    if sprt and len(specs) != 2:
        raise UsageError("--sprt needs exactly two engines")
    try:
        openings = parse_openings_arg(args.openings) if args.openings else None
        draw = parse_rule(" ".join(args.draw), ("movenumber", "movecount", "score"),
                          "--draw") if args.draw else None
        resign = parse_rule(" ".join(args.resign), ("movecount", "score", "twosided"),
                            "--resign") if args.resign else None
    except ValueError as e:
        raise UsageError(str(e))
    if args.pgnout:
        check_pgnout(args.pgnout)
    return {"seats": [s.to_json() for s in specs], "game_type": args.game, "games": games,
            "pairings": pairings_for(args.tournament, len(specs)),
            "tournament": args.tournament,
            "seed": args.seed if args.seed is not None else random.randrange(1 << 30),
            "st": args.st, "tc": list(args.tc) if args.tc else None,
            "timemargin": args.timemargin if args.timemargin is not None else DEFAULT_TIMEMARGIN,
            "max_plies": args.max_plies, "draw": draw, "resign": resign, "sprt": sprt,
            "game_options": key_values(args.game_option, "--game-option"),
            "arbiter_options": key_values(args.arbiter_option, "--arbiter-option"),
            "pgnout": args.pgnout, "openings_spec": openings,
            "random_plies": args.random_plies,
            "annotate": (parse_annotate_arg(args.annotate) if args.annotate is not None
                         else None)}


def check_pgnout(path):
    """Refuses (UsageError) a `--pgnout` that cannot be appended to: a
    link, a FIFO, a socket, a device, a folder, or not writable. The file
    is created (empty) if missing."""
    try:
        safefile.open_append(path).close()
    except safefile.NotRegular as e:
        raise UsageError("cannot write --pgnout: %s" % e.strerror)
    except OSError as e:
        raise UsageError("cannot write --pgnout %s: %s" % (path, e.strerror or e))


def cmd_match(argv, out=sys.stdout):
    args = match_parser().parse_args(argv)
    if args.cluster:
        # Refused at once, before anything is written, without Dask.
        from .cluster import import_distributed, parse_address
        parse_address(args.cluster)
        import_distributed()
    cluster = []
    try:
        return _cmd_match(args, out, cluster)
    finally:
        for c in cluster:
            c.close()


def _connect(args, out, cluster):
    if args.cluster and not cluster:
        from .cluster import Cluster
        cluster.append(Cluster(args.cluster, out=out, retries=args.cluster_retries,
                               wait=args.cluster_wait))
    return cluster[0] if cluster else None


def _cmd_match(args, out, cluster):
    if args.resume:
        if args.resume != "last" and not args.resume.isdigit():
            raise UsageError("--resume takes a tournament number, not %r" % args.resume)
        if not os.path.exists(args.db):
            print("nothing to resume in %s (no such file)" % args.db, file=sys.stderr)
            return 1
        conn = open_db(args.db, args.db_wait)
        if args.resume == "last":
            row = conn.execute("SELECT id, config FROM tournaments WHERE finished = 0"
                               " ORDER BY id DESC LIMIT 1").fetchone()
        else:
            row = conn.execute("SELECT id, config FROM tournaments WHERE id = ?",
                               (int(args.resume),)).fetchone()
        if not row:
            print("nothing to resume in %s" % args.db, file=sys.stderr)
            return 1
        tid, config = row[0], json.loads(row[1])
        if args.pgnout or config.get("pgnout"):
            check_pgnout(args.pgnout or config.get("pgnout"))
        lock = TournamentLock(args.db, tid)
        print("Resuming tournament %d" % tid, file=out, flush=True)
    else:
        config = new_config(args)
        settings = settings_from(args, config)
        precheck(args.db)  # refuse a bad database before any work, writing nothing
        arbiter = Arbiter(settings.arbiter, options=settings.arbiter_options)
        try:
            arbiter.prepare(args.game)
            config["game_type"] = arbiter.newgame(args.game).game_type
            pairs = (config["games"] + 1) // 2
            config["openings"] = make_openings(arbiter, config["game_type"], pairs,
                                               args.random_plies, config["openings_spec"],
                                               config["seed"])
            config["secrets"] = draw_secrets(arbiter, config["game_type"], pairs, config["seed"])
        finally:
            arbiter.close()
        # Every engine must start and take its options before anything is
        # recorded (with --cluster: on a worker).
        settings = settings_from(args, config)
        if args.cluster:
            _connect(args, out, cluster).check_seats(Plan(config), settings)
        else:
            check_engine_seats(config["seats"], settings)
            review.check_reviewer(settings, config["game_type"])
        conn = open_db(args.db, args.db_wait)

        def insert():
            with conn:
                return conn.execute(
                    "INSERT INTO tournaments (created, game_type, config) VALUES (?,?,?)",
                    (now_text(), config["game_type"], json.dumps(config))).lastrowid
        tid = with_retry(insert, args.db_wait, "creating the tournament")
        lock = TournamentLock(args.db, tid)
        names = [s["name"] for s in config["seats"]]
        print("Tournament %d: %s, %s, %d games%s, db %s"
              % (tid, " vs ".join(names) if len(names) == 2 else
                 "%s of %s" % (config["tournament"], ", ".join(names)),
                 config["game_type"], config["games"] * len(config["pairings"]),
                 "" if len(names) == 2 else " (%d per pairing)" % config["games"], args.db),
              file=out, flush=True)
    try:
        settings = settings_from(args, config)
        return Match(conn, tid, config, settings, out, cluster=_connect(args, out, cluster)).run()
    finally:
        lock.release()


# ---------------------------------------------------------------------------
# leaderboard and show
# ---------------------------------------------------------------------------

def leaderboard_rows(conn, game=None):
    query = ("SELECT first_player, second_player, winner, first_points, second_points,"
             " first_accuracy, second_accuracy FROM games")
    params = ()
    if game:
        query += " WHERE lower(game_type) LIKE ?"
        params = (game.lower() + "%",)
    stats, games = {}, []
    for first, second, winner, p1, p2, a1, a2 in conn.execute(query, params):
        for name in (first, second):
            stats.setdefault(name, {"games": 0, "wins": 0, "draws": 0, "losses": 0, "points": 0,
                                    "acc_sum": 0.0, "acc_n": 0})
        for name, pts, acc in ((first, p1, a1), (second, p2, a2)):
            st = stats[name]
            st["games"] += 1
            st["points"] += pts or 0
            if isinstance(acc, (int, float)):
                st["acc_sum"] += acc
                st["acc_n"] += 1
            if winner is None:
                st["draws"] += 1
            elif winner == name:
                st["wins"] += 1
            else:
                st["losses"] += 1
        games.append((first, second, 0.5 if winner is None else (1.0 if winner == first else 0.0)))
    ratings = fit_ratings(games, list(stats)) if stats else {}
    for name, st in stats.items():
        st["name"] = name
        st["elo"], st["error"] = ratings.get(name, (0.0, math.inf))
        st["score"] = (st["wins"] + st["draws"] / 2.0) / st["games"] if st["games"] else 0.0
    return list(stats.values())


def cmd_leaderboard(argv, out=sys.stdout):
    ap = Parser(prog="referee.py leaderboard", description="Players ranked by wins and by Elo.")
    ap.add_argument("--db", default=DEFAULT_DB)
    ap.add_argument("--game", default=None, help="only games whose type starts with G")
    args = ap.parse_args(argv)
    rows = leaderboard_rows(open_db(args.db, create=False), args.game)
    if not rows:
        print("no games recorded", file=out)
        return 0
    mm = any(r["points"] for r in rows)
    # The mean accuracy of a player's reviewed games (--annotate), shown
    # once any game was reviewed.
    acc = any(r["acc_n"] for r in rows)
    head = "%-4s %-24s %6s %6s %6s %6s %7s" % ("rank", "player", "games", "wins", "draws",
                                              "losses", "score")
    print("By wins:", file=out)
    print(head + ("  points" if mm else "") + ("  accuracy (reviewed)" if acc else ""), file=out)
    for i, r in enumerate(sorted(rows, key=lambda r: (-r["wins"], r["losses"], r["name"])), 1):
        print("%-4d %-24s %6d %6d %6d %6d %6.1f%%" % (i, r["name"], r["games"], r["wins"],
                                                      r["draws"], r["losses"], 100 * r["score"])
              + ("  %6d" % r["points"] if mm else "")
              + (("  %8s (%d)" % ("%.1f" % (r["acc_sum"] / r["acc_n"]) if r["acc_n"] else "-",
                                  r["acc_n"])) if acc else ""), file=out)
    print("\nBy Elo (maximum likelihood, average 0, 95 % error bars):", file=out)
    print("%-4s %-24s %7s %7s %6s" % ("rank", "player", "elo", "+/-", "games"), file=out)
    for i, r in enumerate(sorted(rows, key=lambda r: (-r["elo"], r["name"])), 1):
        print("%-4d %-24s %7.0f %7.0f %6d" % (i, r["name"], r["elo"], r["error"], r["games"]),
              file=out)
    return 0


def cmd_show(argv, out=sys.stdout):
    ap = Parser(prog="referee.py show",
                description="Game N of a tournament (the number the log prints): its moves "
                            "and final board.")
    ap.add_argument("game", type=count("the game number", 1))
    ap.add_argument("--tournament", type=count("--tournament", 1), default=None,
                    help="the tournament (default: the last one)")
    ap.add_argument("--db", default=DEFAULT_DB)
    ap.add_argument("--arbiter", default=None)
    args = ap.parse_args(argv)
    conn = open_db(args.db, create=False)
    tid = args.tournament
    if tid is None:
        row = conn.execute("SELECT MAX(id) FROM tournaments").fetchone()
        tid = row[0] if row else None
    row = conn.execute(
        "SELECT id, tournament_id, game_index, game_type, first_player, second_player,"
        " first_side, second_side, first_options, second_options, opening, result, winner,"
        " reason, detail, final, plies, first_points, second_points, started, finished,"
        " review, first_accuracy, second_accuracy"
        " FROM games WHERE tournament_id = ? AND game_index = ?",
        (tid, args.game - 1)).fetchone()
    if not row:
        print("no game %d in tournament %s of %s" % (args.game, tid, args.db), file=sys.stderr)
        return 1
    (gid, tid, index, game_type, p1, p2, s1, s2, o1, o2, opening, result, winner, reason,
     detail, final, plies, pts1, pts2, started, finished, kept, acc1, acc2) = row
    print("Game %d of tournament %d: %s" % (index + 1, tid, game_type), file=out)
    print("%s: %s %s" % (s1 or "first", p1, o1), file=out)
    print("%s: %s %s" % (s2 or "second", p2, o2), file=out)
    print("Opening: %s" % opening, file=out)
    print("Result: %s, winner %s, reason %s%s" % (result, winner or "none", reason,
                                                 " (%s)" % detail if detail else ""), file=out)
    if pts1 is not None:
        print("Points: %s %d, %s %d" % (p1, pts1, p2, pts2), file=out)
    print("Played %s .. %s" % (started, finished), file=out)
    try:
        kept = json.loads(kept) if kept else None
    except ValueError:
        kept = None
    judged = {}
    if isinstance(kept, dict) and kept.get("failed"):
        print("Not annotated: %s" % kept["failed"], file=out)
    elif isinstance(kept, dict):
        judged = {p.get("ply"): p for p in kept.get("plies") or [] if isinstance(p, dict)}
        acc = ["-" if a is None else "%.1f" % a for a in (acc1, acc2)]
        print("Review (%s, %s): accuracy %s %s, %s %s"
              % (kept.get("by") or "?", kept.get("limits") or "?", p1, acc[0], p2, acc[1]),
              file=out)
    print("Moves:", file=out)
    for ply, side, player, move, ms, illegal, late, score, depth in conn.execute(
            "SELECT ply, side, player, move, ms, illegal, late, score, depth FROM moves"
            " WHERE game_id = ? ORDER BY ply", (gid,)):
        flag = "  (illegal)" if illegal else "  (late: lost on time)" if late else ""
        sc = "  score %d" % score if score is not None else ""
        sc += "  depth %d" % depth if depth is not None else ""
        j = judged.get(str(ply))
        if j:
            sc += "  %s" % j.get("label", "?")
            if j.get("best") and j.get("best") != j.get("move") and j.get("label") != "forced":
                sc += " (best %s)" % j["best"]
        print("  %3d. %-8s %-12s %-16s %6d ms%s%s" % (ply, side, player, move, ms, sc, flag),
              file=out)
    print("Final: %s" % final, file=out)
    try:
        arbiter = Arbiter(args.arbiter or default_arbiter(), timeout=10)
        try:
            arbiter.prepare(game_type)
            arbiter.newgame(final)
            print(arbiter.show(), file=out)
        finally:
            arbiter.close()
    except RefereeError as e:
        print("(no board: %s)" % e, file=out)
    return 0


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] == "leaderboard":
            return cmd_leaderboard(argv[1:])
        if argv and argv[0] == "show":
            return cmd_show(argv[1:])
        if argv and argv[0] == "match":
            return cmd_match(argv[1:])
        if not argv or (argv[0] in ("-h", "--help") and len(argv) == 1):
            print(USAGE)
            return 2 if not argv else 0
        return cmd_match(argv)
    except UsageError as e:
        print("referee.py: error: %s" % e, file=sys.stderr)
        return 2
    except RefereeError as e:
        print("referee.py: error: %s" % e, file=sys.stderr)
        return 2
    except sqlite3.DatabaseError as e:
        print("referee.py: error: database: %s" % e, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("referee.py: interrupted (continue with --resume)", file=sys.stderr)
        return 130
