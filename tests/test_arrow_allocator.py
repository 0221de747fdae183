"""The command has Arrow's allocator give freed memory back at once (see
``kafkadiag.memory.purge_freed_arrow_memory``), unless the user chose a purge delay."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

RUN = """
import atexit, json, os, sys
from kafkadiag.entry import main
sys.argv = ["kafkadiag", "rules", "--format", "json"]

def probe():
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    def rss():
        with open("/proc/self/status") as status:
            return int(status.read().split("VmRSS:")[1].split()[0]) // 1024

    before = rss()
    held = [pc.add(pa.array(np.arange(1 << 20, dtype=np.int64) + i), 1) for i in range(24)]  # ~190 MB from Arrow
    during = rss()
    del held
    sys.stderr.write(json.dumps({"delay": os.environ.get("MIMALLOC_PURGE_DELAY"), "pool": pa.default_memory_pool().backend_name,
                                 "before": before, "during": during, "after": rss()}))

atexit.register(probe)
main()
"""


def after_a_command(chosen: str | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("MIMALLOC_PURGE_DELAY", "ARROW_DEFAULT_MEMORY_POOL")}
    if chosen is not None:
        env["MIMALLOC_PURGE_DELAY"] = chosen
    done = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stderr.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_arrow_memory_freed_during_a_command_leaves_the_process() -> None:
    seen = after_a_command()
    assert seen["delay"] == "0"
    if seen["pool"] != "mimalloc":
        pytest.skip("this pyarrow's default allocator is not mimalloc")
    grew = seen["during"] - seen["before"]
    assert grew > 100  # the buffers were really resident
    assert seen["after"] - seen["before"] < grew / 2


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_purge_delay_the_user_chose_is_kept() -> None:
    seen = after_a_command("1000")
    assert seen["delay"] == "1000"
    if seen["pool"] == "mimalloc":
        assert seen["after"] - seen["before"] > (seen["during"] - seen["before"]) / 2  # kept for reuse, as asked
