"""Path expansion, gzip by magic bytes, truncated streams, stdin spooling and evidence re-reading."""

from __future__ import annotations

import gzip
import io
import os

import pytest

from dumplog_gen import dump_text, make_batches
from kafkadiag.inputs import EVIDENCE_MAX_CHARS, expand_inputs, open_input, read_lines_at
from kafkadiag.readers import EventStream


def _write(path, data: bytes) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


def test_directories_are_walked_recursively_in_sorted_order(tmp_path) -> None:
    for name in ("b/2.txt", "a/z.txt", "a/sub/1.txt", "c.txt"):
        _write(tmp_path / "d" / name, b"x\n")
    specs = expand_inputs([str(tmp_path / "d")])
    rel = [os.path.relpath(s.display, tmp_path / "d") for s in specs]
    assert rel == ["c.txt", os.path.join("a", "z.txt"), os.path.join("a", "sub", "1.txt"), os.path.join("b", "2.txt")]
    assert all(not s.error for s in specs)


def test_globs_missing_paths_and_empty_directories(tmp_path) -> None:
    for name in ("x-1.txt", "x-2.txt", "y.txt"):
        _write(tmp_path / name, b"x\n")
    os.makedirs(tmp_path / "empty")
    specs = expand_inputs([str(tmp_path / "x-*.txt"), str(tmp_path / "nope.log"), str(tmp_path / "q*.none"), str(tmp_path / "empty")])
    assert [os.path.basename(s.display) for s in specs[:2]] == ["x-1.txt", "x-2.txt"]
    assert specs[2].error == f"no such file: {tmp_path / 'nope.log'}"
    assert specs[3].error.startswith("no match: ")
    assert specs[4].error.startswith("no files in directory: ")


def test_gzip_is_detected_by_content_not_name(tmp_path) -> None:
    text = dump_text("3.6", make_batches(30, seed=3))
    path = _write(tmp_path / "dump.txt", gzip.compress(text))
    with open_input(path) as stream:
        assert stream.read() == text
    stream = EventStream([path])
    rows = sum(len(df) for name, df in stream if name == "batches")
    assert rows == 30 and stream.reports[0].error == "" and stream.reports[0].kinds == ["dump-log/data"]


def test_truncated_gzip_keeps_what_was_read(tmp_path) -> None:
    text = dump_text("3.6", make_batches(3000, seed=3))
    packed = gzip.compress(text)
    path = _write(tmp_path / "cut.gz", packed[: len(packed) // 2])
    stream = EventStream([path])
    rows = sum(len(df) for name, df in stream if name == "batches")
    report = stream.reports[0]
    assert 0 < rows < 3000
    assert report.error == "" and report.evidence  # what was read counts; the damage is a warning
    assert report.damage.startswith("truncated gzip stream after ") and report.damage.endswith(" bytes")
    assert "\n" not in report.damage


def test_missing_and_unreadable_inputs_are_reported_not_raised(tmp_path) -> None:
    good = _write(tmp_path / "ok.txt", dump_text("3.6", make_batches(3, seed=1)))
    stream = EventStream([str(tmp_path / "missing.log"), good])
    chunks = list(stream)
    assert stream.files == [str(tmp_path / "missing.log"), good]
    assert stream.reports[0].error == f"no such file: {tmp_path / 'missing.log'}"
    assert stream.reports[1].error == "" and {int(df["file_id"].iloc[0]) for _, df in chunks} == {1}


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read anything")
def test_permission_denied(tmp_path) -> None:
    path = _write(tmp_path / "secret.txt", b"x\n")
    os.chmod(path, 0)
    assert expand_inputs([path])[0].error == f"permission denied: {path}"


def test_stdin_is_spooled_and_re_readable() -> None:
    text = dump_text("2.5", make_batches(10, seed=2))
    stream = EventStream(["-"], stdin=io.BytesIO(text))
    rows = [df for name, df in stream if name == "batches"]
    assert stream.files == ["-"] and sum(len(df) for df in rows) == 10
    first = rows[0].iloc[0]
    found = read_lines_at("-", [int(first["byte"])])
    assert found[int(first["byte"])][0] == first["line"]
    assert found[int(first["byte"])][1].startswith("baseOffset: ")


def _naive(data: bytes, offsets: list[int]) -> dict[int, tuple[int, str]]:
    out = {}
    for off in offsets:
        if off >= len(data):
            continue
        start = data.rfind(b"\n", 0, off) + 1 if off > 0 else 0
        if off > 0 and data[off - 1 : off] == b"\n":
            start = off
        end = data.find(b"\n", off)
        end = len(data) if end < 0 else end
        line = data[start:end].rstrip(b"\r").decode("utf-8", "replace")
        if len(line) > EVIDENCE_MAX_CHARS:
            line = line[: EVIDENCE_MAX_CHARS - 1] + "…"
        out[off] = (data.count(b"\n", 0, start) + 1, line)
    return out


@pytest.mark.parametrize("compress", [False, True])
def test_read_lines_at_matches_a_naive_scan(tmp_path, compress: bool) -> None:
    data = dump_text("3.6", make_batches(400, seed=6), eol=b"\r\n") + b"z" * 5000 + b"\n\xff\xfe tail without newline"
    path = _write(tmp_path / "e.txt", gzip.compress(data) if compress else data)
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10]
    offsets = starts[::7] + [starts[5] + 3, len(data) - 2, len(data) + 10, starts[-2]]
    got = read_lines_at(path, offsets, block_size=1000)
    assert got == _naive(data, offsets)
    long_line = got[starts[-2]][1]
    assert len(long_line) == EVIDENCE_MAX_CHARS and long_line.endswith("…")
    assert not any(text.endswith("\r") for _, text in got.values())


@pytest.mark.parametrize("compress", [False, True])
def test_read_lines_at_with_known_line_numbers_reads_the_same_lines(tmp_path, compress: bool) -> None:
    """The seek path (plain files, line numbers known from the read) must agree with the forward pass."""
    data = dump_text("3.6", make_batches(300, seed=8), eol=b"\r\n") + b"y" * 4000 + b"\nlast line without newline"
    path = _write(tmp_path / "k.txt", gzip.compress(data) if compress else data)
    starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10]
    offsets = starts[::5] + [starts[-2], starts[-1], len(data) + 10]
    expected = _naive(data, offsets)
    known = {off: line for off, (line, _) in expected.items()}
    known[len(data) + 10] = 99999
    assert read_lines_at(path, offsets, known_lines=known) == expected
    # An offset inside a line is not a line start: the forward pass answers, with the same result.
    inside = [starts[3] + 4]
    assert read_lines_at(path, inside, known_lines={inside[0]: 4}) == _naive(data, inside)


def test_named_pipes_are_spooled_so_evidence_can_be_re_read(tmp_path) -> None:
    import threading

    fifo = str(tmp_path / "pipe")
    os.mkfifo(fifo)
    text = b"Dumping /k/t-1/00000000000000000007.snapshot\nproducerId: 1 producerEpoch: 0 coordinatorEpoch: 2 currentTxnFirstOffset: Some(5)\n"

    def writer() -> None:
        with open(fifo, "wb") as f:
            f.write(text)

    thread = threading.Thread(target=writer)
    thread.start()
    stream = EventStream([fifo])
    rows = [df for name, df in stream if name == "snapshot_entries"]
    thread.join()
    assert rows[0]["current_txn_first_offset"].tolist() == [5] and rows[0]["snapshot_offset"].tolist() == [7]
    assert read_lines_at(fifo, [int(rows[0]["byte"].iloc[0])]) == {45: (2, text.decode().splitlines()[1])}
