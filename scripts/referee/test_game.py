"""Tests of game.py (the move loop itself is played end to end in
test_referee.py)."""

import unittest

from referee import game


class MastermindPoints(unittest.TestCase):
    def test_points(self):
        # Codebreaker (seat 0) broke the code with its 3rd guess: 6 plies.
        rec = {"reason": "rules", "winner": 0}
        self.assertEqual(game.mastermind_points(rec, 0, 6), [0, 3])
        # Rows ran out after 10 guesses: the codemaker (seat 0) gets 10 + 1.
        rec = {"reason": "rules", "winner": 0}
        self.assertEqual(game.mastermind_points(rec, 1, 20), [11, 0])
        # The codemaker gave an impossible feedback: it scores nothing.
        rec = {"reason": "illegal", "winner": 1}
        self.assertEqual(game.mastermind_points(rec, 1, 3), [0, 0])
        # The codebreaker crashed after 2 guesses: not broken.
        rec = {"reason": "crash", "winner": 1}
        self.assertEqual(game.mastermind_points(rec, 0, 4), [0, 3])

    def test_forfeits_score_by_the_arbiter_s_rule(self):
        # board json's forfeit at the 3rd guess of Mastermind (rows10):
        # [[0, 11] if the breaker forfeits, [0, 3] if the maker does].
        forfeit = [[0, 11], [0, 3]]
        # The codebreaker (seat 0) lost on time: the code is not broken
        # after all the rows, 11 for the codemaker, not 3 + 1.
        rec = {"reason": "time", "winner": 1}
        self.assertEqual(game.mastermind_points(rec, 0, 5, forfeit), [0, 11])
        # The codemaker (seat 0) crashed at the 3rd guess: it scores 3.
        rec = {"reason": "crash", "winner": 1}
        self.assertEqual(game.mastermind_points(rec, 1, 5, forfeit), [3, 0])
        # Adjudicated as a resignation of the codemaker (seat 1).
        rec = {"reason": "adjudication", "winner": 0}
        self.assertEqual(game.mastermind_points(rec, 0, 5, forfeit), [0, 3])
        # A round the rules ended ignores it.
        rec = {"reason": "rules", "winner": 0}
        self.assertEqual(game.mastermind_points(rec, 0, 6, forfeit), [0, 3])

    def test_secret_field(self):
        self.assertEqual(game.with_secret("Mastermind;NotStarted;Breaker[1]", "1234"),
                         "Mastermind;NotStarted;Breaker[1];Secret=1234")
        self.assertEqual(game.with_secret("Connect4;NotStarted;Red[1]", None),
                         "Connect4;NotStarted;Red[1]")


if __name__ == "__main__":
    unittest.main()
