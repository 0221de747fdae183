"""Turn what the user typed into readable inputs, and re-read evidence lines later.

Paths may be files, directories (walked recursively in sorted order so runs are reproducible),
globs, or ``-`` for stdin. Stdin and named pipes are spooled to a temporary file because findings
quote evidence lines by byte offset after the read has finished. Compression is detected from magic bytes, not
from the file name, since dumps are often saved as ``x.txt`` whatever their content.

Nothing here raises on a bad input: a missing path, an unreadable file or a truncated gzip stream
becomes a one-line error text that the caller puts into the input's report.
"""

from __future__ import annotations

import atexit
import errno
import glob
import gzip
import io
import os
import secrets
import stat
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from typing import BinaryIO, Callable

from .gunzip import CORRUPT_ERRORS, GzipStream

GZIP_MAGIC = b"\x1f\x8b"
STDIN_NAME = "-"
EVIDENCE_MAX_CHARS = 500
_GZ_PIECE = 1 << 20  # decompress in 1 MiB pieces so a truncation loses at most one piece
_CR_SNIFF = 64 << 10  # bytes looked at to tell a file with carriage-return line ends (classic Mac, some pastes)
_CR_TO_LF = bytes.maketrans(b"\r", b"\n")

PIPE_WAIT_SECONDS = 10.0  # how long a named pipe without a writer is waited for
SPOOL_LIMIT = 64 << 30  # bytes of stdin or a pipe kept for evidence, by default
NOTE_EVERY = 1 << 20  # InputStream.on_read is told at most once per this many bytes read

_aliases: dict[str, str] = {}  # display path -> spooled copy (stdin, named pipes)


@dataclass
class InputSpec:
    """One input as the run sees it: the name shown to the user and where to open it."""

    display: str
    path: str
    error: str = ""


def expand_inputs(paths: list[str], stdin: BinaryIO | None = None) -> list[InputSpec]:
    """Expand user paths into inputs, in the order given; directories and globs sorted."""
    out: list[InputSpec] = []
    for given in paths:
        if given == STDIN_NAME:
            out.append(_stdin_input(stdin))
        elif os.path.isdir(given):
            out.extend(_walk(given))
        elif os.path.lexists(given):
            out.append(_file_input(given))
        elif glob.has_magic(given):
            matches = sorted(glob.glob(given, recursive=True))
            if not matches:
                out.append(InputSpec(given, given, f"no match: {given}"))
            for match in matches:
                out.extend(_walk(match) if os.path.isdir(match) else [_file_input(match)])
        else:
            out.append(InputSpec(given, given, f"no such file: {given}"))
    return out


def missing_paths(paths: list[str]) -> list[str]:
    """The given paths that name nothing: no file or directory there, or a glob matching nothing.

    Checked before any input is read, so that a mistyped path stops the run at once instead of
    leaving a report that silently lacks it. Stdin and Hadoop URIs are not checked here.
    """
    out = []
    for given in paths:
        if given == STDIN_NAME or "://" in given or os.path.lexists(given):
            continue
        if glob.has_magic(given) and glob.glob(given, recursive=True):
            continue
        out.append(given)
    return out


def in_canonical_order(specs: list[InputSpec]) -> list[InputSpec]:
    """Inputs sorted by name (stable for a name given twice): what is read first must not depend on
    the order the user typed, or the same partition in two files would cite one file or the other."""
    return sorted(specs, key=lambda spec: spec.display)


def _file_input(path: str) -> InputSpec:
    if path in _aliases:  # a pipe named twice: its content was already spooled
        return InputSpec(path, _aliases[path])
    if not os.path.exists(path):
        return InputSpec(path, path, f"no such file: {path} (broken link)")
    if not os.access(path, os.R_OK):
        return InputSpec(path, path, f"permission denied: {path}")
    mode = os.stat(path).st_mode
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):  # /dev/zero would be read forever
        return InputSpec(path, path, "a device, not a file (kafkadiag reads files, pipes and - for stdin)")
    if stat.S_ISFIFO(mode):  # e.g. `<(zcat x.gz)`: readable once, so keep a copy
        try:
            source = open_pipe(path)
        except OSError as exc:
            return InputSpec(path, path, f"cannot read {path}: {exc.strerror or exc}")
        except NoWriter as exc:
            return InputSpec(path, path, str(exc))
        with source:
            return _spool(path, source)
    if not stat.S_ISREG(mode):
        return InputSpec(path, path, f"not a regular file: {path}")
    return InputSpec(path, path)


