"""Log rows reduced while reading (``engine.log_compact``) give the findings every row gives: the
same rules, messages, counts, evidence and correlations, on the fixtures' logs and the real cases."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import pytest
import yaml

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine import log_compact
from kafkadiag.engine.local import LocalRunner, analyze
from kafkadiag.ruleset import load_rules

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
RULES = load_rules()


def _cases() -> list[tuple[str, list[str]]]:
    cases = [("logs", [str(FIXTURES / "logs")]), ("clients", [str(FIXTURES / "clients")])]
    for case in sorted((FIXTURES / "real").iterdir()):
        spec = case / "case.yaml"
        if spec.is_file():
            files = [str(case / f) for f in yaml.safe_load(spec.read_text())["files"]]
            if any(f.endswith((".log", ".txt", ".md", ".jsonl")) for f in files):
                cases.append((f"real/{case.name}", files))
    return cases


def _report(paths: list[str]) -> tuple:
    result = analyze(paths, RULES, EffectiveConfig.defaults(), now_ms=1_900_000_000_000,
                     runner=LocalRunner(reduce_logs=True, parallel=False))
    return [asdict(f) for f in result.findings]


@pytest.mark.parametrize("name, paths", _cases(), ids=[c[0] for c in _cases()])
def test_reduced_log_rows_give_the_findings_of_every_row(name: str, paths: list[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(log_compact, "COMPACT_ROWS", 10**9)  # never reached: every row kept
    every_row = _report(paths)
    monkeypatch.setattr(log_compact, "COMPACT_ROWS", 3)  # reduced every few rows, and reduced again
    assert _report(paths) == every_row


def test_a_broker_log_with_thousands_of_coordinator_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows kept are bounded while the findings (counts in their messages included) stay those of every row."""
    import sys

    sys.path.insert(0, str(ROOT / "tests" / "logs"))
    import brokergen

    log = tmp_path / "server.log"
    with log.open("w") as out:
        brokergen.write_broker_log(out, 8, seed=3)
    kept: list[int] = []
    original = log_compact.LogCompactor.finish

    def finish(self):
        rows, counts = original(self)
        kept.append(sum(len(r) for r in rows))
        return rows, counts

    monkeypatch.setattr(log_compact.LogCompactor, "finish", finish)
    monkeypatch.setattr(log_compact, "COMPACT_ROWS", 10**9)
    every_row = _report([str(log)])
    monkeypatch.setattr(log_compact, "COMPACT_ROWS", 200)
    assert _report([str(log)]) == every_row
    assert every_row
    assert kept[1] < kept[0], kept  # only what findings show: at scale a few rows per group, not a row per line
    print(kept)  # the rows a finding shows, a few per group
