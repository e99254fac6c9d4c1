"""Tests of process.py: the bounded store of a child's lines."""

import queue
import sys
import threading
import unittest

from referee.adjudication import parse_score
from referee.errors import SeatFailure
from referee.process import Lines, Process


def drain(lines):
    out = []
    while True:
        try:
            out.append(lines.get_nowait()[0])
        except queue.Empty:
            return out


class Store(unittest.TestCase):
    def test_a_flood_of_info_lines_keeps_two(self):
        # Issue 27 item 10: every line waited in a queue (a flooding engine
        # grew the referee to 845 MB).
        lines = Lines(parse_score)
        lines.put(("bestmove 3", 0.0))
        for i in range(100000):
            lines.put(("info depth %d score cp %d nodes 1" % (i, i), 0.0))
            lines.put(("info string thinking %d" % i, 0.0))
            self.assertLessEqual(lines.qsize(), 3)
        lines.put(("ok", 0.0))
        lines.put(("info depth 1 score cp 5 lowerbound", 0.0))
        self.assertEqual(drain(lines), [
            "bestmove 3", "info depth 99999 score cp 99999 nodes 1",
            "info string thinking 99999", "ok", "info depth 1 score cp 5 lowerbound"])

    def test_the_score_read_is_the_one_every_line_gives(self):
        # Read in order, the kept lines give the score a reader of every
        # line would have (a bound or a line without a score keeps the last
        # score).
        run = ["info depth 1 score cp 10", "info depth 2 score cp 20 lowerbound",
               "info depth 2 score cp 30", "info depth 3 nodes 9", "info string hello",
               "info depth 3 score cp 40 upperbound"]

        def last_score(seq):
            score = None
            for line in seq:
                value = parse_score(line)
                if value is not None:
                    score = value
            return score
        lines = Lines(parse_score)
        for line in run:
            lines.put((line, 0.0))
        kept = drain(lines)
        self.assertEqual(kept, ["info depth 2 score cp 30", "info depth 3 score cp 40 upperbound"])
        self.assertEqual(last_score(kept), last_score(run))
        # Without a score function only the last line of a run is kept.
        lines = Lines()
        for line in run:
            lines.put((line, 0.0))
        self.assertEqual(drain(lines), [run[-1]])

    def test_other_lines_wait_within_the_backlog(self):
        lines = Lines(cap=1000)
        for i in range(10):
            lines.put(("x" * 99, 0.0))
        done = threading.Event()

        def writer():
            lines.put(("y" * 99, 0.0))
            done.set()
        t = threading.Thread(target=writer, daemon=True)
        t.start()
        self.assertFalse(done.wait(0.2), "the reader waits: the backlog is full")
        lines.get()
        self.assertTrue(done.wait(30))
        # A line alone always fits; closing frees a waiting reader.
        big = Lines(cap=10)
        big.put(("z" * 50, 0.0))
        t = threading.Thread(target=lambda: big.put(("w", 0.0)), daemon=True)
        t.start()
        big.close()
        t.join(30)
        self.assertFalse(t.is_alive())

    def test_a_reply_leaves_out_info_lines(self):
        code = ("import sys\n"
                "for i in range(50000): sys.stdout.write('info depth %d score cp 1\\n' % i)\n"
                "print('Connect4;NotStarted;Red[1]'); print('ok'); sys.stdout.flush()\n"
                "sys.stdin.read()\n")
        p = Process([sys.executable, "-c", code], score_of=parse_score)
        try:
            self.assertEqual(p.reply(30), ["Connect4;NotStarted;Red[1]"])
        finally:
            p.kill()

    def test_an_endless_reply_is_a_desync(self):
        code = ("import sys\n"
                "while True: sys.stdout.write('x' * 1000 + '\\n')\n")
        p = Process([sys.executable, "-c", code])
        try:
            with self.assertRaises(SeatFailure) as e:
                p.reply(60)
            self.assertEqual(e.exception.reason, "desync")  # not a stall
        finally:
            p.kill()


if __name__ == "__main__":
    unittest.main()
