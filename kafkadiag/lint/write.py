"""Write a fixed config back: only a regular file, never through a symbolic link, all or nothing.

``--fix`` runs in CI checkouts and on shared config folders: a link inside the linted folder may
point anywhere (``/etc``, a secret mount), and a run killed half-way must not leave half a file.
The new text goes to a temporary file beside the old one, takes its permissions (and owner, where
allowed), is flushed to disk, then renamed over it.
"""

from __future__ import annotations

import os
import stat
import tempfile


class NotWritten(Exception):
    """The file was left as it is; the message says why (a link, not a regular file)."""


def write_fixed(path: str, text: str) -> None:
    """Replace the regular file ``path`` with ``text`` (UTF-8) atomically, keeping its mode.

    Raises ``NotWritten`` for a symbolic link or anything but a regular file, ``OSError`` when
    the folder cannot be written.
    """
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise NotWritten(f"{path}: a symbolic link; not fixed (fix the file it points to by its own name)")
    if not stat.S_ISREG(info.st_mode):
        raise NotWritten(f"{path}: not a regular file; not fixed")
    folder = os.path.dirname(path) or "."
    fd, temp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".kafkadiag-fix", dir=folder)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(text.encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, stat.S_IMODE(info.st_mode))
        try:
            os.chown(temp, info.st_uid, info.st_gid)
        except OSError:
            pass  # not ours to give away: the file keeps its mode, the owner becomes the writer
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
