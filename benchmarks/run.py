#!/usr/bin/env python3
"""Throughput benchmark: `kafkadiag analyze` against `grep -c` on a large simulated dump.

    python benchmarks/run.py [--size 1GB] [--era 3.3] [--seed 1] [--keep]

Builds the dump with the simulator (or reuses a kept one under benchmarks/out/), times
`grep -c endTxnMarker FILE` and `kafkadiag analyze --format json FILE` (output to /dev/null)
in alternation, ``--runs`` times each, so that a burst of load on a shared machine hits both;
the best time of each is compared. It measures kafkadiag's peak memory (largest RSS and all
processes' summed PSS), prints a table and writes
benchmarks/out/results.json. Exit status: 0 all targets met, 1 a target missed or kafkadiag
missing/failing, 2 usage error.
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
import threading
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from kafkasim import generate_bulk, get_era, parse_size  # noqa: E402
from truth import compare, dump_truth, observed  # noqa: E402

REPORT = OUT / "run-report.json"
MAX_RATIO = 6.0  # kafkadiag may take at most 6x as long as grep -c
MAX_RSS_MB = 300.0
GENERATOR_FORMAT = "kafkadiag-sim-bulk/1"


@dataclass
class Run:
    """One timed child process."""

    seconds: float
    returncode: int
    max_rss_mb: float
    cpu_seconds: float
    stderr: str = ""
    stdout: str = ""
    peak_pss_mb: float = 0.0  # sampled sum over the process and its children (0 where /proc lacks it)


def _tree(pid: int) -> list[int]:
    """The process and all its descendants, from /proc/<pid>/task/*/children."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as handle:
                    todo.extend(int(c) for c in handle.read().split())
        except OSError:
            continue
    return out


def _pss_mb(pids: list[int]) -> float:
    """Sum of proportional set sizes: shared pages (libraries, forked memory) counted once in all."""
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/smaps_rollup") as handle:
                for line in handle:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            continue
    return total / 1024.0


class PssSampler:
    """Samples the summed PSS of a process tree every few milliseconds, keeping the peak, and the
    largest peak RSS (``VmHWM``) any of its processes reached.

    ``ru_maxrss`` is per process; when kafkadiag reads in several processes, only the sum of
    their PSS says how much memory the run takes together. Nor can ``ru_maxrss`` from ``wait4``
    be trusted for the largest process: Linux keeps the high-water mark of the process image an
    ``exec`` replaced, so a child of this harness reports at least what the harness itself held
    when it started it (after it had loaded a report of 59,000 findings, 362 MB for every later
    input). ``VmHWM`` belongs to the image that runs.

    A sample costs about 9 ms of CPU, most of it the kernel walking each process's pages for
    ``smaps_rollup`` (three processes of a 1 GB log run). Every 50 ms that took ~7 % of a 2-core
    machine away from the run it measured; every 200 ms it takes under 2 %. A process's own
    peak is exact at any interval (``VmHWM``); only the sum over processes is sampled, and
    kafkadiag's memory plateaus last longer than that.
    """

    def __init__(self, pid: int, interval: float = 0.2) -> None:
        self.pid, self.interval, self.peak, self.peak_rss = pid, interval, 0.0, 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            pids = _tree(self.pid)
            self.peak = max(self.peak, _pss_mb(pids))
            self.peak_rss = max([self.peak_rss, *(_hwm_mb(p) for p in pids)])
            self._stop.wait(self.interval)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak


_OWN_CMDLINE = Path("/proc/self/cmdline").read_bytes() if Path("/proc/self/cmdline").exists() else b""


def _hwm_mb(pid: int) -> float:
    """The peak resident size of the process's current image (0 once it is gone, or while it is
    still this harness's image between fork and exec)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            if handle.read() == _OWN_CMDLINE:
                return 0.0
        with open(f"/proc/{pid}/status") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def run_timed(cmd: list[str], devnull: bool = True) -> Run:
    """Run `cmd`, return wall time, exit code, this child's own peak RSS (wait4) and its output.

    GNU grep stops at the first match when its stdout is /dev/null, so grep writes to a file.
    """
    with tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL if devnull else out, stderr=err)
        sampler = PssSampler(proc.pid)
        _, status, usage = os.wait4(proc.pid, 0)
        pss = sampler.stop()
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        out.seek(0)
        tail = err.read()[-4000:].decode("utf-8", "replace")
        stdout = out.read(4000).decode("utf-8", "replace")
    # The sampled high-water mark, not ``usage.ru_maxrss`` (see PssSampler); a process that lives
    # less than one sampling interval (grep) shows its RSS at exit through ru_maxrss after all.
    rss = sampler.peak_rss or usage.ru_maxrss / 1024.0
    return Run(seconds, proc.returncode, rss, usage.ru_utime + usage.ru_stime, tail, stdout, pss)


def dump_path(era: str, size: int, seed: int) -> Path:
    return OUT / f"bulk-{era}-{size}-seed{seed}.txt"


def cached_summary(path: Path, era: str, size: int, seed: int) -> dict | None:
    """The generator summary of a kept dump, if it matches what is asked for."""
    meta = Path(str(path) + ".expected.json")
    if not (path.exists() and meta.exists()):
        return None
    try:
        s = json.loads(meta.read_text())
    except ValueError:
        return None
    same = (s.get("format") == GENERATOR_FORMAT and s.get("era") == era and s.get("seed") == seed
            and s.get("requested_bytes") == size and s.get("bytes") == path.stat().st_size and "end_time" in s)
    return s if same else None


def ensure_dump(era: str, size: int, seed: int) -> tuple[Path, dict, bool]:
    """Reuse a kept dump or generate a new one; returns (path, summary, reused)."""
    OUT.mkdir(parents=True, exist_ok=True)
    path = dump_path(era, size, seed)
    summary = cached_summary(path, era, size, seed)
    if summary is not None:
        print(f"reusing {path.relative_to(HERE.parent)} ({summary['bytes'] / 1e6:,.0f} MB)")
        return path, summary, True
    print(f"generating {size / 1e6:,.0f} MB dump (era {era}, seed {seed}) ...", flush=True)
    summary = generate_bulk(path, size, era=era, seed=seed)
    print(f"  {summary['bytes'] / 1e6:,.0f} MB in {summary['seconds']:.1f}s ({summary['mb_per_s']} MB/s)")
    return path, summary, False


def find_kafkadiag() -> str | None:
    """`kafkadiag` on PATH, else next to this interpreter (a venv's bin/); its modules byte-compiled."""
    byte_compile_checkout()
    found = shutil.which("kafkadiag")
    if found:
        return found
    local = Path(sys.executable).parent / "kafkadiag"
    return str(local) if local.exists() else None


def byte_compile_checkout() -> None:
    """Byte-compile this checkout's package, as ``pip install`` does for an installed one.

    An editable install (or ``PYTHONDONTWRITEBYTECODE`` set) would otherwise compile every module
    from source in every timed run: about 0.1 s per command that no installed copy pays.
    """
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(HERE.parent / "kafkadiag")], env=env,
                   stdout=subprocess.DEVNULL, check=False)


def measure(path: Path, runs: int) -> dict:
    """Time grep and kafkadiag on the dump, alternating; raises SystemExit(1) when kafkadiag cannot run."""
    exe = find_kafkadiag()
    if exe is None:
        print("FAIL: the `kafkadiag` command was not found (install the package: pip install -e .)", file=sys.stderr)
        sys.exit(1)
    greps: list[Run] = []
    kds: list[Run] = []
    for _ in range(runs):
        grep = run_timed(["grep", "-c", "endTxnMarker", str(path)], devnull=False)
        if grep.returncode not in (0, 1) or not grep.stdout.strip().isdigit():
            sys.exit(f"grep failed (exit {grep.returncode}): {grep.stderr.strip()}")
        greps.append(grep)
        kd = run_timed([exe, "analyze", "--format", "json", "-o", str(REPORT), str(path)])
        if kd.returncode not in (0, 1):
            print(f"FAIL: `kafkadiag analyze --format json {path.name}` exited with {kd.returncode}", file=sys.stderr)
            print(kd.stderr.rstrip()[-2000:], file=sys.stderr)
            sys.exit(1)
        kds.append(kd)
    grep = min(greps, key=lambda r: r.seconds)
    best = min(kds, key=lambda r: r.seconds)
    report = json.loads(REPORT.read_text())
    REPORT.unlink(missing_ok=True)
    return {"observed": observed(report, "dump"),"grep": grep, "grep_count": int(grep.stdout.strip()), "kafkadiag": best, "runs": runs,
            "kafkadiag_seconds_all": [round(r.seconds, 3) for r in kds], "grep_seconds_all": [round(r.seconds, 3) for r in greps],
            "kafkadiag_rss_mb": max(r.max_rss_mb for r in kds), "kafkadiag_pss_mb": max(r.peak_pss_mb for r in kds),
            "kafkadiag_exit": best.returncode}


def results_doc(path: Path, summary: dict, m: dict, reused: bool) -> dict:
    """results.json: sizes, times, throughput, ratio, RSS, targets and verdicts."""
    size = path.stat().st_size
    mb = size / 1e6
    grep, kd = m["grep"], m["kafkadiag"]
    ratio = kd.seconds / max(grep.seconds, 1e-9)
    # The memory figure is the larger of the biggest single process's peak RSS and the peak of
    # all kafkadiag processes' PSS summed (sampled): neither parallel reading nor sampling hides memory.
    rss = max(m["kafkadiag_rss_mb"], m["kafkadiag_pss_mb"])
    truth = dump_truth([summary])
    mismatches = compare(truth, m["observed"])
    return {
        "truth": truth, "observed": m["observed"], "mismatches": mismatches,
        "file": str(path.relative_to(HERE.parent)), "bytes": size, "mb": round(mb, 1), "reused_dump": reused,
        "era": summary["era"], "seed": summary["seed"],
        "generator": {"seconds": summary["seconds"], "mb_per_s": summary["mb_per_s"]},
        "grep": {"command": "grep -c endTxnMarker FILE", "runs": m["runs"], "seconds": round(grep.seconds, 3),
                 "all_seconds": m["grep_seconds_all"],
                 "mb_per_s": round(mb / max(grep.seconds, 1e-9), 1), "count": m["grep_count"],
                 "true_markers": summary.get("endTxnMarker_lines")},
        "kafkadiag": {"command": "kafkadiag analyze --format json FILE", "runs": m["runs"], "seconds": round(kd.seconds, 3),
                      "all_seconds": m["kafkadiag_seconds_all"], "cpu_seconds": round(kd.cpu_seconds, 2),
                      "mb_per_s": round(mb / max(kd.seconds, 1e-9), 1), "exit_code": m["kafkadiag_exit"],
                      "peak_rss_mb": round(m["kafkadiag_rss_mb"], 1), "peak_total_pss_mb": round(m["kafkadiag_pss_mb"], 1),
                      "peak_memory_mb": round(rss, 1)},
        "ratio": round(ratio, 2),
        "targets": {"max_ratio": MAX_RATIO, "max_rss_mb": MAX_RSS_MB},
        "pass": {"truth": not mismatches, "ratio": ratio <= MAX_RATIO, "rss": rss <= MAX_RSS_MB,
                 "all": not mismatches and ratio <= MAX_RATIO and rss <= MAX_RSS_MB},
        "host": {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()},
    }


def print_table(r: dict) -> None:
    ok = {True: "pass", False: "FAIL"}
    rows = [
        ("dump", f"{r['mb']:,.1f} MB", f"era {r['era']}" + (" (reused)" if r["reused_dump"] else "")),
        ("grep -c endTxnMarker", f"{r['grep']['seconds']:.2f} s", f"{r['grep']['mb_per_s']:,.1f} MB/s"),
        ("kafkadiag analyze", f"{r['kafkadiag']['seconds']:.2f} s",
         f"{r['kafkadiag']['mb_per_s']:,.1f} MB/s, {r['kafkadiag']['cpu_seconds']:.2f} s CPU"),
        ("ratio kafkadiag/grep", f"{r['ratio']:.2f}", f"target <= {MAX_RATIO:g}: {ok[r['pass']['ratio']]}"),
        ("kafkadiag peak memory", f"{r['kafkadiag']['peak_memory_mb']:,.0f} MB",
         f"RSS {r['kafkadiag']['peak_rss_mb']:,.0f} MB, all processes' PSS {r['kafkadiag']['peak_total_pss_mb']:,.0f} MB; "
         f"target <= {MAX_RSS_MB:g} MB: {ok[r['pass']['rss']]}"),
    ]
    rows.append(("report against the truth", ok[r["pass"]["truth"]], "; ".join(r["mismatches"]) or
                 "batches, committed, aborted, open and the HNG002/HNG009/TMO004 findings as generated"))
    width = max(len(a) for a, _, _ in rows)
    for a, b, c in rows:
        print(f"  {a:<{width}}  {b:>12}  {c}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="1GB", help="dump size (default 1GB)")
    p.add_argument("--era", default="3.3", help="Kafka era of the dump text (default 3.3)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep", action="store_true", help="keep the dump under benchmarks/out/ for later runs")
    p.add_argument("--runs", type=int, default=3, help="timed runs of each command, alternating (default 3)")
    args = p.parse_args(argv)
    try:
        size, _ = parse_size(args.size), get_era(args.era)
    except (KeyError, ValueError) as exc:
        print(f"run.py: {exc}", file=sys.stderr)
        return 2
    path, summary, reused = ensure_dump(args.era, size, args.seed)
    try:
        m = measure(path, max(1, args.runs))
        r = results_doc(path, summary, m, reused)
    finally:
        if not (args.keep or reused):
            path.unlink(missing_ok=True)
            Path(str(path) + ".expected.json").unlink(missing_ok=True)
    (OUT / "results.json").write_text(json.dumps(r, indent=1) + "\n")
    print_table(r)
    print(f"results: {(OUT / 'results.json').relative_to(HERE.parent)}")
    return 0 if r["pass"]["all"] else 1


if __name__ == "__main__":
    sys.exit(main())
