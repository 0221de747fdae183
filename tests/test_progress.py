"""The progress bar: bytes counted where reading completes, shown on a terminal's stderr only.

Byte accounting: per input (compressed bytes for gzip), per range reader in forked processes, never
past the input sizes. The bar: only when stderr is a terminal, after a delay, never with --quiet,
never on stdout.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafkadiag import progress
from kafkadiag.engine import ranges
from kafkadiag.engine.local import collect
from kafkadiag.facts.build import CollectedEvents
from kafkadiag.inputs import open_input
from kafkadiag.progress_bar import DELAY_SECONDS, ProgressBar, wanted
from kafkadiag.readers.base import InputReport, ReadOptions

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from kafkasim import generate_bulk  # noqa: E402

CASE = ROOT / "fixtures" / "cases" / "mixed-2.4.1" / "input"


@pytest.fixture(scope="module")
def dump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bulk") / "clickstream-0.txt"
    generate_bulk(path, "6MB", era="3.3")
    return path


class Recorder:
    """A listener that keeps what it was told."""

    def __init__(self) -> None:
        self.counts: progress.ReadProgress | None = None
        self.finished = False

    def reading_started(self, counts: progress.ReadProgress) -> None:
        self.counts = counts

    def reading_finished(self) -> None:
        self.finished = True


@pytest.fixture
def recorder():
    rec = Recorder()
    progress.listen(rec)
    yield rec
    progress.listen(None)
    progress.finish()


def test_counts_stay_within_each_input_and_never_go_back() -> None:
    counts = progress.ReadProgress([100, 50])
    counts.input_read(0, 40)
    counts.input_read(0, 30)  # a second pass over the input starts again: no step back
    counts.input_read(1, 80)  # never past the input's size
    assert counts.done() == 40 + 50
    counts.range_read(0, 5)
    counts.range_read(1, 7)
    assert counts.done() == 40 + 50 + 12
    counts.input_done(0)  # the whole input counts, its range readers' counts go
    assert counts.done() == counts.total == 150


def test_nobody_listening_counts_nothing(dump: Path) -> None:
    progress.listen(None)
    assert progress.begin([str(dump)]) is None and progress.active() is None


def test_stream_counts_every_megabyte_plain_and_compressed_bytes_for_gzip(dump: Path, tmp_path: Path) -> None:
    seen: list[int] = []
    reads = 0
    with open_input(str(dump)) as stream:
        stream.on_read = seen.append
        while stream.read(256 << 10):  # small reads: told once per megabyte, not per read
            reads += 1
    size = dump.stat().st_size
    assert seen == sorted(seen) and reads >= 20 and len(seen) == size >> 20
    assert all(b - a >= 1 << 20 for a, b in zip(seen, seen[1:])) and size - seen[-1] < 1 << 20

    packed = tmp_path / "dump.gz"
    packed.write_bytes(gzip.compress(dump.read_bytes()))
    seen.clear()
    with open_input(str(packed)) as stream:
        stream.on_read = seen.append
        while stream.read(2 << 20):
            pass
    assert seen and seen == sorted(seen) and seen[-1] <= packed.stat().st_size < size  # compressed bytes
    assert stream.consumed == packed.stat().st_size


def test_a_run_counts_all_of_every_input(recorder: Recorder, dump: Path) -> None:
    collect([str(dump), str(CASE)], ReadOptions())
    counts = recorder.counts
    assert counts is not None and recorder.finished and not counts.reading
    files = [dump, *sorted(p for p in CASE.rglob("*") if p.is_file())]
    assert counts.total == sum(p.stat().st_size for p in files)
    assert counts.done() == counts.total


def test_forked_range_readers_count_their_ranges(recorder: Recorder, dump: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ranges, "MIN_SPLIT_BYTES", 1 << 20)
    counts = progress.begin([str(dump)])
    assert counts is not None
    report = InputReport(str(dump))
    assert ranges.read_in_ranges(CollectedEvents(), 0, str(dump), str(dump), report, ReadOptions(), workers=2)
    # Before the input is marked done, what the two processes counted adds up to the file.
    assert counts.done() == dump.stat().st_size and counts._view[0] == 0


def test_no_bar_unless_stderr_is_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert not wanted(False, io.StringIO())
    assert wanted(False, Tty()) and not wanted(True, Tty())  # --quiet
    monkeypatch.setenv("KAFKADIAG_PROGRESS", "0")
    assert not wanted(False, Tty())
    assert DELAY_SECONDS == 1.0


def test_a_short_run_draws_nothing() -> None:
    out = io.StringIO()
    with ProgressBar(stream=out, delay=0.5) as bar:
        time.sleep(0.05)
    assert not bar.shown and out.getvalue() == ""


def _run_with_terminal_stderr(args: list[str], env: dict[str, str]) -> tuple[int, bytes, bytes]:
    """The CLI with stderr on a pseudo-terminal and stdout piped, as in ``kafkadiag analyze X > report``."""
    master, slave = os.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "kafkadiag.cli", *args], stdout=subprocess.PIPE, stderr=slave,
                            cwd=ROOT, env={**os.environ, "COLUMNS": "100", **env})
    os.close(slave)
    err = b""
    out_parts: list[bytes] = []
    while True:
        ready, _, _ = select.select([master, proc.stdout], [], [], 30)
        if not ready:
            proc.kill()
            raise AssertionError("no output for 30 s")
        if proc.stdout in ready:
            piece = os.read(proc.stdout.fileno(), 1 << 16)
            if piece:
                out_parts.append(piece)
            elif proc.poll() is not None:
                break
        if master in ready:
            try:
                piece = os.read(master, 1 << 16)
            except OSError:  # the child closed the terminal
                piece = b""
            err += piece
    out_parts.append(proc.stdout.read())
    proc.wait(timeout=60)
    os.close(master)
    return proc.returncode, b"".join(out_parts), err


def _plain(raw: bytes) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw.decode("utf-8", "replace"))


def test_terminal_stderr_shows_the_bar_and_piped_stdout_gets_only_the_report(dump: Path) -> None:
    args = ["analyze", "--fail-on", "never", str(dump)]
    code, out, err = _run_with_terminal_stderr(args, {"KAFKADIAG_PROGRESS_DELAY": "0"})
    assert code == 0
    shown = _plain(err)
    assert "reading" in shown and re.search(r"\d+(\.\d+)?/\d+(\.\d+)? MB", shown), shown[:500]
    assert b"\x1b" not in out and b"reading" not in out and "━".encode() not in out
    piped = subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, cwd=ROOT)
    assert out == piped.stdout and piped.stderr == b""  # the same report; no bar when stderr is piped


def test_quiet_and_short_runs_show_no_bar_on_a_terminal(dump: Path) -> None:
    _, out, err = _run_with_terminal_stderr(["analyze", "-q", "--fail-on", "never", str(dump)],
                                            {"KAFKADIAG_PROGRESS_DELAY": "0"})
    assert "reading" not in _plain(err) and _plain(err).strip() == ""
    assert b"finding(s)" in out.splitlines()[0]
    _, _, err = _run_with_terminal_stderr(["analyze", "--fail-on", "never", str(CASE)],
                                          {"KAFKADIAG_PROGRESS_DELAY": "5"})
    assert _plain(err).strip() == ""


def test_logs_read_ahead_by_the_pool_count_in_the_workers(recorder: Recorder, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "logs"))
    import loggen

    from kafkadiag.engine import ahead
    from kafkadiag.engine.local import LocalRunner
    from kafkadiag.ruleset import load_rules

    log = tmp_path / "app.log"
    with log.open("w") as out:
        loggen.write_log(out, 6, seed=3, counts={})
    seen_at_take: dict[int, int] = {}
    original = ahead.ReadAhead.take

    def take(self, file_id: int):
        done = original(self, file_id)
        if done is not None:  # read by a pool process: what it counted is there before the run marks it done
            seen_at_take[file_id] = int(progress.active()._view[file_id])
        return done

    monkeypatch.setattr(ahead.ReadAhead, "take", take)
    LocalRunner(reduce_logs=True).collect([str(log)], ReadOptions(), load_rules())
    if ahead.range_workers() < 2:
        pytest.skip("one core: nothing is read ahead")
    size = log.stat().st_size
    assert size - (1 << 20) <= seen_at_take[0] <= size
    assert recorder.counts is not None and recorder.counts.done() == size
