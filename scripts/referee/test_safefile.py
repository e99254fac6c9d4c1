"""Tests of safefile.py: only regular files are opened, never through a link."""

import os
import socket
import tempfile
import threading
import unittest

from referee import safefile


class SafeFile(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.outside = self.path("outside")
        with open(self.outside, "w") as f:
            f.write("keep")

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)

    def refused(self, fn, path, what):
        with self.assertRaises(safefile.NotRegular) as cm:
            fn(path)
        self.assertIn("%s is %s: refused" % (path, what), cm.exception.strerror)

    def test_regular_files_are_created_appended_read_and_cut(self):
        p = self.path("a.pgn")
        self.assertFalse(safefile.check(p))
        with safefile.open_append(p) as f:
            f.write(b"one\n")
        with safefile.open_append(p) as f:
            f.write(b"two\n")
        self.assertTrue(safefile.check(p))
        with safefile.open_read(p) as f:
            self.assertEqual(f.read(), b"one\ntwo\n")
        safefile.truncate(p, 4)
        with safefile.open_read(p) as f:
            self.assertEqual(f.read(), b"one\n")
        self.assertRaises(FileNotFoundError, safefile.open_read, self.path("none"))

    def test_links_are_refused_and_their_target_untouched(self):
        link = self.path("link")
        os.symlink(self.outside, link)
        for fn in (safefile.check, safefile.open_append, safefile.open_read,
                   safefile.open_rw, lambda p: safefile.truncate(p, 0)):
            self.refused(fn, link, "a symbolic link")
        dangling = self.path("dangling")
        os.symlink(self.path("nowhere"), dangling)
        self.refused(safefile.open_append, dangling, "a symbolic link")
        self.assertFalse(os.path.exists(self.path("nowhere")))
        with open(self.outside) as f:
            self.assertEqual(f.read(), "keep")

    def test_fifos_sockets_folders_and_devices_are_refused_without_blocking(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        self.refused(safefile.open_append, fifo, "a FIFO")  # no reader: ENXIO
        self.refused(safefile.open_read, fifo, "a FIFO")  # no writer: would block
        # With a reader at the other end, the open succeeds: fstat refuses.
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            self.refused(safefile.open_append, fifo, "a FIFO")
        finally:
            os.close(reader)
        sock_path = self.path("sock")
        s = socket.socket(socket.AF_UNIX)
        s.bind(sock_path)
        try:
            self.refused(safefile.open_append, sock_path, "a socket")
        finally:
            s.close()
        os.mkdir(self.path("dir"))
        self.refused(safefile.open_append, self.path("dir"), "a folder")
        self.refused(safefile.check, self.path("dir"), "a folder")
        self.refused(safefile.open_append, "/dev/null", "a device")

    def test_a_database_s_side_files_are_checked(self):
        db = self.path("r.sqlite")
        self.assertFalse(safefile.check_sqlite(db))
        open(db, "w").close()
        self.assertTrue(safefile.check_sqlite(db))
        for suffix in safefile.SQLITE_SIDE_FILES:
            os.symlink(self.outside, db + suffix)
            self.refused(safefile.check_sqlite, db + suffix, "a symbolic link")
            os.unlink(db + suffix)

    def test_an_open_never_waits(self):
        # A FIFO opened for reading with a writer that never writes would
        # block a plain open forever; here the open itself is refused.
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        done = threading.Event()

        def attempt():
            try:
                safefile.open_read(fifo)
            except OSError:
                pass
            done.set()
        threading.Thread(target=attempt, daemon=True).start()
        self.assertTrue(done.wait(10), "the open blocked")


if __name__ == "__main__":
    unittest.main()
