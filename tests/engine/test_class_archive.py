"""The driver JVM's class archive: named only once its writer exited cleanly, one per Java and pyspark."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

pytest.importorskip("pyspark")

from kafkadiag.engine.spark import class_archive  # noqa: E402

#: Stands in for the JVM: reads its input to the end, then writes the archive it was told to (or fails).
WRITER = "import sys; sys.stdin.read(); open(sys.argv[1], 'wb').write(b'archive' * 1000); sys.exit(int(sys.argv[2]))"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    if class_archive.fingerprint("-XX:TieredStopAtLevel=1") is None:
        pytest.skip("no Java")
    monkeypatch.setenv("KAFKADIAG_CACHE_DIR", str(tmp_path))
    return tmp_path


def _writer(part, code: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WRITER, str(part), str(code)], stdin=subprocess.PIPE)


def test_a_first_run_writes_a_part_that_is_named_when_its_writer_exits_cleanly(folder) -> None:
    first = class_archive.prepare("-XX:TieredStopAtLevel=1")
    assert first is not None and first.part is not None and first.option == f"-XX:ArchiveClassesAtExit={first.part}"
    class_archive.finish(first, _writer(first.part, 0))
    assert first.final.read_bytes().startswith(b"archive") and not list(folder.glob("*.part"))
    mapped = class_archive.prepare("-XX:TieredStopAtLevel=1")
    assert mapped == class_archive.ClassArchive(f"-XX:SharedArchiveFile={first.final}", first.final)


def test_a_writer_that_failed_leaves_no_archive(folder) -> None:
    first = class_archive.prepare("-XX:TieredStopAtLevel=1")
    class_archive.finish(first, _writer(first.part, 1))
    assert not list(folder.iterdir())


def test_other_jvm_options_use_another_archive_and_off_means_none(folder) -> None:
    a = class_archive.prepare("-XX:TieredStopAtLevel=1")
    b = class_archive.prepare("-Xmx2g")
    assert a.final != b.final
    assert class_archive.prepare("-XX:TieredStopAtLevel=1", enabled=False) is None


def test_a_part_left_by_a_dead_run_is_removed(folder) -> None:
    stale = folder / "spark-classes-0123456789abcdef.deadbeef0000.part"
    stale.write_bytes(b"half")
    old = time.time() - class_archive.STALE_PART_S - 10
    os.utime(stale, (old, old))
    fresh = folder / "spark-classes-0123456789abcdef.cafe00000000.part"
    fresh.write_bytes(b"being written")
    class_archive.prepare("-XX:TieredStopAtLevel=1")
    assert not stale.exists() and fresh.exists()