class NoWriter(Exception):
    """A named pipe that nobody writes to."""


def open_pipe(path: str, wait: float | None = None) -> BinaryIO:
    """Open a named pipe for reading without hanging on one that has no writer.

    Opening a FIFO blocks until a writer appears; a stale one would hang the run without a word.
    The pipe is opened non-blocking: a writer that is there (process substitution) starts the
    read at once; otherwise the user is told after a second that the run waits, and after
    ``wait`` seconds (``KAFKADIAG_PIPE_WAIT``, default 10) the input is given up with one line.
    """
    import fcntl
    import select

    if wait is None:
        wait = _env_seconds("KAFKADIAG_PIPE_WAIT", PIPE_WAIT_SECONDS)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        started = time.monotonic()
        told = False
        while True:
            try:
                first = os.read(fd, 1 << 16)
            except BlockingIOError:
                first = None  # a writer is there, with nothing written yet: wait for it as for any pipe
                poller.poll()
                continue
            if first:
                break
            # No writer (yet): data or a writer will wake the poll.
            left = wait - (time.monotonic() - started)
            if left <= 0:
                raise NoWriter(f"no writer on this named pipe after {wait:g} s: nothing read")
            if not told and time.monotonic() - started >= 1:
                print(f"kafkadiag: waiting for a writer on named pipe {path}", file=sys.stderr, flush=True)
                told = True
            poller.poll(int(min(left, 0.25) * 1000))
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    except BaseException:
        os.close(fd)
        raise
    return Replay(first, os.fdopen(fd, "rb"))


class Replay(io.RawIOBase):
    """A stream that first returns bytes already read from it (a sniffed head), then the rest."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        super().__init__()
        self._head = memoryview(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        if self._head.nbytes:
            n = min(len(view), self._head.nbytes)
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        return self._rest.readinto(view)  # type: ignore[attr-defined]

    def read(self, size: int | None = -1) -> bytes:
        if self._head.nbytes:
            n = self._head.nbytes if size is None or size < 0 else min(size, self._head.nbytes)
            out = self._head[:n].tobytes()
            self._head = self._head[n:]
            return out
        return self._rest.read(size)

    def close(self) -> None:
        if not self.closed:
            self._rest.close()
            super().close()


def _env_seconds(name: str, default: float) -> float:
    try:
        return max(0.0, float(os.environ.get(name, default)))
    except ValueError:
        return default


def spool_limit() -> int:
    """Bytes a pipe or stdin may spool (``KAFKADIAG_SPOOL_LIMIT``: a number with K, M, G or T)."""
    raw = os.environ.get("KAFKADIAG_SPOOL_LIMIT", "").strip().upper().removesuffix("B").removesuffix("I")
    if raw:
        units = {"K": 10, "M": 20, "G": 30, "T": 40}
        try:
            if raw[-1] in units:
                return int(float(raw[:-1]) * (1 << units[raw[-1]]))
            return int(raw)
        except (ValueError, OverflowError):
            pass
    return SPOOL_LIMIT


def _walk(root: str) -> list[InputSpec]:
    found: list[InputSpec] = []
    errors: list[str] = []

    def on_error(exc: OSError) -> None:
        errors.append(f"cannot list {exc.filename}: {exc.strerror}")

    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error):
        dirnames.sort()
        for name in sorted(filenames):
            found.append(_file_input(os.path.join(dirpath, name)))
    found.extend(InputSpec(root, root, e) for e in errors)
    if not found:
        found.append(InputSpec(root, root, f"no files in directory: {root}"))
    return found


def _stdin_input(stdin: BinaryIO | None) -> InputSpec:
    """The process's stdin can be read once: spool it on first use, reuse the copy after."""
    if stdin is None and STDIN_NAME in _aliases:
        return InputSpec(STDIN_NAME, _aliases[STDIN_NAME])
    return _spool(STDIN_NAME, stdin if stdin is not None else sys.stdin.buffer)


