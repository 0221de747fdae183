"""The command has Arrow allocate with the system allocator (see
``kafkadiag.memory.prefer_system_allocator``), unless the user chose a pool."""

from __future__ import annotations

import os
import subprocess
import sys

RUN = """
import sys
from kafkadiag.entry import main
sys.argv = ["kafkadiag", "rules", "--format", "json"]
import atexit, os
def report():
    import pyarrow as pa
    sys.stderr.write(pa.default_memory_pool().backend_name)
atexit.register(report)
main()
"""


def pool_after_a_command(chosen: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"}
    if chosen:
        env["ARROW_DEFAULT_MEMORY_POOL"] = chosen
    done = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return done.stderr.strip().splitlines()[-1]


def test_the_command_has_arrow_use_the_system_allocator() -> None:
    assert pool_after_a_command() == "system"


def test_a_pool_the_user_chose_is_kept() -> None:
    import pyarrow as pa

    chosen = "mimalloc" if "mimalloc" in pa.supported_memory_backends() else "jemalloc"
    assert pool_after_a_command(chosen) == chosen
