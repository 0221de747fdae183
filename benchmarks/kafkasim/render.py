"""Turn a finished simulation into dump texts (one per file Kafka would dump) and expected.json."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from . import eras as fmt
from .eras import Era
from .log import Batch, DataPartition, Log, TxnLogPartition
from .model import Sim

FORMAT_ID = "kafkadiag-sim/1"


@dataclass
class RenderOptions:
    """Which `kafka-dump-log.sh` flags the texts imitate and which companion dumps to write."""

    deep: bool = True
    print_data: bool = True
    snapshots: bool = True
    txnindex: bool = True
    data_dir: str = "/var/lib/kafka/data"

    def effective_deep(self, era: Era) -> bool:
        """From 1.1.0 `--print-data-log` alone implies deep iteration."""
        return self.deep or (self.print_data and era.print_implies_deep)


def segment_path(opts: RenderOptions, log: Log, base: int, suffix: str) -> str:
    return f"{opts.data_dir}/{log.name}/{base:020d}.{suffix}"


def render_batch(era: Era, b: Batch, deep: bool, print_data: bool, out: list[str]) -> None:
    """Lines of one data batch: the batch line (where printed) and its record lines."""
    if not deep or era.batch_lines_in_deep:
        out.append(fmt.batch_line(era, b) + "\n")
    if not deep:
        return
    record = fmt.record_formatter(era)
    ctx = fmt.record_context(era, b)
    for r in b.records:
        line = record(ctx, r.offset, r.timestamp, r.key_len, r.value_len, r.sequence, ",".join(r.headers))
        if b.is_control:
            line += fmt.marker_suffix(r.marker or "UNKNOWN", r.coordinator_epoch)
        elif print_data:
            line += fmt.data_suffix(era, r.key, r.value)  # type: ignore[arg-type]
        out.append(line + "\n")


def render_data(era: Era, part: DataPartition, opts: RenderOptions) -> str:
    """The dump of every segment of a data partition (as with `--files seg1.log,seg2.log`)."""
    deep = opts.effective_deep(era)
    out: list[str] = []
    for seg in part.segments:
        out.append(fmt.header(era, segment_path(opts, part, seg.base_offset, "log"), seg.base_offset))
        for b in seg.batches:
            render_batch(era, b, deep, opts.print_data and deep, out)
    return "".join(out)


def render_txn_log(era: Era, log: TxnLogPartition, opts: RenderOptions) -> tuple[str, str, int | None]:
    """`--transaction-log-decoder` output; stops at a tombstone where the era crashes on it."""
    out: list[str] = []
    record = fmt.record_formatter(era)
    crash: int | None = None
    prev = None
    gaps: list[tuple[int, int]] = []
    for seg in log.segments:
        path = segment_path(opts, log, seg.base_offset, "log")
        out.append(fmt.header(era, path, seg.base_offset))
        for b in seg.batches:
            if era.batch_lines_in_deep:
                out.append(fmt.batch_line(era, b) + "\n")
            ctx = fmt.record_context(era, b)
            for r in b.records:
                suffix = fmt.txn_suffix(era, r.key or "", r.value)  # type: ignore[arg-type]
                if suffix is None:
                    crash = r.offset
                    break
                if prev is not None and r.offset != prev + 1:
                    gaps.append((prev, r.offset))
                prev = r.offset
                out.append(record(ctx, r.offset, r.timestamp, r.key_len, r.value_len, -1, "") + suffix + "\n")
            if crash is not None:
                break
        if crash is not None:
            break
    return "".join(out), _stderr(era, log, opts, crash, gaps), crash


def _stderr(era: Era, log: TxnLogPartition, opts: RenderOptions, crash: int | None,
            gaps: list[tuple[int, int]]) -> str:
    """What the tool prints on stderr: the NPE of old decoders, or the non-consecutive block."""
    if crash is not None:
        return ('Exception in thread "main" java.lang.NullPointerException\n'
                "\tat kafka.tools.DumpLogSegments$TransactionLogMessageParser.parse(DumpLogSegments.scala)\n")
    if not gaps:
        return ""
    path = segment_path(opts, log, log.segments[0].base_offset, "log")
    sep = ":" if era.non_consecutive_colon else ""
    lines = [f"Non-consecutive offsets in {sep}{path}\n"]
    lines += [f"  {a} is followed by {b}\n" for a, b in reversed(gaps)]
    return "".join(lines)


def render_snapshot(era: Era, part: DataPartition, opts: RenderOptions) -> str:
    """Producer-state snapshot taken at the log end (segment roll / clean shutdown)."""
    path = f"{opts.data_dir}/{part.name}/{part.next_offset:020d}.snapshot"
    lines = [f"Dumping {path}\n"]
    lines += [fmt.snapshot_line(era, e) + "\n" for e in sorted(part.producers.values(), key=lambda e: e.producer_id)]
    return "".join(lines)


def render_txnindex(part: DataPartition, opts: RenderOptions) -> str | None:
    """Aborted-transaction index of each segment that has entries."""
    out: list[str] = []
    for seg in part.segments:
        if seg.aborted:
            out.append(f"Dumping {segment_path(opts, part, seg.base_offset, 'txnindex')}\n")
            out += [fmt.txnindex_line(*a) + "\n" for a in seg.aborted]
    return "".join(out) or None


# -- ground truth ------------------------------------------------------------------------------

def finalize_truth(sim: Sim) -> None:
    """Classify transactions still open at the end: in progress, or hanging for good."""
    lost = {(t.get("topic"), t.get("partition"), t.get("producer_id")) for t in sim.truth if t["kind"] == "lost-marker"}
    coord = sim.coordinator
    for part in sim.partitions.values():
        for e in part.open_transactions():
            if (part.topic, part.partition, e.producer_id) in lost:
                continue
            owner = coord.pid_owner.get(e.producer_id)
            meta = coord.metas.get(owner) if owner else None
            in_progress = (meta is not None and meta.producer_id == e.producer_id and meta.state == "Ongoing"
                           and part.tp in meta.partitions)
            kind = "open-transaction" if in_progress else "hanging-transaction"
            sim.record(kind, category=None if in_progress else "hanging-transaction", finding=not in_progress,
                       transactional_id=owner, producer_id=e.producer_id, epoch=e.epoch, topic=part.topic,
                       partition=part.partition, first_offset=e.txn_first_offset,
                       last_stable_offset=part.last_stable_offset(), log_end_offset=part.next_offset,
                       registered_with_coordinator=bool(meta and part.tp in meta.partitions))


def truth_doc(sim: Sim, spec: str, names: list[str], opts: RenderOptions, files: list[dict],
              crashes: list[dict]) -> dict:
    """The expected.json document."""
    expected = [{"id": f"{t['kind']}#{i}", **t} for i, t in enumerate(sim.truth)]
    return {
        "format": FORMAT_ID,
        "scenario": spec,
        "scenarios": names,
        "era": sim.era.name,
        "kafka_version": sim.era.version,
        "protocol": sim.protocol,
        "transaction_log_value_version": sim.coordinator.value_version,
        "seed": sim.seed,
        "start_ms": sim.start_ms,
        "end_ms": sim.now,
        "options": {"deep_iteration": opts.effective_deep(sim.era), "print_data_log": opts.print_data},
        "findings": sorted({t["category"] for t in sim.truth if t.get("finding")}),
        "expected": expected,
        "transactions": [s for p in sim.partitions.values() for s in p.spans],
        "producers": [{"name": p.name, "transactional_id": p.txn_id, "producer_id": p.pid, "epoch": p.epoch,
                       "protocol": p.protocol if p.txn_id else None, "timeout_ms": p.timeout_ms if p.txn_id else None,
                       "codec": p.codec} for p in sim.producers],
        "producer_ids": {str(pid): tid for pid, tid in sorted(sim.coordinator.pid_owner.items())},
        "transaction_log_crash": crashes,
        "files": files,
    }


# -- writing -----------------------------------------------------------------------------------

def write_case(sim: Sim, spec: str, names: list[str], opts: RenderOptions, out_dir: Path) -> dict:
    """Write every dump text of a finished simulation plus expected.json into `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    era = sim.era
    files: list[dict] = []
    crashes: list[dict] = []
    deep = opts.effective_deep(era)
    for part in sorted(sim.partitions.values(), key=lambda p: (p.topic, p.partition)):
        dumped = [segment_path(opts, part, s.base_offset, "log") for s in part.segments]
        _write(out_dir, f"{part.name}.log.txt", render_data(era, part, opts), files, "data", part,
               fmt.dump_command(era, dumped, deep, opts.print_data))
        if opts.snapshots:
            snap = f"{opts.data_dir}/{part.name}/{part.next_offset:020d}.snapshot"
            _write(out_dir, f"{part.name}.snapshot.txt", render_snapshot(era, part, opts), files, "snapshot", part,
                   fmt.dump_command(era, [snap], False, False))
        idx = render_txnindex(part, opts) if opts.txnindex else None
        if idx:
            paths = [segment_path(opts, part, s.base_offset, "txnindex") for s in part.segments if s.aborted]
            _write(out_dir, f"{part.name}.txnindex.txt", idx, files, "txnindex", part,
                   fmt.dump_command(era, paths, False, False))
    for n in sorted(sim.coordinator.logs):
        log = sim.coordinator.logs[n]
        text, err, crash = render_txn_log(era, log, opts)
        dumped = [segment_path(opts, log, s.base_offset, "log") for s in log.segments]
        _write(out_dir, f"{log.name}.log.txt", text, files, "transaction-log", log,
               fmt.dump_command(era, dumped, True, True, txn_decoder=True))
        if err:
            _write(out_dir, f"{log.name}.stderr.txt", err, files, "stderr", log, "")
        if crash is not None:
            crashes.append({"partition": n, "offset": crash, "file": f"{log.name}.log.txt"})
    doc = truth_doc(sim, spec, names, opts, files, crashes)
    (out_dir / "expected.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return doc


def _write(out_dir: Path, name: str, text: str, files: list[dict], kind: str, log: Log, command: str) -> None:
    (out_dir / name).write_text(text, encoding="utf-8")
    files.append({"path": name, "kind": kind, "topic": log.topic, "partition": log.partition,
                  "command": command, "bytes": len(text.encode("utf-8"))})
