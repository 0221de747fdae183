"""Inputs that never end, never start or never fit: one line and exit 2, nothing left behind.

Before: ``/dev/zero`` was spooled to a temporary file without limit (2 GB in 5 s, left behind
when the run was killed), ``--config /dev/zero`` read until memory ran out (exit 3), a named
pipe without a writer hung without a word, and SIGTERM left the spool of stdin in the
temporary folder.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "fixtures" / "cases" / "seed-two-instances" / "input"
DUMP = next(iter(sorted(CASE.iterdir())))


def _run(args: list[str], tmp: Path, env: dict[str, str] | None = None, **kw) -> subprocess.CompletedProcess:
    environ = {**os.environ, "TMPDIR": str(tmp), **(env or {})}
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, cwd=ROOT,
                          timeout=60, env=environ, **kw)


def _spools(tmp: Path) -> list[str]:
    return [p.name for p in tmp.iterdir() if p.name.startswith("kafkadiag-")]


@pytest.mark.parametrize("args", [
    ["analyze", "/dev/zero"],
    ["analyze", "--config", "/dev/zero", str(CASE)],
    ["lint", "/dev/zero"],
    ["rules", "--rules", "/dev/zero"],
])
def test_a_device_is_refused_in_one_line(tmp_path: Path, args: list[str]) -> None:
    proc = _run(args, tmp_path)
    err = proc.stderr.decode()
    assert proc.returncode == 2, err
    assert "device" in err and "internal error" not in err
    assert _spools(tmp_path) == []


def test_a_config_file_over_the_limit_is_refused_before_parsing(tmp_path: Path) -> None:
    big = tmp_path / "producer.properties"
    with big.open("w") as out:
        for i in range(330_000):  # about 9 MB of keys
            out.write(f"some.key.number.{i}=value-{i}\n")
    for args in (["lint", str(big)], ["analyze", "--config", str(big), str(CASE)]):
        proc = _run(args, tmp_path)
        err = proc.stderr.decode()
        assert proc.returncode == 2, err
        assert "larger than 8 MiB" in err and "internal error" not in err


def test_a_named_pipe_without_a_writer_is_given_up_with_a_word(tmp_path: Path) -> None:
    fifo = tmp_path / "stale.fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    proc = _run(["analyze", str(fifo)], tmp_path, {"KAFKADIAG_PIPE_WAIT": "2"})
    err = proc.stderr.decode()
    assert time.monotonic() - started < 30
    assert proc.returncode == 2
    assert "waiting for a writer" in err and "no writer on this named pipe after 2 s" in err


def test_a_named_pipe_whose_writer_comes_later_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "late.fifo"
    os.mkfifo(fifo)

    def write_later() -> None:
        time.sleep(1.5)
        with open(fifo, "wb") as out:
            out.write(DUMP.read_bytes())

    writer = threading.Thread(target=write_later)
    writer.start()
    proc = _run(["analyze", "--format", "json", str(fifo)], tmp_path)
    writer.join()
    assert proc.returncode == 1, proc.stderr.decode()
    assert b'"FEN' in proc.stdout
    assert _spools(tmp_path) == []  # the spool of the pipe is gone with the run


def test_stdin_over_the_spool_limit_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    data = DUMP.read_bytes() * (2_000_000 // len(DUMP.read_bytes()) + 1)
    proc = _run(["analyze", "-"], tmp_path, {"KAFKADIAG_SPOOL_LIMIT": "1M"}, input=data)
    err = proc.stderr.decode()
    assert proc.returncode == 2
    assert "more than 1,048,576 bytes through a pipe" in err and "KAFKADIAG_SPOOL_LIMIT" in err
    assert _spools(tmp_path) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_spooling_stdin_removes_the_spool(tmp_path: Path, signum: int) -> None:
    # As from a terminal: a job started in the background by a script inherits SIGINT ignored
    # (CI runs the tests so), and a program keeps what it inherits.
    proc = subprocess.Popen([sys.executable, "-m", "kafkadiag.cli", "analyze", "-"], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "TMPDIR": str(tmp_path)},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    line = DUMP.read_bytes()
    assert proc.stdin is not None
    deadline = time.monotonic() + 30
    while not _spools(tmp_path) and time.monotonic() < deadline:
        proc.stdin.write(line)
        proc.stdin.flush()
        time.sleep(0.05)
    assert _spools(tmp_path), "stdin was never spooled"
    proc.send_signal(signum)
    try:
        proc.stdin.close()
    except BrokenPipeError:
        pass
    proc.wait(timeout=30)
    assert proc.returncode == 128 + signum or (signum == signal.SIGINT and proc.returncode == 130)
    assert _spools(tmp_path) == []


def test_a_full_disk_while_spooling_is_one_line_and_leaves_nothing(tmp_path: Path, monkeypatch) -> None:
    """The temporary folder's disk fills up: writes to /dev/full fail as a full disk does."""
    import io

    from kafkadiag import inputs

    spool = tmp_path / "kafkadiag-input-full.txt"
    spool.write_bytes(b"")

    def full_disk(prefix: str = "", suffix: str = "", **_kw) -> tuple[int, str]:
        return os.open("/dev/full", os.O_WRONLY), str(spool)

    monkeypatch.setattr(inputs, "_removed_at_exit_file", full_disk)
    spec = inputs._spool("-", io.BytesIO(DUMP.read_bytes() * 50))
    assert "is full after" in spec.error and "TMPDIR" in spec.error and "\n" not in spec.error
    assert not spool.exists()


def test_a_spool_is_listed_for_removal_before_it_exists(tmp_path: Path, monkeypatch) -> None:
    """A signal can arrive between any two steps: the spool's removal at exit is in place before
    the file is made, so no moment leaves a file nobody removes."""
    import tempfile

    from kafkadiag import inputs

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    listed_when_made: list[bool] = []
    real_open = os.open

    def watched(path, flags, mode=0o777):
        listed_when_made.append(str(path) in inputs._REMOVED_AT_EXIT)
        return real_open(path, flags, mode)

    monkeypatch.setattr(os, "open", watched)
    fd, path = inputs._removed_at_exit_file("kafkadiag-input-", ".txt")
    os.close(fd)
    assert listed_when_made == [True] and Path(path).exists() and Path(path).parent == tmp_path
    inputs._remove(path)
