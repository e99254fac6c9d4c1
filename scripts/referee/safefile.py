"""Files the referee writes are regular files, never followed through a link.

Every file the referee writes or opens for writing (the `--pgnout` file,
the `--db` database and its `-journal`, `-wal` and `-shm`, the tournament
lock `<db>.lock`) must be a regular file where it is named, or not exist
yet: a symbolic link there (even to a regular file), a FIFO, a socket, a
device or a folder is refused with a message naming the path and what it
is, as meeple refuses them for its own results database and saves. A file
is opened with `O_NOFOLLOW` (a link is not followed) and `O_NONBLOCK` (a
FIFO does not block the open), then checked with fstat before a byte is
written; SQLite, which opens its files itself, gets its paths checked with
lstat first.
"""

import errno
import os
import stat


class NotRegular(OSError):
    """A path that is a link or not a regular file: `strerror` says which."""


def describe(mode):
    """What a file of this st_mode is, in words (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _refuse(path, what):
    return NotRegular(errno.EPERM, "%s is %s: refused (only a regular file is written)"
                      % (path, what), path)


def check(path):
    """True if `path` is a regular file, False if nothing is there;
    NotRegular if it is a link, a folder, a FIFO, a socket or a device.
    The last component is not followed (lstat)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    what = describe(st.st_mode)
    if what:
        raise _refuse(path, what)
    return True


def _open(path, flags, mode=0o644):
    """os.open with O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, then fstat: a
    regular file's descriptor (blocking again), or NotRegular. Other
    OSErrors (no such folder, permission) pass through."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as e:
        # ELOOP: a link (O_NOFOLLOW); ENXIO: a FIFO without a reader or a
        # socket; EISDIR: a folder. Say which, from lstat.
        try:
            st = os.lstat(path)
        except OSError:
            raise e
        what = describe(st.st_mode)
        if what:
            raise _refuse(path, what)
        raise
    try:
        what = describe(os.fstat(fd).st_mode)
        if what:
            raise _refuse(path, what)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_append(path):
    """A binary file object appending to `path` (created if missing)."""
    fd = _open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    return os.fdopen(fd, "ab")


def open_read(path):
    """A binary file object reading `path` (FileNotFoundError if missing)."""
    return os.fdopen(_open(path, os.O_RDONLY), "rb")


def open_rw(path, create=True):
    """A read-write descriptor of `path` (created if missing and `create`)."""
    return _open(path, os.O_RDWR | (os.O_CREAT if create else 0))


def truncate(path, length):
    """Cuts `path` to `length` bytes, without following a link."""
    fd = _open(path, os.O_WRONLY)
    try:
        os.ftruncate(fd, length)
    finally:
        os.close(fd)


SQLITE_SIDE_FILES = ("-journal", "-wal", "-shm")


def sqlite_paths(path):
    """A database's file and the files SQLite keeps beside it."""
    return [path] + [path + suffix for suffix in SQLITE_SIDE_FILES]


def check_sqlite(path):
    """True if the database exists (a regular file); NotRegular if it or
    one of its journal files is a link or not a regular file."""
    exists = check(path)
    for side in sqlite_paths(path)[1:]:
        check(side)
    return exists
