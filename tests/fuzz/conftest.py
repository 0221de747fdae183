"""Hypothesis settings for the fuzz suite: a bounded, reproducible run by default (CI), more with
``KAFKADIAG_FUZZ_EXAMPLES`` (``benchmarks/fuzz.py`` runs it long and random)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

settings.register_profile(
    "kafkadiag",
    max_examples=int(os.environ.get("KAFKADIAG_FUZZ_EXAMPLES", "30")),
    derandomize=os.environ.get("KAFKADIAG_FUZZ_RANDOM", "") == "",
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
    print_blob=True,
)
settings.load_profile("kafkadiag")
