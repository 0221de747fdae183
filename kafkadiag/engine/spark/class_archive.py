"""A class-data archive for the local driver JVM: Spark's classes mapped at start instead of loaded.

A local Spark session spends most of its ~3 s start loading and verifying classes. Java can write
the classes a run loaded to an archive when it exits (``-XX:ArchiveClassesAtExit``) and map them at
the next start (``-XX:SharedArchiveFile``): on a 2-core machine a session then starts in 1.6-1.8 s
instead of 2.9-3.2 s. The first run writes the archive (its JVM is asked to exit and waited for,
about 3 s, once); later runs with the same Java and pyspark map it.

A half-written archive crashes the JVM that maps it, so the archive gets its final name only after
the JVM that wrote it exited cleanly; concurrent first runs each write their own part file.
``--spark-conf spark.kafkadiag.classArchive=false`` turns it off; ``KAFKADIAG_CACHE_DIR`` moves it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

ARCHIVE_CONF = "spark.kafkadiag.classArchive"
#: A part file this old was left by a run that died before renaming it.
STALE_PART_S = 3600
#: How long a first run waits for its JVM to write the archive and exit.
WRITE_TIMEOUT_S = 60


@dataclass(frozen=True)
class ClassArchive:
    """The JVM option of this run, and the part file to name once its writer has exited (None: mapped)."""

    option: str
    final: Path
    part: Path | None = None


def cache_dir() -> Path:
    explicit = os.environ.get("KAFKADIAG_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "kafkadiag"


def _java() -> str | None:
    java_home = os.environ.get("JAVA_HOME", "")
    candidate = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java")
    return os.path.realpath(candidate) if candidate and os.path.exists(candidate) else None


def fingerprint(jvm_options: str) -> str | None:
    """What an archive depends on: the Java binary, pyspark's jars and the JVM options; None without Java."""
    java = _java()
    if java is None:
        return None
    import pyspark

    jars = Path(pyspark.__file__).parent / "jars"
    try:
        parts = [java, str(os.stat(java).st_mtime_ns), pyspark.__version__, str(jars.stat().st_mtime_ns), jvm_options]
    except OSError:
        return None
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def prepare(jvm_options: str, enabled: bool = True) -> ClassArchive | None:
    """The archive option for a local driver started with ``jvm_options``; None when off or impossible."""
    if not enabled:
        return None
    key = fingerprint(jvm_options)
    if key is None:
        return None
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    _drop_stale_parts(folder)
    final = folder / f"spark-classes-{key}.jsa"
    if final.is_file() and final.stat().st_size > 0:
        return ClassArchive(f"-XX:SharedArchiveFile={final}", final)
    if not os.access(folder, os.W_OK):
        return None
    part = folder / f"spark-classes-{key}.{uuid.uuid4().hex[:12]}.part"
    return ClassArchive(f"-XX:ArchiveClassesAtExit={part}", final, part)


def finish(archive: ClassArchive | None, proc: subprocess.Popen | None) -> None:
    """After a first run's session stopped: let its JVM exit (writing the archive), then name the archive."""
    if archive is None or archive.part is None or proc is None:
        return
    try:
        if proc.stdin is not None:
            proc.stdin.close()  # the gateway JVM exits at the end of its input
        code = proc.wait(timeout=WRITE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        with contextlib.suppress(OSError):
            proc.kill()
        code = -1
    with contextlib.suppress(OSError):
        if code == 0 and archive.part.stat().st_size > 0:
            os.replace(archive.part, archive.final)
        else:
            archive.part.unlink()


def _drop_stale_parts(folder: Path) -> None:
    now = time.time()
    for part in folder.glob("spark-classes-*.part"):
        with contextlib.suppress(OSError):
            if now - part.stat().st_mtime > STALE_PART_S:
                part.unlink()
