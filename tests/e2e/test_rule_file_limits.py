"""A rule file the YAML parser cannot take safely is refused in one line (exit 2): too large, too
deeply nested (libyaml crashes the process past ~10,000 levels), or a number Python will not convert."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

HOSTILE = {
    "flow-brackets": "rules: " + "[" * 50_000 + "\n",
    "deep-blocks": "rules:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 3_000)),
    "huge-integer": "category: x\nrules:\n  - id: X001\n    min_count: " + "9" * 5_000 + "\n",
    "too-large": "# " + "x" * (1 << 20) + "\nrules: []\n",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_rule_file_is_one_line_exit_2(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / f"{name}.yaml").write_text(HOSTILE[name], encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "rules", "--rules", str(folder)],
                          capture_output=True, cwd=ROOT, timeout=120)
    err = proc.stderr.decode().strip()
    assert proc.returncode == 2, (proc.returncode, err[:300])
    assert len(err.splitlines()) == 1 and f"{name}.yaml" in err
    assert "internal error" not in err


def test_a_rule_link_to_a_file_outside_the_folder_is_not_read(tmp_path: Path) -> None:
    """Its errors would quote a file the user never named (a link to a secrets file)."""
    secret = tmp_path / "elsewhere" / "credentials"
    secret.parent.mkdir()
    secret.write_text("category: x\nDB_PASSWORD: hunter2\n")
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "linked.yaml").symlink_to(secret)
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "rules", "--rules", str(folder)],
                          capture_output=True, cwd=ROOT, timeout=120)
    err = proc.stderr.decode()
    assert proc.returncode == 2
    assert "a link to a file outside" in err and "hunter2" not in err and "DB_PASSWORD" not in err
    named = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "rules", "--rules", str(folder / "linked.yaml")],
                           capture_output=True, cwd=ROOT, timeout=120)
    assert named.returncode == 2 and "unknown" in named.stderr.decode()  # named by the user: read and judged