def _spool(display: str, source: BinaryIO) -> InputSpec:
    """Copy a read-once stream to a temporary file (removed at exit) so it can be re-read.

    The copy is bounded by ``spool_limit()`` and by the disk: hitting either is a one-line error
    for this input, and the partial copy is removed at once.
    """
    name = "stdin" if display == STDIN_NAME else display
    limit = spool_limit()
    fd, spool = _removed_at_exit_file("kafkadiag-input-", ".txt")
    copied = 0
    try:
        with os.fdopen(fd, "wb") as out:
            while True:
                chunk = source.read(min(1 << 20, limit + 1 - copied))
                if not chunk:
                    break
                copied += len(chunk)
                if copied > limit:
                    _remove(spool)
                    return InputSpec(display, spool, f"more than {limit:,} bytes through a pipe, the limit (set "
                                                     "KAFKADIAG_SPOOL_LIMIT, or save the input to a file)")
                out.write(chunk)
    except OSError as exc:
        _remove(spool)
        if exc.errno == errno.ENOSPC:
            return InputSpec(display, spool, f"the temporary folder {tempfile.gettempdir()} is full after "
                                             f"{copied:,} bytes (set TMPDIR to a larger disk, or save the input to a file)")
        return InputSpec(display, spool, f"cannot read {name}: {exc.strerror or exc}")
    _aliases[display] = spool
    return InputSpec(display, spool)


def _removed_at_exit_file(prefix: str, suffix: str) -> tuple[int, str]:
    """A new private file in the temporary folder, listed for removal at exit before it exists.

    ``mkstemp`` then ``atexit.register`` leave a moment in which a SIGTERM (turned into an exit by
    the CLI's handler) finds the file made and its removal not yet registered: the file would stay.
    """
    folder = tempfile.gettempdir()
    while True:
        path = os.path.join(folder, f"{prefix}{secrets.token_hex(8)}{suffix}")
        _REMOVED_AT_EXIT.append(path)
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600), path
        except FileExistsError:  # somebody else's: not ours to remove
            _REMOVED_AT_EXIT.remove(path)


#: Spooled copies to remove at exit.
_REMOVED_AT_EXIT: list[str] = []
atexit.register(lambda: [_remove(path) for path in _REMOVED_AT_EXIT])


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def real_path(path: str) -> str:
    """Where a display path lives on disk (the stdin spool for ``-``)."""
    return _aliases.get(path, path)


