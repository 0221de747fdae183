"""The command collects garbage rarely (see ``kafkadiag.gctune``), unless thresholds were chosen already."""

from __future__ import annotations

import subprocess
import sys

from kafkadiag.gctune import BATCH

RUN = """
import gc, sys
{before}
from kafkadiag.cli import app
try:
    app(["rules", "--format", "json"], standalone_mode=False)
except SystemExit:
    pass
sys.stderr.write(repr(gc.get_threshold()))
"""


def thresholds_after_a_command(before: str = "") -> str:
    done = subprocess.run([sys.executable, "-c", RUN.format(before=before)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stderr.strip().splitlines()[-1]


def test_a_command_collects_rarely() -> None:
    assert thresholds_after_a_command() == repr(BATCH)


def test_thresholds_someone_chose_are_kept() -> None:
    assert thresholds_after_a_command("gc.set_threshold(5000, 5, 5)") == repr((5000, 5, 5))
