"""The simulator prints what kafka-dump-log.sh prints, and its ground truth matches its text.

Line-shape regexes are written here from shared/reference/dump-log-format.md and
transaction-log-format.md (not from the generator's own templates), one per era and field order.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import simulate  # noqa: E402
from kafkasim.model import TxnLogValue  # noqa: E402
from kafkasim.util import java_string_hash, txn_partition  # noqa: E402

ALL_ERAS = list(simulate.ERAS)

# -- regexes from the reference ----------------------------------------------------------------

N = r"-?\d+"
BOOL = r"(?:true|false)"
UPPER = r"(?:NONE|GZIP|SNAPPY|LZ4|ZSTD)"
LOWER = r"(?:none|gzip|snappy|lz4|zstd)"
HEADERS = r"headerKeys: \[[^\]\s]*\]"

#: era -> (batch layout, record layout, upper-case codec, "Log starting offset", snapshot layout, optional style, decoder)
ERA_TABLE = {
    "0.11.0.0": ("0.11", "legacy0", True, False, "0.11", "scala", "plain"),
    "0.11": ("0.11", "legacy", True, False, "0.11", "scala", "plain"),
    "1.1": ("0.11", "legacy", True, False, "1.0.2", "scala", "plain"),
    "2.0": ("2.0.0", "legacy", True, False, "1.0.2", "scala", "plain"),
    "2.1": ("2.0.1", "legacy", True, False, "1.0.2", "scala", "plain"),
    "2.4": ("2.2", "pipe", True, False, "1.0.2", "scala", "plain"),
    "2.4.1": ("2.2", "pipe", True, False, "1.0.2", "scala", "prefixed"),
    "2.8": ("2.2", "superset", True, False, "1.0.2", "scala", "list"),
    "3.0": ("2.2", "reduced", False, False, "1.0.2", "scala", "list"),
    "3.3": ("3.2", "reduced", False, True, "3.1", "scala", "list"),
    "3.5": ("3.2", "reduced", False, True, "3.1", "java", "list"),
    "4.0": ("3.2", "reduced", False, True, "3.1", "java", "list"),
    "4.1": ("3.2", "reduced", False, True, "3.1", "java", "json"),
}


def batch_regex(layout: str, upper: bool) -> re.Pattern:
    """dump-log-format.md §3.2, exact field order."""
    codec = UPPER if upper else LOWER
    head = r"baseOffset: \d+ lastOffset: \d+ "
    if layout != "0.11":
        head += r"count: \d+ "
    head += (rf"baseSequence: {N} lastSequence: {N} producerId: {N} producerEpoch: {N} "
             rf"partitionLeaderEpoch: {N} isTransactional: {BOOL} ")
    if layout in ("2.0.1", "2.2", "3.2"):
        head += rf"isControl: {BOOL} "
    if layout == "3.2":
        head += r"deleteHorizonMs: OptionalLong(?:\.empty|\[\d+\]) "
    if layout in ("2.2", "3.2"):
        tail = rf"position: \d+ CreateTime: \d+ size: \d+ magic: 2 compresscodec: {codec} crc: \d+ isvalid: {BOOL}"
    else:
        tail = rf"position: \d+ CreateTime: \d+ isvalid: {BOOL} size: \d+ magic: 2 compresscodec: {codec} crc: \d+"
    return re.compile(head + tail)


def record_regex(layout: str) -> re.Pattern:
    """dump-log-format.md §4.1-4.4: the record metadata part; the suffix is captured as `rest`."""
    if layout in ("legacy", "legacy0"):
        epoch = rf"producerEpoch: {N} " if layout == "legacy" else ""
        meta = (rf"offset: \d+ position: \d+ CreateTime: \d+ isvalid: true keysize: (?P<k>{N}) valuesize: (?P<v>{N}) "
                rf"magic: 2 compresscodec: {UPPER} producerId: {N} {epoch}sequence: {N} isTransactional: {BOOL} {HEADERS}")
    elif layout == "pipe":
        meta = rf"\| offset: \d+ CreateTime: \d+ keysize: (?P<k>{N}) valuesize: (?P<v>{N}) sequence: {N} {HEADERS}"
    elif layout == "superset":
        meta = (rf"\| offset: \d+ isValid: true crc: null keySize: (?P<k>{N}) valueSize: (?P<v>{N}) CreateTime: \d+ "
                rf"baseOffset: \d+ lastOffset: \d+ baseSequence: {N} lastSequence: {N} producerEpoch: {N} "
                rf"partitionLeaderEpoch: {N} batchSize: \d+ magic: 2 compressType: {UPPER} position: \d+ "
                rf"sequence: {N} {HEADERS}")
    else:
        meta = rf"\| offset: \d+ CreateTime: \d+ keySize: (?P<k>{N}) valueSize: (?P<v>{N}) sequence: {N} {HEADERS}"
    return re.compile(meta + r"(?P<rest>.*)")


MARKER = re.compile(r" endTxnMarker: (COMMIT|ABORT) coordinatorEpoch: \d+")
STATES = "Empty|Ongoing|PrepareCommit|PrepareAbort|CompleteCommit|CompleteAbort"
TXN_TEXT = {
    "plain": re.compile(rf" key: transactionalId=(?P<id>\S+) payload: producerId:(?P<pid>\d+),producerEpoch:(?P<e>\d+),"
                        rf"state=(?P<s>{STATES}),partitions=Set\((?P<p>[^)]*)\),txnLastUpdateTimestamp=\d+,txnTimeoutMs=\d+"),
    "prefixed": re.compile(rf" key: transaction_metadata::transactionalId=(?P<id>\S+) payload: (?:<DELETE>|producerId:"
                           rf"(?P<pid>\d+),producerEpoch:(?P<e>\d+),state=(?P<s>{STATES}),partitions=HashSet\((?P<p>[^)]*)\),"
                           rf"txnLastUpdateTimestamp=\d+,txnTimeoutMs=\d+)"),
    "list": re.compile(rf" key: transaction_metadata::transactionalId=(?P<id>\S+) payload: (?:<DELETE>|producerId:"
                       rf"(?P<pid>\d+),producerEpoch:(?P<e>\d+),state=(?P<s>{STATES}),partitions=\[(?P<p>[^\]\s]*)\],"
                       rf"txnLastUpdateTimestamp=\d+,txnTimeoutMs=\d+)"),
    "json": re.compile(r' key: (?P<key>\{"type":"0","data":\{"transactionalId":"[^"]*"\}\}) payload: (?P<val><DELETE>|\{.*\})'),
}
JSON_FIELDS = ["producerId", "producerEpoch", "transactionTimeoutMs", "transactionStatus", "transactionPartitions",
               "transactionLastUpdateTimestampMs", "transactionStartTimestampMs"]
STATE_BY_ID = ["Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort"]


def snapshot_regex(layout: str, optional: str) -> re.Pattern:
    """dump-log-format.md §8."""
    opt = r"(?:None|Some\(\d+\))" if optional == "scala" else r"(?:OptionalLong\.empty|OptionalLong\[\d+\])"
    if layout == "0.11":
        return re.compile(rf"producerId: \d+ producerEpoch: \d+ lastSequence: {N} lastOffset: {N} offsetDelta: \d+ "
                          rf"lastTimestamp: {N} coordinatorEpoch: {N} currentTxnFirstOffset: {opt}")
    head = rf"producerId: \d+ producerEpoch: \d+ coordinatorEpoch: {N} currentTxnFirstOffset: {opt} "
    if layout == "3.1":
        head += rf"lastTimestamp: {N} "
    return re.compile(head + rf"(?:firstSequence: {N} lastSequence: {N} lastOffset: \d+ offsetDelta: \d+ timestamp: {N})?")


TXNINDEX = re.compile(r"version: 0 producerId: \d+ firstOffset: \d+ lastOffset: \d+ lastStableOffset: \d+")
DUMPING = re.compile(r"Dumping /\S+/\d{20}\.(log|snapshot|txnindex)")


# -- fixtures ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every era x a few scenarios, generated once: (era, scenario) -> case directory."""
    root = tmp_path_factory.mktemp("sim")
    out = {}
    for era in ALL_ERAS:
        for scenario in ("mixed", "txnlog-compaction", "invalid-transition"):
            d = root / era / scenario
            simulate.generate(scenario, era, d, seed=3)
            out[(era, scenario)] = d
    return out