class InputStream(io.RawIOBase):
    """A read-only byte stream that never raises while reading.

    A read failure (truncated or corrupt gzip, I/O error) ends the stream early and leaves a
    one-line description in ``error``; everything delivered before it stays valid.
    """

    def __init__(self, raw: BinaryIO, compressed: bool, cr_lines: bool = False) -> None:
        super().__init__()
        self._raw = raw
        self._compressed = compressed
        #: Lines end with a bare carriage return: each is delivered as a newline (one byte for one,
        #: so byte offsets and line numbers stay those of the file).
        self.cr_lines = cr_lines
        self.position = 0  # bytes delivered so far (decompressed)
        self.error = ""
        #: Told the bytes consumed from the file so far (compressed bytes for gzip), at most once per
        #: ``NOTE_EVERY`` bytes: the progress bar's count (``kafkadiag.progress``).
        self.on_read: Callable[[int], None] | None = None
        self._next_note = NOTE_EVERY

    @property
    def consumed(self) -> int:
        """Bytes of the file read so far: compressed bytes for gzip, else the bytes delivered."""
        return int(getattr(self._raw, "compressed_read", 0)) if self._compressed else self.position

    def _note(self) -> None:
        if self.on_read is not None and self.position >= self._next_note:
            self._next_note = self.position + NOTE_EVERY
            self.on_read(self.consumed)

    def readable(self) -> bool:
        return True

    @property
    def compressed(self) -> bool:
        return self._compressed

    def read(self, size: int = -1) -> bytes:
        if self.error or self.closed:
            return b""
        if size is None or size < 0:
            size = 1 << 62
        pieces: list[bytes] = []
        want = size
        try:
            if self._compressed:
                while want > 0:
                    piece = self._raw.read1(min(want, _GZ_PIECE))  # type: ignore[attr-defined]
                    if not piece:
                        break
                    pieces.append(piece)
                    want -= len(piece)
            else:
                while want > 0:
                    piece = self._raw.read(want)
                    if not piece:
                        break
                    pieces.append(piece)
                    want -= len(piece)
        except EOFError:
            self.error = f"truncated gzip stream after {self.position + size - want} bytes"
        except CORRUPT_ERRORS as exc:
            at = self.position + size - want
            if at > 0 and str(exc).startswith("Not a gzipped file"):
                # Bytes after a complete gzip member that do not start another one: gzip -d says
                # "trailing garbage ignored" and so do we.
                self.error = f"trailing bytes after the gzip data (at {at} bytes) ignored"
            else:
                self.error = f"corrupt gzip stream after {at} bytes: {exc}"
        except OSError as exc:
            self.error = f"read error after {self.position + size - want} bytes: {exc.strerror or exc}"
        data = pieces[0] if len(pieces) == 1 else b"".join(pieces)
        if self.cr_lines:
            data = data.translate(_CR_TO_LF)
        self.position += len(data)
        self._note()
        return data

    def readinto(self, buffer) -> int:  # type: ignore[override]
        """Fill ``buffer`` without an intermediate copy for plain files."""
        if self.error or self.closed:
            return 0
        view = memoryview(buffer).cast("B")
        if self._compressed or self.cr_lines:
            data = self.read(len(view))
            view[: len(data)] = data
            return len(data)
        try:
            n = self._raw.readinto(view) or 0  # type: ignore[attr-defined]
        except OSError as exc:
            self.error = f"read error after {self.position} bytes: {exc.strerror or exc}"
            return 0
        self.position += n
        self._note()
        return n

    def close(self) -> None:
        if not self.closed:
            try:
                self._raw.close()
            finally:
                super().close()


def _open_file(path: str) -> BinaryIO:
    return open(real_path(path), "rb")


#: Opens the raw bytes of an input by its path (a file on this machine by default).
RawOpener = Callable[[str], BinaryIO]


def open_input(path: str, open_raw: RawOpener = _open_file) -> InputStream:
    """Open a plain or gzip file (by magic bytes) as a stream of decompressed bytes.

    Raises ``OSError`` only when the file cannot be opened at all; read problems later are
    reported through ``InputStream.error``. ``open_raw`` opens the bytes elsewhere (a
    seekable handle on a cluster file system, bytes already fetched).
    """
    handle = open_raw(path)
    try:
        head = handle.read(_CR_SNIFF)
        handle.seek(0)
    except OSError:
        handle.close()
        raise
    if head[:2] == GZIP_MAGIC:
        cr_lines = _gzip_cr_only(handle)
        return InputStream(GzipStream(handle), compressed=True, cr_lines=cr_lines)  # type: ignore[arg-type]
    return InputStream(handle, compressed=False, cr_lines=cr_only(head))


def cr_only(head: bytes) -> bool:
    """Lines end with bare carriage returns: the head has some and not one newline."""
    return b"\r" in head and b"\n" not in head


def _gzip_cr_only(handle: BinaryIO) -> bool:
    """``cr_only`` of a gzip file's first decompressed bytes (the handle is left at its start)."""
    try:
        head = gzip.GzipFile(fileobj=handle, mode="rb").read(_CR_SNIFF)
    except (OSError, EOFError, zlib.error):
        head = b""
    handle.seek(0)
    return cr_only(head)


def open_error(path: str, exc: OSError) -> str:
    """One-line text for a file that could not be opened."""
    if isinstance(exc, FileNotFoundError):
        return f"no such file: {path}"
    if isinstance(exc, PermissionError):
        return f"permission denied: {path}"
    return f"cannot open {path}: {exc.strerror or exc}"


