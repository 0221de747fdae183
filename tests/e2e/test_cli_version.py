"""``kafkadiag --version`` answers without loading the command line (typer, pandas, the rules)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from kafkadiag import __version__

ROOT = Path(__file__).resolve().parents[2]
CHECK = (
    "import sys; sys.argv = ['kafkadiag', {flag!r}]; from kafkadiag.entry import main; main(); "
    "heavy = [m for m in ('pandas', 'numpy', 'typer', 'kafkadiag.cli', 'kafkadiag.ruleset') if m in sys.modules]; "
    "print(heavy)"
)


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_the_version_loads_nothing_heavy(flag: str) -> None:
    proc = subprocess.run([sys.executable, "-c", CHECK.format(flag=flag)], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [f"kafkadiag {__version__}", "[]"]


def test_the_command_is_that_entry_point() -> None:
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["kafkadiag"] == "kafkadiag.entry:main"


def test_other_arguments_reach_the_command_line() -> None:
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.entry", "-V", "rules"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.strip() == f"kafkadiag {__version__}"  # typer's eager option