def expected(case: Path) -> dict:
    return json.loads((case / "expected.json").read_text())


def files_of(case: Path, kind: str) -> list[Path]:
    return [case / f["path"] for f in expected(case)["files"] if f["kind"] == kind]


# -- line shapes -------------------------------------------------------------------------------

def check_data_text(era: str, text: str, deep: bool = True, print_data: bool = True) -> dict:
    """Every physical line of a data-partition dump must be a known shape (or a payload continuation)."""
    layout, rlayout, upper, lso, *_ = ERA_TABLE[era]
    batch_re, rec_re = batch_regex(layout, upper), record_regex(rlayout)
    header = "Log starting offset: " if lso else "Starting offset: "
    batch_lines_in_deep = layout in ("2.2", "3.2")
    counts = {"batch": 0, "record": 0, "marker": 0, "continuation": 0, "header": 0}
    last = None
    for line in text.split("\n")[:-1]:
        if DUMPING.fullmatch(line) or re.fullmatch(re.escape(header) + r"\d+", line):
            counts["header"] += 1
            last = "header"
        elif batch_re.fullmatch(line):
            assert not deep or batch_lines_in_deep, f"{era}: batch line in deep mode: {line[:80]}"
            counts["batch"] += 1
            last = "batch"
        elif deep and (m := rec_re.fullmatch(line)):
            rest = m.group("rest")
            if MARKER.fullmatch(rest):
                counts["marker"] += 1
            else:
                check_data_suffix(era, int(m.group("k")), int(m.group("v")), rest, print_data)
            counts["record"] += 1
            last = "payload" if " payload: " in rest else "record"
        else:
            assert last == "payload", f"{era}: unknown line after {last}: {line[:160]!r}"
            counts["continuation"] += 1
    assert counts["header"] >= 2
    return counts


