#!/usr/bin/env python3
"""Client-log benchmark: `kafkadiag analyze` on large client logs against `grep -c` of the same file.

    python benchmarks/log_speed.py [--size 100MB] [--runs 3] [--cmd "python -m kafkadiag.cli"]

Two logs are built under benchmarks/out/ (or reused):

* ``log-java-<size>.log``: a Spring Boot application log from ``tests/logs/loggen.py`` (two thirds
  application chatter, a third Kafka client lines, an ERROR with a 30-line trace every hundred
  events), whose generator counts the Kafka events it wrote;
* ``log-librdkafka-<size>.log``: the real librdkafka captures of ``fixtures/clients`` (a
  confluent-kafka transactional producer against librdkafka's mock cluster: native
  ``%7|...|TXNSTATE|...`` lines and the same records through Python logging) repeated to size;
  its truth is the events of one copy, times the copies;
* ``log-broker-<size>-seed<seed>.log``: a broker ``server.log`` from ``tests/logs/brokergen.py``
  (routine segment, fetcher and controller lines, coordinator and producer-state lines, now and
  then an ERROR with its exception or a WARN with a trace), whose generator counts its events;
* ``log-broker-excerpts-<size>.log``: the broker logs of the real cases
  (``fixtures/real/*/broker.log``, ``server.log``: excerpts pasted into public threads, with
  their prose, fences and config dumps) repeated to size, counted as the client captures are.
  Nearly every line of it is part of a multi-line event: the worst case, not a broker's log.

Each is timed in alternation with `grep -c` (output to a file), ``--runs`` times, best of each
kept. The report's event count must equal the truth (pruned lines are events too), or the run
fails. Prints a table and writes benchmarks/out/log-results.json. Exit status: 0 every count
matched, 1 a mismatch or a failed run, 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import platform
import shlex
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
for _extra in (HERE, ROOT / "tests" / "logs"):
    if str(_extra) not in sys.path:
        sys.path.insert(0, str(_extra))

from kafkasim import parse_size  # noqa: E402
from run import find_kafkadiag, run_timed  # noqa: E402

CLIENT_RUNS = ("healthy", "abortable", "message-timeout", "fenced")
CLIENT_FILES = ("librdkafka.log", "python-logging.log")
LOG_FORMAT = "kafkadiag-log-bench/1"


def java_log(size: int, seed: int) -> tuple[Path, int]:
    """The generated Spring Boot log and the number of Kafka events in it."""
    import loggen

    def write(out, counts: dict[str, int]) -> int:
        loggen.write_log(out, size / (1 << 20), seed=seed, counts=counts)
        return counts["kafka_lines"] + counts["kafka_traces"]

    return generated_log(OUT / f"log-java-{size}-seed{seed}.log", write)


def generated_log(path: Path, write) -> tuple[Path, int]:
    """A generated log and its event count, reused while its size matches what its generator wrote.

    ``write(out, counts)`` writes the log and returns how many Kafka events it holds."""
    meta = Path(str(path) + ".json")
    if path.exists() and meta.exists():
        doc = json.loads(meta.read_text())
        if doc.get("format") == LOG_FORMAT and doc.get("bytes") == path.stat().st_size:
            return path, int(doc["events"])
    counts: dict[str, int] = {}
    with path.open("w") as out:
        events = write(out, counts)
    meta.write_text(json.dumps({"format": LOG_FORMAT, "bytes": path.stat().st_size, "events": events}))
    return path, events


def client_unit() -> bytes:
    """One copy of the real client captures, in a fixed order."""
    return b"".join((ROOT / "fixtures" / "clients" / run / "input" / name).read_bytes()
                    for run in CLIENT_RUNS for name in CLIENT_FILES)


#: The broker logs of the real cases, by file name.
BROKER_LOGS = ("broker.log", "server.log", "*.server.log")


def broker_unit() -> bytes:
    """The real cases' broker logs, one after another in path order."""
    files = sorted({p for name in BROKER_LOGS for p in (ROOT / "fixtures" / "real").glob(f"*/{name}")})
    return b"".join(p.read_bytes().rstrip(b"\n") + b"\n" for p in files)


def librdkafka_log(size: int) -> tuple[Path, int]:
    """The repeated client captures and how many copies it holds."""
    return repeated_log("librdkafka", client_unit(), size)


def broker_excerpts_log(size: int) -> tuple[Path, int]:
    """The repeated broker excerpts and how many copies it holds."""
    return repeated_log("broker-excerpts", broker_unit(), size)


def broker_log(size: int, seed: int) -> tuple[Path, int]:
    """The generated broker log and the number of Kafka events in it."""
    import brokergen

    def write(out, counts: dict[str, int]) -> int:
        brokergen.write_broker_log(out, size / (1 << 20), seed=seed, counts=counts)
        return counts["events"]

    return generated_log(OUT / f"log-broker-{size}-seed{seed}.log", write)


