"""``--fix`` writes only regular files, never through a link, atomically and with the old mode; a
file or folder that cannot be read fails the lint (exit 2) instead of passing for complete.

Before: a symbolic link in the linted folder had the file it points to rewritten (anywhere on the
machine), the rewrite was done in place, and an unreadable config found in a folder was a note
with exit 0.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from kafkadiag.lint.discover import discover

BROKEN = "acks=1\nenable.idempotence=true\n"


def test_fix_never_writes_through_a_link_and_keeps_the_mode(tmp_path: Path, lint) -> None:
    outside = tmp_path / "elsewhere" / "producer.properties"
    outside.parent.mkdir()
    outside.write_text(BROKEN)
    folder = tmp_path / "configs"
    folder.mkdir()
    (folder / "app.properties").write_text(BROKEN)
    os.chmod(folder / "app.properties", 0o640)
    inode = (folder / "app.properties").stat().st_ino
    (folder / "linked.properties").symlink_to(outside)

    run = lint(["configs", "--fix"], cwd=tmp_path)

    assert outside.read_text() == BROKEN, "the file behind the link was rewritten"
    assert (folder / "linked.properties").is_symlink()
    fixed = folder / "app.properties"
    assert "acks=all" in fixed.read_text() and "acks=1\n" not in fixed.read_text()
    assert stat.S_IMODE(fixed.stat().st_mode) == 0o640
    assert fixed.stat().st_ino != inode, "not replaced by a rename"
    assert sorted(p.name for p in folder.iterdir()) == ["app.properties", "linked.properties"]  # no temp file left
    assert "configs/linked.properties: a symbolic link; not fixed" in run.out + run.err
    assert run.code == 1  # the link's problem is still there


def test_an_unreadable_config_in_a_folder_fails_the_lint(tmp_path: Path, lint) -> None:
    folder = tmp_path / "configs"
    folder.mkdir()
    (folder / "app.properties").write_text(BROKEN)
    (folder / "mounted.properties").symlink_to(tmp_path / "secret-mount" / "producer.properties")  # not there

    run = lint(["configs", "--format", "json"], cwd=tmp_path)

    assert run.code == 2
    assert "configs/mounted.properties: cannot read" in run.err
    assert "PRD002" in run.rules()  # the readable file is still linted


def test_a_folder_that_cannot_be_listed_is_named(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "ok").mkdir()
    (tmp_path / "ok" / "app.properties").write_text(BROKEN)
    (tmp_path / "locked").mkdir()
    real_scandir = os.scandir

    def scandir(path="."):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    errors: list[str] = []
    found = discover([str(tmp_path)], errors=errors)
    assert [p.name for p, _shown, _explicit in found] == ["app.properties"]
    assert errors == [f"{tmp_path / 'locked'}: cannot list folder: Permission denied"]