def check_data_suffix(era: str, k: int, v: int, rest: str, print_data: bool) -> None:
    """` key: ... payload: ...` rules of dump-log-format.md §4.6."""
    if not print_data:
        assert rest == ""
        return
    null_key_printed = era not in ("0.11.0.0", "0.11", "1.1", "2.0", "2.1")
    if v == -1:
        assert rest == ((" key: " + rest[6:]) if (k >= 0 and null_key_printed) else ""), rest
        assert " payload: " not in rest
    elif k == -1:
        assert rest.startswith(" payload: ")
    else:
        assert rest.startswith(" key: ") and " payload: " in rest


@pytest.mark.parametrize("era", ALL_ERAS)
def test_data_partition_lines_match_reference_shapes(cases: dict, era: str) -> None:
    total = {"record": 0, "marker": 0, "continuation": 0}
    for path in files_of(cases[(era, "mixed")], "data"):
        counts = check_data_text(era, path.read_text(encoding="utf-8"))
        for key in total:
            total[key] += counts[key]
    assert total["marker"] > 20 and total["record"] > 500
    assert 0 < total["continuation"] < total["record"] * 0.05  # multi-line payloads exist but are rare


@pytest.mark.parametrize("era", ["0.11", "2.1", "2.4", "2.8", "3.3"])
def test_shallow_and_no_payload_modes(tmp_path: Path, era: str) -> None:
    shallow = simulate.generate("commit", era, tmp_path / "s", seed=5,
                                options=simulate.RenderOptions(deep=False, print_data=False))
    for f in shallow["files"]:
        if f["kind"] == "data":
            counts = check_data_text(era, (tmp_path / "s" / f["path"]).read_text(), deep=False)
            assert counts["batch"] > 0 and counts["record"] == 0
    plain = simulate.generate("commit", era, tmp_path / "p", seed=5,
                              options=simulate.RenderOptions(deep=True, print_data=False))
    for f in plain["files"]:
        if f["kind"] == "data":
            counts = check_data_text(era, (tmp_path / "p" / f["path"]).read_text(), print_data=False)
            assert counts["record"] > 0 and counts["continuation"] == 0


