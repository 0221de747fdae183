"""Per-input overhead: ``kafkadiag analyze`` on a folder of many small dumps, by hand.

``python benchmarks/many_files.py --files 50000`` writes (or reuses) ``benchmarks/out/many-<N>/``:
N copies of one small healthy partition dump (a committed transaction, ~2.5 KB), each for its
own partition, and with ``--findings`` a second folder where every file also holds a fenced
producer (one finding per file, all of one producer id: what makes correlation work hard). It
times the analysis against ``cat`` of the same files (the cost of opening and reading them) and
prints milliseconds per file. Target: 50,000 files in under a minute.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
HEALTHY = ROOT / "fixtures" / "cases" / "commit-4.1" / "input" / "orders-2.log.txt"
FENCED = ROOT / "fixtures" / "cases" / "seed-two-instances" / "input"


def healthy_text() -> str:
    """The partition dump up to its first COMMIT marker: one committed transaction."""
    lines = []
    for line in HEALTHY.read_text().split("\n"):
        lines.append(line)
        if "endTxnMarker: COMMIT" in line:
            break
    return "\n".join(lines) + "\n"


def fenced_text() -> str:
    return next(iter(sorted(FENCED.iterdir()))).read_text()


def write_folder(folder: Path, count: int, text: str, topic: str) -> None:
    marker = folder / ".complete"
    if marker.is_file() and marker.read_text() == str(count):
        return
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        (folder / f"p{i:06d}.log.txt").write_text(text.replace(topic, f"{topic}{i}"))
    marker.write_text(str(count))


def timed(cmd: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd[:3])} failed ({proc.returncode}): {proc.stderr.decode()[-300:]}")
    return seconds, proc.returncode


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--files", type=int, default=50_000)
    p.add_argument("--findings", action="store_true", help="also a folder in which every file has a finding")
    args = p.parse_args()
    kafkadiag = [sys.executable, "-m", "kafkadiag.cli", "analyze", "--format", "json", "--fail-on", "never"]
    folders = {"healthy": (OUT / f"many-{args.files}", healthy_text(), "orders-2")}
    if args.findings:
        folders["one finding each"] = (OUT / f"many-fenced-{args.files}", fenced_text(), "Topic-Test")
    results = {}
    for label, (folder, text, topic) in folders.items():
        write_folder(folder, args.files, text, topic)
        files = sorted(str(f) for f in folder.glob("*.log.txt"))
        cat_s = 0.0
        for start in range(0, len(files), 2000):  # cat's argument list in slices
            cat_s += timed(["cat", *files[start:start + 2000]])[0]
        seconds, _ = timed([*kafkadiag, str(folder)])
        results[label] = {"files": len(files), "seconds": round(seconds, 2), "cat_seconds": round(cat_s, 2),
                          "ms_per_file": round(1000 * seconds / len(files), 3)}
        print(f"{label:>18}: {len(files):,} files in {seconds:.1f} s ({1000 * seconds / len(files):.2f} ms per file; "
              f"cat {cat_s:.1f} s)", flush=True)
    target_ok = all(r["seconds"] < 60 * r["files"] / 50_000 for r in results.values())
    print(f"target: 50,000 files in under a minute (scaled to the count): {'pass' if target_ok else 'FAIL'}")
    (OUT / "many-files-results.json").write_text(json.dumps(results, indent=2))
    return 0 if target_ok else 1


if __name__ == "__main__":
    sys.exit(main())
