"""Both engines give the same report on every fixture and on every simulated incident of every era.

The whole JSON report is compared (findings with rule, category, severity, subject, evidence
file, line and text, fixes; the inputs table; the summary counts), except the line that says
which engine ran. Both runs go through the command line, in-process, from the case's folder.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
sys.path.insert(0, str(ROOT / "benchmarks"))
import simulate  # noqa: E402

ERAS = ["0.11", "1.1", "2.0", "2.1", "2.4", "2.4.1", "2.8", "3.0", "3.3", "3.5", "4.0", "4.1"]
SCENARIOS = [
    "commit", "client-abort", "fencing", "timeout", "hanging", "lost-marker", "expiration", "expired-zombie",
    "unstable-ids", "sequence-gap", "sequence-duplicate", "restart", "txnlog-compaction", "invalid-transition", "mixed",
]


def _rule_args(folder: Path) -> list[str]:
    path = folder / "args"
    if not path.is_file():
        return []
    return [a for line in path.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")
            for a in shlex.split(line)]


def fixture_cases() -> list:
    """(id, working directory, analyze arguments) for every fixture the tool is tested on."""
    cases = []
    for case in sorted((FIXTURES / "cases").iterdir()):
        expected = json.loads((case / "expected.json").read_text())
        cases.append(pytest.param(case, [*expected.get("args", []), "input"], id=f"cases/{case.name}"))
    for rule in sorted((FIXTURES / "rules").iterdir()):
        for kind in ("fail", "pass"):
            if (rule / kind).is_dir():
                cases.append(pytest.param(rule, [*_rule_args(rule), kind], id=f"rules/{rule.name}/{kind}"))
    for case in sorted((FIXTURES / "real").iterdir()):
        if (case / "case.yaml").is_file():
            files = list(yaml.safe_load((case / "case.yaml").read_text())["files"])
            cases.append(pytest.param(case, files, id=f"real/{case.name}"))
    for case in sorted((FIXTURES / "clients").iterdir()):
        if (case / "input").is_dir():
            cases.append(pytest.param(case, ["input"], id=f"clients/{case.name}"))
    for folder in ("logs", "readers"):
        cases.append(pytest.param(FIXTURES / folder, ["."], id=folder))
    return cases


def run(cwd: Path, args: list[str], engine: list[str], monkeypatch: pytest.MonkeyPatch) -> dict:
    from kafkadiag.cli import app

    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(app, ["analyze", "--format", "json", "--fail-on", "never", *engine, *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code in (0, 2, 3), result.output
    report = json.loads(result.stdout) if result.stdout.strip() else {}
    report.get("summary", {}).pop("engine", None)
    report["notes"] = [n for n in report.get("notes", []) if not n.startswith("engine:")]
    return report


def assert_same(cwd: Path, args: list[str], master: str, monkeypatch: pytest.MonkeyPatch) -> None:
    local = run(cwd, args, ["--engine", "local"], monkeypatch)
    spark = run(cwd, args, ["--engine", "spark", "--master", master], monkeypatch)
    assert spark["findings"] == local["findings"]
    assert spark == local


@pytest.mark.parametrize("cwd,args", fixture_cases())
def test_fixture(cwd: Path, args: list[str], spark_ready: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert_same(cwd, args, spark_ready, monkeypatch)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sim")
    for era in ERAS:
        for scenario in SCENARIOS:
            simulate.generate(scenario, era, out / era / scenario, seed=1)
    return out


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_simulated(era: str, scenario: str, simulated: Path, spark_ready: str, monkeypatch: pytest.MonkeyPatch) -> None:
    case = simulated / era / scenario
    inputs = sorted(p.name for p in case.iterdir() if p.name != "expected.json" and not p.name.endswith(".stderr.txt"))
    assert_same(case, inputs, spark_ready, monkeypatch)
