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


@pytest.mark.parametrize("command, names", [
    ("analyze", ["PATH", "FILE", "DIR", "RULES", "TIME", "TOPIC-N", "HOST:PORT", "URL", "KEY=VALUE"]),
    ("timeline", ["PATH", "ID", "PRODUCER_ID", "N", "FILE", "TIME", "TOPIC-N"]),
    ("lint", ["PATH", "DIR", "RULES", "FILE", "VERSION"]),
])
def test_help_names_what_each_option_takes(command: str, names: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", command, "--help"], capture_output=True, text=True,
                          cwd=ROOT, env={"COLUMNS": "200", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    for name in names:
        assert f" {name} " in proc.stdout, name
    assert "<list[str]>  " not in proc.stdout.split("Options")[1]  # options that take values say what


def _completion(env: dict[str, str]) -> subprocess.CompletedProcess:
    """The program as its console script runs it (named ``kafkadiag``), with click's completion variables set."""
    code = "import sys; sys.argv = ['kafkadiag']; from kafkadiag.entry import main; main()"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={"PATH": "/usr/bin:/bin", **env})


def test_shell_completion_is_typers_own() -> None:
    # The script a shell sources (what --install-completion writes), then completions as bash asks for them.
    script = _completion({"_KAFKADIAG_COMPLETE": "source_bash"})
    assert script.returncode == 0 and "complete " in script.stdout and "COMP_WORDS" in script.stdout, script.stderr
    command = _completion({"_KAFKADIAG_COMPLETE": "complete_bash", "COMP_WORDS": "kafkadiag ana", "COMP_CWORD": "1"})
    assert command.stdout.split() == ["analyze"], command.stderr
    option = _completion({"_KAFKADIAG_COMPLETE": "complete_bash", "COMP_WORDS": "kafkadiag analyze --for",
                          "COMP_CWORD": "2"})
    assert option.stdout.split() == ["--format"], option.stderr
