"""The tournament: which games are played, by whom, in what order; the
workers that play them; the running reports; the SPRT stop.

Pairings: two engines play one pairing; `--tournament round-robin` pairs
every engine with every other, `gauntlet` the first with each other. Each
pairing plays `--games` games: game k of a pairing uses opening k // 2 (the
same openings for every pairing), colours swapped between k and k + 1.
The games of all pairings are interleaved (game number g is game g // P of
pairing g % P, P pairings) so that the ratings grow evenly.
"""

import math
import queue
import socket
import sys
import threading
import traceback

from .arbiter import Arbiter
from .errors import RefereeError
from .game import GameAborted, play_game
from .gamestring import GameString, is_mastermind
from .clocks import Limits
from .rating import pentanomial, rating_lines, sprt_state, table_lines
from .seats import EngineSeat, PersonSeat, SeatSpec
from .store import result_text, store_game, with_retry
from . import pgn, review, safefile


class Settings:
    """The match-wide settings (from the command line or a resumed config)."""

    def __init__(self, **kw):
        self.arbiter = None
        self.arbiter_options = {}
        self.game_options = {}
        self.timemargin = 0.5
        self.stall_timeout = 10.0
        self.concurrency = 1
        self.recover = False
        self.rating_interval = 10
        self.sprt = None
        self.engine_stderr = False
        self.st = None
        self.tc = None
        self.max_plies = 0
        self.draw = None
        self.resign = None
        self.game_type = None
        self.pgnout = None
        self.db_wait = 30.0
        self.annotate = None  # review.parse_annotate's limits: review every game
        self.reviewer = None  # the reviewer's command (None: the arbiter's)
        self.__dict__.update(kw)


def pairings_for(kind, n):
    if kind == "gauntlet":
        return [[0, j] for j in range(1, n)]
    return [[i, j] for i in range(n) for j in range(i + 1, n)]


