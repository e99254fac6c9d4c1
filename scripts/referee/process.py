"""A child process speaking a line protocol, its lines and its backlog
bounded.

A reader thread puts each line with its arrival time in a `Lines` store. A
line longer than MAX_LINE bytes is not kept: the store gets OVERLONG
instead and the rest of that line is skipped, so an engine printing a
200 MB line costs the referee MAX_LINE bytes, not 200 MB. A run of `info`
lines not yet taken is kept as at most two lines (the last one with a
score, and the last one), so an engine that prints `info` lines without
pause costs a few lines, not one per line; other lines wait up to
MAX_BACKLOG bytes, past which the reader waits (and the child, its pipe
full, with it). A reply is collected up to MAX_REPLY bytes (`info` lines
left out).
"""

import collections
import queue
import shlex
import subprocess
import threading
import time

from .errors import SeatFailure

MAX_LINE = 1 << 16
OVERLONG = "\x00overlong line"
MAX_BACKLOG = 1 << 22
MAX_REPLY = 1 << 22


def is_info(line):
    return line is not None and line.startswith("info")


class Lines:
    """Lines read from a child and not yet taken, bounded (see the module's
    doc): `put` (the reader thread), `get`/`get_nowait` (queue.Queue's
    names; queue.Empty when there is none), `close` (drops what comes
    later and frees a waiting reader).

    A run of consecutive `info` lines not yet taken is kept as the last of
    them for which score_of(line) is not None, then the last of them (one
    line if they are the same): whoever reads the run in order sees the
    score it would have seen reading every line."""

    def __init__(self, score_of=None, cap=MAX_BACKLOG):
        self.score_of = score_of
        self.cap = cap
        self.items = collections.deque()  # (line, arrival time)
        self.bytes = 0
        self.closed = False
        self.cond = threading.Condition()

    def _scored(self, line):
        return self.score_of is not None and self.score_of(line) is not None

    def put(self, item):
        line = item[0]
        size = len(line) if line else 0
        with self.cond:
            if is_info(line):
                # The run at the tail: at most two lines, the scored one
                # first.
                run = []
                while self.items and is_info(self.items[-1][0]):
                    run.append(self.items.pop())
                run.reverse()
                for old in run:
                    self.bytes -= len(old[0])
                scored = [old for old in run if self._scored(old[0])]
                keep = [] if self._scored(line) or not scored else [scored[-1]]
                for old in keep:
                    self.items.append(old)
                    self.bytes += len(old[0])
            else:
                while (not self.closed and self.bytes > 0
                       and self.bytes + size > self.cap):
                    self.cond.wait()
            if self.closed:
                return
            self.items.append(item)
            self.bytes += size
            self.cond.notify_all()

    def get(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        with self.cond:
            while not self.items:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise queue.Empty
                self.cond.wait(remaining)
            item = self.items.popleft()
            if item[0]:
                self.bytes -= len(item[0])
            self.cond.notify_all()
            return item

    def get_nowait(self):
        return self.get(0)

    def qsize(self):
        with self.cond:
            return len(self.items)

    def close(self):
        with self.cond:
            self.closed = True
            self.cond.notify_all()

# Set by a cluster's worker (worker.py): on Linux its children get SIGKILL
# when the thread that started them ends, even when the worker is killed,
# so that no engine outlives a lost worker.
DIE_WITH_PARENT = False


def _die_with_parent():
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        return None
    PR_SET_PDEATHSIG, SIGKILL = 1, 9

    def preexec():
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0)
    return preexec


def read_bounded_lines(stream, put, limit=MAX_LINE):
    """Reads byte lines from `stream` and calls put(text) for each, put(OVERLONG)
    for a line over `limit` bytes, put(None) at the end."""
    try:
        while True:
            raw = stream.readline(limit + 1)
            if not raw:
                break
            if len(raw) > limit and not raw.endswith(b"\n"):
                while True:  # skip the rest of the long line
                    more = stream.readline(limit + 1)
                    if not more or more.endswith(b"\n"):
                        break
                put(OVERLONG)
                continue
            put(raw.decode("utf-8", "replace").rstrip("\r\n"))
    except (OSError, ValueError):
        pass
    put(None)


def split_command(cmd):
    """shlex.split with a clear error."""
    try:
        args = shlex.split(cmd)
    except ValueError as e:
        raise ValueError("cannot parse command %r: %s" % (cmd, e))
    if not args:
        raise ValueError("empty command")
    return args