def test_batch_regexes_discriminate_eras(cases: dict) -> None:
    """A batch line of one layout never matches another layout's regex (field order is exact)."""
    seen = {}
    for era in ("0.11", "2.0", "2.1", "2.4", "3.0", "3.3"):
        text = files_of(cases[(era, "mixed")], "data")[0].read_text()
        line = next(ln for ln in text.splitlines() if ln.startswith("baseOffset:") or ln.startswith("offset:"))
        if line.startswith("offset:"):  # deep mode before 2.2 has no batch lines: check the shallow line instead
            continue
        seen[era] = line
    for era, line in seen.items():
        for other, (layout, _, upper, *_rest) in ERA_TABLE.items():
            same = (layout, upper) == (ERA_TABLE[era][0], ERA_TABLE[era][2])
            assert bool(batch_regex(layout, upper).fullmatch(line)) == same, (era, other)


def parse_txn_log(era: str, text: str) -> list[dict]:
    """Records of a `--transaction-log-decoder` dump: offset, id, state (None = tombstone), pid, epoch."""
    _, rlayout, upper, lso, _, _, decoder = ERA_TABLE[era]
    rec_re, batch_re = record_regex(rlayout), batch_regex(ERA_TABLE[era][0], upper)
    out = []
    for line in text.splitlines():
        if DUMPING.fullmatch(line) or re.fullmatch(r"(Log s|S)tarting offset: \d+", line) or batch_re.fullmatch(line):
            continue
        m = rec_re.fullmatch(line)
        assert m, f"{era}: not a record line: {line[:120]}"
        offset = int(re.search(r"offset: (\d+)", line).group(1))
        t = TXN_TEXT[decoder].fullmatch(m.group("rest"))
        assert t, f"{era}: decoder text: {m.group('rest')[:200]}"
        out.append({"offset": offset, **decode_txn(decoder, t, int(m.group("k")), int(m.group("v")))})
    return out


def decode_txn(decoder: str, t: re.Match, k: int, v: int) -> dict:
    """Key/value of one decoder line, with size cross-checks."""
    if decoder == "json":
        key = json.loads(t.group("key"))["data"]["transactionalId"]
        assert k == 4 + len(key.encode())
        if t.group("val") == "<DELETE>":
            assert v == -1
            return {"id": key, "state": None}
        val = json.loads(t.group("val"))
        data = val["data"]
        assert list(data)[: len(JSON_FIELDS)] == JSON_FIELDS and val["version"] in ("0", "1")
        assert set(data) - set(JSON_FIELDS) <= {"clientTransactionVersion"}
        parts = data["transactionPartitions"]
        return {"id": key, "state": STATE_BY_ID[data["transactionStatus"]], "pid": data["producerId"],
                "epoch": data["producerEpoch"], "partitions": parts, "version": int(val["version"]),
                "start": data["transactionStartTimestampMs"]}
    assert k == 4 + len(t.group("id").encode())
    if t.group("s") is None:
        assert v == -1
        return {"id": t.group("id"), "state": None}
    parts = t.group("p")
    if decoder != "list" and parts:
        assert ", " in parts or "," not in parts  # Scala sets are joined with comma + space
    return {"id": t.group("id"), "state": t.group("s"), "pid": int(t.group("pid")), "epoch": int(t.group("e"))}


