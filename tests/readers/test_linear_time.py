"""Every reader reads the same input the same way whatever the line endings (LF, CRLF, bare CR).

A log with carriage-return line ends once took 16 s for 30 KB and 63 s for 60 KB, because the
whole file was one line that the template learner parsed once per digit run. Each case reads an
input with each line ending and the same input four times over: the lines and events must be the
same (a file read as one line would count one line), and four times the input four times the
events. Reading time itself is measured by the benchmarks (``benchmarks/matrix.py``), not here.
"""

from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path

import pytest

from kafkadiag.inputs import InputStream, cr_only
from kafkadiag.readers import read_input
from kafkadiag.readers.base import InputReport, ReadOptions

pytestmark = pytest.mark.slow  # every reader, every line ending, at two sizes

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from kafkasim import generate_bulk  # noqa: E402


def _loggen():
    """The log generator of the log tests, loaded by path (its folder's conftest is not ours)."""
    spec = importlib.util.spec_from_file_location("loggen", ROOT / "tests" / "logs" / "loggen.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module

ENDINGS = {"LF": b"\n", "CRLF": b"\r\n", "CR": b"\r"}
GROWTH = 4


def _log(tmp: Path) -> bytes:
    buffer = io.StringIO()
    _loggen().write_log(buffer, 0.25, seed=3)
    return buffer.getvalue().encode()


def _dump(era: str):
    def make(tmp: Path) -> bytes:
        path = tmp / f"dump-{era}.txt"
        generate_bulk(path, 250_000, era=era, seed=4, producers=20)
        return path.read_bytes()
    return make


def _transaction_state(tmp: Path) -> bytes:
    import simulate

    simulate.generate("mixed", "3.3", tmp / "case", seed=2)
    return b"".join(p.read_bytes() for p in sorted((tmp / "case").glob("__transaction_state-*.log.txt")))


INPUTS = {"java-log": _log, "dump-3.3": _dump("3.3"), "dump-2.4": _dump("2.4.1"), "txn-state": _transaction_state}


def _with_ending(data: bytes, ending: bytes) -> bytes:
    return data.replace(b"\n", ending)


def _read(data: bytes) -> tuple[int, int]:
    """Events found in ``data`` read as an input, lines counted."""
    report = InputReport("input")

    def opener(_display: str) -> InputStream:
        return InputStream(io.BytesIO(data), compressed=False, cr_lines=cr_only(data[: 64 << 10]))

    events = sum(len(chunk) if not isinstance(chunk, dict) else len(next(iter(chunk.values()), ()))
                 for _table, chunk in read_input(0, "input", report, ReadOptions(), [], opener=opener))
    return events, report.lines


@pytest.mark.parametrize("ending", list(ENDINGS))
@pytest.mark.parametrize("kind", list(INPUTS))
def test_every_line_ending_reads_the_same_and_four_times_the_input_four_times_the_events(
        tmp_path: Path, kind: str, ending: str) -> None:
    base = INPUTS[kind](tmp_path)
    small = _with_ending(base, ENDINGS[ending])
    events, lines = _read(small)
    assert (events, lines) == _read(base), f"{ending} line ends change what is read"
    assert events > 0 and lines == base.count(b"\n")
    assert _read(small * GROWTH) == (GROWTH * events, GROWTH * lines)
