#!/usr/bin/env python3
"""Benchmark matrix: `kafkadiag analyze` on every kind of input people have, checked against the truth.

    python benchmarks/matrix.py [--size 300MB] [--log-size 1GB] [--runs 2] [--only era-2.0,gzip] [--keep]

Each input is generated with what it must give (the simulator's own counts): record batches,
transactions committed / aborted / open, and the findings of the rules whose outcome the
simulator knows exactly (open transactions past or within their timeout, commits close to it;
the Kafka event count of a log). kafkadiag's JSON report is compared with that truth on every
run: a mismatch fails the benchmark whatever the speed. Each input is timed against a baseline
on the same bytes (`grep -c`, or `zcat | grep -c` for gzip), in alternation, best of ``--runs``;
wall seconds, CPU seconds and the peak memory of the whole process tree are kept. One table is
printed and one JSON written (benchmarks/out/matrix.json). Exit status: 0 every truth holds and
every target is met, 1 otherwise (the table says which), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
ROOT = HERE.parent
for extra in (HERE, ROOT / "tests" / "logs"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from kafkasim import generate_bulk, parse_size  # noqa: E402
from kafkasim.bulk import FLUSH_BATCHES, TIMEOUT_MS, BulkWriter, _pool  # noqa: E402
from kafkasim.eras import get_era  # noqa: E402
from run import find_kafkadiag, run_timed  # noqa: E402
from truth import compare, dump_truth, observed, txn_state_truth  # noqa: E402

FORMAT = "kafkadiag-matrix/1"
TARGETS = {"dump_ratio": 4.0, "gzip_ratio": 1.5, "peak_mb": 256.0, "log_mb_per_s": 150.0}


@dataclass
class Case:
    """One input of the matrix: files to analyze, the truth, and the baseline command."""

    name: str
    kind: str  # dump | txn-state | gzip | log
    files: list[Path]
    truth: dict
    baseline: list[str]
    notes: str = ""
    text_bytes: int = 0  # of a compressed input: the text inside


@dataclass
class Row:
    case: Case
    baseline_seconds: float = 0.0
    seconds: float = 0.0
    all_seconds: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0
    peak_mb: float = 0.0
    got: dict = field(default_factory=dict)
    mismatches: list[str] = field(default_factory=list)
    error: str = ""


def bulk_case(name: str, size: int, era: str, seed: int, keep: bool, **options) -> Case:
    path = OUT / f"matrix-{name}-{size}-seed{seed}.txt"
    meta = Path(str(path) + ".expected.json")
    summary = None
    if path.exists() and meta.exists():
        doc = json.loads(meta.read_text())
        if doc.get("matrix") == FORMAT and doc.get("bytes") == path.stat().st_size:
            summary = doc
    if summary is None:
        summary = generate_bulk(path, size, era=era, seed=seed, **options)
        summary["matrix"] = FORMAT
        meta.write_text(json.dumps(summary, indent=1) + "\n")
    return Case(name, "dump", [path], dump_truth([summary]), ["grep", "-c", "endTxnMarker", str(path)],
                notes=f"era {era}" + (f", {options['producers']} producers" if "producers" in options else ""))


def partitions_case(size: int, partitions: int, seed: int) -> Case:
    """``partitions`` partitions of one topic in one dump, each with its own few producers."""
    name = f"partitions-{partitions // 1000}k"
    path = OUT / f"matrix-{name}-{size}-seed{seed}.txt"
    meta = Path(str(path) + ".expected.json")
    if path.exists() and meta.exists():
        doc = json.loads(meta.read_text())
        if doc.get("matrix") == FORMAT and doc.get("bytes") == path.stat().st_size:
            return Case(name, "dump", [path], doc["truth"], ["grep", "-c", "endTxnMarker", str(path)], notes=doc["notes"])
    era = get_era("3.3")
    import random

    pool = _pool(era, random.Random(seed), True)
    per = max(1, size // partitions)
    summaries = []
    with open(path, "wb") as out:
        for p in range(partitions):
            w = BulkWriter(era, out, seed * 100_003 + p, 4, True, True, 1 << 27,
                           f"/var/lib/kafka/data/orders-{p}", pid_base=p * 100_000, pool=pool)
            while w.written < per:
                for _ in range(min(FLUSH_BATCHES, 8)):
                    w.step()
                w.flush()
            summaries.append({"batches": w.stats["batches"], "commits": w.stats["commits"], "aborts": w.stats["aborts"],
                              "open_transactions": w.open_transactions(), "end_time": w.end_time, "timeout_ms": TIMEOUT_MS,
                              "committed_near_timeout": w.stats["committed_near_timeout"]})
    truth = dump_truth(summaries)
    notes = f"era 3.3, {partitions:,} partitions of ~{per // 1000} kB"
    meta.write_text(json.dumps({"matrix": FORMAT, "bytes": path.stat().st_size, "truth": truth, "notes": notes}) + "\n")
    return Case(name, "dump", [path], truth, ["grep", "-c", "endTxnMarker", str(path)], notes=notes)


def txn_state_case(ids: int, seed: int) -> Case:
    """``ids`` transactional ids through a few completed transactions each, in one decoder dump."""
    from kafkasim.txnbulk import generate_txn_state

    name = f"txn-state-{ids // 1000}k"
    path = OUT / f"matrix-{name}-seed{seed}.txt"
    meta = Path(str(path) + ".expected.json")
    summary = json.loads(meta.read_text()) if path.exists() and meta.exists() else None
    if summary is None or summary.get("bytes") != path.stat().st_size:
        summary = generate_txn_state(path, ids, era="3.3", seed=seed)
    return Case(name, "txn-state", [path], txn_state_truth(summary), ["grep", "-c", "transactionalId=", str(path)],
                notes=f"era 3.3 --transaction-log-decoder, {ids:,} ids")


def gzip_case(source: Case) -> Case:
    path = Path(str(source.files[0]) + ".gz")
    if not path.exists() or path.stat().st_mtime < source.files[0].stat().st_mtime:
        with open(path, "wb") as out:
            subprocess.run(["gzip", "-6", "-c", str(source.files[0])], stdout=out, check=True)
    return Case("gzip", "gzip", [path], source.truth, ["sh", "-c", f"zcat '{path}' | grep -c endTxnMarker"],
                notes=f"gzip -6 of {source.name}", text_bytes=source.files[0].stat().st_size)


def log_case(size: int, seed: int) -> Case:
    """A third each: a Spring Boot application log with Kafka client chatter and errors, the real
    librdkafka debug captures repeated, a broker's server.log; three inputs of one run, whose
    truth is their Kafka event count."""
    from log_speed import broker_log, client_unit, java_log, librdkafka_log

    java, java_events = java_log(size // 3, seed)
    rdkafka, copies = librdkafka_log(size // 3)
    broker, broker_events = broker_log(size // 3, seed)
    events = java_events + copies * _unit_events(client_unit()) + broker_events
    return Case("mixed-log", "log", [java, rdkafka, broker], {"events": events},
                ["grep", "-c", "afka", str(java), str(rdkafka), str(broker)],
                notes="Spring app log + librdkafka debug captures + broker server.log")


def _unit_events(unit_bytes: bytes) -> int:
    """Kafka events of one copy of a repeated real log (what the repeated file multiplies)."""
    exe = find_kafkadiag()
    with tempfile.TemporaryDirectory() as tmp:
        unit = Path(tmp) / "unit.log"
        unit.write_bytes(unit_bytes)
        report = Path(tmp) / "r.json"
        subprocess.run([exe, "analyze", "--fail-on", "never", "--format", "json", "-o", str(report), str(unit)],  # type: ignore[list-item]
                       check=True, capture_output=True)
        return int(sum(i["events"] for i in json.loads(report.read_text())["inputs"]))


# ------------------------------------------------------------------------------------------
# Measuring

def measure(case: Case, exe: str, runs: int) -> Row:
    row = Row(case)
    baselines, kds = [], []
    with tempfile.TemporaryDirectory() as tmp:
        report_path = Path(tmp) / "report.json"
        cmd = [exe, "analyze", "--fail-on", "never", "--format", "json", "-o", str(report_path), *map(str, case.files)]
        for _ in range(runs):
            base = run_timed(case.baseline, devnull=False)
            if base.returncode not in (0, 1):
                row.error = f"baseline failed ({base.returncode}): {base.stderr.strip()[-300:]}"
                return row
            baselines.append(base)
            kd = run_timed(cmd)
            if kd.returncode != 0:
                row.error = f"kafkadiag exited with {kd.returncode}: {kd.stderr.strip()[-300:]}"
                return row
            kds.append(kd)
            row.got = observed(json.loads(report_path.read_text()), case.kind)
            row.mismatches = compare(case.truth, row.got)
    best = min(kds, key=lambda r: r.seconds)
    row.baseline_seconds = min(b.seconds for b in baselines)
    row.seconds, row.cpu_seconds = best.seconds, best.cpu_seconds
    row.all_seconds = [round(r.seconds, 3) for r in kds]
    row.peak_mb = max(max(r.max_rss_mb, r.peak_pss_mb) for r in kds)
    return row


def verdicts(row: Row) -> dict:
    mb = text_mb(row.case)
    ratio = row.seconds / max(row.baseline_seconds, 1e-9)
    out = {"truth": not row.mismatches and not row.error, "peak": row.peak_mb <= TARGETS["peak_mb"]}
    if row.case.kind in ("dump", "txn-state"):
        out["speed"] = ratio <= TARGETS["dump_ratio"]
    elif row.case.kind == "gzip":
        out["speed"] = ratio <= TARGETS["gzip_ratio"]
    else:
        out["speed"] = mb / max(row.seconds, 1e-9) >= TARGETS["log_mb_per_s"]
    return out


def text_mb(case: Case) -> float:
    """Megabytes of text the input holds (a gzip file's decompressed size)."""
    return (case.text_bytes or sum(p.stat().st_size for p in case.files)) / 1e6


def row_doc(row: Row) -> dict:
    mb = text_mb(row.case)
    return {
        "input": row.case.name, "kind": row.case.kind, "notes": row.case.notes, "files": [p.name for p in row.case.files],
        "mb": round(mb, 1), "baseline": " ".join(row.case.baseline[:3]) + " ...", "baseline_seconds": round(row.baseline_seconds, 3),
        "seconds": round(row.seconds, 3), "all_seconds": row.all_seconds, "cpu_seconds": round(row.cpu_seconds, 2),
        "mb_per_s": round(mb / max(row.seconds, 1e-9), 1), "ratio": round(row.seconds / max(row.baseline_seconds, 1e-9), 2),
        "peak_mb": round(row.peak_mb, 1), "truth": row.case.truth, "got": row.got, "mismatches": row.mismatches,
        # rules that fired whose outcome the simulator does not model: counted, not checked
        "unchecked": {r: n for r, n in row.got.get("findings", {}).items() if r not in row.case.truth.get("findings", {})},
        "error": row.error, "pass": verdicts(row),
    }


def print_table(docs: list[dict]) -> None:
    ok = {True: "ok", False: "FAIL"}
    head = ("input", "MB", "baseline s", "kafkadiag s", "CPU s", "MB/s", "ratio", "peak MB", "truth", "speed", "memory")
    rows = [(d["input"], f"{d['mb']:,.0f}", f"{d['baseline_seconds']:.2f}", f"{d['seconds']:.2f}", f"{d['cpu_seconds']:.2f}",
             f"{d['mb_per_s']:,.0f}", f"{d['ratio']:.2f}", f"{d['peak_mb']:,.0f}", ok[d["pass"]["truth"]],
             ok[d["pass"]["speed"]], ok[d["pass"]["peak"]]) for d in docs]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    for line in (head, *rows):
        print("  " + "  ".join(str(x).rjust(w) if i else str(x).ljust(w) for i, (x, w) in enumerate(zip(line, widths))))
    for d in docs:
        for problem in ([d["error"]] if d["error"] else []) + d["mismatches"]:
            print(f"  {d['input']}: {problem}")


# ------------------------------------------------------------------------------------------

def build_cases(size: int, seed: int, keep: bool, only: set[str] | None, log_size: int | None = None) -> list[Case]:
    wanted = lambda name: only is None or name in only  # noqa: E731
    cases: list[Case] = []
    builders: list[tuple[str, Callable[[], Case]]] = [
        *((f"era-{era}", lambda era=era: bulk_case(f"era-{era}", size, era, seed, keep)) for era in ("0.11", "2.0", "2.4", "3.3", "4.1")),
        ("dense", lambda: bulk_case("dense", size, "3.3", seed, keep, producers=5000, print_data=False)),
        ("incidents", lambda: bulk_case("incidents", size, "3.3", seed, keep, producers=20000, print_data=False)),
        ("partitions-10k", lambda: partitions_case(size, 10_000, seed)),
        ("txn-state-100k", lambda: txn_state_case(100_000, seed)),
        ("mixed-log", lambda: log_case(log_size or size, seed)),
    ]
    for name, build in builders:
        if wanted(name) or (name == "era-3.3" and wanted("gzip")):
            started = time.perf_counter()
            case = build()
            print(f"  {name}: ready in {time.perf_counter() - started:.1f} s", flush=True)
            if wanted(name):
                cases.append(case)
            if name == "era-3.3" and wanted("gzip"):
                cases.append(gzip_case(case))
    return cases


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="300MB", help="bytes per input (default 300MB)")
    p.add_argument("--log-size", default="1GB", help="bytes of the mixed log, all three files (default 1GB)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--runs", type=int, default=2, help="timed runs of each command, alternating (default 2)")
    p.add_argument("--only", default="", help="comma-separated input names (default: all)")
    p.add_argument("--keep", action="store_true", help="keep generated inputs under benchmarks/out/")
    args = p.parse_args(argv)
    try:
        size, log_size = parse_size(args.size), parse_size(args.log_size)
    except ValueError as exc:
        print(f"matrix.py: {exc}", file=sys.stderr)
        return 2
    exe = find_kafkadiag()
    if exe is None:
        print("FAIL: the `kafkadiag` command was not found (pip install -e .)", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    only = {x.strip() for x in args.only.split(",") if x.strip()} or None
    print("preparing inputs ...", flush=True)
    cases = build_cases(size, args.seed, args.keep, only, log_size)
    docs = []
    for case in cases:
        print(f"  measuring {case.name} ...", flush=True)
        docs.append(row_doc(measure(case, exe, max(1, args.runs))))
    result = {
        "format": FORMAT, "size": size, "log_size": log_size, "seed": args.seed, "runs": args.runs, "targets": TARGETS, "rows": docs,
        "machine": {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
                    "grep": shutil.which("grep"), "when": time.strftime("%Y-%m-%d")},
    }
    (OUT / "matrix.json").write_text(json.dumps(result, indent=1) + "\n")
    print_table(docs)
    print(f"results: {(OUT / 'matrix.json').relative_to(ROOT)}")
    if not args.keep:
        for case in cases:
            for path in case.files:
                if path.name.startswith("matrix-"):
                    path.unlink(missing_ok=True)
                    Path(str(path) + ".expected.json").unlink(missing_ok=True)
    return 0 if all(all(d["pass"].values()) for d in docs) else 1


if __name__ == "__main__":
    sys.exit(main())