@pytest.mark.parametrize("era", ALL_ERAS)
def test_transaction_log_lines_match_reference_shapes(cases: dict, era: str) -> None:
    case = cases[(era, "mixed")]
    records = []
    for path in files_of(case, "transaction-log"):
        records += parse_txn_log(era, path.read_text(encoding="utf-8"))
    assert len(records) > 50
    crash_eras = ("0.11.0.0", "0.11", "1.1", "2.0", "2.1", "2.4")
    tombstones = [r for r in records if r["state"] is None]
    if era in crash_eras:
        assert not tombstones and expected(case)["transaction_log_crash"]
        crashed = {c["file"] for c in expected(case)["transaction_log_crash"]}
        for name in crashed:
            stderr = (case / name.replace(".log.txt", ".stderr.txt")).read_text()
            assert stderr.startswith('Exception in thread "main" java.lang.NullPointerException')
    else:
        assert tombstones and not expected(case)["transaction_log_crash"]


@pytest.mark.parametrize("era", ALL_ERAS)
def test_snapshot_and_txnindex_lines(cases: dict, era: str) -> None:
    _, _, _, _, snap_layout, optional, _ = ERA_TABLE[era]
    rx = snapshot_regex(snap_layout, optional)
    case = cases[(era, "mixed")]
    open_seen = 0
    for path in files_of(case, "snapshot"):
        lines = path.read_text().split("\n")[:-1]
        assert DUMPING.fullmatch(lines[0])
        for line in lines[1:]:
            assert rx.fullmatch(line), f"{era}: {line!r}"
            if snap_layout != "0.11" and "firstSequence" not in line:
                assert line.endswith(" ")  # the Scala tool leaves a trailing space
            open_seen += bool(re.search(r"currentTxnFirstOffset: (Some|OptionalLong\[)", line))
    assert open_seen >= 1  # the hanging transaction
    idx = files_of(case, "txnindex")
    assert idx
    for path in idx:
        for line in path.read_text().splitlines():
            assert DUMPING.fullmatch(line) or TXNINDEX.fullmatch(line), line


# -- coordinator state machine -----------------------------------------------------------------

def legal_previous(era: str) -> dict[str, set[str]]:
    """transaction-log-format.md §8.1 (persisted states only)."""
    table = {
        "Empty": {"Empty", "CompleteCommit", "CompleteAbort"},
        "Ongoing": {"Ongoing", "Empty", "CompleteCommit", "CompleteAbort"},
        "PrepareCommit": {"Ongoing"},
        "PrepareAbort": {"Ongoing"},
        "CompleteCommit": {"PrepareCommit"},
        "CompleteAbort": {"PrepareAbort"},
    }
    if era.startswith("4."):
        table["PrepareAbort"] |= {"Empty", "CompleteCommit", "CompleteAbort"}
    return table


def walk_violations(era: str, records: list[dict], protocol: int, compacted: bool = False) -> list[tuple]:
    """Illegal steps per transactional id, including epoch rules for v1 and v2."""
    legal = legal_previous(era)
    by_id: dict[str, list[dict]] = {}
    for r in sorted(records, key=lambda r: r["offset"]):
        by_id.setdefault(r["id"], []).append(r)
    bad = []
    for txn_id, recs in by_id.items():
        prev = None
        for r in recs:
            if r["state"] is None:
                prev = "tombstone"
                continue
            if prev in (None, "tombstone"):
                if not (compacted and prev is None):
                    if r["state"] != "Empty" or r["epoch"] != 0:
                        bad.append((txn_id, prev, r["state"], r["offset"]))
            elif prev["state"] not in legal[r["state"]]:
                bad.append((txn_id, prev["state"], r["state"], r["offset"]))
            elif not epoch_ok(prev, r, protocol, era):
                bad.append((txn_id, f"{prev['state']}@{prev['epoch']}", f"{r['state']}@{r['epoch']}", r["offset"]))
            prev = r
    return bad


def epoch_ok(prev: dict, r: dict, protocol: int, era: str) -> bool:
    """Epoch deltas of §8.2/§8.3: +1 on InitProducerId, +1 on coordinator aborts, +1 on every v2 EndTxn."""
    d = r["epoch"] - prev["epoch"]
    if r["pid"] != prev["pid"]:
        return r["epoch"] == 0
    s = r["state"]
    if s == "Empty":
        return d == 1
    if s in ("Ongoing", "CompleteCommit", "CompleteAbort"):
        return d == 0
    if s == "PrepareCommit":
        return d == (1 if protocol == 2 else 0)
    bump = 0 if era == "0.11.0.0" else 1
    return d in ({1} if protocol == 2 else {0, bump})


