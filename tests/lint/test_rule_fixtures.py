"""Every config lint rule has a failing and a passing fixture, and each behaves as named."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafkadiag.ruleset import load_rules

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "lint"
LINT_RULES = sorted(r.id for r in load_rules() if r.table == "configs")


def _args(case: Path) -> list[str]:
    args = case / "case.args"
    return args.read_text().split() if args.is_file() else []


def test_every_lint_rule_has_fixtures():
    assert LINT_RULES, "no config lint rules loaded"
    missing = [r for r in LINT_RULES for kind in ("fail", "pass") if not (FIXTURES / r / kind).is_dir()]
    assert not missing
    assert sorted(p.name for p in FIXTURES.iterdir() if p.is_dir()) == LINT_RULES


@pytest.mark.parametrize("rule", LINT_RULES)
def test_failing_fixture_triggers_rule(rule, lint):
    case = FIXTURES / rule / "fail"
    run = lint([".", "--format", "json", *_args(case)], cwd=case)
    assert rule in run.rules(), run.out
    assert run.code == 1
    finding = next(f for f in run.json()["findings"] if f["rule"] == rule)
    assert finding["location"]["line"] >= 1 and finding["location"]["file"]
    assert (case / finding["location"]["file"]).is_file()


@pytest.mark.parametrize("rule", LINT_RULES)
def test_passing_fixture_does_not_trigger_rule(rule, lint):
    case = FIXTURES / rule / "pass"
    run = lint([".", "--format", "json", *_args(case)], cwd=case)
    assert rule not in run.rules(), run.out


def test_rules_are_documented():
    for rule in (r for r in load_rules() if r.table == "configs"):
        docs = rule.docs
        assert docs.what and docs.why and docs.example and docs.fix and docs.false_positives, rule.id
        assert rule.references, rule.id
        assert rule.source.startswith("rules/lint-"), rule.id