class Plan:
    """Which game is which: a picklable description of a tournament's games
    (seats, pairings, openings, secrets), the same on the referee and on a
    cluster's workers. Game `index` is `job(index)`, played by `Player`."""

    def __init__(self, config):
        self.seats = config["seats"]
        self.pairings = config.get("pairings") or [[0, 1]]
        self.game_type = config["game_type"]
        self.openings = config["openings"]
        self.secrets = config.get("secrets") or [None] * len(self.openings)

    def schedule(self, index):
        """(pairing number, game number within the pairing) of game `index`."""
        return index % len(self.pairings), index // len(self.pairings)

    def job(self, index):
        p, k = self.schedule(index)
        return {"index": index, "pairing": p, "seats": list(self.pairings[p]),
                "first_seat": k % 2,
                "opening": {"gamestring": self.openings[k // 2],
                            "secret": self.secrets[k // 2]}}


class Player:
    """Plays games one after the other in one thread: its own arbiter and
    engine processes, kept from game to game. A game is a function of the
    settings, the seats and `Plan.job(index)`: the match's threads and a
    cluster's workers (worker.py) play them with this same code."""

    def __init__(self, specs, settings, game_type, shared_people=None):
        self.specs = specs
        self.settings = settings
        self.shared_people = shared_people or {}
        self.engines = {}
        self.reviewer = None
        self.arbiter = Arbiter(settings.arbiter, options=settings.arbiter_options)
        try:
            self.arbiter.prepare(game_type)
            if any(s.kind == "human" for s in specs) and sys.stdout.isatty():
                self.arbiter.set_color()
        except BaseException:
            self.arbiter.close()
            raise

    def seat(self, k):
        if k in self.shared_people:
            return self.shared_people[k]
        if k not in self.engines:
            self.engines[k] = EngineSeat(self.specs[k], self.settings)
        return self.engines[k]

    def play(self, job, aborted=lambda: False):
        """(record, seats): the game's record, with `pairing` and `broken`
        (the seats, 0 or 1, whose engine crashed, stalled or lost step)."""
        i, j = job["seats"]
        seats = [self.seat(i), self.seat(j)]
        for s in seats:
            s.ensure_ready(self.settings.recover)
        limits = [s.limits if not s.is_person else Limits() for s in seats]
        record = play_game(self.arbiter, seats, limits, job["first_seat"], job["opening"],
                           self.settings, aborted=aborted)
        record["pairing"] = job["pairing"]
        record["broken"] = [n for n, s in enumerate(seats) if getattr(s, "broken", False)]
        if getattr(self.settings, "annotate", None):
            self.annotate(record, aborted)
        return record, seats

    def annotate(self, record, aborted=lambda: False):
        """--annotate: the finished game reviewed here, by this thread's
        reviewer, before it is stored (so its review is stored with it, and
        its PGN, made from the stored game, is the same whenever it is
        made). A failed review leaves the game without one and says why in
        `review_warning`; it never fails the game."""
        s = self.settings
        if self.reviewer is None:
            self.reviewer = review.Reviewer(getattr(s, "reviewer", None) or s.arbiter,
                                            review.reviewer_options(s))
        kept, warning = review.review_record(self.reviewer, record, s.annotate,
                                             s.stall_timeout, aborted)
        record["review"] = kept
        if warning:
            record["review_warning"] = warning
            record["review"] = review.failed_record(warning)

    def close(self):
        for s in self.engines.values():
            s.close()
        self.engines = {}
        if self.reviewer is not None:
            self.reviewer.close()
            self.reviewer = None
        self.arbiter.close()


class Match:
    def __init__(self, conn, tournament_id, config, settings, out=sys.stdout, cluster=None):
        self.conn = conn
        self.tid = tournament_id
        self.config = config
        self.settings = settings
        self.out = out
        self.cluster = cluster
        self.plan = Plan(config)
        self.specs = [SeatSpec.from_json(s) for s in config["seats"]]
        self.pairings = self.plan.pairings
        self.game_type = config["game_type"]
        self.per_pairing = config["games"]
        self.total = self.per_pairing * len(self.pairings)
        self.lock = threading.RLock()
        self.stop = threading.Event()
        self.stop_reason = None
        self.error = None
        self.done = 0

    def say(self, *lines):
        for line in lines:
            print(line, file=self.out, flush=True)

    def schedule(self, index):
        """(pairing number, game number within the pairing) of game `index`."""
        return self.plan.schedule(index)

    def rows(self):
        with self.lock:
            return self.conn.execute(
                "SELECT game_index, first_player, second_player, winner, first_points,"
                " second_points FROM games WHERE tournament_id = ? ORDER BY game_index",
                (self.tid,)).fetchall()

    def report_lines(self):
        rows = self.rows()
        names = [s.name for s in self.specs]
        if is_mastermind(self.game_type):
            pts = {n: 0 for n in names}
            for _, p1, p2, _, a, b in rows:
                pts[p1] += a or 0
                pts[p2] += b or 0
            order = sorted(names, key=lambda n: (-pts[n], n))
            text = ", ".join("%s %d" % (n, pts[n]) for n in names)
            return ["Mastermind after %d rounds: points %s (%s leads)"
                    % (len(rows), text, order[0] if len(set(pts.values())) > 1 else "nobody"),
                    "Points: " + text]
        results = [(p1, p2, 0.5 if w is None else 1.0 if w == p1 else 0.0)
                   for _, p1, p2, w, _, _ in rows]
        if len(self.specs) == 2:
            a, b = names
            wdl = [0, 0, 0]
            for _, _, _, w, _, _ in rows:
                wdl[0 if w == a else 1 if w is None else 2] += 1
            ptnml = pentanomial([(self.schedule(r[0])[1] // 2, r[3]) for r in rows], a)
            return rating_lines(a, b, *wdl, ptnml=ptnml, sprt=self.settings.sprt)
        if not results:
            return ["no games yet"]
        return table_lines(results)

    def report(self):
        self.say(*self.report_lines())

    def pending(self):
        with self.lock:
            done = {r[0] for r in self.conn.execute(
                "SELECT game_index FROM games WHERE tournament_id = ?", (self.tid,))}
        return [i for i in range(self.total) if i not in done]

    def run(self):
        if self.settings.pgnout:
            self.sync_pgn()
        self.warn_uhp_seconds()
        todo = self.pending()
        self.done = self.total - len(todo)
        if self.cluster is not None:
            try:
                self.cluster.play(self, todo)
            except KeyboardInterrupt:
                self.stop_reason = "interrupted"
                self.stop.set()
            return self._close()
        work = queue.Queue()
        for i in todo:
            work.put(i)
        people = any(s.kind != "engine" for s in self.specs)
        shared_people = {}
        try:
            for k, spec in enumerate(self.specs):
                if spec.kind == "remote":
                    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    sock.bind(spec.address)
                    sock.listen(1)
                    shared_people[k] = PersonSeat(spec, self.settings, sock, self.stop)
                elif spec.kind == "human":
                    shared_people[k] = PersonSeat(spec, self.settings)
        except OSError as e:
            raise RefereeError("cannot listen on %s:%d: %s" % (spec.address + (e.strerror,)))
        workers = 1 if people else max(1, min(self.settings.concurrency, len(todo) or 1))
        threads = [threading.Thread(target=self._worker, args=(work, shared_people), daemon=True)
                   for _ in range(workers)]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.2)
        except KeyboardInterrupt:
            self.stop_reason = "interrupted"
            self.stop.set()
            for t in threads:
                t.join(5)
        for seat in shared_people.values():
            seat.close()
            if seat.listener:
                seat.listener.close()
        return self._close()

    def _close(self):
        """Marks a complete (or SPRT-decided) tournament finished, prints
        the end and the report; the exit status."""
        finished = not self.pending()
        sprt_stop = bool(self.stop_reason and self.stop_reason.startswith("SPRT"))
        if finished or sprt_stop:
            with self.lock:
                def mark():
                    with self.conn:
                        self.conn.execute("UPDATE tournaments SET finished = 1 WHERE id = ?",
                                          (self.tid,))
                try:
                    with_retry(mark, self.settings.db_wait, "closing the tournament")
                except RefereeError as e:
                    self.error = str(e)
        hint = "; continue with --resume" if self.stop_reason == "interrupted" else ""
        self.say("Finished match" if finished else
                 "Match stopped: %s%s" % (self.stop_reason or self.error or "games left unplayed", hint))
        self.report()
        # 0: complete (or decided by SPRT); 2: referee error; 130: Ctrl-C;
        # 1: stopped by an engine failure without --recover.
        if self.error is not None:
            return 2
        if finished or sprt_stop:
            return 0
        return 130 if self.stop_reason == "interrupted" else 1

    def _worker(self, work, shared_people):
        player = None
        try:
            player = Player(self.specs, self.settings, self.game_type, shared_people)
            while not self.stop.is_set():
                try:
                    index = work.get_nowait()
                except queue.Empty:
                    break
                try:
                    record, seats = player.play(self.plan.job(index), aborted=self.stop.is_set)
                except GameAborted:
                    break
                self.game_done(index, seats, record)
        except Exception as e:  # noqa: BLE001 - any failure stops the match cleanly
            self.fail(e)
        finally:
            if player:
                player.close()

    def fail(self, e):
        """Stops the match on a referee error (printed once)."""
        if not isinstance(e, RefereeError):
            traceback.print_exc()
        with self.lock:
            if self.error is None:
                self.error = str(e)
                self.stop_reason = "referee error: %s" % e
                self.say("referee error: %s" % e)
        self.stop.set()

    def game_done(self, index, seats, record):
        """Stores a played game (once: a game already stored is ignored) and
        stops the match on an engine failure without --recover."""
        self._finish(index, seats, record)
        if not self.settings.recover:
            for n in record.get("broken", ()):
                with self.lock:
                    if not self.stop.is_set():
                        self.stop_reason = ("engine %s %s; use --recover to restart it"
                                            % (seats[n].name, record["reason"]))
                        self.stop.set()

    def _finish(self, index, seats, record):
        with self.lock:
            if self.stop.is_set() and (self.stop_reason or "").startswith("SPRT"):
                return  # decided already: the report must match the decision
            if store_game(self.conn, self.tid, index, self.game_type, seats, record,
                          self.settings.db_wait) is None:
                return  # stored already (a game played twice is counted once)
            self.done += 1
            first = record["first_seat"]
            result = result_text(record)
            why = record["reason"] + (": " + record["detail"] if record.get("detail") else "")
            line = ("Finished game %d (%s vs %s): %s {%s}"
                    % (index + 1, seats[first].name, seats[1 - first].name, result, why))
            points = record.get("points")
            if points:
                line += "  points %d-%d" % (points[first], points[1 - first])
            elif len(self.specs) == 2:
                a = self.specs[0].name
                rows = self.rows()
                score = sum(1.0 if r[3] == a else 0.5 if r[3] is None else 0.0 for r in rows)
                line += "  %s %.1f/%d" % (a, score, len(rows))
            self.say(line)
            if record.get("review_warning"):
                print("warning: game %d: not annotated: %s" % (index + 1, record["review_warning"]),
                      file=sys.stderr, flush=True)
            if self.settings.pgnout:
                self._append_pgn([self._pgn_text(self._pgn_row(index))])
            text = "Game over: %s (%s)" % (result, why)
            for s in seats:
                s.game_over(text)
            if (self.settings.rating_interval and self.done % self.settings.rating_interval == 0
                    and self.done < self.total):
                self.report()
            sprt = self.settings.sprt
            if sprt and not self.stop.is_set() and not is_mastermind(self.game_type):
                rows = self.rows()
                a = self.specs[0].name
                wdl = [0, 0, 0]
                for r in rows:
                    wdl[0 if r[3] == a else 1 if r[3] is None else 2] += 1
                ptnml = pentanomial([(self.schedule(r[0])[1] // 2, r[3]) for r in rows], a)
                llr, lo, hi, model = sprt_state(sprt, wdl, ptnml)
                if llr >= hi or llr <= lo:
                    self.stop_reason = ("SPRT (%s): %s accepted (llr %.3f)"
                                        % (model, "H1" if llr >= hi else "H0", llr))
                    self.stop.set()

    # -- PGN ------------------------------------------------------------
    # A game's PGN is made from its row in the database, after the row is
    # committed: the same text whenever it is made, so that a resumed match
    # can tell which stored games the file holds.

    PGN_COLUMNS = ("game_index, first_player, second_player, result, reason, final, started,"
                   " secret, review")

    def _pgn_row(self, index):
        with self.lock:
            return self.conn.execute(
                "SELECT %s FROM games WHERE tournament_id = ? AND game_index = ?"
                % self.PGN_COLUMNS, (self.tid, index)).fetchone()

    def _seat_tc(self, name):
        spec = next((s for s in self.specs if s.name == name), None)
        if spec is None or spec.kind != "engine":
            return Limits().pgn_text()
        return spec.limits(self.settings.st, self.settings.tc, self.settings.timemargin).pgn_text()

    def _pgn_text(self, row):
        index, white, black, result, reason, final_text, started, secret, kept = row
        final = GameString(final_text)
        tc = [self._seat_tc(white), self._seat_tc(black)]
        tags = {"Event": "meeple referee tournament %d" % self.tid, "Site": "?",
                "Date": (started or "????-??-??")[:10].replace("-", "."),
                "Round": str(index + 1), "White": white, "Black": black, "Result": result,
                "GameType": final.game_type,
                "TimeControl": tc[0] if tc[0] == tc[1] else "?",
                "Termination": pgn.TERMINATION.get(reason, "unterminated")}
        if tc[0] != tc[1]:
            tags["WhiteTimeControl"], tags["BlackTimeControl"] = tc
        if secret:
            tags["Secret"] = secret
        notes, extra, comment = review.annotations(final.game_type, final.moves, kept)
        tags.update(extra)
        return pgn.game_text(tags, final.moves, notes, comment)

    def _append_pgn(self, texts):
        path = self.settings.pgnout
        try:
            with safefile.open_append(path) as f:
                f.write("".join(texts).encode("utf-8"))
        except safefile.NotRegular as e:
            raise RefereeError("cannot write --pgnout: %s" % e.strerror)
        except OSError as e:
            raise RefereeError("cannot write %s: %s" % (path, e.strerror))

    def sync_pgn(self):
        """Every game stored in the database is in the PGN file, once: a
        referee killed between a game's commit and its PGN write (or in the
        middle of it) left the file short. The file's last record, when it
        is the beginning of a stored game's text (a write cut short), is cut
        off; then the stored games the file does not hold are appended, in
        order. Records of other tournaments and other text are left alone,
        and a second run changes nothing."""
        path = self.settings.pgnout
        rows = self.conn.execute(
            "SELECT %s FROM games WHERE tournament_id = ? ORDER BY game_index"
            % self.PGN_COLUMNS, (self.tid,)).fetchall()
        if not rows:
            return
        expected = [(r[0], self._pgn_text(r).encode("utf-8")) for r in rows]
        try:
            with safefile.open_read(path) as f:
                data = f.read()
        except FileNotFoundError:
            data = b""
        except safefile.NotRegular as e:
            raise RefereeError("cannot write --pgnout: %s" % e.strerror)
        except OSError as e:
            raise RefereeError("cannot read %s: %s" % (path, e.strerror))
        starts = pgn.record_starts(data)
        records = [data[a:b] for a, b in zip(starts, starts[1:] + [len(data)])]
        texts = {text for _, text in expected}
        if records and records[-1] not in texts and any(t.startswith(records[-1]) for t in texts):
            try:
                safefile.truncate(path, starts[-1])
            except OSError as e:
                raise RefereeError("cannot repair %s: %s" % (path, e.strerror))
            records.pop()
        present = set(records)
        missing = [text for _, text in expected if text not in present]
        if missing:
            self._append_pgn([t.decode("utf-8") for t in missing])
            self.say("PGN %s: %d stored game%s added (written before a kill, or not at all)"
                     % (path, len(missing), "" if len(missing) == 1 else "s"))

    def warn_uhp_seconds(self):
        """UHP's `bestmove time hh:mm:ss` has whole seconds: say what a UHP
        seat with a finer limit is told (and judged by)."""
        for spec in self.specs:
            if spec.kind != "engine" or spec.proto != "uhp":
                continue
            lim = spec.limits(self.settings.st, self.settings.tc, self.settings.timemargin)
            if lim.st is not None and lim.st != int(lim.st):
                told = max(1, int(math.ceil(lim.st - 1e-9)))
                self.say("Note: %s speaks UHP, whose `bestmove time` has whole seconds: st=%g is"
                         " told as %d s, and the seat is judged by %d s (+ its margin)"
                         % (spec.name, lim.st, told, told))
            elif lim.tc:
                self.say("Note: %s speaks UHP, which has no clock: each move it is told the"
                         " time left on its clock, rounded up to whole seconds, and is judged"
                         " by that" % spec.name)
