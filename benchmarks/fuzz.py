"""Run the fuzz suite long and at random, by hand: ``python benchmarks/fuzz.py --examples 2000``.

The suite itself (``tests/fuzz``) runs in CI with a bounded, reproducible number of examples.
Here every property gets ``--examples`` random examples per round, for ``--rounds`` rounds (a
new random seed each round), and the script prints how many inputs each property tried and
which failed. A failure prints Hypothesis's shrunk example and a ``@reproduce_failure`` blob to
paste above the test. Exit status 0 when every round passed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_round(examples: int, selection: str | None) -> tuple[bool, dict[str, int], str]:
    """One pytest run of the fuzz suite; (passed, examples tried per property, output)."""
    env = {**os.environ, "KAFKADIAG_FUZZ_EXAMPLES": str(examples), "KAFKADIAG_FUZZ_RANDOM": "1"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/fuzz",
           "--hypothesis-show-statistics"]
    if selection:
        cmd += ["-k", selection]
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    tried: dict[str, int] = {}
    current = ""
    for line in proc.stdout.splitlines():
        name = re.match(r"tests/fuzz/\S+::(\S+):", line.strip())
        if name:
            current = name.group(1)
        count = re.search(r"- (\d+) passing, (\d+) failing, and (\d+) invalid test cases", line)
        if count and current:
            tried[current] = tried.get(current, 0) + sum(int(g) for g in count.groups() if g)
    return proc.returncode == 0, tried, proc.stdout + proc.stderr


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=1000, help="examples per property per round (default 1000)")
    p.add_argument("--rounds", type=int, default=1, help="rounds, each with a new random seed (default 1)")
    p.add_argument("-k", dest="selection", help="only the properties whose name matches (pytest -k)")
    args = p.parse_args()
    totals: dict[str, int] = {}
    failed = 0
    started = time.monotonic()
    for round_no in range(1, args.rounds + 1):
        ok, tried, output = run_round(args.examples, args.selection)
        for name, n in tried.items():
            totals[name] = totals.get(name, 0) + n
        print(f"round {round_no}: {'passed' if ok else 'FAILED'} ({sum(tried.values()):,} inputs)", flush=True)
        if not ok:
            failed += 1
            print(output[-6000:])
    print(f"\n{sum(totals.values()):,} inputs in {time.monotonic() - started:.0f} s, {failed} failed round(s)")
    for name, n in sorted(totals.items()):
        print(f"  {n:>8,}  {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
