"""The same inputs named in another order give the same findings, evidence and ids.

Before: a grouped warning (MIS001, ids used once) listed its evidence in input order and cut it
at six lines, so shuffling the files on the command line changed which lines it cited.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every case in every input order

ROOT = Path(__file__).resolve().parents[2]


def _findings(paths: list[Path]) -> list[dict]:
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", "--format", "json", "--fail-on", "never",
                           "--now", "2030-01-01T00:00:00Z", *map(str, paths)], capture_output=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)["findings"]


@pytest.mark.parametrize("folder", ["fixtures/cases/mixed-2.4.1/input", "fixtures/logs"])
def test_findings_do_not_depend_on_the_order_of_the_inputs(folder: str) -> None:
    files = sorted((ROOT / folder).iterdir())
    given = _findings(files)
    assert given
    for seed in (1, 2):
        shuffled = files[:]
        random.Random(seed).shuffle(shuffled)
        assert _findings(shuffled) == given, f"order {seed} changed the findings"
