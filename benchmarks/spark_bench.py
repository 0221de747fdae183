#!/usr/bin/env python3
"""Spark engine benchmark: `kafkadiag analyze --engine spark` against grep, a bare Spark scan and the local engine.

    python benchmarks/spark_bench.py [--size 1GB|10GB] [--seed 1] [--runs 2]

Builds (or reuses) a corpus of many files under benchmarks/out/spark-<size>-seed<seed>/: several
multi-segment partition dumps from the bulk generator plus many client logs, with a manifest
holding the true counts. Then, in alternating rounds, it times `grep -c endTxnMarker`, a bare
Spark scan in its own process, `kafkadiag analyze` with the local engine and with Spark on
local[1] and local[2], one process where the bare scan and the Spark engine share one
session, and two where the engine runs alone, on local[1] and on local[2], over the corpus
twice (the speed-up without the JVM's start, both sides measured the same way: on the first run
after a warm-up, and on the second). Every kafkadiag summary is checked
against the truth, and every run's findings against the first run's (the engines must agree). It prints a table, writes
benchmarks/out/spark-results-<size>.json and reports the targets. Exit status: 0 all runs ran
and agreed with the truth (targets are reported, not enforced), 1 a run failed or disagreed,
2 usage error.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import math
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
for _extra in (HERE, ROOT / "tests" / "logs"):
    if str(_extra) not in sys.path:
        sys.path.insert(0, str(_extra))

from kafkasim import generate_bulk, get_era, parse_size  # noqa: E402
from run import GENERATOR_FORMAT, _pss_mb, _tree  # noqa: E402

CORPUS_FORMAT = "kafkadiag-spark-bench/2"  # 2: producer ids disjoint between partitions
DUMP_FILE_BYTES = 256_000_000  # dumps are cut into files of about this size (at least MIN_DUMPS)
MIN_DUMPS = 4
LOG_FILE_MB = 4  # client logs: MiB each, about LOG_SHARE of the corpus (at least MIN_LOGS)
LOG_SHARE = 0.05
MIN_LOGS = 4
TOPIC = "clickstream"
SCAN_MASTER = "local[2]"
#: Marker lines only: payloads that merely contain the word (look-alikes) do not match.
MARKER_REGEX = r"endTxnMarker: (COMMIT|ABORT) coordinatorEpoch"
#: Summary fields of `kafkadiag analyze --format json` that the generator's truth gives.
CHECKED = ("batches", "partitions", "transactions", "committed", "aborted", "open")
MAX_SESSION_RATIO = 1.5
MIN_SPEEDUP = 1.5
MAX_END_TO_END_1GB = 45.0
ORPHAN_GRACE = 60.0  # seconds a run's leftover processes (the JVM) get to exit after the driver
SAMPLE_SECONDS = 0.05  # RSS and the driver's peak
TREE_SECONDS = 0.2  # how often the process tree is listed again
PSS_DUTY = 0.05  # PSS sampling may take at most this share of the time


class BenchError(Exception):
    """An expected failure (no disk, no kafkadiag, a broken corpus): one line, exit 1."""


# -- corpus ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FileSpec:
    """One file of the corpus: a partition dump or a client log."""

    name: str
    kind: str  # dump | log
    size: int  # requested bytes
    seed: int
    partition: int = -1


def size_label(size: int) -> str:
    """`1GB`, `10GB`, `200MB`: names the corpus and the results file."""
    return f"{size / 1e9:g}GB" if size >= 10**9 else f"{size / 1e6:g}MB"


def plan_corpus(size: int, seed: int) -> list[FileSpec]:
    """Dumps of about DUMP_FILE_BYTES (one partition each, own seed) and LOG_SHARE of client logs."""
    log_bytes = LOG_FILE_MB << 20
    logs = max(MIN_LOGS, round(size * LOG_SHARE / log_bytes))
    dump_total = max(size - logs * log_bytes, size // 2)
    dumps = max(MIN_DUMPS, math.ceil(dump_total / DUMP_FILE_BYTES))
    specs = [FileSpec(f"{TOPIC}-{i}.log.txt", "dump", dump_total // dumps, seed * 1000 + i, i) for i in range(dumps)]
    specs += [FileSpec(f"app-{i:03d}.log", "log", log_bytes, seed * 1000 + 500 + i) for i in range(logs)]
    return specs


def make_file(spec: FileSpec, folder: str, era: str) -> dict:
    """Write one corpus file; returns its manifest entry (with the truth of a dump)."""
    path = Path(folder) / spec.name
    if spec.kind == "log":
        import loggen

        with open(path, "w", encoding="utf-8") as out:
            loggen.write_log(out, spec.size / (1 << 20), seed=spec.seed)
        return {"name": spec.name, "kind": "log", "bytes": path.stat().st_size}
    s = generate_bulk(path, spec.size, era=era, seed=spec.seed, topic=TOPIC, partition=spec.partition,
                      pid_base=spec.partition * 100_000)
    Path(str(path) + ".expected.json").unlink(missing_ok=True)  # folded into the manifest
    return {"name": spec.name, "kind": "dump", "bytes": s["bytes"], "seed": spec.seed, "partition": spec.partition,
            "segments": s["segments"], "batches": s["batches"], "records": s["records"],
            "committed": s["commits"], "aborted": s["aborts"], "open": len(s["open_transactions"]),
            "markers": s["endTxnMarker_lines"]}


def total_truth(files: list[dict]) -> dict:
    """The corpus truth: sums over the dumps; one partition per dump; a transaction is one span."""
    dumps = [f for f in files if f["kind"] == "dump"]
    t = {k: sum(f[k] for f in dumps) for k in ("batches", "records", "committed", "aborted", "open", "markers")}
    t["partitions"] = len(dumps)
    t["transactions"] = t["committed"] + t["aborted"] + t["open"]
    return t


def corpus_dir(size: int, seed: int) -> Path:
    return OUT / f"spark-{size_label(size)}-seed{seed}"


def reusable(folder: Path, size: int, seed: int, era: str) -> dict | None:
    """The manifest of a complete corpus built with the same parameters, else None."""
    try:
        m = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    same = (m.get("format") == CORPUS_FORMAT and m.get("generator") == GENERATOR_FORMAT
            and m.get("requested_bytes") == size and m.get("seed") == seed and m.get("era") == era)
    if not same:
        return None
    for f in m.get("files", []):
        p = folder / f["name"]
        if not p.exists() or p.stat().st_size != f["bytes"]:
            return None
    return m


def check_disk(folder: Path, size: int) -> None:
    """Refuse to start writing a corpus that cannot fit (with room for Spark's scratch files)."""
    free = shutil.disk_usage(folder.parent).free
    need = int(size * 1.05) + (2 << 30)
    if free < need:
        raise BenchError(f"not enough free disk for a {size_label(size)} corpus: {free / 1e9:.1f} GB free, "
                         f"{need / 1e9:.1f} GB needed")


def ensure_corpus(size: int, seed: int, era: str) -> tuple[Path, dict, bool]:
    """Reuse a complete corpus or write a new one (files in parallel); returns (folder, manifest, reused)."""
    folder = corpus_dir(size, seed)
    manifest = reusable(folder, size, seed, era)
    if manifest is not None:
        print(f"reusing {folder.relative_to(ROOT)} ({len(manifest['files'])} files, {manifest['bytes'] / 1e6:,.0f} MB)")
        return folder, manifest, True
    OUT.mkdir(parents=True, exist_ok=True)
    if folder.exists():
        shutil.rmtree(folder)  # an incomplete or different corpus of this script
    check_disk(folder, size)
    folder.mkdir(parents=True)
    specs = plan_corpus(size, seed)
    print(f"generating {size / 1e6:,.0f} MB corpus: {sum(s.kind == 'dump' for s in specs)} dumps, "
          f"{sum(s.kind == 'log' for s in specs)} client logs (era {era}, seed {seed}) ...", flush=True)
    started = time.perf_counter()
    try:
        with ProcessPoolExecutor(max_workers=min(os.cpu_count() or 1, len(specs))) as pool:
            files = list(pool.map(make_file, specs, [str(folder)] * len(specs), [era] * len(specs)))
    except OSError as exc:  # a full disk, a folder that cannot be written
        raise BenchError(f"could not write the corpus in {folder.relative_to(ROOT)}: {exc}") from None
    seconds = time.perf_counter() - started
    manifest = {"format": CORPUS_FORMAT, "generator": GENERATOR_FORMAT, "requested_bytes": size, "seed": seed,
                "era": era, "bytes": sum(f["bytes"] for f in files), "seconds": round(seconds, 1),
                "files": files, "truth": total_truth(files)}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"  {manifest['bytes'] / 1e6:,.0f} MB in {seconds:.1f}s")
    return folder, manifest, False


