"""Expand the command line's paths into config files: files as named, directories recursively.

In a directory only files with a config-like suffix are considered, and only those whose
content turns out to be a Kafka configuration are linted; build output and tool folders are
skipped so copies of the same resources are not reported twice.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from pathlib import Path

SUFFIXES = {".properties", ".yaml", ".yml", ".json", ".conf", ".cfg", ".txt", ".sql"}
SKIP_DIRS = {
    ".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", "target", "build", "dist", ".tox",
    ".idea", ".gradle", ".mvn", ".mypy_cache", ".pytest_cache", ".ruff_cache",
}


class DiscoveryError(ValueError):
    """A path on the command line that does not exist."""


def discover(paths: list[str], exclude: list[str] | None = None,
             errors: list[str] | None = None) -> list[tuple[Path, str, bool]]:
    """(path, name to show, named explicitly) for every candidate file, in a stable order.

    Folders that cannot be listed are named in ``errors``: a lint that silently skipped one
    would pass for complete.
    """
    out: list[tuple[Path, str, bool]] = []
    seen: set[Path] = set()

    def unlisted(exc: OSError) -> None:
        if errors is not None:
            errors.append(f"{exc.filename}: cannot list folder: {exc.strerror}")

    for given in paths:
        p = Path(given)
        if p.is_file():
            _add(out, seen, p, given, True, exclude)
        elif p.is_dir():
            for root, dirs, files in os.walk(p, onerror=unlisted):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
                for name in sorted(files):
                    f = Path(root) / name
                    if f.suffix.lower() in SUFFIXES or _env_file(name):
                        _add(out, seen, f, str(f), False, exclude)
        elif p.exists():
            if stat.S_ISFIFO(p.stat().st_mode):
                _add(out, seen, p, given, True, exclude)  # ``<(kubectl get configmap ...)``
            else:
                raise DiscoveryError(f"{given}: is a device, not a configuration file")
        else:
            raise DiscoveryError(f"{given}: no such file or directory")
    return out


def _env_file(name: str) -> bool:
    """``.env``, ``.env.production``, ``kafka.env``: compose env files, which hold broker variables as often
    as a compose file does (a file without any is passed over like every non-Kafka file)."""
    low = name.lower()
    return low == ".env" or low.startswith(".env.") or low.endswith(".env")


def _add(out: list, seen: set[Path], path: Path, shown: str, explicit: bool, exclude: list[str] | None) -> None:
    key = path.resolve()
    if key in seen or _excluded(shown, exclude or []):
        return
    seen.add(key)
    out.append((path, shown, explicit))


def _excluded(shown: str, patterns: list[str]) -> bool:
    posix = Path(shown).as_posix()
    return any(fnmatch.fnmatch(posix, pat) or fnmatch.fnmatch(Path(shown).name, pat) for pat in patterns)
