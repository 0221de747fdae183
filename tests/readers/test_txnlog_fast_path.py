"""``--transaction-log-decoder`` dumps: runs of text-decoder records read at once
(``readers.txnlog_fast``) give exactly the line parser's rows, report and era, era by era."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from dump_reading import assert_same_reads, with_odd_lines
from kafkadiag.readers import dumplog, dumplog_fast, txnlog_fast

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from kafkasim.txnbulk import generate_txn_state  # noqa: E402

#: Eras whose decoder dump has batch lines and one-line records (text up to 4.0, JSON from 4.1):
#: the runs are read at once.
RUN_ERAS = ("2.4", "3.0", "3.3", "3.5", "4.0", "4.1")
#: 0.11 - 2.1 print one ``offset:`` line per record without batch lines: the line parser reads
#: them; the fast read must still equal it.
OTHER_ERAS = ("1.1", "2.0")


@pytest.fixture
def txn_calls(monkeypatch):
    """Let runs of a few records be taken, and count the records the vectorised path emitted."""
    monkeypatch.setattr(txnlog_fast, "MIN_PAIRS", 2)
    monkeypatch.setattr(dumplog_fast, "MIN_FAST_BATCHES", 4)
    calls = {"n": 0}
    emit = dumplog.emit_run

    def counting(parser, block, run, eras):
        calls["n"] += len(run.columns["line"])
        return emit(parser, block, run, eras)

    monkeypatch.setattr(dumplog, "emit_run", counting)
    return calls


def _dump(tmp_path: Path, era: str, ids: int = 150, seed: int = 3) -> bytes:
    path = tmp_path / f"txn-{era}.txt"
    generate_txn_state(path, ids, era=era, seed=seed)
    return path.read_bytes()


@pytest.mark.parametrize("era", RUN_ERAS + OTHER_ERAS)
@pytest.mark.parametrize("block_size", [4096, 65536, 1 << 20])
def test_decoder_records_equal_the_line_parser_per_era(tmp_path: Path, era: str, block_size: int, txn_calls) -> None:
    assert_same_reads(_dump(tmp_path, era), block_size, txn_calls if era in RUN_ERAS else None)


@pytest.mark.parametrize("era", ("2.4", "3.3", "4.1"))
def test_odd_lines_between_records(tmp_path: Path, era: str, txn_calls) -> None:
    text = with_odd_lines(_dump(tmp_path, era), b"\n", random.Random(7),
                          b"| offset: 3 CreateTime: 1 keySize: 4 valueSize: -1 sequence: -1 headerKeys: [] key: "
                          b"transaction_metadata::transactionalId=gone payload: <DELETE>")
    assert_same_reads(text, 16384, txn_calls)


def test_crlf_dump_is_read_by_the_line_parser(tmp_path: Path) -> None:
    text = _dump(tmp_path, "3.3").replace(b"\n", b"\r\n")
    assert_same_reads(text, 16384)


@pytest.mark.parametrize("case", ["fencing-3.3", "hanging-3.5", "expiration-3.5", "lost-marker-2.8",
                                  "expired-zombie-3.0", "client-abort-4.0", "invalid-transition-3.3"])
def test_bundled_transaction_state_dumps(case: str, monkeypatch) -> None:
    monkeypatch.setattr(txnlog_fast, "MIN_PAIRS", 2)
    monkeypatch.setattr(dumplog_fast, "MIN_FAST_BATCHES", 4)
    for path in sorted((ROOT / "fixtures" / "cases" / case / "input").glob("__transaction_state-*")):
        for block_size in (4096, 1 << 20):
            assert_same_reads(path.read_bytes(), block_size)


def _record_lines_edited(text: bytes, edits: list[tuple[int, bytes, bytes]]) -> bytes:
    """``text`` with, in each record line whose number the first of ``edits``' moduli divides,
    that edit's replacement made (an empty text to replace: appended)."""
    out = []
    for i, line in enumerate(text.split(b"\n")):
        if line.startswith(b"| offset:"):
            edit = next(((old, new) for modulus, old, new in edits if i % modulus == 0), None)
            if edit is not None:
                line = line.replace(*edit) if edit[0] else line + edit[1]
        out.append(line)
    return b"\n".join(out)


def test_odd_values_fall_back_to_the_line_parser(tmp_path: Path, txn_calls) -> None:
    """Numbers beyond their column, a non-ASCII id and trailing spaces: the line parser's rows and skips."""
    text = _record_lines_edited(_dump(tmp_path, "3.3", ids=40), [
        (7, b"producerEpoch:0", b"producerEpoch:99999999999"),
        (11, b"transactionalId=orders", "transactionalId=ördérs".encode()),
        (13, b"", b"  "),
    ])
    assert_same_reads(text, 16384, txn_calls)


def test_odd_json_values_fall_back_to_the_line_parser(tmp_path: Path, txn_calls) -> None:
    """4.1+ JSON records with an epoch beyond its column, a value that is not JSON, a null value
    and a key of another type: the line parser's rows and skips."""
    text = _record_lines_edited(_dump(tmp_path, "4.1", ids=40), [
        (7, b'"producerEpoch":0', b'"producerEpoch":99999999999'),
        (11, b'"data":{"producerId"', b'"data":{"producerId":}{'),
        (13, b'"version":"0","data":', b'"version":"0","data":null,"x":'),
        (17, b'{"type":"0"', b'{"type":"1"'),
    ])
    assert_same_reads(text, 16384, txn_calls)


def test_repeated_ids_and_states_share_one_string() -> None:
    """700,000 records of 100,000 ids must not hold 700,000 copies of the ids (memory)."""
    import pyarrow as pa

    from kafkadiag.readers.txnlog_fast import _shared_strings

    field = pa.array([b"orders-1", b"orders-2", b"orders-1", b"orders-1", "zahlungs-\u00e4".encode()])
    values = _shared_strings(field, "utf-8")
    assert values.tolist() == ["orders-1", "orders-2", "orders-1", "orders-1", "zahlungs-\u00e4"]
    assert values[0] is values[2] is values[3]
    again = _shared_strings(pa.array([b"orders-1"]), "utf-8")  # another run of the same dump
    assert again[0] is values[0]
