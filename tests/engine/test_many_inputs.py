"""Many small inputs cost time in proportion to their number, through the whole pipeline.

A guard over every per-input step (sniffing, reading, reduction, facts per topic, rules,
correlation): four times the inputs must take about four times as long, not sixteen. What a
folder of 50,000 dumps costs in absolute terms is measured by ``benchmarks/many_files.py``;
the quadratic correlation found there has its own test in ``test_correlate.py``.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine.local import LocalRunner, analyze
from kafkadiag.ruleset import load_rules

pytestmark = pytest.mark.slow  # hundreds of inputs at two counts, compared

ROOT = Path(__file__).resolve().parents[2]
FENCED = next(iter(sorted((ROOT / "fixtures" / "cases" / "seed-two-instances" / "input").iterdir()))).read_text()
RULES = load_rules()


def _folder(root: Path, count: int) -> Path:
    folder = root / f"n{count}"
    folder.mkdir()
    for i in range(count):
        (folder / f"p{i:05d}.log.txt").write_text(FENCED.replace("Topic-Test", f"topic{i}"))
    return folder


def _seconds(folder: Path) -> tuple[float, int]:
    started = time.perf_counter()
    result = analyze([str(folder)], RULES, EffectiveConfig.defaults(), runner=LocalRunner(reduce_logs=True))
    return time.perf_counter() - started, len(result.findings)


def test_four_times_the_inputs_take_about_four_times_as_long(tmp_path: Path) -> None:
    small, large = _folder(tmp_path, 150), _folder(tmp_path, 600)
    _seconds(small)  # warm
    small_s, small_findings = min(_seconds(small) for _ in range(2))
    large_s, large_findings = min(_seconds(large) for _ in range(2))
    assert (small_findings, large_findings) == (150, 600)  # one fencing finding per partition
    ratio = large_s / small_s
    assert ratio < 10, f"4x the inputs took {ratio:.1f}x the time ({small_s:.2f}s -> {large_s:.2f}s)"
