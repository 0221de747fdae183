"""Helpers for config lint tests: run ``kafkadiag lint`` in-process or as a real process.

Test modules get helpers only through fixtures (the suite runs with --import-mode=importlib)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "lint"
DATA = Path(__file__).resolve().parent / "data"


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> dict:
        return json.loads(self.out)

    def rules(self) -> set[str]:
        return {f["rule"] for f in self.json()["findings"]}


class Lint:
    """``lint(args, cwd=...)`` in-process; ``lint.process(args, cwd=...)`` through ``python -m kafkadiag.cli``."""

    def __call__(self, args: list[str], cwd: Path | None = None) -> Run:
        from kafkadiag.cli import app

        old = Path.cwd()
        os.chdir(cwd or old)
        try:
            result = CliRunner().invoke(app, ["lint", *args])
        finally:
            os.chdir(old)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return Run(result.exit_code, result.stdout, result.stderr)

    def process(self, args: list[str], cwd: Path | None = None) -> Run:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "lint", *args], cwd=cwd or ROOT,
                              capture_output=True, text=True, env=env, timeout=120)
        return Run(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def lint() -> Lint:
    return Lint()


def case_args(case: Path) -> list[str]:
    args = case / "case.args"
    return args.read_text().split() if args.is_file() else []


@pytest.fixture
def copy_case(tmp_path):
    """Copy ``fixtures/lint/<RULE>/<kind>`` into a temporary directory; returns (dir, extra args)."""

    def copy(rule: str, kind: str = "fail") -> tuple[Path, list[str]]:
        src = FIXTURES / rule / kind
        dst = tmp_path / rule / kind
        shutil.copytree(src, dst)
        return dst, case_args(dst)

    return copy


@pytest.fixture
def write(tmp_path):
    """Write files into a fresh directory: ``write({"a.properties": "..."})`` → the directory."""
    counter = {"n": 0}

    def make(files: dict[str, str]) -> Path:
        counter["n"] += 1
        folder = tmp_path / f"w{counter['n']}"
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return folder

    return make
