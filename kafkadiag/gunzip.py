"""Gzip inputs inflated by ISA-L in a background thread, every byte before damage delivered.

``gzip.GzipFile`` inflates with zlib in the reading thread: about 380 MB/s here, and the parser
waits for it. ISA-L (python-isal, the inflater of ``pigz``-class tools) is 2–3× faster and
releases the GIL, so a thread inflates the next megabytes while the reader parses the last ones.
Its own file readers hold back the output of the read that meets damage (a truncated download,
an error page appended), and the threaded one everything buffered: here the members are inflated
with the zlib-style decompressor object instead, so that whatever came before the damage is
delivered and the damage is raised after it, as ``gzip`` does. Without python-isal, zlib does
the same work.
"""

from __future__ import annotations

import gzip
import io
import queue
import threading
import zlib
from typing import BinaryIO, Iterator

try:
    from isal import isal_zlib as _inflate_lib

    INFLATER = "isa-l"
    _LIB_ERRORS: tuple[type[BaseException], ...] = (_inflate_lib.error, zlib.error)
except ImportError:  # pragma: no cover - the wheel exists for the platforms the project supports
    _inflate_lib = zlib  # type: ignore[assignment]
    INFLATER = "zlib"
    _LIB_ERRORS = (zlib.error,)

#: What a damaged gzip stream raises while it is read (``InputStream`` turns each into one line).
CORRUPT_ERRORS: tuple[type[BaseException], ...] = (*_LIB_ERRORS, gzip.BadGzipFile)
MAGIC = b"\x1f\x8b"
_IN_CHUNK = 1 << 20  # compressed bytes per read
_OUT_CHUNK = 1 << 20  # decompressed bytes per piece at most
_AHEAD = 8  # pieces inflated ahead of the reader (the memory bound: 8 MiB)


def inflate(raw: BinaryIO) -> Iterator[bytes]:
    """Decompressed pieces of every gzip member of ``raw``, in order.

    After the last member: NUL padding is skipped (``gzip -d`` does too); anything else raises
    ``gzip.BadGzipFile("Not a gzipped file ...")``. A stream that ends inside a member raises
    ``EOFError``; corrupt data raises the inflater's error. Each after all output before it.
    """
    data = raw.read(_IN_CHUNK)
    while True:
        member = _inflate_lib.decompressobj(wbits=31)
        while True:
            if not data:
                data = raw.read(_IN_CHUNK)
                if not data:
                    raise EOFError("Compressed file ended before the end-of-stream marker was reached")
            piece = member.decompress(data, _OUT_CHUNK)
            data = member.unconsumed_tail
            if piece:
                yield piece
            if member.eof:
                data = member.unused_data + data
                break
        data = data.lstrip(b"\x00")
        while not data:
            data = raw.read(_IN_CHUNK)
            if not data:
                return
            data = data.lstrip(b"\x00")
        if len(data) < 2:
            data += raw.read(_IN_CHUNK)
        if data[:2] != MAGIC:
            raise gzip.BadGzipFile(f"Not a gzipped file ({data[:2]!r})")


class GzipStream(io.RawIOBase):
    """The decompressed bytes of a gzip file, inflated ahead in a background thread."""

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__()
        self._raw = raw
        self._pieces: queue.Queue = queue.Queue(maxsize=_AHEAD)
        self._stop = threading.Event()
        self._left = b""
        self._error: BaseException | None = None
        self._ended = False
        #: Compressed bytes taken from the file so far (the progress bar counts these for gzip inputs).
        self.compressed_read = 0
        self._thread = threading.Thread(target=self._run, name="kafkadiag-inflate", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for piece in inflate(self._counting()):
                if not self._put(piece):
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the reader, after the data before it
            self._put(exc)
            return
        self._put(None)

    def _counting(self) -> "_CountingReader":
        return _CountingReader(self._raw, self)

    def _put(self, item: object) -> bool:
        while not self._stop.is_set():
            try:
                self._pieces.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def readable(self) -> bool:
        return True

    def read1(self, size: int = -1) -> bytes:
        if not self._left:
            if self._error is not None:
                raise self._error
            if self._ended:
                return b""
            item = self._pieces.get()
            if item is None:
                self._ended = True
                return b""
            if isinstance(item, BaseException):
                self._error = item
                raise item
            self._left = item
        if size is None or size < 0 or size >= len(self._left):
            out, self._left = self._left, b""
        else:
            out, self._left = self._left[:size], self._left[size:]
        return out

    def read(self, size: int = -1) -> bytes:
        if size is not None and size >= 0:
            return self.read1(size)
        pieces = []
        while True:
            piece = self.read1()
            if not piece:
                return b"".join(pieces)
            pieces.append(piece)

    def close(self) -> None:
        if not self.closed:
            self._stop.set()
            try:
                while True:
                    self._pieces.get_nowait()
            except queue.Empty:
                pass
            self._thread.join(timeout=5)
            try:
                self._raw.close()
            finally:
                super().close()


class _CountingReader:
    """The compressed file as ``inflate`` reads it, counting into ``owner.compressed_read``."""

    def __init__(self, raw: BinaryIO, owner: GzipStream) -> None:
        self._raw, self._owner = raw, owner

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self._owner.compressed_read += len(data)
        return data
