"""Tests of seats.py (seat tokens), protocols.py (move tokens), process.py
(bounded lines) and gamestring.py."""

import io
import os
import sys
import unittest

from referee import gamestring, process, protocols, seats

PY = sys.executable


class SeatTokens(unittest.TestCase):
    def test_tokens(self):
        spec = seats.SeatSpec(["name=A", "cmd=%s -c pass" % PY, "option.Strategy=attack",
                               "tc=60+0.5", "depth=4", "nodes=1000", "timemargin=0.2",
                               "restart=on", "proto=uci"], each=["st=0.1"])
        self.assertEqual(spec.options, {"Strategy": "attack"})
        self.assertEqual(spec.tc, (60000, 500, 0))
        self.assertEqual((spec.st, spec.depth, spec.nodes), (0.1, 4, 1000))
        self.assertEqual((spec.timemargin, spec.restart, spec.proto), (0.2, True, "uci"))
        lim = spec.limits(None, None, 0.5)
        self.assertEqual((lim.timemargin, lim.depth), (0.2, 4))
        self.assertEqual(seats.SeatSpec(["cmd=%s" % PY, "option.Strategy=random"]).name,
                         os.path.basename(PY) + "-random")
        self.assertEqual(seats.SeatSpec(["remote=127.0.0.1:7000"]).address, ("127.0.0.1", 7000))
        again = seats.SeatSpec.from_json(spec.to_json())
        self.assertEqual(again.to_json(), spec.to_json())

    def test_bad_tokens(self):
        for tokens in (["cmd=%s" % PY, "st=abc"], ["cmd=%s" % PY, "depth=x"],
                       ["remote=localhost:notaport"], ["remote=localhost:99999"],
                       ["cmd=\"%s -c pass" % PY], ["cmd=/no/such/engine"],
                       ["cmd=no-such-engine-anywhere"], ["cmd=%s" % PY, "st=nan"],
                       ["cmd=%s" % PY, "st=-1"], ["cmd=%s" % PY, "proto=xboard"],
                       ["cmd=%s" % PY, "restart=maybe"], ["name=x"], ["bogus"]):
            with self.assertRaises(ValueError, msg=tokens) as cm:
                seats.SeatSpec(tokens)
            self.assertNotIn("\n", str(cm.exception))


class Tokens(unittest.TestCase):
    def test_spaces_in_moves(self):
        self.assertEqual(protocols.to_token("wQ wS1/"), "wQ_wS1/")
        client = protocols.UciClient(None, "x", 1)
        # Read back as written: the arbiter decides what `_` means.
        self.assertEqual(client.move_of("bestmove bS1_-wQ ponder x"), "bS1_-wQ")
        self.assertEqual(client.move_of("bestmove _14_"), "_14_")
        self.assertIsNone(client.move_of("info depth 1"))
        client.start = "Base;NotStarted;White[1]"
        client.tell("wS1")
        client.tell("bS1 wS1-")
        self.assertEqual(client.position_line(),
                         "position fen Base;NotStarted;White[1] moves wS1 bS1_wS1-")
        ugi = protocols.UgiClient(None, "x", 1)
        ugi.start = "Connect4;NotStarted;Red[1]"
        self.assertEqual(ugi.search_lines([("wtime", 5), ("btime", 6), ("winc", 1),
                                           ("binc", 2)], 5)[-1],
                         "go p1time 5 p2time 6 p1inc 1 p2inc 2")
        uhp = protocols.UhpClient(None, "x", 1)
        self.assertEqual(uhp.search_lines([], 0.05), ["bestmove time 00:00:01"])
        self.assertEqual(uhp.search_lines([("depth", 3)], None), ["bestmove depth 3"])


class Lines(unittest.TestCase):
    def test_long_lines_are_bounded(self):
        got = []
        data = b"short\n" + b"x" * 1000 + b"\nafter\nno newline"
        process.read_bounded_lines(io.BytesIO(data), got.append, limit=100)
        self.assertEqual(got, ["short", process.OVERLONG, "after", "no newline", None])


class GameStrings(unittest.TestCase):
    def test_fields(self):
        gs = gamestring.GameString("Connect4;RedWins;Yellow[4];1;2;1;2;1;2;1")
        self.assertTrue(gs.finished)
        self.assertEqual((gs.winner_side, gs.turn_side, len(gs.moves)), ("Red", "Yellow", 7))
        gs = gamestring.GameString("Mastermind;BreakerWins;Breaker[2];1122;4B0W;Secret=1122")
        self.assertEqual(gs.moves, ["1122", "4B0W"])
        self.assertEqual(gs.extras, {"Secret": "1122"})
        self.assertRaises(ValueError, gamestring.GameString, "Connect4;InProgress")
        self.assertTrue(gamestring.is_hive("Base+MLP"))
        self.assertFalse(gamestring.is_hive("Connect4"))


if __name__ == "__main__":
    unittest.main()
