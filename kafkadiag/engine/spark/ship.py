"""Ship the running kafkadiag to executors that may not have it installed.

On a cluster the executors import the package from what the driver sends: a zip of the package
as it is installed here, the shipped rules and error vocabulary included, added with
``addPyFile`` (a ``.whl`` is not importable that way; a zip is). A local master runs executors
from this very Python, which already has it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from ...builtin import builtin_root
from .session import is_local_master

_shipped: str | None = None


def package_zip(target_dir: str) -> str:
    """A zip of the package (``kafkadiag/`` with ``kafkadiag/builtin_rules/``), importable from a path entry."""
    package = Path(__file__).resolve().parents[2]
    rules = Path(str(builtin_root()))
    target = os.path.join(target_dir, "kafkadiag-package.zip")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(package.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".typed", ".yaml"):
                archive.write(path, Path("kafkadiag") / path.relative_to(package))
        if not (package / "builtin_rules").exists():  # a checkout or editable install: rules/ lives beside
            for path in sorted(rules.rglob("*.yaml")):
                archive.write(path, Path("kafkadiag") / "builtin_rules" / path.relative_to(rules))
            for sub in {p.parent for p in rules.rglob("*.yaml")}:
                init = Path("kafkadiag") / "builtin_rules" / sub.relative_to(rules) / "__init__.py"
                archive.writestr(str(init), "")
    return target


def ship_package(spark: Any, master: str, conf: dict | None = None) -> None:
    """Send the package to the executors once per session (not for local masters)."""
    global _shipped
    if is_local_master(master) or _shipped:
        return
    if ((conf or {}).get("spark.kafkadiag.ship") or spark.conf.get("spark.kafkadiag.ship", "true")).lower() == "false":
        return  # the user shipped it (--py-files, spark.archives with a packed environment)
    folder = tempfile.mkdtemp(prefix="kafkadiag-ship-")
    atexit.register(shutil.rmtree, folder, True)  # executors fetch it while the session lives, not after
    _shipped = package_zip(folder)
    spark.sparkContext.addPyFile(_shipped)