@pytest.mark.parametrize("era", ALL_ERAS)
def test_coordinator_log_is_a_legal_walk(cases: dict, era: str) -> None:
    case = cases[(era, "mixed")]
    doc = expected(case)
    records = [r for p in files_of(case, "transaction-log") for r in parse_txn_log(era, p.read_text())]
    assert walk_violations(era, records, doc["protocol"]) == []


@pytest.mark.parametrize("era", ALL_ERAS)
def test_deliberately_broken_walks(cases: dict, era: str) -> None:
    """Compaction leaves a legal (suffix) walk with offset gaps; a lost PrepareCommit breaks it once."""
    case = cases[(era, "txnlog-compaction")]
    recs = [r for p in files_of(case, "transaction-log") for r in parse_txn_log(era, p.read_text())]
    assert walk_violations(era, recs, expected(case)["protocol"], compacted=True) == []
    assert any(f["kind"] == "stderr" for f in expected(case)["files"])  # Non-consecutive offsets block

    case = cases[(era, "invalid-transition")]
    doc = expected(case)
    truth = [e for e in doc["expected"] if e["kind"] == "invalid-state-transition"]
    assert len(truth) == 1
    recs = [r for p in files_of(case, "transaction-log") for r in parse_txn_log(era, p.read_text())]
    bad = walk_violations(era, recs, doc["protocol"])
    assert bad == [(truth[0]["transactional_id"], "Ongoing", "CompleteCommit", truth[0]["offset"])]


# -- protocol v2 and the ground truth ----------------------------------------------------------

BATCH_FIELDS = re.compile(r"baseOffset: (\d+) lastOffset: \d+ count: \d+ baseSequence: (-?\d+) lastSequence: -?\d+ "
                          r"producerId: (\d+) producerEpoch: (\d+) .*isTransactional: (\w+) isControl: (\w+) ")


def batches(path: Path) -> list[dict]:
    out = []
    for line in path.read_text().splitlines():
        m = BATCH_FIELDS.match(line)
        if m:
            out.append({"offset": int(m[1]), "seq": int(m[2]), "pid": int(m[3]), "epoch": int(m[4]),
                        "txn": m[5] == "true", "control": m[6] == "true"})
    return out


def txn_producer_steps(case: Path) -> list[tuple[dict, dict, dict | None]]:
    """(last data batch, marker, next data batch) per transaction of each transactional producer."""
    steps = []
    for path in files_of(case, "data"):
        by_pid: dict[int, list[dict]] = {}
        for b in batches(path):
            if b["txn"]:
                by_pid.setdefault(b["pid"], []).append(b)
        for seq in by_pid.values():
            for i, b in enumerate(seq):
                if b["control"] and i > 0 and not seq[i - 1]["control"]:
                    nxt = next((x for x in seq[i + 1:] if not x["control"]), None)
                    steps.append((seq[i - 1], b, nxt))
    return steps


def test_v2_markers_carry_epoch_plus_one(tmp_path: Path) -> None:
    doc = simulate.generate("commit+client-abort", "4.0", tmp_path / "v2", seed=11)
    assert doc["protocol"] == 2 and doc["transaction_log_value_version"] == 1
    steps = txn_producer_steps(tmp_path / "v2")
    assert len(steps) > 10
    for data, marker, nxt in steps:
        assert marker["epoch"] == data["epoch"] + 1
        if nxt is not None:  # the producer's next data here is at a newer epoch, sequences restart at 0
            assert nxt["epoch"] >= marker["epoch"] and nxt["seq"] == 0


def test_v1_markers_keep_the_data_epoch(tmp_path: Path) -> None:
    simulate.generate("commit+client-abort", "4.0", tmp_path / "v1", seed=11, protocol=1)
    for data, marker, _ in txn_producer_steps(tmp_path / "v1"):
        assert marker["epoch"] == data["epoch"]


