"""Every analyze rule has a failing and a passing fixture, and each behaves as named.

fixtures/rules/<ID>/fail/ holds realistic evidence (kafka-dump-log.sh text, client, broker or tool
logs) on which rule <ID> must fire; fixtures/rules/<ID>/pass/ holds its nearest healthy look-alike
(the same transaction committed in time, a retried warning that recovered, a transaction protocol
v2 epoch bump), on which it must not. An optional fixtures/rules/<ID>/args file holds extra
`kafkadiag analyze` options for both runs, one option per line; paths in it are relative to the
rule's folder, which is the working directory of the run.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kafkadiag.ruleset import load_rules

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rules"
ANALYZE_RULES = sorted(r.id for r in load_rules() if r.table != "configs")
KINDS = ("fail", "pass")

#: Rules that cannot fire on any realistic input yet (a bug): rule id -> reason. Their fixture is
#: written as it should be and the failing case is a strict xfail, so a fix shows up at once.
CANNOT_FIRE: dict[str, str] = {}


def _args(rule: str) -> list[str]:
    path = FIXTURES / rule / "args"
    if not path.is_file():
        return []
    out: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            out += shlex.split(line)
    return out


def _analyze(rule: str, kind: str, monkeypatch: pytest.MonkeyPatch) -> dict:
    from kafkadiag.cli import app

    if not (FIXTURES / rule / kind).is_dir():
        pytest.fail(f"no fixture fixtures/rules/{rule}/{kind}/")
    monkeypatch.chdir(FIXTURES / rule)
    result = CliRunner().invoke(app, ["analyze", "--format", "json", "--fail-on", "never", *_args(rule), kind])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    unread = [(i["path"], i["kind"], i["skipped"]) for i in report["inputs"] if i["skipped"] or not i["kind"]]
    assert not unread, f"fixture lines kafkadiag does not read: {unread}"
    return report


def _failing_cases() -> list:
    return [
        pytest.param(rule, marks=pytest.mark.xfail(strict=True, reason=CANNOT_FIRE[rule]))
        if rule in CANNOT_FIRE else rule
        for rule in ANALYZE_RULES
    ]


def test_every_analyze_rule_has_fixtures() -> None:
    assert ANALYZE_RULES, "no analyze rules loaded"
    missing = [
        f"{rule}/{kind}" for rule in ANALYZE_RULES for kind in KINDS
        if not (FIXTURES / rule / kind).is_dir() or not any(p.is_file() for p in (FIXTURES / rule / kind).rglob("*"))
    ]
    assert not missing, f"analyze rules without a fail/ or pass/ fixture: {missing}"
    unknown = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name not in ANALYZE_RULES)
    assert not unknown, f"fixture folders that name no analyze rule: {unknown}"
    for rule in ANALYZE_RULES:
        extra = sorted(p.name for p in (FIXTURES / rule).iterdir() if p.name not in (*KINDS, "args") and p.is_dir())
        assert not extra, f"{rule}: unexpected folders {extra}"
        args = FIXTURES / rule / "args"
        if args.is_file():
            lines = [ln.strip() for ln in args.read_text(encoding="utf-8").splitlines()]
            options = [ln for ln in lines if ln and not ln.startswith("#")]
            assert all(ln.startswith("--") for ln in options), f"{rule}/args: one option a line"


@pytest.mark.parametrize("rule", _failing_cases())
def test_failing_fixture_fires_the_rule(rule: str, monkeypatch: pytest.MonkeyPatch) -> None:
    report = _analyze(rule, "fail", monkeypatch)
    fired = [f for f in report["findings"] if f["rule"] == rule]
    assert fired, (rule, sorted({f["rule"] for f in report["findings"]}))
    for finding in fired:
        assert finding["evidence"], finding["id"]
        for ev in finding["evidence"]:
            assert ev["line"] >= 1 and ev["text"], ev
            assert (FIXTURES / rule / ev["file"]).is_file(), ev["file"]


@pytest.mark.parametrize("rule", ANALYZE_RULES)
def test_passing_fixture_does_not_fire_the_rule(rule: str, monkeypatch: pytest.MonkeyPatch) -> None:
    report = _analyze(rule, "pass", monkeypatch)
    fired = [f["message"] for f in report["findings"] if f["rule"] == rule]
    assert not fired, (rule, fired)


# ------------------------------------------------------------------------------------------
# Every fix and runbook step a rule renders can be pasted: a value is a value (the reasoning goes
# in ``reason``), and a command has all its arguments, filled from the evidence or an explicit
# ``<PLACEHOLDER>``.

import re  # noqa: E402

#: A value a .properties line can hold: no whitespace (a number, a word, a placeholder, a list).
VALUE = re.compile(r"^[^\s]+$")
#: ``--flag`` with nothing after it, or followed by another flag: an argument the evidence lacked.
EMPTY_ARGUMENT = re.compile(r"(?:^|\s)--[a-z][a-z-]*(?:=(?:\s|$)|\s*$|\s+--)")
KNOWN_FLAGS_WITHOUT_VALUE = ("--describe", "--all", "--under-replicated-partitions", "--list", "--execute", "--add",
                             "--unavailable-partitions", "--under-min-isr-partitions", "--transaction-log-decoder",
                             "--print-data-log", "--deep-iteration")
#: A template placeholder left in the text (``${random.uuid}`` in advice is not one).
UNFILLED = re.compile(r"(?<![$\w])\{[a-z_.]+(?:\|[a-z]+)?\}")


@pytest.mark.parametrize("rule", [rule for rule in ANALYZE_RULES if rule not in CANNOT_FIRE])
def test_fixes_are_values_and_commands_have_their_arguments(rule: str, monkeypatch: pytest.MonkeyPatch) -> None:
    report = _analyze(rule, "fail", monkeypatch)
    findings = [f for f in report["findings"] if f["rule"] == rule]
    assert findings
    for f in findings:
        for rec in f["recommendations"]:
            assert rec["value"] and VALUE.match(rec["value"]), f"{rule}: {rec['config']}={rec['value']!r} is not a value"
            assert rec["reason"].strip(), f"{rule}: {rec['config']} without a reason"
        for step in f["runbook"]:
            text = step
            for flag in KNOWN_FLAGS_WITHOUT_VALUE:
                text = text.replace(flag, "")
            assert not EMPTY_ARGUMENT.search(text), f"{rule}: a runbook command lacks an argument: {step!r}"
            assert not UNFILLED.search(step) and "None" not in step.split(), f"{rule}: an unfilled template: {step!r}"
