"""Tests of review.py: the `--annotate` limits, reading a review's reply,
keeping it, and turning it into PGN notes (the reviewer is the fake engine;
the real meeple's reviews are in scripts/test_referee.py)."""

import json
import os
import shlex
import sys
import time
import unittest

from referee import pgn, review
from referee.gamestring import GameString

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKE = "%s %s" % (shlex.quote(sys.executable), shlex.quote(os.path.join(HERE, "fake_engine.py")))

C4 = "Connect4;RedWins;Yellow[4];1;7;2;7;3;7;4"


def ply(n, side, move, label, value=None, best=None, **more):
    out = {"ply": str(n), "side": side, "move": move, "label": label}
    if value is not None:
        out["value"] = value
    if best is not None:
        out["best"] = best
    out.update(more)
    return out


class Limits(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(review.parse_annotate([]),
                         {"movetime": 200, "depth": None, "nodes": None, "options": {}})
        spec = review.parse_annotate(["movetime=50", "depth=6", "option.Hash=64",
                                      "option.Move Overhead=5"])
        self.assertEqual(review.limits_text(spec), "movetime 50 depth 6")
        self.assertEqual(spec["options"], {"Hash": "64", "Move Overhead": "5"})
        for bad in (["movetime=0"], ["movetime=x"], ["time=5"], ["depth"], ["nodes=-3"],
                    ["option.=3"], ["option.Hash="]):
            with self.assertRaises(ValueError, msg=bad):
                review.parse_annotate(bad)

    def test_the_bound_grows_with_the_game(self):
        spec = review.parse_annotate(["movetime=100"])
        self.assertAlmostEqual(review.time_bound(spec, 41, 10), 42 * 0.1 * 1.25 + 10)


class Reading(unittest.TestCase):
    def test_pairs(self):
        self.assertEqual(review.pairs("ply 1 side Red move 4 label best"),
                         {"ply": "1", "side": "Red", "move": "4", "label": "best"})
        self.assertIsNone(review.pairs("ply 1 side"))
        self.assertIsNone(review.pairs("ply 1 ply 2"))

    def test_side_accuracy_is_protocol_s_mean_of_two_means(self):
        self.assertIsNone(review.side_accuracy([]))
        self.assertEqual(review.side_accuracy([100.0, 100.0]), 100.0)
        # One blunder weighs more than its share: (arith 60 + harm 1.98) / 2.
        self.assertAlmostEqual(review.side_accuracy([100.0, 20.0, 0.0]),
                               (40.0 + 3 / (0.01 + 0.05 + 1.0)) / 2)

    def test_a_reply_must_judge_the_game_s_moves(self):
        plies = [ply(n, "Red" if n % 2 else "Yellow", m, "best")
                 for n, m in enumerate("1727374", 1)]
        sides = [{"side": "Red"}, {"side": "Yellow"}]
        review.check_reply(C4, plies, sides)
        with self.assertRaises(review.ReviewFailed):
            review.check_reply(C4, plies[:-1], sides)
        with self.assertRaises(review.ReviewFailed):
            review.check_reply(C4, plies[:-1] + [ply(7, "Red", "5", "best")], sides)
        with self.assertRaises(review.ReviewFailed):
            review.check_reply(C4, plies, sides[:1])
        hive = "Base;InProgress;Black[1];wS1;bS1 wS1-"
        review.check_reply(hive, [ply(1, "White", "wS1", "best"),
                                  ply(2, "Black", "bS1_wS1-", "best")], sides)


class Reviewing(unittest.TestCase):
    def run_review(self, mode, final=C4, opening="Connect4;NotStarted;Red[1]", margin=2.0):
        r = review.Reviewer(FAKE + " --review " + mode)
        try:
            return review.review_record(r, {"final": final, "opening": opening},
                                        review.parse_annotate(["movetime=10"]), margin)
        finally:
            r.close()

    def test_a_review_is_kept(self):
        kept, warning = self.run_review("ok")
        self.assertIsNone(warning)
        self.assertEqual([p["label"] for p in kept["plies"]],
                         ["best", "inaccuracy", "mistake", "blunder", "good", "forced", "best"])
        self.assertEqual(kept["by"], "fake-engine v0.0.1")
        self.assertEqual(kept["limits"], "movetime 10")
        self.assertEqual(kept["accuracy"], [77.7, 77.7])  # the reviewer's own figures

    def test_the_opening_s_plies_are_not_counted(self):
        # Plies 1-2 came from the opening: Red's counted plies are 3 (80),
        # 5 (60) and 7 (100); Yellow's 4 (70); ply 6 is forced.
        kept, warning = self.run_review("ok", opening="Connect4;InProgress;Red[2];1;7")
        self.assertIsNone(warning)
        self.assertEqual(kept["opening"], 2)
        self.assertEqual(kept["accuracy"],
                         [round(review.side_accuracy([80.0, 60.0, 100.0]), 1), 70.0])

    def test_failures_are_reported_not_raised(self):
        for mode, needle in (("die", "exited"), ("err", "err unknown command review"),
                             ("garbage", "bestmove 4"), ("short", "judged 6 plies of 7"),
                             ("hang", "within the review's time")):
            with self.subTest(mode=mode):
                began = time.monotonic()
                kept, warning = self.run_review(mode, margin=0.3)
                self.assertIsNone(kept)
                self.assertIn(needle, warning)
                if mode == "hang":  # killed at its bound, not waited for
                    self.assertLess(time.monotonic() - began, 30)

    def test_a_stopping_match_cuts_the_review_short(self):
        r = review.Reviewer(FAKE + " --review hang")
        try:
            kept, warning = review.review_record(
                r, {"final": C4}, review.parse_annotate(["movetime=10000"]), 600,
                aborted=lambda: r.proc is not None and r.game_type is not None)
        finally:
            r.close()
        self.assertIsNone(kept)
        self.assertIn("stopped", warning)

    def test_nothing_to_review(self):
        self.assertEqual(self.run_review("ok", final="Connect4;NotStarted;Red[1]"), (None, None))


class Notes(unittest.TestCase):
    def test_connect4_values_from_white_s_side_and_glyphs(self):
        moves = GameString(C4).moves
        plies = [ply(1, "Red", "1", "best", "1", "1"), ply(2, "Yellow", "7", "inaccuracy", "-3", "4"),
                 ply(3, "Red", "2", "mistake", "2", "4"), ply(4, "Yellow", "7", "blunder", "-18", "4"),
                 ply(5, "Red", "3", "forced", "18", "3"), ply(6, "Yellow", "7", "unproven", ">=2"),
                 ply(7, "Red", "4", "good", "18", "3")]
        notes, tags, comment = review.annotations("Connect4", moves, {
            "by": "meeple v1", "limits": "movetime 200", "plies": plies,
            "accuracy": [93.14, None]})
        self.assertEqual(notes, [
            (None, "[%eval 1]"), (6, "[%eval 3] best: 4"), (2, "[%eval 2] best: 4"),
            (4, "[%eval 18] best: 4"), (None, "[%eval 18]"),
            (None, "value >=2 for Yellow (unproven)"), (None, "[%eval 18] best: 3")])
        self.assertEqual(tags, {"Annotator": "meeple v1, review movetime 200",
                                "WhiteAccuracy": "93.1"})
        self.assertIsNone(comment)

    def test_hive_in_pawns_and_mates(self):
        moves = ["wS1", "bS1 wS1-", "wQ -wS1"]
        plies = [ply(1, "White", "wS1", "best", "32", "wS1"),
                 ply(2, "Black", "bS1_wS1-", "mistake", "-75", "bQ_wS1\\"),
                 ply(3, "White", "wQ_-wS1", "blunder", "mate-2", "wQ_wS1/")]
        notes, _, _ = review.annotations("Base+MLP", moves, {"plies": plies})
        self.assertEqual(notes, [(None, "[%eval 0.32]"), (2, "[%eval 0.75] best: bQ wS1\\"),
                                 (4, "[%eval #-2] best: wQ wS1/")])
        plies[2]["value"] = "mate3"
        plies[1]["side"] = "White"  # a mate for the side that moved, from White's side
        self.assertEqual(review.annotations("Base", moves, {"plies": plies})[0][2][1],
                         "[%eval #3] best: wQ wS1/")

    def test_mastermind_values_as_given_feedback_without(self):
        moves = ["1122", "0B1W", "1344"]
        plies = [ply(1, "Breaker", "1122", "best", "256.00", "1122"),
                 ply(2, "Maker", "0B1W", "none"),
                 ply(3, "Breaker", "1344", "blunder", "10.07", "1426")]
        notes, _, _ = review.annotations("Mastermind", moves, {"plies": plies})
        self.assertEqual(notes, [(None, "[%eval 256.00]"), (None, None),
                                 (4, "[%eval 10.07] best: 1426")])

    def test_a_review_that_does_not_fit_is_left_out(self):
        nothing = (None, {}, None)
        self.assertEqual(review.annotations("Connect4", ["4"], None), nothing)
        self.assertEqual(review.annotations("Connect4", ["4"], "not json"), nothing)
        self.assertEqual(review.annotations("Connect4", ["4", "4"], {"plies": [{}]}), nothing)
        # A tampered database's review: plies that are not dicts of texts.
        for plies in ([1], [{"ply": 1}], "x", [None]):
            self.assertEqual(review.annotations("Connect4", ["4"], {"plies": plies}), nothing)

    def test_a_failed_review_says_why_in_a_comment(self):
        kept = json.loads(json.dumps(review.failed_record("the reviewer exited (status 3)")))
        self.assertEqual(review.annotations("Connect4", ["4", "4"], kept),
                         (None, {}, "not annotated: the reviewer exited (status 3)"))
        # A long reason is cut so that its line stays within PGN's 255.
        comment = review.annotations("Connect4", ["4"], review.failed_record("y" * 1000))[2]
        self.assertEqual(comment, "not annotated: " + "y" * 227 + "...")
        text = pgn.game_text({"Result": "1-0", "GameType": "Connect4"}, ["4"], None, comment)
        self.assertTrue(all(len(line) < 255 for line in text.splitlines()), text)

    def test_a_hostile_reviewer_cannot_inject(self):
        # Everything a reviewer says, with every way of ending a comment, a
        # tag, a line or a record: the PGN keeps its games, moves and tags.
        evil = "x}\n\r\x0b\x0c\x1c\x85\u2028\u2029\n\n[Event \"fake\"]\n\n1. 5 {"
        moves = ["4", "4", "3"]
        plies = [ply(1, "Red", "4", "mistake", "1", "5" + evil),
                 ply(2, "Yellow", "4", "blunder", evil, "3", side2=evil),
                 ply(3, "Red", "3", "inaccuracy", "2", evil)]
        plies[1]["side"] = "Yellow" + evil
        kept = {"by": "meeple" + evil, "limits": "movetime 1" + evil, "plies": plies,
                "accuracy": [50.0, 60.0]}
        notes, tags, comment = review.annotations("Connect4", moves, kept)
        pgn_tags = {"Event": "e", "Site": "?", "Date": "?", "Round": "1", "White": "a",
                    "Black": "b", "Result": "1-0", "GameType": "Connect4"}
        hostile_tags = dict(pgn_tags, **tags)
        for hive in (False, True):
            game_tags = dict(hostile_tags, GameType="Base") if hive else hostile_tags
            game_moves = ["wS1", "bS1 wS1-", "wQ -wS1"] if hive else moves
            text = pgn.game_text(game_tags, game_moves, notes)
            self.assertEqual(len(pgn.record_starts(text.encode())), 1, text)
            games = pgn.read(text)
            self.assertEqual(len(games), 1, text)
            self.assertEqual(games[0]["moves"], game_moves, text)
            self.assertEqual(games[0]["tags"]["Event"], "e")
            self.assertEqual([n["nags"] for n in games[0]["notes"]], [[2], [4], [6]])
            self.assertEqual([len(n["comments"]) for n in games[0]["notes"]], [1, 1, 1], text)
            failed = pgn.game_text(game_tags, game_moves, None,
                                   review.annotations("Base", game_moves,
                                                      review.failed_record(evil))[2])
            games = pgn.read(failed)
            self.assertEqual((len(games), games[0]["moves"]), (1, game_moves), failed)
            self.assertEqual(len(games[0]["comments"]), 1, failed)
            self.assertTrue(games[0]["comments"][0].startswith("not annotated: x?"))


if __name__ == "__main__":
    unittest.main()
