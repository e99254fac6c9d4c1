"""Tests of cli.py and openings.py argument checks (no process started)."""

import os
import sys
import tempfile
import unittest

from referee import cli, openings
from referee.errors import UsageError

PY = sys.executable


class Arguments(unittest.TestCase):
    def test_sprt(self):
        self.assertEqual(cli.parse_sprt(["elo0=0", "elo1=5"])["model"], "normalized")
        self.assertEqual(cli.parse_sprt(["model=logistic"])["model"], "logistic")
        for bad in (["alpha=0"], ["beta=0.7"], ["elo0=5", "elo1=0"], ["elo1=nan"],
                    ["model=bayes"], ["x=1"], ["elo0"]):
            self.assertRaises(UsageError, cli.parse_sprt, bad)

    def test_one_line_errors(self):
        ap = cli.match_parser()
        for argv in (["--st", "nan"], ["--games", "0"], ["--max-plies", "-1"],
                     ["--tc", "abc"], ["--tournament", "swiss"]):
            with self.assertRaises(UsageError) as cm:
                ap.parse_args(argv)
            self.assertNotIn("\n", str(cm.exception))

    def test_config_names_and_pairings(self):
        ap = cli.match_parser()
        args = ap.parse_args(["--engine", "cmd=%s" % PY, "--engine", "cmd=%s" % PY,
                              "--engine", "cmd=%s" % PY, "--tournament", "gauntlet"])
        config = cli.new_config(args)
        names = [s["name"] for s in config["seats"]]
        self.assertEqual(len(set(names)), 3, names)
        self.assertEqual(config["pairings"], [[0, 1], [0, 2]])
        args = ap.parse_args(["--engine", "cmd=%s" % PY, "--engine", "cmd=%s" % PY,
                              "--engine", "cmd=%s" % PY, "--sprt", "elo1=5"])
        self.assertRaises(UsageError, cli.new_config, args)
        args = ap.parse_args(["--engine", "cmd=%s" % PY])
        self.assertRaises(UsageError, cli.new_config, args)


class OpeningArguments(unittest.TestCase):
    def test_parse(self):
        with tempfile.NamedTemporaryFile("w", suffix=".pgn", delete=False) as f:
            path = f.name
        try:
            spec = openings.parse_openings_arg(["file=" + path, "order=random", "start=3"])
            self.assertEqual((spec["format"], spec["order"], spec["start"]), ("pgn", "random", 3))
            self.assertEqual(openings.parse_openings_arg([path])["file"], path)
            for bad in (["file=/no/such"], ["file=" + path, "order=up"],
                        ["file=" + path, "start=0"], ["file=" + path, "format=epd"],
                        ["file=" + path, "plies=x"], ["order=random"]):
                self.assertRaises(ValueError, openings.parse_openings_arg, bad)
        finally:
            os.remove(path)


if __name__ == "__main__":
    unittest.main()
