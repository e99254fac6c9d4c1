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

    def test_a_game_without_notes_is_written_as_before(self):
        # The text the writer gave before reviews existed, byte for byte.
        tags = {"Event": "meeple referee tournament 3", "Site": "?", "Date": "2026.01.02",
                "Round": "7", "White": "A", "Black": "B", "Result": "1-0",
                "GameType": "Connect4", "TimeControl": "1/0.05", "Termination": "normal"}
        c4 = pgn.game_text(tags, [str(1 + i * 3 % 7) for i in range(31)])
        self.assertEqual(c4, HEAD + '[Result "1-0"]\n[GameType "Connect4"]\n' + TAIL +
                         "1. 1 4 2. 7 3 3. 6 2 4. 5 1 5. 4 7 6. 3 6 7. 2 5 8. 1 4 9. 7 3 10. 6"
                         " 2 11. 5 1\n12. 4 7 13. 3 6 14. 2 5 15. 1 4 16. 7 1-0\n\n")
        hive = pgn.game_text(dict(tags, GameType="Base", Result="0-1"),
                             ["wG1", "bG1 \\wG1", "wQ wG1-", "bQ bG1/"])
        self.assertEqual(hive, '[GameType "Base"]\n' + HEAD + '[Result "BlackWins"]\n' + TAIL +
                         "1. wG1\n2. bG1 \\wG1\n3. wQ wG1-\n4. bQ bG1/\n\nBlackWins\n\n")
        mm = pgn.game_text(dict(tags, GameType="Mastermind", Secret="1456"),
                           ["6144", "0B3W", "1456", "4B0W"])
        self.assertEqual(mm, HEAD + '[Result "1-0"]\n[GameType "Mastermind"]\n' + TAIL[:-1] +
                         '[Secret "1456"]\n\n1. 6144 0B3W 2. 1456 4B0W 1-0\n\n')
        # Notes that are all empty change nothing either.
        self.assertEqual(pgn.game_text(tags, [str(1 + i * 3 % 7) for i in range(31)],
                                       [(None, None)] * 31), c4)

    def test_notes_are_glyphs_and_comments_and_read_back(self):
        moves = ["4", "4", "1", "4", "3"]
        notes = [(None, "[%eval 1]"), None, (4, "[%eval -2] best: 4"), (6, None),
                 (None, "a {brace} and\na line")]
        text = pgn.game_text(TAGS, moves, notes)
        self.assertIn("1. 4 {[%eval 1]} 1... 4 2. 1 $4 {[%eval -2] best: 4} 2... 4 $6"
                      " 3. 3 {a ?brace? and?a line} 1-0", " ".join(text.split("\n")))
        game = pgn.read(text)[0]
        self.assertEqual(game["moves"], moves)
        self.assertEqual([n["nags"] for n in game["notes"]], [[], [], [4], [6], []])
        self.assertEqual(game["notes"][2]["comments"], ["[%eval -2] best: 4"])
        # Lines stay short: a long game of comments wraps between words.
        long = pgn.game_text(TAGS, ["4"] * 40, [(2, "[%eval -0.25] best: 3")] * 40)
        self.assertTrue(all(len(line) <= 79 for line in long.splitlines()))
        self.assertEqual(pgn.read(long)[0]["moves"], ["4"] * 40)
        # Another writer's suffix glyphs and `;` comments read too.
        other = pgn.read('[Event "x"]\n\n1. 4?? 4 ; a comment\n2. 3!? {c} 1-0\n')[0]
        self.assertEqual(other["moves"], ["4", "4", "3"])
        self.assertEqual([n["nags"] for n in other["notes"]], [[4], [], [5]])

    def test_hive_notes_are_comment_lines_mzinga_reads(self):
        moves = ["wS1", "bS1 wS1-", "wQ -wS1", "bQ bS1-"]
        notes = [(None, "[%eval 0.32]"), (2, "[%eval 0.75] best: bQ wS1\\"), None,
                 (4, "[%eval #-1] best: bA1 -wS1")]
        text = pgn.game_text(dict(TAGS, GameType="Base", Result="0-1"), moves, notes)
        lines = text.splitlines()
        i = lines.index("2. bS1 wS1-")
        self.assertEqual(lines[i - 1:i + 4], ["{[%eval 0.32]}", "2. bS1 wS1-",
                                              "{$2 [%eval 0.75] best: bQ wS1\\}",
                                              "3. wQ -wS1", "4. bQ bS1-"])
        game = pgn.read(text)[0]
        self.assertEqual(game["moves"], moves)
        self.assertEqual([n["nags"] for n in game["notes"]], [[], [2], [], [4]])
        self.assertEqual(game["notes"][3]["comments"], ["[%eval #-1] best: bA1 -wS1"])
        # A glyph and a comment on the move's line (another writer's) too.
        other = pgn.read('[GameType "Base"]\n\n1. wS1 $6 {x}\n2. bS1 wS1-\n')[0]
        self.assertEqual(other["moves"], ["wS1", "bS1 wS1-"])
        self.assertEqual(other["notes"][0], {"nags": [6], "comments": ["x"]})

    def test_a_game_comment_comes_before_the_first_move(self):
        # A game --annotate could not review says why, before its first
        # move: in movetext, and in a Hive record on a line of its own right
        # after the tags' blank line (where MzingaViewer keeps the
        # commentary of the game's start).
        why = "not annotated: the reviewer exited (status 3)"
        text = pgn.game_text(TAGS, ["4", "4"], None, why)
        self.assertIn("\n\n{%s} 1. 4 4 1-0\n" % why, text)
        game = pgn.read(text)[0]
        self.assertEqual((game["moves"], game["comments"]), (["4", "4"], [why]))
        self.assertEqual(game["notes"], [{"nags": [], "comments": []}] * 2)
        hive = pgn.game_text(dict(TAGS, GameType="Base", Result="0-1"), ["wS1", "bS1 wS1-"],
                             None, why)
        self.assertIn('"]\n\n{%s}\n1. wS1\n2. bS1 wS1-\n\nBlackWins\n' % why, hive)
        game = pgn.read(hive)[0]
        self.assertEqual((game["moves"], game["comments"]), (["wS1", "bS1 wS1-"], [why]))
        self.assertEqual(pgn.read(hive.replace("{" + why + "}\n", ""))[0]["comments"], [])


HEAD = ('[Event "meeple referee tournament 3"]\n[Site "?"]\n[Date "2026.01.02"]\n'
        '[Round "7"]\n[White "A"]\n[Black "B"]\n')
TAIL = '[TimeControl "1/0.05"]\n[Termination "normal"]\n\n'


if __name__ == "__main__":
    unittest.main()
