"""Read a file that must be small (a config, a rule file, a settings file) without trusting it to be.

``/dev/zero`` given as ``--config`` once read until memory ran out, and a rule file that is a
FIFO has no size to check before reading. Devices are refused, pipes are read up to the limit,
and anything over the limit is refused before a parser sees it.
"""

from __future__ import annotations

import os
import stat


class TooLarge(ValueError):
    """The file is larger than its kind may be, or is not a file at all; the message says which."""


def read_small(path: str | os.PathLike[str], limit: int, what: str) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them.

    Raises ``OSError`` when the file cannot be opened or read, ``TooLarge`` (naming ``what``,
    e.g. "configuration file") when it is a device or holds more than ``limit`` bytes.
    """
    mode = os.stat(path).st_mode
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise TooLarge(f"is a device, not a {what}")
    if stat.S_ISDIR(mode):
        raise TooLarge(f"is a directory, not a {what}")
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(f"{what} larger than {_size(limit)}: not read")
    return data


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n:,} bytes"