def _truth(case: Path, kind: str) -> list[dict]:
    return [e for e in expected(case)["expected"] if e["kind"] == kind]


@pytest.mark.parametrize("era", ["2.4", "3.3", "4.0"])
def test_fencing_and_timeout_truth_matches_text(cases: dict, era: str) -> None:
    case = cases[(era, "mixed")]
    for kind in ("fencing", "coordinator-timeout"):
        [e] = _truth(case, kind)
        assert e["abort_epoch"] == e["epoch"] + 1 and e["new_epoch"] == e["epoch"] + 2
        for p in e["partitions"]:
            marker = next(b for b in batches(case / f"{p['topic']}-{p['partition']}.log.txt")
                          if b["offset"] == p["marker_offset"])
            assert marker["control"] and marker["pid"] == e["producer_id"] and marker["epoch"] == e["abort_epoch"]
    [t] = _truth(case, "coordinator-timeout")
    assert 0 < t["abort_ms"] - t["deadline_ms"] <= 10_000  # one 10 s check interval after the deadline


@pytest.mark.parametrize("era", ["3.0", "3.5"])
def test_hanging_and_lost_marker_truth_matches_text(cases: dict, era: str) -> None:
    case = cases[(era, "mixed")]
    for kind in ("hanging-transaction", "lost-marker"):
        found = _truth(case, kind)
        assert found, kind
        for e in found:
            name = f"{e['topic']}-{e['partition']}"
            later = [b for b in batches(case / f"{name}.log.txt")
                     if b["pid"] == e["producer_id"] and b["offset"] >= e["first_offset"] and b["control"]]
            assert later == []  # no marker ever closes it
            snap = (case / f"{name}.snapshot.txt").read_text()
            opt = f"Some({e['first_offset']})" if era == "3.0" else f"OptionalLong[{e['first_offset']}]"
            assert f"producerId: {e['producer_id']} " in snap and opt in snap


def test_expiration_truth(cases: dict) -> None:
    case = cases[("3.3", "mixed")]
    exp = [e for e in _truth(case, "expired-transactional-id") if e["transactional_id"] == "invoice-exporter"]
    [e] = exp
    assert e["new_producer_id"] != e["producer_id"] and e["new_epoch"] == 0
    assert e["tombstone_ms"] - e["last_update_ms"] >= 604_800_000
    recs = parse_txn_log("3.3", (case / f"__transaction_state-{e['transaction_log_partition']}.log.txt").read_text())
    tomb = next(r for r in recs if r["offset"] == e["tombstone_offset"])
    assert tomb["id"] == "invoice-exporter" and tomb["state"] is None
    after = [r for r in recs if r["offset"] > e["tombstone_offset"] and r["id"] == "invoice-exporter"]
    assert after[0]["state"] == "Empty" and after[0]["pid"] == e["new_producer_id"]
    [z] = _truth(case, "expired-id-zombie")
    assert z["marker_offset"] > z["first_offset"] and z["client_error"] == "INVALID_PRODUCER_ID_MAPPING"


def test_unstable_ids_truth(cases: dict) -> None:
    case = cases[("3.3", "mixed")]
    [u] = _truth(case, "unstable-transactional-ids")
    recs = [r for p in files_of(case, "transaction-log") for r in parse_txn_log("3.3", p.read_text())]
    for txn_id in u["transactional_ids"]:
        epochs = {r["epoch"] for r in recs if r["id"] == txn_id and r["state"]}
        assert epochs == {0}


def test_sequence_anomalies_truth(cases: dict) -> None:
    case = cases[("3.3", "mixed")]
    [gap] = _truth(case, "sequence-gap")
    [dup] = _truth(case, "sequence-duplicate")
    for e in (gap, dup):
        b = next(b for b in batches(case / f"{e['topic']}-{e['partition']}.log.txt") if b["offset"] == e["offset"])
        assert b["pid"] == e["producer_id"] and b["seq"] == e["sequence"]
    assert gap["sequence"] > gap["expected_sequence"]
    orig = next(b for b in batches(case / f"{dup['topic']}-{dup['partition']}.log.txt")
                if b["offset"] == dup["original_offset"])
    assert orig["seq"] == dup["sequence"]


