"""A configuration the parsers cannot take safely is refused in one line, never a crash.

Before: a YAML config nested 50,000 brackets deep or a JSON config 50,000 objects deep made
``lint`` exit 3 (RecursionError), and ``analyze`` reported the JSON one as a failed reader.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

DEEP = {
    "application.yml": "spring:\n  kafka: " + "[" * 50_000 + "\n",
    "producer.json": '{"a":' * 50_000 + "1" + "}" * 50_000,
}


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafkadiag.cli", *args], capture_output=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("name", sorted(DEEP))
def test_a_deeply_nested_config_is_refused_in_one_line(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(DEEP[name])
    lint = _run("lint", str(path))
    err = lint.stderr.decode()
    assert lint.returncode == 2, err
    assert f"{name}: nested deeper than 200 levels" in err and "internal error" not in err
    analyze = _run("analyze", "--format", "json", str(path))
    assert analyze.returncode in (0, 2), analyze.stderr.decode()  # read as text or nothing readable: no crash
    assert "internal error" not in analyze.stderr.decode() and "reader failed" not in analyze.stderr.decode()
