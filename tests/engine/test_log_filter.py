"""Log events are reduced while they stream: only rows some rule may match are kept, and the
findings are exactly those of a run that kept every row."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine.local import LocalRunner, analyze
from kafkadiag.engine.log_filter import log_conditions, relax
from kafkadiag.ruleset import load_rules
from kafkadiag.ruleset.model import AllOf, AnyOf, Comparison, NotOf, Operand

pytestmark = pytest.mark.slow  # every case with and without log reduction

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
RULES = load_rules()


def _cmp(field: str, kind: str = "literal") -> Comparison:
    return Comparison(field, "gt", Operand(kind, "transaction.timeout.ms" if kind == "config" else 5))


def test_a_comparison_with_a_config_value_is_relaxed_to_may_match() -> None:
    plain, config = _cmp("timeout_ms"), _cmp("timeout_ms", "config")
    assert relax(plain) == plain
    assert relax(config) is None
    assert relax(AllOf((plain, config))) == AllOf((plain,))
    assert relax(AnyOf((plain, config))) is None
    assert relax(NotOf(config)) is None and relax(NotOf(plain)) == NotOf(plain)
    assert relax(AllOf((NotOf(AllOf((plain, config))), plain))) == AllOf((plain,))


def test_the_built_in_rules_can_reduce_logs() -> None:
    assert log_conditions(RULES)


def _inputs() -> list[tuple[str, list[Path]]]:
    cases = [("logs", [FIXTURES / "logs"]), ("clients", [FIXTURES / "clients"])]
    for case in sorted((FIXTURES / "real").iterdir()):
        spec = case / "case.yaml"
        if spec.is_file():
            cases.append((f"real/{case.name}", [case / f for f in yaml.safe_load(spec.read_text())["files"]]))
    return cases


def _findings(result) -> list[tuple]:
    return [(f.id, f.rule, f.message, [(e.file, e.line) for e in f.evidence], f.caused_by) for f in result.findings]


@pytest.mark.parametrize("name, paths", _inputs(), ids=[c[0] for c in _inputs()])
def test_reduced_logs_give_the_same_findings(name: str, paths: list[Path]) -> None:
    files = [str(p) for p in paths]
    whole = analyze(files, RULES, EffectiveConfig.defaults(), now_ms=1_900_000_000_000, runner=LocalRunner())
    reduced = analyze(files, RULES, EffectiveConfig.defaults(), now_ms=1_900_000_000_000,
                      runner=LocalRunner(reduce_logs=True))
    assert _findings(reduced) == _findings(whole)
    assert len(reduced.tables["log_events"]) <= len(whole.tables["log_events"])


def test_healthy_chatter_is_not_kept() -> None:
    log = FIXTURES / "logs" / "java_spring_boot.log"
    whole = analyze([str(log)], RULES, EffectiveConfig.defaults(), runner=LocalRunner())
    reduced = analyze([str(log)], RULES, EffectiveConfig.defaults(), runner=LocalRunner(reduce_logs=True))
    kept = reduced.tables["log_events"]
    assert 0 < len(kept) < len(whole.tables["log_events"])
    assert not any(re.search(r"Transition from state READY to IN_TRANSACTION", m) for m in kept["message"])
