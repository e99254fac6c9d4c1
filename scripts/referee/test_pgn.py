"""Tests of pgn.py: written games read back."""

import unittest

from referee import pgn

TAGS = {"Event": "e", "Site": "?", "Date": "2026.01.02", "Round": "3", "White": "A",
        "Black": "B \"the\" second", "Result": "1-0", "GameType": "Connect4",
        "TimeControl": "60+0.5", "Termination": "normal"}


class Pgn(unittest.TestCase):
    def test_standard_round_trip(self):
        moves = [str(1 + i % 7) for i in range(41)]
        text = pgn.game_text(TAGS, moves) + pgn.game_text(dict(TAGS, Result="1/2-1/2"), ["4"])
        self.assertTrue(all(len(line) <= 79 for line in text.splitlines()))
        self.assertIn("1. 1 2 2. 3 4", text)
        games = pgn.read(text)
        self.assertEqual(len(games), 2)
        self.assertEqual(games[0]["moves"], moves)
        self.assertEqual(games[0]["tags"]["Black"], 'B "the" second')
        self.assertEqual(games[0]["tags"]["Result"], "1-0")
        self.assertEqual(games[1]["moves"], ["4"])
        for tag in pgn.ROSTER + ("GameType", "TimeControl", "Termination"):
            self.assertIn(tag, games[0]["tags"])

    def test_hive_is_written_the_mzinga_way(self):
        moves = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"]
        text = pgn.game_text(dict(TAGS, GameType="Base+MLP", Result="0-1"), moves)
        lines = text.splitlines()
        self.assertEqual(lines[0], '[GameType "Base+MLP"]')
        self.assertIn('[Result "BlackWins"]', lines)
        self.assertIn("2. bS1 wS1-", lines)
        self.assertIn("4. bQ bS1-", lines)
        self.assertEqual([l for l in lines if l][-1], "BlackWins")
        games = pgn.read(text)
        self.assertEqual(games[0]["moves"], moves)
        self.assertEqual(games[0]["tags"]["Result"], "BlackWins")


if __name__ == "__main__":
    unittest.main()