def _evidence_text(raw: bytes) -> str:
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    text = raw.decode("utf-8", errors="replace")
    if len(text) > EVIDENCE_MAX_CHARS:
        text = text[: EVIDENCE_MAX_CHARS - 1] + "…"
    return text


_EVIDENCE_KEEP = EVIDENCE_MAX_CHARS * 4 + 4  # UTF-8 bytes enough for 500 characters


def read_lines_at(
    path: str, byte_offsets: list[int], block_size: int = 1 << 20, known_lines: dict[int, int] | None = None,
    open_raw: RawOpener = _open_file,
) -> dict[int, tuple[int, str]]:
    """Line number (1-based) and text of the line holding each byte offset, in one forward pass.

    Works the same on plain and gzip inputs; memory stays flat whatever the file size because
    only the start of the current line (enough for the 500-character evidence text) is kept.
    Offsets past the end of the input are left out of the result. When ``known_lines`` gives the
    line number of every offset and the input is a plain file, each line is read with a seek
    instead: a finding on a 1 TB segment dump must not cost a second pass over it.
    """
    wanted = sorted(set(o for o in byte_offsets if o >= 0))
    result: dict[int, tuple[int, str]] = {}
    if not wanted:
        return result
    if known_lines is not None and all(known_lines.get(o, 0) > 0 for o in wanted):
        found = _seek_lines(path, wanted, known_lines, open_raw)
        if found is not None:
            return found
    keep = _EVIDENCE_KEEP
    try:
        stream = open_input(path, open_raw)
    except OSError:
        return result
    with stream:
        base = 0  # absolute offset of block[0]
        line_no = 1  # number of the line that is current at position p
        head = b""  # first bytes of the current line taken from earlier blocks
        idx = 0  # next wanted offset not yet assigned to a line
        pending: list[int] = []  # wanted offsets inside the current line
        while idx < len(wanted) or pending:
            block = stream.read(block_size)
            if not block:
                break
            p = 0
            while idx < len(wanted) or pending:
                if not pending:
                    target = wanted[idx] - base
                    jump_end = min(target, len(block))
                    k = block.rfind(b"\n", p, jump_end)
                    if k >= 0:
                        line_no += block.count(b"\n", p, k + 1)
                        p = k + 1
                        head = b""
                    if target >= len(block):
                        break
                nl = block.find(b"\n", p)
                stop = nl if nl >= 0 else len(block) - 1
                while idx < len(wanted) and wanted[idx] - base <= stop:
                    pending.append(wanted[idx])
                    idx += 1
                if nl < 0:
                    break
                room = max(0, keep - len(head))
                text = _evidence_text(head + block[p : min(nl, p + room)])
                for off in pending:
                    result[off] = (line_no, text)
                pending = []
                head = b""
                line_no += 1
                p = nl + 1
            if len(head) < keep:
                head += block[p : p + keep - len(head)]
            base += len(block)
        if pending:
            text = _evidence_text(head)
            for off in pending:
                result[off] = (line_no, text)
    return result


def _seek_lines(
    path: str, wanted: list[int], known_lines: dict[int, int], open_raw: RawOpener
) -> dict[int, tuple[int, str]] | None:
    """Read each wanted line directly; None when the file is compressed or an offset is not a line start."""
    result: dict[int, tuple[int, str]] = {}
    try:
        with open_raw(path) as raw:
            if raw.read(2) == GZIP_MAGIC:
                return None
            for offset in wanted:
                start = max(0, offset - 1)
                raw.seek(start)
                chunk = raw.read(_EVIDENCE_KEEP + offset - start)
                if offset > 0:
                    if chunk[:1] != b"\n":
                        return None if chunk else result
                    chunk = chunk[1:]
                if not chunk:
                    continue
                nl = chunk.find(b"\n")
                result[offset] = (known_lines[offset], _evidence_text(chunk if nl < 0 else chunk[:nl]))
    except OSError:
        return None
    return result
