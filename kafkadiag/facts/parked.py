"""Objects kept in a file until they are read back, once, in the order they came.

A range reader in another process parks its coordinator records this way until the run joins
its range (the file's name travels with the range's result), and the bucketed fact stage parks
each bucket's transactional ids until the family counts of all ids are known. The file is
removed when it has been read; a folder the caller removes takes any file left unread.
"""

from __future__ import annotations

import os
import pickle
import tempfile
from typing import Iterator

from .span_spill import SpillFailed, pickled

class Parked:
    """A file of pickled objects in ``folder`` (the temporary folder when None), made on the first ``add``.

    ``what`` and ``row_bytes`` name the objects' rows and their size on disk in the one-line error a
    full disk gives. Picklable: a parked file made in one process is read in another.
    """

    def __init__(self, folder: str | None, what: str, row_bytes: int) -> None:
        self.folder, self.what, self.row_bytes = folder, what, row_bytes
        self.path: str | None = None

    def add(self, *objects: object) -> None:
        try:
            if self.path is None:
                handle, self.path = tempfile.mkstemp(prefix="kafkadiag-parked-", suffix=".pkl", dir=self.folder)
                os.close(handle)
            with open(self.path, "ab") as out:
                for obj in objects:
                    pickle.dump(obj, out, protocol=5)
        except OSError as exc:
            where = self.folder or tempfile.gettempdir()
            raise SpillFailed(f"cannot keep {self.what} on disk in {where}: {exc.strerror or exc}; set TMPDIR to "
                              f"a directory with room (about {self.row_bytes} bytes per row)") from None

    def discard(self) -> None:
        """Remove the file unread (a run that stopped before it needed it)."""
        for _ in self.read():
            break

    def read(self) -> Iterator[object]:
        """What was added, in order; the file is gone afterwards (a second read gives nothing)."""
        path, self.path = self.path, None
        if path is None:
            return
        try:
            with open(path, "rb") as source:
                yield from pickled(source)
        finally:
            try:
                os.unlink(path)
            except OSError:
                pass