def test_positions_sizes_and_sequences_are_consistent(cases: dict) -> None:
    text = (cases[("3.3", "mixed")] / "orders-0.log.txt").read_text()
    pos = 0
    rx = re.compile(r"baseOffset: (\d+) lastOffset: (\d+) count: (\d+) baseSequence: (-?\d+) lastSequence: (-?\d+) "
                    r".*isControl: (\w+) .*position: (\d+) CreateTime: \d+ size: (\d+) ")
    for line in text.splitlines():
        m = rx.match(line)
        if not m:
            continue
        base, last, count, bseq, lseq, control, position, size = m.groups()
        assert int(position) == pos
        pos += int(size)
        assert int(last) - int(base) + 1 == int(count)
        if control == "true":
            assert size == "78" and bseq == "-1" and lseq == "-1"
        elif bseq != "-1":
            assert int(lseq) == int(bseq) + int(count) - 1


# -- reference vectors, determinism, CLI, bulk -------------------------------------------------

def test_transaction_state_partition_vectors() -> None:
    assert java_string_hash("kafka-txn-0") == -1469191130
    assert [txn_partition(x) for x in ("kafka-txn-0", "my-txn-id", "txnId", "", "polygenelubricants")] == [30, 11, 29, 0, 0]


def test_transaction_log_value_sizes() -> None:
    def v(state: str, parts: tuple, version: int = 0, tv: int = 0) -> int:
        return TxnLogValue(0, 0, 60000, state, parts, 0, 0, version, tv).size()

    assert v("Empty", None) == 37
    assert v("Ongoing", (("output-topic", (0,)),)) == 59
    assert v("Ongoing", (("output-topic", (0,)), ("__consumer_offsets", (3,)))) == 87
    assert v("Ongoing", (("txtest", (0,)),), version=1) == 48
    assert v("Ongoing", (("txtest", (0,)),), version=1, tv=2) == 52


def _tree(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def test_deterministic_by_seed(tmp_path: Path) -> None:
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        simulate.generate("fencing+hanging", "3.3", tmp_path / name, seed=seed)
    assert _tree(tmp_path / "a") == _tree(tmp_path / "b")
    assert _tree(tmp_path / "a") != _tree(tmp_path / "c")
    simulate.generate_bulk(tmp_path / "b1.txt", "300KB", era="2.8", seed=4)
    simulate.generate_bulk(tmp_path / "b2.txt", "300KB", era="2.8", seed=4)
    assert (tmp_path / "b1.txt").read_bytes() == (tmp_path / "b2.txt").read_bytes()


def test_cli(tmp_path: Path) -> None:
    script = REPO / "benchmarks" / "simulate.py"
    ok = subprocess.run([sys.executable, str(script), "--scenario", "fencing", "--era", "3.3", "--out", str(tmp_path)],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    doc = json.loads((tmp_path / "fencing" / "expected.json").read_text())
    assert doc["findings"] == ["fencing"] and doc["era"] == "3.3"
    bad = subprocess.run([sys.executable, str(script), "--scenario", "nope", "--out", str(tmp_path)],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown scenario" in bad.stderr


@pytest.mark.parametrize("era", ["3.3", "2.1", "4.1"])
def test_bulk_writes_5mb_with_its_counts(tmp_path: Path, era: str) -> None:
    out = tmp_path / "bulk.txt"
    summary = simulate.generate_bulk(out, "5MB", era=era, seed=2)
    size = out.stat().st_size
    assert 5_000_000 <= size < 7_000_000 and summary["bytes"] == size
    counts = check_data_text(era, out.read_text(encoding="utf-8"))
    assert counts["marker"] == summary["commits"] + summary["aborts"]
    assert counts["record"] == summary["records"] + counts["marker"]
    assert summary["open_transactions"] and summary["aborts"] > 0
    assert json.loads(Path(str(out) + ".expected.json").read_text())["bytes"] == size
