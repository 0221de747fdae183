"""Partial gzip data is read and the damage is a warning; the exit code follows the findings.

Before: a gzip file with bytes after its end (a download with an error page appended, two tools
writing one file) gave its finding and then exit 2 "nothing readable", as did a truncated one.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DUMP = next(iter(sorted((ROOT / "fixtures" / "cases" / "seed-two-instances" / "input").iterdir())))


def _analyze(path: Path) -> tuple[int, dict | None, str]:
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", "--format", "json", str(path)],
                          capture_output=True, cwd=ROOT, timeout=120)
    out = json.loads(proc.stdout) if proc.stdout.strip() else None
    return proc.returncode, out, proc.stderr.decode()


@pytest.mark.parametrize("damage, said", [
    (lambda packed: packed + b"<html>502 Bad Gateway</html>\n", "trailing bytes after the gzip data"),
    (lambda packed: packed[:-12], "truncated gzip stream after"),
])
def test_partial_gzip_is_read_and_the_damage_is_a_warning(tmp_path: Path, damage, said: str) -> None:
    path = tmp_path / "orders-0.dump.gz"
    path.write_bytes(damage(gzip.compress(DUMP.read_bytes())))
    code, out, err = _analyze(path)
    assert code == 1, err  # the fencing finding, at the default --fail-on error
    assert out is not None and [f["rule"] for f in out["findings"] if f["severity"] == "error"] == ["FEN001"]
    (report,) = out["inputs"]
    assert said in report["damage"] and "error" not in report
    assert f"warning: {path}: {said}" in err and "nothing readable" not in err


def test_a_gzip_with_nothing_readable_is_still_an_error(tmp_path: Path) -> None:
    path = tmp_path / "header-only.gz"
    path.write_bytes(gzip.compress(DUMP.read_bytes())[:10])
    code, out, err = _analyze(path)
    assert code == 2
    assert "truncated gzip stream after 0 bytes" in err
