"""Many small inputs, each with its own incident, through the whole pipeline: each keeps its own finding.

Every per-input step (sniffing, reading, reduction, facts per topic, rules, correlation) runs
hundreds of times; no input's finding may be lost or merged into another's. What a folder of
50,000 dumps costs is measured by ``benchmarks/many_files.py``; that correlation does not compare
every pair is counted in ``test_correlate.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine.local import LocalRunner, analyze
from kafkadiag.ruleset import load_rules

pytestmark = pytest.mark.slow  # hundreds of inputs, twice

ROOT = Path(__file__).resolve().parents[2]
FENCED = next(iter(sorted((ROOT / "fixtures" / "cases" / "seed-two-instances" / "input").iterdir()))).read_text()
RULES = load_rules()


def _folder(root: Path, count: int) -> Path:
    folder = root / f"n{count}"
    folder.mkdir()
    for i in range(count):
        (folder / f"p{i:05d}.log.txt").write_text(FENCED.replace("Topic-Test", f"topic{i}"))
    return folder


def test_every_input_keeps_its_own_finding(tmp_path: Path) -> None:
    for count in (150, 600):
        result = analyze([str(_folder(tmp_path, count))], RULES, EffectiveConfig.defaults(),
                         runner=LocalRunner(reduce_logs=True))
        assert len(result.findings) == count  # one fencing finding per partition
        assert {f.subject.topic for f in result.findings} == {f"topic{i}" for i in range(count)}
