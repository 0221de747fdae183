"""Fixtures of the reader tests; their helpers are in ``dump_reading``."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from kafkadiag.readers import dumplog_fast  # noqa: E402


@pytest.fixture
def small_fast_threshold(monkeypatch):
    """Let the fast path run on the small blocks tests use."""
    monkeypatch.setattr(dumplog_fast, "MIN_FAST_BATCHES", 4)
