"""Every bundled case as ``kafkadiag analyze`` arguments, and its JSON report: for tests that run
the same cases two ways (two engines, whole or bucketed facts) and compare the reports."""

from __future__ import annotations

import json
import shlex
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"


def rule_args(folder: Path) -> list[str]:
    path = folder / "args"
    if not path.is_file():
        return []
    return [a for line in path.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")
            for a in shlex.split(line)]


def fixture_cases() -> dict[str, tuple[Path, list[str]]]:
    """id -> (folder, analyze arguments relative to it) for every fixture case."""
    cases: dict[str, tuple[Path, list[str]]] = {}
    for case in sorted((FIXTURES / "cases").iterdir()):
        expected = json.loads((case / "expected.json").read_text())
        cases[f"cases/{case.name}"] = (case, [*expected.get("args", []), "input"])
    for rule in sorted((FIXTURES / "rules").iterdir()):
        for kind in ("fail", "pass"):
            if (rule / kind).is_dir():
                cases[f"rules/{rule.name}/{kind}"] = (rule, [*rule_args(rule), kind])
    for case in sorted((FIXTURES / "real").iterdir()):
        if (case / "case.yaml").is_file():
            cases[f"real/{case.name}"] = (case, list(yaml.safe_load((case / "case.yaml").read_text())["files"]))
    for case in sorted((FIXTURES / "clients").iterdir()):
        if (case / "input").is_dir():
            cases[f"clients/{case.name}"] = (case, ["input"])
    for folder in ("logs", "readers"):
        cases[folder] = (FIXTURES / folder, ["."])
    return cases


def absolute(folder: Path, args: list[str]) -> list[str]:
    """Arguments with the case's files as absolute paths; no arguments: every file the folder holds."""
    if not args:  # a simulated case: every file it wrote
        return sorted(str(p) for p in folder.iterdir() if p.name != "expected.json" and not p.name.endswith(".stderr.txt"))
    return [str(folder / a) if (folder / a).exists() else a for a in args]


def json_report(folder: Path, args: list[str], extra: list[str]) -> dict:
    """The JSON report of ``kafkadiag analyze`` on a case, without the line saying which engine ran."""
    import typer

    from kafkadiag.cli import app

    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        try:
            app(["analyze", "--format", "json", "--fail-on", "never", "-o", out.name, *extra, *absolute(folder, args)],
                standalone_mode=False)
        except (typer.Exit, SystemExit):
            pass
        text = Path(out.name).read_text()
    result = json.loads(text) if text.strip() else {}
    result.get("summary", {}).pop("engine", None)
    result["notes"] = [n for n in result.get("notes", []) if not n.startswith("engine:")]
    return result
