"""Tests of clocks.py and adjudication.py."""

import unittest

from referee import adjudication, clocks


class Clocks(unittest.TestCase):
    def test_parse(self):
        self.assertEqual(clocks.parse_tc("60+0.5"), (60000, 500, 0))
        self.assertEqual(clocks.parse_tc("40/60+0.6"), (60000, 600, 40))
        for bad in ("abc", "nan", "inf+1", "-1+0", "0+0", "x/60", "60+-1"):
            self.assertRaises(ValueError, clocks.parse_tc, bad)
        for bad in ("nan", "inf", "-1", "0", "abc"):
            self.assertRaises(ValueError, clocks.parse_seconds, bad, "st")
        self.assertEqual(clocks.parse_seconds("0", "m", allow_zero=True), 0.0)

    def test_clock_with_increment_and_periods(self):
        lim = clocks.Limits(tc=clocks.parse_tc("2/1+0.1"), timemargin=0.05)
        c = clocks.Clock(lim)
        self.assertEqual(c.allowed(), 1.0)
        self.assertEqual(c.moves_to_go(), 2)
        c.spend(0.5)
        self.assertAlmostEqual(c.left, 600)
        self.assertEqual(c.moves_to_go(), 1)
        c.spend(0.5)
        self.assertAlmostEqual(c.left, 1200)  # a new period: the base again
        self.assertFalse(c.late(1.2))
        self.assertTrue(c.late(1.3))

    def test_go_fields(self):
        a = clocks.Clock(clocks.Limits(tc=(1000, 10, 0), depth=3))
        b = clocks.Clock(clocks.Limits(tc=(2000, 20, 0)))
        self.assertEqual(clocks.go_fields([a, b], 0, 1),
                         [("depth", 3), ("wtime", 2000), ("btime", 1000), ("winc", 20),
                          ("binc", 10)])
        st = clocks.Clock(clocks.Limits(st=0.05, nodes=100))
        self.assertEqual(clocks.go_fields([st, b], 0, 0), [("nodes", 100), ("movetime", 50)])
        self.assertEqual(clocks.Limits(st=0.05).pgn_text(), "1/0.05")
        self.assertEqual(clocks.Limits(tc=(60000, 500, 40)).pgn_text(), "40/60+0.5")


class Adjudication(unittest.TestCase):
    def test_scores(self):
        p = adjudication.parse_score
        self.assertEqual(p("info depth 3 score cp -25 pv 4"), -25)
        self.assertEqual(p("info score mate 3"), adjudication.MATE - 3)
        self.assertEqual(p("info score mate -2"), -adjudication.MATE + 2)
        self.assertEqual(p("info score exact -5"), -adjudication.MATE)
        self.assertEqual(p("info score win"), adjudication.MATE)
        self.assertIsNone(p("info score cp 30 lowerbound"))
        self.assertIsNone(p("info string score cp 30 was the old guess"))
        self.assertIsNone(p("info depth 2 nodes 5"))

    def test_depths(self):
        d = adjudication.parse_depth
        self.assertEqual(d("info depth 7 seldepth 12 score cp 3 nodes 9 pv wQ"), 7)
        self.assertEqual(d("info seldepth 12 depth 5 score cp 3"), 5)
        self.assertIsNone(d("info seldepth 12 score cp 3"))
        self.assertIsNone(d("info string depth 4 reached"))
        self.assertIsNone(d("bestmove depth 3"))

    def test_rules(self):
        draw = adjudication.parse_rule("movenumber=2 movecount=2 score=10",
                                       ("movenumber", "movecount", "score"), "--draw")
        resign = adjudication.parse_rule("movecount=2 score=500",
                                         ("movecount", "score", "twosided"), "--resign")
        a = adjudication.Adjudicator(draw, resign)
        a.record(0, 5)
        a.record(1, -5)
        a.record(0, 0)
        self.assertIsNone(a.verdict(1))  # seat 1 has one score only
        a.record(1, 3)
        self.assertIsNone(a.verdict(1))  # before move number 2
        self.assertEqual(a.verdict(2)[0], "draw")
        b = adjudication.Adjudicator(None, resign)
        for s in (-600, None, -600, -700):
            b.record(1, s)
        self.assertEqual(b.verdict(9)[:2], ("loss", 1))
        c = adjudication.Adjudicator(None, resign)
        for s in (-600, None):
            c.record(1, s)
        self.assertIsNone(c.verdict(9))  # a move without a score breaks the run
        self.assertRaises(ValueError, adjudication.parse_rule, "score=x movecount=1",
                          ("movecount", "score"), "--resign")
        self.assertRaises(ValueError, adjudication.parse_rule, "score=1",
                          ("movecount", "score"), "--resign")


if __name__ == "__main__":
    unittest.main()