WARMUP_DUMP_BYTES = 2_000_000
WARMUP_LOG_MB = 1


def ensure_warmup(seed: int, era: str) -> list[str]:
    """A few MB that take every stage of the engine (dumps of two partitions, two client logs).

    A run's first use of a code path in a Python worker costs imports and fresh memory (at 1 GB,
    0.1-0.2 s in the producer stage alone). Warming up on logs only left the dump reader and the
    producer stage to pay that inside the measured run, on one worker per core.
    """
    folder = OUT / f"spark-warmup-seed{seed}"
    specs = [FileSpec(f"{TOPIC}-{i}.log.txt", "dump", WARMUP_DUMP_BYTES, seed * 1000 + 900 + i, i) for i in range(2)]
    specs += [FileSpec(f"app-{i:03d}.log", "log", WARMUP_LOG_MB << 20, seed * 1000 + 950 + i) for i in range(2)]
    stamp = folder / "warmup.json"
    wanted = {"format": CORPUS_FORMAT, "generator": GENERATOR_FORMAT, "seed": seed, "era": era}
    try:
        if json.loads(stamp.read_text()) == wanted and all((folder / s.name).exists() for s in specs):
            return [str(folder / s.name) for s in specs]
    except (OSError, ValueError):
        pass
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for spec in specs:
        make_file(spec, str(folder), era)
    stamp.write_text(json.dumps(wanted) + "\n")
    return [str(folder / s.name) for s in specs]


def corpus_paths(folder: Path, manifest: dict) -> list[str]:
    return [str(folder / f["name"]) for f in manifest["files"]]


# -- timing a process tree -----------------------------------------------------------------------

@dataclass
class TreeRun:
    """One timed child process and everything it started."""

    seconds: float
    returncode: int
    cpu_seconds: float  # user + system of the whole tree, JVM included (wait4 of all, see set_subreaper)
    peak_pss_mb: float  # peak of the tree's summed PSS, sampled (see TreeSampler)
    peak_rss_sum_mb: float  # peak of the tree's summed RSS, every 50 ms (counts shared pages twice)
    driver_peak_mb: float  # peak RSS (VmHWM) of the started process itself
    largest_rss_mb: float  # largest ru_maxrss of any process reaped
    orphans: int  # processes that outlived the driver and were reaped here (the JVM)
    pss_samples: int
    stderr: str = ""


def set_subreaper() -> bool:
    """Become the subreaper of everything started from here.

    A driver that exits without waiting for its JVM leaves it to init, and its CPU time would be
    lost to ``wait4``; as subreaper this process inherits and reaps such orphans, so the sum of
    the ``wait4`` usages is the CPU time of the whole tree.
    """
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        return False