class Process:
    """A child whose stdout is read line by line on a thread."""

    def __init__(self, cmd, cwd=None, label="engine", stderr=None, max_line=MAX_LINE,
                 score_of=None):
        """score_of(info line): its score or None; a run of `info` lines
        not yet read keeps the last one with a score (see Lines)."""
        self.label = label
        self.max_line = max_line
        args = split_command(cmd) if isinstance(cmd, str) else list(cmd)
        try:
            self.proc = subprocess.Popen(
                args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=stderr if stderr is not None else subprocess.DEVNULL,
                cwd=cwd, bufsize=-1,
                # Own session: a Ctrl-C at the terminal reaches the referee
                # only.
                start_new_session=True,
                preexec_fn=_die_with_parent() if DIE_WITH_PARENT else None)
        except OSError as e:
            raise SeatFailure("crash", "cannot start %s (%s): %s" % (label, cmd, e))
        self.lines = Lines(score_of, max(MAX_BACKLOG, max_line + 1))
        self.reader = threading.Thread(
            target=read_bounded_lines,
            args=(self.proc.stdout, lambda line: self.lines.put((line, time.monotonic())),
                  max_line),
            daemon=True)
        self.reader.start()

    def send(self, line):
        """Writes a line; returns the moment it was written."""
        try:
            self.proc.stdin.write((line + "\n").encode("utf-8"))
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise SeatFailure("crash", "%s: cannot write (exit status %s)"
                              % (self.label, self.proc.poll()))
        return time.monotonic()

    def next_line(self, deadline):
        """(line, arrival time); line None = EOF; raises queue.Empty at
        deadline; an overlong line is a protocol failure."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            item = self.lines.get_nowait()
        else:
            item = self.lines.get(timeout=remaining)
        if item[0] == OVERLONG:
            raise SeatFailure("desync", "%s: a line longer than %d bytes"
                              % (self.label, self.max_line))
        return item

    def pending(self):
        """The lines already read but not asked for (those there when
        called: a child that keeps printing does not keep this going); the
        end of its output is a crash."""
        out = []
        for _ in range(self.lines.qsize()):
            try:
                item = self.lines.get_nowait()
            except queue.Empty:
                break
            if item[0] == OVERLONG:
                raise SeatFailure("desync", "%s: a line longer than %d bytes"
                                  % (self.label, self.max_line))
            if item[0] is None:
                raise SeatFailure("crash", "%s: exited (status %s)"
                                  % (self.label, self.status()))
            out.append(item[0])
        return out

    def read_until(self, done, timeout, what):
        """Lines up to and including the one for which done(line) is true,
        `info` lines left out; more than MAX_REPLY bytes of them is a
        desync."""
        deadline = time.monotonic() + timeout
        out = []
        size = 0
        limit = max(MAX_REPLY, self.max_line + 1)
        while True:
            try:
                line, _ = self.next_line(deadline)
            except queue.Empty:
                raise SeatFailure("stall", "%s: no reply to %s within %.1f s"
                                  % (self.label, what, timeout))
            if line is None:
                raise SeatFailure("crash", "%s: exited (status %s)" % (self.label, self.status()))
            if done(line):
                out.append(line)
                return out
            if is_info(line):
                continue
            size += len(line) + 1
            if size > limit:
                raise SeatFailure("desync", "%s: more than %d bytes of reply to %s"
                                  % (self.label, limit, what))
            out.append(line)

    def reply(self, timeout, what="a command"):
        """Lines up to the terminating `ok` (meeple and UHP framing)."""
        return self.read_until(lambda s: s.strip() == "ok", timeout, what)[:-1]

    def status(self):
        try:
            return self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return None

    def command(self, line, timeout):
        self.send(line)
        return self.reply(timeout, repr(line))

    def alive(self):
        return self.proc.poll() is None

    def close(self, quit_line="quit"):
        if self.proc.poll() is None:
            try:
                if quit_line:
                    self.proc.stdin.write((quit_line + "\n").encode())
                    self.proc.stdin.flush()
                self.proc.stdin.close()
            except (OSError, ValueError):
                pass
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.kill()
        self.lines.close()
        self._close_pipes()

    def kill(self):
        self.lines.close()
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self._close_pipes()

    def _close_pipes(self):
        for f in (self.proc.stdin,):
            try:
                f.close()
            except (OSError, ValueError):
                pass


def first_error(lines):
    for line in lines:
        if line.startswith("err") or line.startswith("invalidmove"):
            return line
    return None
