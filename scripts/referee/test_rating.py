"""Tests of rating.py."""

import math
import unittest

from referee import rating


class Stats(unittest.TestCase):
    def test_reference_check_values(self):
        st = rating.score_stats(1038, 1925, 1037)
        self.assertEqual("%.1f" % st["elo"], "0.1")
        self.assertEqual("%.1f" % st["error"], "7.8")
        self.assertEqual("%.1f" % (100 * st["los"]), "50.9")

    def test_elo_of_scores(self):
        self.assertAlmostEqual(rating.elo_from_score(0.5), 0.0)
        self.assertAlmostEqual(rating.elo_from_score(10 / 11), 400.0, places=6)
        self.assertEqual(rating.elo_from_score(1.0), math.inf)
        self.assertEqual(rating.score_stats(10, 0, 0)["elo"], math.inf)
        self.assertEqual(rating.los(0, 0), 0.5)

    def test_sprt_logistic(self):
        lo, hi = rating.sprt_bounds(0.05, 0.05)
        self.assertAlmostEqual(lo, -2.944, places=3)
        self.assertAlmostEqual(hi, 2.944, places=3)
        self.assertGreater(rating.sprt_llr(600, 200, 200, 0, 10), hi)
        self.assertLess(rating.sprt_llr(1000, 2000, 1000, 0, 10), lo)
        self.assertEqual(rating.sprt_llr(5, 0, 0, 0, 10), 0.0)

    def test_sprt_normalized(self):
        # An even match accumulates evidence for H0, a clear edge for H1, in
        # both the trinomial and the pentanomial form.
        self.assertLess(rating.sprt_llr_normalized([10000, 20000, 10000], 0, 5), -2.95)
        self.assertGreater(rating.sprt_llr_normalized([200, 200, 600], 0, 5), 2.95)
        even = [1000, 4000, 10000, 4000, 1000]
        self.assertLess(rating.sprt_llr_normalized(even, 0, 5), -2.95)
        self.assertGreater(rating.sprt_llr_normalized([10, 50, 200, 300, 100], 0, 5), 2.95)
        # All results alike: regularized, the evidence grows with the games.
        few = rating.sprt_llr_normalized([0, 0, 0, 0, 20], 0, 5)
        self.assertGreater(few, 0.0)
        self.assertGreater(rating.sprt_llr_normalized([0, 0, 0, 0, 200], 0, 5), few)
        # The model is named in the report.
        sprt = {"elo0": 0, "elo1": 5, "alpha": 0.05, "beta": 0.05, "model": "normalized"}
        lines = rating.rating_lines("A", "B", 60, 20, 20, [1, 2, 10, 20, 17], sprt)
        self.assertIn("SPRT (normalized, pentanomial over 50 pairs): llr", lines[-1])
        sprt["model"] = "logistic"
        lines = rating.rating_lines("A", "B", 1038, 1925, 1037, [0] * 5, sprt)
        self.assertIn("Elo difference: 0.1 +/- 7.8, LOS: 50.9 %", lines[2])
        self.assertIn("SPRT (logistic, trinomial)", lines[-1])

    def test_pentanomial(self):
        rows = [(0, "A"), (0, "A"), (1, None), (1, "B"), (2, None), (2, None), (3, "B")]
        # Pairs: 0: 2 points, 1: 0.5, 2: 1; pair 3 is not complete.
        self.assertEqual(rating.pentanomial(rows, "A"), [0, 1, 1, 0, 1])


class Ratings(unittest.TestCase):
    def test_two_players_match_the_score_formula(self):
        games = [("a", "b", 1.0)] * 60 + [("a", "b", 0.0)] * 40
        r = rating.fit_ratings(games, ["a", "b"])
        diff = r["a"][0] - r["b"][0]
        # The prior pulls a little toward 0: close to the 70.4 of a 60 % score.
        self.assertAlmostEqual(diff, rating.elo_from_score(0.6), delta=3.0)
        self.assertAlmostEqual(r["a"][0] + r["b"][0], 0.0, places=6)
        self.assertTrue(30 < r["a"][1] < 80, r)

    def test_three_players_ordered_with_error_bars(self):
        games = ([("a", "b", 1.0)] * 15 + [("a", "b", 0.0)] * 5
                 + [("b", "c", 1.0)] * 15 + [("b", "c", 0.0)] * 5
                 + [("a", "c", 1.0)] * 18 + [("a", "c", 0.5)] * 2)
        r = rating.fit_ratings(games, ["a", "b", "c"])
        self.assertGreater(r["a"][0], r["b"][0])
        self.assertGreater(r["b"][0], r["c"][0])
        self.assertTrue(all(math.isfinite(e) and e > 0 for _, e in r.values()))
        # More games, smaller error bars.
        r4 = rating.fit_ratings(games * 4, ["a", "b", "c"])
        self.assertLess(r4["b"][1], r["b"][1] * 0.6)

    def test_perfect_scores_stay_finite(self):
        r = rating.fit_ratings([("a", "b", 1.0)] * 10, ["a", "b"])
        self.assertTrue(all(math.isfinite(v) for p in r.values() for v in p))

    def test_table(self):
        lines = rating.table_lines([("a", "b", 1.0), ("b", "c", 0.5), ("c", "a", 0.0)])
        self.assertEqual(len(lines), 5)
        self.assertRegex(lines[2], r"^1\s+a\s")


if __name__ == "__main__":
    unittest.main()
