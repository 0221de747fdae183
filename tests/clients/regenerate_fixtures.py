"""Re-record fixtures/clients/<scenario>/ from real librdkafka runs against the mock cluster.

Usage (from the repository root):

    .venv/bin/python tests/clients/regenerate_fixtures.py            # every scenario
    .venv/bin/python tests/clients/regenerate_fixtures.py fenced     # some of them

Each scenario folder gets ``input/librdkafka.log``, ``input/python-logging.log``,
``input/app.log`` and ``run.json`` (what happened in the run). Re-record after a confluent-kafka
/ librdkafka upgrade and review the diff: the log texts are what the readers and rules match.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.clients.scenarios import SCENARIOS  # noqa: E402

FIXTURES = ROOT / "fixtures" / "clients"


def regenerate(name: str) -> None:
    """Run one scenario into a fresh fixture folder (old files removed so none go stale)."""
    target = FIXTURES / name
    if target.exists():
        shutil.rmtree(target)
    started = time.monotonic()
    result = SCENARIOS[name](target)
    sizes = ", ".join(f"{p.name} {p.stat().st_size // 1024} KiB" for p in result.files.all())
    print(f"{name}: {time.monotonic() - started:.1f} s ({sizes})")


def main(argv: list[str]) -> int:
    names = argv or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario(s) {unknown}; known: {list(SCENARIOS)}", file=sys.stderr)
        return 2
    for name in names:
        regenerate(name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