def _status_kb(pid: int, key: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith(key):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process, from /proc/<pid>/stat.

    Cheaper than walking /proc/<pid>/task/*/children when a JVM with a hundred threads is in the
    tree (about 1.5 ms here against 6 ms), which matters for a sampler on a two-core machine.
    """
    out = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    out[int(name)] = int(handle.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return out


def _descendants(pid: int) -> list[int]:
    """Every process below `pid` (not `pid` itself)."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    out, todo = [], list(children.get(pid, ()))
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, ()))
    return out


def _children() -> list[int]:
    """This process's direct children (orphans of a run included)."""
    return [p for p, parent in _parents().items() if parent == os.getpid()]


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError):
        return 0


class TreeSampler:
    """Peak memory of all processes started from here, and the driver's own peak RSS.

    The tree is taken from this process, not from the driver, so that a JVM the driver left
    behind still counts until it exits. RSS (cheap) is summed every 50 ms. PSS counts pages that
    forked workers share once, but reading a JVM's smaps_rollup takes about 40 ms and holds its
    memory map lock: sampled every 50 ms, it took most of a core and doubled Spark's start-up
    here. So PSS is sampled as often as keeps its cost under PSS_DUTY of the time.
    """

    def __init__(self, driver: int) -> None:
        self.driver, self.peak_pss, self.peak_rss, self.driver_hwm_kb = driver, 0.0, 0.0, 0
        self.pss_samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        pids: list[int] = []
        next_tree = next_pss = 0.0
        while not self._stop.is_set():
            now = time.monotonic()
            if now >= next_tree:
                pids, next_tree = _descendants(os.getpid()), now + TREE_SECONDS
            if now >= next_pss:
                self.peak_pss = max(self.peak_pss, _pss_mb(pids))
                self.pss_samples += 1
                next_pss = now + max(SAMPLE_SECONDS, (time.monotonic() - now) / PSS_DUTY)
            self.peak_rss = max(self.peak_rss, sum(_rss_kb(p) for p in pids) / 1024.0)
            self.driver_hwm_kb = max(self.driver_hwm_kb, _status_kb(self.driver, "VmHWM:"))
            self._stop.wait(SAMPLE_SECONDS)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _reap_orphans() -> tuple[float, float, int]:
    """Wait for what the driver left behind; returns (CPU seconds, largest RSS MB, count)."""
    cpu, rss, count = 0.0, 0.0, 0
    deadline = time.monotonic() + ORPHAN_GRACE
    signalled = 0
    while True:
        try:
            pid, _status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return cpu, rss, count
        if pid:
            cpu += usage.ru_utime + usage.ru_stime
            rss = max(rss, usage.ru_maxrss / 1024.0)
            count += 1
            continue
        if time.monotonic() > deadline and signalled < 2:
            for child in _children():  # leftovers of this run only: nothing else runs from here
                os.kill(child, signal.SIGTERM if signalled == 0 else signal.SIGKILL)
            signalled += 1
            deadline = time.monotonic() + 10
        time.sleep(0.02)


def run_tree(cmd: list[str], stdout: Path, env: dict[str, str]) -> TreeRun:
    """Run `cmd` with its output in `stdout`; wall time until it exits, CPU and memory of its tree.

    It runs in the folder of `stdout`: `python -m` puts its working directory first on sys.path,
    and in a checkout that would import the live package instead of the frozen copy.
    """
    with tempfile.TemporaryFile() as err, open(stdout, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=stdout.parent)
        sampler = TreeSampler(proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        orphan_cpu, orphan_rss, orphans = _reap_orphans()
        sampler.stop()
        err.seek(0)
        tail = err.read()[-3000:].decode("utf-8", "replace")
    return TreeRun(seconds, proc.returncode, usage.ru_utime + usage.ru_stime + orphan_cpu, sampler.peak_pss,
                   sampler.peak_rss, sampler.driver_hwm_kb / 1024.0, max(usage.ru_maxrss / 1024.0, orphan_rss), orphans,
                   sampler.pss_samples, tail)


# -- workers: Spark in a process of their own ---------------------------------------------------------

def _tree_cpu() -> float:
    """CPU seconds so far of this process and its descendants (reaped ones included), from /proc."""
    total = 0
    for pid in _tree(os.getpid()):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
        except (OSError, ValueError, IndexError):
            continue
    return total / os.sysconf("SC_CLK_TCK")


def _reset_peak_rss() -> bool:
    """Reset this process's VmHWM so that the next phase's driver peak is its own."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def marker_count(spark, paths: list[str]) -> int:
    """The bare scan: read every line as text, one regexp_extract, count the marker lines."""
    from pyspark.sql import functions as F

    marker = F.regexp_extract("value", MARKER_REGEX, 1).alias("m")
    return spark.read.text(paths).select(marker).where(F.col("m") != "").count()


def timed(fn, *args) -> tuple[object, dict]:
    """Call fn, returning its value and the phase's wall and tree CPU seconds."""
    cpu, start = _tree_cpu(), time.perf_counter()
    value = fn(*args)
    return value, {"seconds": round(time.perf_counter() - start, 3), "cpu_seconds": round(_tree_cpu() - cpu, 2)}


def worker_scan(paths: list[str]) -> dict:
    """A bare Spark scan process: session start, then the scan twice (the second one warm)."""
    cpu, start = _tree_cpu(), time.perf_counter()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master(SCAN_MASTER).appName("spark-bench-scan")
             .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    jvm = {"seconds": round(time.perf_counter() - start, 3), "cpu_seconds": round(_tree_cpu() - cpu, 2)}
    first, scan = timed(marker_count, spark, paths)
    second, warm = timed(marker_count, spark, paths)
    spark.stop()
    return {"jvm": jvm, "scan": {**scan, "count": first}, "warm": {**warm, "count": second}}


def worker_session(paths: list[str], warm_scan: list[str], warm_engine: list[str], master: str = SCAN_MASTER,
                   scan: bool = True, again: bool = False) -> dict:
    """One session on local[2]: a warm bare scan and the Spark engine in-process, like for like.

    Both warm up first (a scan of one dump for the JIT; the engine on a few MB of dumps and logs,
    which starts its Python workers and takes every stage), so that neither pays for the session's
    first use. With ``again``, the engine runs over the corpus a second time (the steady state of
    a session that analyses one input after another).
    """
    from kafkadiag.config import EffectiveConfig
    from kafkadiag.engine.local import analyze
    from kafkadiag.engine.spark.runner import ONE_TASK_CONF, SparkRunner
    from kafkadiag.engine.spark.session import start_session
    from kafkadiag.ruleset import load_rules

    (spark, start) = timed(start_session, master, {})
    rules = load_rules()

    def engine(files: list[str], conf: dict | None = None):
        return analyze(files, rules, EffectiveConfig.defaults(), runner=SparkRunner(master, conf))

    # A few MB would run the keyed stages in one task; the warm-up shuffles as the corpus will.
    engine(warm_engine, {ONE_TASK_CONF: "0"})
    doc: dict = {"start": start, "master": master}
    if scan:
        marker_count(spark, warm_scan)
        count, scanned = timed(marker_count, spark, paths)
        doc["scan"] = {**scanned, "count": count}
    reset = _reset_peak_rss()
    result, run = timed(engine, paths)
    run["driver_peak_mb"] = round(_status_kb(os.getpid(), "VmHWM:") / 1024.0, 1)
    run["driver_peak_is_engine_only"] = reset
    summary = {k: result.stats.get(k) for k in CHECKED}
    doc["engine"] = {**run, "summary": summary}
    if again:
        # The same corpus once more: the workers' heaps and the JVM's have grown to its size.
        result, run = timed(engine, paths)
        doc["engine_again"] = {**run, "summary": {k: result.stats.get(k) for k in CHECKED}}
    return doc


def worker_main(kind: str, folder: Path, result: Path) -> int:
    """Entry of a worker process: run, write the result document, exit 0 (1 with a one-line error)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    manifest = json.loads((folder / "manifest.json").read_text())
    paths = corpus_paths(folder, manifest)
    try:
        if kind == "scan":
            doc = worker_scan(paths)
        else:
            dumps = [str(folder / f["name"]) for f in manifest["files"] if f["kind"] == "dump"]
            # Every stage, in at least two tasks: each Python worker of local[2] has run every path.
            warm = ensure_warmup(manifest["seed"], manifest["era"])
            if kind == "session":
                doc = worker_session(paths, dumps[:1], warm)
            else:  # engine1 / engine2: the engine phase alone on one or two cores, for the speed-up
                doc = worker_session(paths, dumps[:1], warm, master=f"local[{kind[-1]}]", scan=False, again=True)
    except Exception as exc:  # noqa: BLE001 - reported by the parent as a failed run
        first = (str(exc).strip().splitlines() or [""])[0]
        print(f"{kind} worker failed: {type(exc).__name__}: {first}", file=sys.stderr)
        return 1
    result.write_text(json.dumps(doc))
    sys.stdout.flush()
    os._exit(0)  # the session's teardown is not part of any measurement


# -- one round of measurements -------------------------------------------------------------------------

@dataclass
class Row:
    """A line of the table: every run's figures; the best run is the fastest."""

    label: str
    runs: list[dict] = field(default_factory=list)

    def best(self) -> dict | None:
        ok = [r for r in self.runs if r.get("ok", True)]
        return min(ok, key=lambda r: r["seconds"]) if ok else None


@dataclass
class Bench:
    """What a whole benchmark run gathers."""

    folder: Path
    manifest: dict
    cli: list[str]  # how kafkadiag is started: this Python, the frozen copy first on PYTHONPATH
    env: dict[str, str]
    work: Path
    rows: dict[str, Row] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    loads: list[list[float]] = field(default_factory=list)  # load average at the start of each round
    findings: tuple[str, list] | None = None  # the first run's findings (who, identities): every run must agree

    @property
    def paths(self) -> list[str]:
        return corpus_paths(self.folder, self.manifest)

    @property
    def truth(self) -> dict:
        return self.manifest["truth"]

    def add(self, key: str, label: str, run: dict) -> None:
        self.rows.setdefault(key, Row(label)).runs.append(run)


ROW_LABELS = {
    "grep": "grep -c endTxnMarker",
    "scan_process": "bare Spark scan, whole process",
    "scan_jvm": "  JVM + session start",
    "scan": "  scan (JVM start excluded)",
    "scan_warm": "  second scan (warm)",
    "local": "kafkadiag --engine local",
    "spark1": "kafkadiag --engine spark local[1]",
    "spark2": "kafkadiag --engine spark local[2]",
    "session_process": "same session, whole process",
    "session_scan": "  bare scan (warm)",
    "session_engine": "  Spark engine in-process",
    "engine1": "Spark engine in-process, local[1]",
    "engine1_again": "  the same corpus again, same session",
    "engine2": "Spark engine in-process, local[2]",
    "engine2_again": "  the same corpus again, same session",
}


def tree_figures(run: TreeRun) -> dict:
    return {"seconds": round(run.seconds, 3), "cpu_seconds": round(run.cpu_seconds, 2),
            "peak_pss_mb": round(run.peak_pss_mb, 1), "peak_rss_sum_mb": round(run.peak_rss_sum_mb, 1),
            "driver_peak_mb": round(run.driver_peak_mb, 1),
            "largest_rss_mb": round(run.largest_rss_mb, 1), "exit_code": run.returncode, "orphans_reaped": run.orphans,
            "pss_samples": run.pss_samples}


def failed(b: Bench, what: str, cmd: str, run: TreeRun) -> None:
    b.problems.append(f"{what}: `{cmd}` exited with {run.returncode}: {run.stderr.strip()[-1500:]}")
    print(f"  FAIL {what} (exit {run.returncode})", flush=True)


def measure_grep(b: Bench) -> None:
    """grep's output goes to a file: with stdout on /dev/null GNU grep stops at the first match."""
    out = b.work / "grep.out"
    run = run_tree(["grep", "-c", "endTxnMarker", *b.paths], out, b.env)
    if run.returncode not in (0, 1):
        failed(b, "grep", "grep -c endTxnMarker FILES", run)
        b.add("grep", ROW_LABELS["grep"], {**tree_figures(run), "ok": False})
        return
    count = sum(int(line.rsplit(":", 1)[-1]) for line in out.read_text().split())
    markers = b.truth["markers"]
    # Payloads imitating the marker ("endTxnMarker: COMMIT is just text here") add lines grep
    # counts; the exact marker count is checked on the Spark scans, whose regex matches markers only.
    if count < markers:
        b.problems.append(f"grep counted {count} endTxnMarker lines, fewer than the {markers} true markers")
    b.add("grep", ROW_LABELS["grep"], {**tree_figures(run), "count": count, "look_alike_lines": count - markers})
    print(f"  grep                  {run.seconds:8.2f} s  count {count} ({count - markers} look-alike payloads)", flush=True)


def check_summary(b: Bench, what: str, summary: dict) -> list[str]:
    """Fields of a kafkadiag summary that disagree with the truth, also recorded as problems."""
    wrong = [f"{k} {summary.get(k)} != {b.truth[k]}" for k in CHECKED if summary.get(k) != b.truth[k]]
    if wrong:
        b.problems.append(f"{what}: summary disagrees with the truth: " + ", ".join(wrong))
    return wrong


def measure_kafkadiag(b: Bench, key: str, extra: list[str]) -> None:
    """`kafkadiag analyze --format json` (exit 1 only means findings) and its summary against the truth."""
    out = b.work / f"{key}.json"
    cmd = [*b.cli, "analyze", "--format", "json", *extra, *b.paths]
    shown = " ".join(["kafkadiag analyze --format json", *extra, "FILES"])
    run = run_tree(cmd, out, b.env)
    if run.returncode not in (0, 1):
        failed(b, ROW_LABELS[key], shown, run)
        b.add(key, ROW_LABELS[key], {**tree_figures(run), "ok": False})
        return
    try:
        report = json.loads(out.read_text())
        summary = report["summary"]
    except (OSError, ValueError, KeyError) as exc:
        b.problems.append(f"{ROW_LABELS[key]}: `{shown}` gave no JSON summary ({exc})")
        b.add(key, ROW_LABELS[key], {**tree_figures(run), "ok": False})
        return
    wrong = check_summary(b, f"`{shown}`", summary)
    wrong += check_findings(b, f"`{shown}`", report.get("findings", []))
    engine = summary.get("engine", {})
    b.add(key, ROW_LABELS[key], {**tree_figures(run), "summary": {k: summary.get(k) for k in CHECKED},
                                 "engine": engine, "matches_truth": not wrong})
    print(f"  {key:<20}  {run.seconds:8.2f} s  cpu {run.cpu_seconds:7.1f} s  driver {run.driver_peak_mb:6.0f} MB  "
          f"tree PSS {run.peak_pss_mb:6.0f} MB  {'ok' if not wrong else 'MISMATCH ' + '; '.join(wrong)}", flush=True)


def finding_identities(findings: list[dict]) -> list:
    """What must not depend on the engine: rule, severity, subject and evidence (file, line) of each finding."""
    return sorted(json.dumps([f.get("rule"), f.get("severity"), f.get("subject"),
                              [(e.get("file"), e.get("line")) for e in f.get("evidence", [])]], sort_keys=True)
                  for f in findings)


def check_findings(b: Bench, what: str, findings: list[dict]) -> list[str]:
    """Every engine and master must give the findings the first run gave (the truth has no findings list)."""
    mine = finding_identities(findings)
    if b.findings is None:
        b.findings = (what, mine)
        return []
    first, theirs = b.findings
    if mine == theirs:
        return []
    only_mine, only_theirs = len(set(mine) - set(theirs)), len(set(theirs) - set(mine))
    problem = f"findings differ from {first}'s ({len(mine)} vs {len(theirs)}; {only_mine} only here, {only_theirs} only there)"
    b.problems.append(f"{what}: {problem}")
    return [problem]


def run_worker(b: Bench, kind: str) -> tuple[TreeRun, dict | None]:
    """A Spark worker process of this script; its result document, or None when it failed."""
    result = b.work / f"{kind}-result.json"
    result.unlink(missing_ok=True)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, "--corpus", str(b.folder),
           "--result", str(result)]
    run = run_tree(cmd, b.work / f"{kind}.out", b.env)
    if run.returncode != 0 or not result.exists():
        failed(b, f"{kind} worker", f"python benchmarks/spark_bench.py --worker {kind}", run)
        return run, None
    return run, json.loads(result.read_text())


def check_count(b: Bench, what: str, count: int) -> bool:
    if count != b.truth["markers"]:
        b.problems.append(f"{what}: counted {count} marker lines, the truth has {b.truth['markers']}")
        return False
    return True


def measure_scan(b: Bench) -> None:
    run, doc = run_worker(b, "scan")
    b.add("scan_process", ROW_LABELS["scan_process"], {**tree_figures(run), "ok": doc is not None})
    if doc is None:
        return
    b.add("scan_jvm", ROW_LABELS["scan_jvm"], doc["jvm"])
    for key, part in (("scan", "scan"), ("scan_warm", "warm")):
        ok = check_count(b, f"bare scan ({part})", doc[part]["count"])
        b.add(key, ROW_LABELS[key], {**doc[part], "matches_truth": ok})
    print(f"  bare scan process     {run.seconds:8.2f} s  (JVM {doc['jvm']['seconds']:.2f} s, scan {doc['scan']['seconds']:.2f} s, "
          f"warm {doc['warm']['seconds']:.2f} s, count {doc['scan']['count']})", flush=True)


def measure_session(b: Bench) -> None:
    run, doc = run_worker(b, "session")
    b.add("session_process", ROW_LABELS["session_process"], {**tree_figures(run), "ok": doc is not None})
    if doc is None:
        return
    ok = check_count(b, "same-session bare scan", doc["scan"]["count"])
    b.add("session_scan", ROW_LABELS["session_scan"], {**doc["scan"], "matches_truth": ok})
    wrong = check_summary(b, "Spark engine in-process (same session)", doc["engine"]["summary"])
    b.add("session_engine", ROW_LABELS["session_engine"], {**doc["engine"], "matches_truth": not wrong})
    ratio = doc["engine"]["seconds"] / max(doc["scan"]["seconds"], 1e-9)
    print(f"  same session          scan {doc['scan']['seconds']:.2f} s, engine {doc['engine']['seconds']:.2f} s "
          f"(ratio {ratio:.2f}, driver {doc['engine']['driver_peak_mb']:.0f} MB)"
          f"{'' if not wrong else '  MISMATCH ' + '; '.join(wrong)}", flush=True)


def measure_engine_alone(b: Bench, cores: int) -> None:
    """The engine phase alone on local[1] or local[2] (after the same warm-up as the session's).

    The speed-up compares these two, measured the same way: the corpus's first run after the
    warm-up, and its second (the steady state, once every worker has held a corpus-sized piece).
    The session's engine phase follows a bare scan of the whole corpus in the same JVM, which
    warms it: at 1 GB it ran 0.1-0.5 s faster than the engine alone on local[2], so it serves the
    scan ratio only."""
    key = f"engine{cores}"
    run, doc = run_worker(b, key)
    if doc is None:
        b.add(key, ROW_LABELS[key], {"seconds": run.seconds, "ok": False})
        return
    line = f"  engine on local[{cores}]    "
    for suffix, part in (("", "engine"), ("_again", "engine_again")):
        wrong = check_summary(b, f"Spark engine in-process (local[{cores}]{', again' if suffix else ''})",
                              doc[part]["summary"])
        b.add(key + suffix, ROW_LABELS[key + suffix], {**doc[part], "matches_truth": not wrong})
        line += f"{doc[part]['seconds']:8.2f} s{' (again)' if suffix else ''}{'' if not wrong else '  MISMATCH ' + '; '.join(wrong)}"
    print(line, flush=True)


def measure(b: Bench, runs: int) -> None:
    """Alternate every tool in each round, so that a burst of load on the machine hits all of them."""
    for i in range(runs):
        load = [round(x, 2) for x in os.getloadavg()]
        b.loads.append(load)
        print(f"round {i + 1}/{runs} (load average {load[0]:.2f})", flush=True)
        measure_grep(b)
        measure_scan(b)
        measure_kafkadiag(b, "local", ["--engine", "local"])
        measure_kafkadiag(b, "spark1", ["--engine", "spark", "--master", "local[1]"])
        measure_kafkadiag(b, "spark2", ["--engine", "spark", "--master", "local[2]"])
        measure_session(b)
        measure_engine_alone(b, 1)
        measure_engine_alone(b, 2)


# -- the measured code ----------------------------------------------------------------------------------

def freeze_code(work: Path) -> Path:
    """A copy of kafkadiag, its shipped rules inside, that every run imports (first on PYTHONPATH).

    The package may be edited while a long benchmark runs; a copy keeps every round on the same
    code. The rules go in as ``kafkadiag/builtin_rules``, the package an installed wheel has.
    """
    root = work / "code"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "kafkadiag", root / "kafkadiag", ignore=skip)
    rules = root / "kafkadiag" / "builtin_rules"
    if not rules.exists():
        shutil.copytree(ROOT / "rules", rules, ignore=skip)
        for folder in [rules, *(p for p in rules.rglob("*") if p.is_dir())]:
            (folder / "__init__.py").touch()
    return root


def check_frozen(env: dict[str, str], copy: Path) -> None:
    """Refuse to measure when a child would import kafkadiag or its rules from anywhere but the copy."""
    probe = "import kafkadiag, kafkadiag.builtin as b; print(kafkadiag.__file__); print(b.builtin_root())"
    p = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, cwd=copy.parent)
    where = p.stdout.split()
    if p.returncode != 0 or len(where) != 2 or not all(w.startswith(str(copy)) for w in where):
        detail = (p.stderr.strip().splitlines() or [" and ".join(where) or "nothing printed"])[-1]
        raise BenchError(f"kafkadiag cannot be imported from a frozen copy (imported: {detail})")


# -- results ------------------------------------------------------------------------------------------

def _first_line(cmd: list[str], stderr: bool = False) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    text = (p.stderr if stderr else p.stdout).strip()
    return text.splitlines()[0] if text else "unknown"


def machine() -> dict:
    """Where the numbers were taken; load average because the machine may be shared."""
    from importlib.metadata import PackageNotFoundError, version

    model = "unknown"
    try:
        model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith("model name")), model)
    except OSError:
        pass
    try:
        pyspark = version("pyspark")
    except PackageNotFoundError:
        pyspark = "not installed"
    return {"cpus": os.cpu_count(), "cpu_model": model,
            "memory_gb": round(_meminfo_kb("MemTotal:") / 1024 / 1024, 1), "kernel": platform.release(),
            "python": platform.python_version(), "pyspark": pyspark,
            "java": _first_line(["java", "-version"], stderr=True), "grep": _first_line(["grep", "--version"]),
            "load_average_start": [round(x, 2) for x in os.getloadavg()]}


def code_state(copy: Path) -> dict:
    """Which kafkadiag was measured: the commit, whether kafkadiag/ differed from it, a hash of the copy."""
    digest = hashlib.sha256()
    for path in sorted(copy.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(copy)).encode())
            digest.update(path.read_bytes())
    status = _git("status", "--porcelain", "--", "kafkadiag", "rules")
    return {"commit": _git("rev-parse", "--short", "HEAD") or "unknown",
            "dirty": None if status is None else bool(status), "sha256": digest.hexdigest()[:16],
            "measured": "a copy of kafkadiag/ and rules/ taken when the benchmark started"}


def _git(*args: str) -> str | None:
    try:
        p = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def _meminfo_kb(key: str) -> int:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith(key):
                return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def _best_seconds(b: Bench, key: str) -> float | None:
    row = b.rows.get(key)
    best = row.best() if row else None
    return best["seconds"] if best else None


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def targets(b: Bench, size: int) -> dict:
    """The targets, each with value, limit and verdict (None when not measurable)."""
    engine = b.rows.get("session_engine")
    scan = b.rows.get("session_scan")
    ratio = None
    if engine and scan and engine.best() and scan.best():
        ratio = engine.best()["seconds"] / max(scan.best()["seconds"], 1e-9)
    warm = _best_seconds(b, "scan_warm")
    # kafkadiag starts a local JVM with its own options (the client compiler only), which slow a
    # JVM-heavy scan: this ratio takes the warm scan of a JVM with Spark's defaults instead.
    default_ratio = engine.best()["seconds"] / warm if engine and engine.best() and warm else None
    s1, s2 = _best_seconds(b, "spark1"), _best_seconds(b, "spark2")
    cli_speedup = s1 / s2 if s1 and s2 else None
    e1, e2 = _best_seconds(b, "engine1"), _best_seconds(b, "engine2")
    speedup = e1 / e2 if e1 and e2 else None
    a1, a2 = _best_seconds(b, "engine1_again"), _best_seconds(b, "engine2_again")
    steady = a1 / a2 if a1 and a2 else None
    e2e = s2 if size == 10**9 else None

    def verdict(value: float | None, ok) -> bool | None:
        return None if value is None else bool(ok(value))

    return {
        "session_ratio": {"label": "Spark engine / bare scan, same session (local[2])", "value": _round(ratio),
                          "target": f"<= {MAX_SESSION_RATIO:g}", "pass": verdict(ratio, lambda v: v <= MAX_SESSION_RATIO)},
        "default_jvm_ratio": {"label": "Spark engine / warm bare scan on Spark's default JVM options",
                              "value": _round(default_ratio), "target": f"<= {MAX_SESSION_RATIO:g}",
                              "pass": verdict(default_ratio, lambda v: v <= MAX_SESSION_RATIO)},
        "speedup": {"label": "speed-up local[1] -> local[2], engine phase, first run after the warm-up", "value": _round(speedup),
                    "target": f">= {MIN_SPEEDUP:g}", "pass": verdict(speedup, lambda v: v >= MIN_SPEEDUP)},
        "speedup_steady": {"label": "speed-up local[1] -> local[2], engine phase, the corpus again in the session",
                           "value": _round(steady), "target": f">= {MIN_SPEEDUP:g}",
                           "pass": verdict(steady, lambda v: v >= MIN_SPEEDUP)},
        "speedup_cli": {"label": "speed-up local[1] -> local[2], whole CLI (JVM start included)",
                        "value": _round(cli_speedup), "target": f">= {MIN_SPEEDUP:g}",
                        "pass": verdict(cli_speedup, lambda v: v >= MIN_SPEEDUP)},
        "end_to_end_1gb": {"label": "end to end on 1 GB, CLI local[2], JVM start included", "value": e2e,
                           "target": f"< {MAX_END_TO_END_1GB:g} s", "pass": verdict(e2e, lambda v: v < MAX_END_TO_END_1GB),
                           "note": None if size == 10**9 else "applies to --size 1GB only"},
    }


def row_doc(b: Bench, key: str, row: Row, mb: float) -> dict:
    best = row.best()
    grep, scan = _best_seconds(b, "grep"), _best_seconds(b, "scan")
    doc: dict = {"label": row.label.strip(), "runs": row.runs, "all_seconds": [r["seconds"] for r in row.runs]}
    if best is None:
        return {**doc, "failed": True}
    s = best["seconds"]
    doc.update(seconds=s, cpu_seconds=best.get("cpu_seconds"),
               mb_per_s=None if key == "scan_jvm" else round(mb / max(s, 1e-9), 1),
               ratio_to_grep=round(s / grep, 2) if grep else None, ratio_to_scan=round(s / scan, 2) if scan else None,
               peak_pss_mb=max((r["peak_pss_mb"] for r in row.runs if "peak_pss_mb" in r), default=None),
               driver_peak_mb=max((r["driver_peak_mb"] for r in row.runs if "driver_peak_mb" in r), default=None))
    return doc


def results_doc(b: Bench, size: int, reused: bool, runs: int, host: dict, subreaper: bool) -> dict:
    mb = b.manifest["bytes"] / 1e6
    files = b.manifest["files"]
    return {
        "size": size_label(size), "corpus": str(b.folder.relative_to(ROOT)), "reused_corpus": reused,
        "bytes": b.manifest["bytes"], "mb": round(mb, 1), "era": b.manifest["era"], "seed": b.manifest["seed"],
        "files": {"dumps": sum(f["kind"] == "dump" for f in files), "logs": sum(f["kind"] == "log" for f in files),
                  "dump_bytes": sum(f["bytes"] for f in files if f["kind"] == "dump"),
                  "log_bytes": sum(f["bytes"] for f in files if f["kind"] == "log")},
        "truth": b.truth, "runs": runs,
        "cpu_accounting": "wait4 of the driver and of the processes it left behind (subreaper)" if subreaper
        else "wait4 of the driver only: a JVM it did not wait for is missing",
        "rows": {k: row_doc(b, k, r, mb) for k, r in b.rows.items()},
        "targets": targets(b, size), "problems": b.problems, "machine": host,
    }


def _fmt(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(r: dict) -> None:
    f = r["files"]
    k = r["kafkadiag"]
    print(f"\n{r['size']} corpus: {r['mb']:,.1f} MB in {f['dumps']} dumps and {f['logs']} client logs"
          f"{' (reused)' if r['reused_corpus'] else ''}; best of {r['runs']} run(s); kafkadiag at {k['commit']}"
          f"{' with local changes' if k['dirty'] else ''} (copy {k['sha256']})")
    head = f"  {'tool':<36} {'seconds':>8} {'MB/s':>8} {'xgrep':>7} {'xscan':>7} {'CPU s':>7} {'peak MB':>8} {'driver MB':>9}  all runs (s)"
    print(head)
    for key, row in r["rows"].items():
        name = ROW_LABELS[key]
        if row.get("failed"):
            print(f"  {name:<36} {'failed':>8}")
            continue
        print(f"  {name:<36} {row['seconds']:>8.2f} {_fmt(row['mb_per_s'], ',.1f'):>8} {_fmt(row['ratio_to_grep'], '.2f'):>7} "
              f"{_fmt(row['ratio_to_scan'], '.2f'):>7} {_fmt(row['cpu_seconds'], '.1f'):>7} "
              f"{_fmt(row['peak_pss_mb'], ',.0f'):>8} {_fmt(row['driver_peak_mb'], ',.0f'):>9}  "
              + " ".join(f"{run['seconds']:.2f}" if run.get("ok", True) else "failed" for run in row["runs"]))
    print("  xgrep, xscan: time over grep's, and over the bare scan alone (own process, JVM start excluded).")
    print("  peak MB: summed PSS of the process tree (JVM and workers included); driver MB: peak RSS of the")
    print("  started process itself (for kafkadiag, the Python driver; in-process, the engine phase's).")
    print("targets")
    for t in r["targets"].values():
        verdict = "n/a" if t["pass"] is None else ("pass" if t["pass"] else "FAIL")
        note = f" ({t['note']})" if t.get("note") else ""
        print(f"  {t['label']:<55} {_fmt(t['value'], '.2f'):>7}  target {t['target']:<8} {verdict}{note}")


# -- main ----------------------------------------------------------------------------------------------

def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="1GB", help="corpus size, e.g. 200MB, 1GB, 10GB (default 1GB)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--era", default="3.3", help="Kafka era of the dump text (default 3.3)")
    p.add_argument("--runs", type=int, default=2, help="alternating rounds; the best of each tool is kept (default 2)")
    p.add_argument("--worker", choices=("scan", "session", "engine1", "engine2"), help=argparse.SUPPRESS)
    p.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def bench(args: argparse.Namespace) -> int:
    size = parse_size(args.size)
    get_era(args.era)
    host = machine()
    folder, manifest, reused = ensure_corpus(size, args.seed, args.era)
    ensure_warmup(args.seed, args.era)  # written here, before any worker reads it
    subreaper = set_subreaper()
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="spark-bench-", dir=OUT) as work:
        copy = freeze_code(Path(work))
        code = code_state(copy)
        temp = Path(work) / "tmp"  # a worker leaves without teardown: its temp files go with this folder
        temp.mkdir()
        env = {**os.environ, "SPARK_LOCAL_IP": "127.0.0.1", "TMPDIR": str(temp),
               "PYTHONPATH": os.pathsep.join(filter(None, [str(copy), os.environ.get("PYTHONPATH")]))}
        check_frozen(env, copy)
        b = Bench(folder, manifest, [sys.executable, "-m", "kafkadiag.cli"], env, Path(work))
        measure(b, max(1, args.runs))
    host["load_average_rounds"] = b.loads
    host["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    r = results_doc(b, size, reused, max(1, args.runs), host, subreaper)
    r["kafkadiag"] = code
    path = OUT / f"spark-results-{size_label(size)}.json"
    path.write_text(json.dumps(r, indent=1) + "\n")
    print_table(r)
    print(f"results: {path.relative_to(ROOT)}")
    for problem in b.problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    return 1 if b.problems else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        if not (args.corpus and args.result):
            print("spark_bench.py: --worker needs --corpus and --result", file=sys.stderr)
            return 2
        return worker_main(args.worker, args.corpus, args.result)
    try:
        parse_size(args.size)
        get_era(args.era)
    except (KeyError, ValueError) as exc:
        print(f"spark_bench.py: {exc}", file=sys.stderr)
        return 2
    try:
        return bench(args)
    except BenchError as exc:
        print(f"FAIL: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