def repeated_log(name: str, unit: bytes, size: int) -> tuple[Path, int]:
    """``unit`` repeated to about ``size`` bytes, and how many copies that is."""
    copies = max(1, size // len(unit))
    path = OUT / f"log-{name}-{size}.log"
    if not (path.exists() and path.stat().st_size == copies * len(unit)):
        with path.open("wb") as out:
            for _ in range(copies):
                out.write(unit)
    return path, copies


def events_of(cmd: list[str], path: Path) -> int:
    """Kafka events kafkadiag reports for one input (its inputs table)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        run = run_timed([*cmd, "analyze", "--fail-on", "never", "--format", "json", "-o", str(report), str(path)])
        if run.returncode != 0:
            sys.exit(f"FAIL: kafkadiag exited with {run.returncode} on {path.name}: {run.stderr.strip()[-500:]}")
        return int(sum(i["events"] for i in json.loads(report.read_text())["inputs"]))


def measure(cmd: list[str], label: str, path: Path, truth: int, runs: int) -> dict:
    """grep and kafkadiag in alternation, best of each; the event count checked against ``truth``."""
    greps, kds = [], []
    for _ in range(runs):
        grep = run_timed(["grep", "-c", "afka", str(path)], devnull=False)
        if grep.returncode not in (0, 1):
            sys.exit(f"grep failed on {path.name}: {grep.stderr.strip()}")
        greps.append(grep)
        kd = run_timed([*cmd, "analyze", "--fail-on", "never", "--format", "json", str(path)])
        if kd.returncode != 0:
            sys.exit(f"FAIL: kafkadiag exited with {kd.returncode} on {path.name}: {kd.stderr.strip()[-500:]}")
        kds.append(kd)
    g = min(greps, key=lambda r: r.seconds)
    k = min(kds, key=lambda r: r.seconds)
    events = events_of(cmd, path)
    mb = path.stat().st_size / 1e6
    return {
        "input": label, "file": path.name, "mb": round(mb, 1),
        "grep_seconds": round(g.seconds, 3), "kafkadiag_seconds": round(k.seconds, 3),
        "kafkadiag_seconds_all": [round(r.seconds, 3) for r in kds],
        "mb_per_s": round(mb / k.seconds, 1), "ratio_to_grep": round(k.seconds / g.seconds, 2),
        "cpu_seconds": round(k.cpu_seconds, 2), "peak_rss_mb": round(max(r.max_rss_mb for r in kds), 1),
        "events": events, "truth": truth, "ok": events == truth,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--size", default="100MB", help="size of each log, e.g. 20MB, 100MB, 1GB (default 100MB)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--cmd", help="how to start kafkadiag (default: the kafkadiag command)")
    args = p.parse_args(argv)
    try:
        size = parse_size(args.size)
    except ValueError as exc:
        p.error(str(exc))
    exe = find_kafkadiag()
    cmd = shlex.split(args.cmd) if args.cmd else ([exe] if exe else None)
    if not cmd:
        print("FAIL: the `kafkadiag` command was not found (pip install -e .)", file=sys.stderr)
        return 1
    OUT.mkdir(parents=True, exist_ok=True)
    java, java_events = java_log(size, args.seed)
    rdk, copies = librdkafka_log(size)
    broker, broker_events = broker_log(size, args.seed)
    excerpts, excerpt_copies = broker_excerpts_log(size)
    unit = OUT / "log-librdkafka-unit.log"
    unit.write_bytes(client_unit())
    excerpt_unit = OUT / "log-broker-excerpts-unit.log"
    excerpt_unit.write_bytes(broker_unit())
    rows = [measure(cmd, "Spring Boot app log (generated)", java, java_events, args.runs),
            measure(cmd, "librdkafka client captures (real, repeated)", rdk, copies * events_of(cmd, unit), args.runs),
            measure(cmd, "broker server.log (generated)", broker, broker_events, args.runs),
            measure(cmd, "broker excerpts of the real cases (repeated)", excerpts,
                    excerpt_copies * events_of(cmd, excerpt_unit), args.runs)]
    print(f"{'input':46} {'MB':>7} {'grep s':>7} {'kd s':>7} {'MB/s':>7} {'xgrep':>6} {'CPU s':>6} {'RSS MB':>7}  events")
    for r in rows:
        print(f"{r['input']:46} {r['mb']:7.1f} {r['grep_seconds']:7.3f} {r['kafkadiag_seconds']:7.3f} {r['mb_per_s']:7.1f} "
              f"{r['ratio_to_grep']:6.1f} {r['cpu_seconds']:6.2f} {r['peak_rss_mb']:7.1f}  "
              f"{r['events']:,} {'= truth' if r['ok'] else '!= truth ' + format(r['truth'], ',')}")
    doc = {"machine": {"cpus": __import__("os").cpu_count(), "platform": platform.platform(),
                       "python": platform.python_version()}, "size": size, "rows": rows}
    (OUT / "log-results.json").write_text(json.dumps(doc, indent=2))
    print(f"results: {(OUT / 'log-results.json').relative_to(ROOT)}")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
