"""Pasted text: repaired line by line, split by kind, and read through views that keep every line's place."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from kafkadiag.readers import EventStream
from kafkadiag.readers.base import ReadOptions
from kafkadiag.readers.paste import LineView, dump_view_line, is_dump_line, other_view_line, profile, repair
from kafkadiag.readers.route import CONFIG, DUMP, FENCED, LOG, plan

ROOT = Path(__file__).resolve().parents[2]
SEED = (ROOT / "fixtures" / "cases" / "seed-two-instances" / "input" / "Topic-Test-0.dump.log").read_bytes()
CLIENT = (ROOT / "fixtures" / "logs" / "pasted_issue.md").read_bytes()
FIND_HANGING = (ROOT / "fixtures" / "real" / "strimzi-blog-2023-hanging-transaction-find-hanging" / "find-hanging.txt").read_bytes()


@pytest.mark.parametrize(
    "damaged",
    [
        b"    offset: 1 ... producerId: 0 producerEpoch: 6 ... endTxnMarker: ABORT coordinatorEpoch: 0",
        b"> offset: 1 ... producerId: 0 producerEpoch: 6 ... endTxnMarker: ABORT coordinatorEpoch: 0",
        b"> > offset: 1 ... producerId: 0 producerEpoch: 6 ... endTxnMarker: ABORT coordinatorEpoch: 0",
        b"12 | offset: 1 ... producerId: 0 producerEpoch: 6 ... endTxnMarker: ABORT coordinatorEpoch: 0",
        b"\toffset: 1 ... producerId: 0 producerEpoch: 6 ... endTxnMarker: ABORT coordinatorEpoch: 0",
    ],
)
def test_paste_prefixes_are_undone(damaged: bytes) -> None:
    assert repair(damaged) == b"offset: 1 ... producerId: 0 producerEpoch: 6 ... endTxnMarker: ABORT coordinatorEpoch: 0"


def test_markdown_escapes_and_html_entities_are_undone() -> None:
    line = b"| offset: 0 CreateTime: 1 keySize: 8 valueSize: 9 key: transaction\\_metadata::transactionalId=tx-&quot;1&quot;"
    assert repair(line) == b'| offset: 0 CreateTime: 1 keySize: 8 valueSize: 9 key: transaction_metadata::transactionalId=tx-"1"'


def test_views_keep_every_line_in_place() -> None:
    text = b"    " + SEED.replace(b"\n", b"\n    ").rstrip(b" ") + CLIENT
    for mapping in (dump_view_line, other_view_line):
        seen = LineView(io.BytesIO(text), mapping, block=64).read()
        assert len(seen) == len(text) and seen.count(b"\n") == text.count(b"\n")
        starts = [i for i, c in enumerate(text) if c == 10]
        assert starts == [i for i, c in enumerate(seen) if c == 10]
    dump_only = LineView(io.BytesIO(text), dump_view_line).read()
    assert b"offset: 1 ... producerId: 0" in dump_only and b"ledger" not in dump_only
    log_only = LineView(io.BytesIO(text), other_view_line).read()
    assert b"producerEpoch: 6" not in log_only and b"ledger" in log_only


def test_plans() -> None:
    assert [(p.reader, p.view) for p in plan("dump-log/data", SEED)] == [(DUMP, None)]  # clean: raw, fast path
    indented = b"".join(b"    " + line for line in SEED.splitlines(keepends=True))
    found = profile(indented)
    assert (found.strong_dump, found.repaired_dump) == (4, 5)  # four records and the `Starting offset` header
    assert [(p.reader, p.view is not None) for p in plan("unknown", indented)] == [(DUMP, True)]
    mixed = SEED + b"\n" + CLIENT
    assert [(p.reader, p.view is not None) for p in plan("dump-log/data", mixed)] == [(DUMP, True), (LOG, True)]
    assert [p.reader for p in plan("unknown", b"We restarted the service and it worked again.\n")] == [LOG]
    assert [p.reader for p in plan("config/broker", b"broker.id=1\n")] == [CONFIG]
    # A config in code fences is a pasted text: its blocks are configs, the rest may be log lines.
    fenced = b"### Sink\n\n```sql\nCREATE TABLE t (a INT) WITH ('connector' = 'kafka');\n```\nthe job fails with\n"
    assert [p.reader for p in plan("config/flink-sql", fenced)] == [LOG, FENCED]


def test_one_file_holding_a_dump_a_client_log_and_a_tool_table(tmp_path: Path) -> None:
    note = tmp_path / "incident-note.md"
    note.write_bytes(b"Dump of the partition:\n\n" + b"".join(b"    " + ln for ln in SEED.splitlines(keepends=True))
                     + b"\n" + CLIENT + b"\n" + FIND_HANGING)
    stream = EventStream([str(note)], ReadOptions())
    tables: dict[str, int] = {}
    lines: dict[str, list[int]] = {}
    for name, frame in stream:
        tables[name] = tables.get(name, 0) + len(frame)
        lines.setdefault(name, []).extend(frame["line"].tolist())
    report = stream.reports[0]
    assert tables["batches"] == 4 and tables["log_events"] >= 4
    assert {k.split("/")[0] for k in report.kinds} == {"dump-log", "log"}
    assert report.lines == note.read_bytes().count(b"\n")
    # line numbers point at the user's file
    text = note.read_text().splitlines()
    assert all("offset:" in text[n - 1] for n in lines["batches"])
    assert any("find-hanging" not in text[n - 1] and "913095344" in text[n - 1] for n in lines["log_events"])


@pytest.mark.parametrize("damage", ["> ", "> > ", "{n} | ", "&gt; "])
def test_a_damaged_client_log_is_read_like_the_clean_one(tmp_path: Path, damage: str) -> None:
    clean_log = (ROOT / "fixtures" / "logs" / "java_spring_boot.log").read_text()
    damaged = "".join(damage.format(n=i + 1) + line for i, line in enumerate(clean_log.splitlines(keepends=True)))
    (tmp_path / "clean.log").write_text(clean_log)
    (tmp_path / "damaged.log").write_text(damaged.replace('"', "&quot;") if damage.startswith("&") else damaged)

    def events(name: str) -> list[tuple]:
        frames = [f for t, f in EventStream([str(tmp_path / name)], ReadOptions()) if t == "log_events"]
        return [(r.line, r.level, r.error, r.transactional_id, r.exception) for f in frames for r in f.itertuples()]

    assert events("damaged.log") == events("clean.log") and events("clean.log")


def test_inline_code_marks_around_dump_fields_are_dropped() -> None:
    """A blog that put fields in backticks, some of them unbalanced: the batch is still a control batch."""
    line = (b"   > baseOffset: 2 lastOffset: 2 count: 1 baseSequence: -1 lastSequence: -1 producerId: 9041 "
            b"producerEpoch: 698 partitionLeaderEpoch: 0` isTransactional: true isControl: true` position: 160")
    fixed = repair(line)
    assert b"`" not in fixed and b"partitionLeaderEpoch: 0 isTransactional: true isControl: true position: 160" in fixed
    assert repair(b"| offset: 2 headerKeys: [] `endTxnMarker: COMMIT` coordinatorEpoch: 0").endswith(
        b"headerKeys: [] endTxnMarker: COMMIT coordinatorEpoch: 0")
    assert is_dump_line(fixed)
