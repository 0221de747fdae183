"""Events of several lines through their template (``fastline``, ``reader._templated``) give the rows
a full parse gives: a broker's ERROR with its exception line, a WARN with frames, an application's
ERROR with a trace (learned only once seen as often as it has digit runs), and the real cases'
broker excerpts (prose, fences, config dumps) repeated."""

from __future__ import annotations

import io
import sys

import pandas as pd

from kafkadiag.readers.logs import fastline
from loghelp import REPO, read_log

sys.path.insert(0, REPO + "/benchmarks")
import brokergen  # noqa: E402
import loggen  # noqa: E402


def _same_rows(text: str) -> pd.DataFrame:
    fast, full = read_log(text), read_log(text, fast=False)
    pd.testing.assert_frame_equal(fast.events, full.events)
    assert fast.report.to_json() == full.report.to_json()
    return fast.events


def test_a_broker_log_s_errors_and_their_exceptions() -> None:
    buffer = io.StringIO()
    brokergen.write_broker_log(buffer, 2, seed=5)
    events = _same_rows(buffer.getvalue())
    multi = events[events["lines"] > 1]
    assert len(multi) > 50 and set(multi["exception"]) >= {"OutOfOrderSequenceException", "IOException"}


def test_an_application_log_s_traces_learned_after_enough_sightings() -> None:
    buffer = io.StringIO()
    loggen.write_log(buffer, 8, seed=11)  # each trace of it seen more often than it has digit runs (~210)
    fastline._SHARED_SIGHTINGS.clear()
    events = _same_rows(buffer.getvalue())
    traced = events[events["lines"] > 20]
    assert len(traced) > 100 and (traced["root_cause"] == "ProducerFencedException").any()
    shapes = fastline._SHARED_SHAPES[False]
    traces = [key for key, shape in shapes.items() if key.count(b"\n") > 20 and isinstance(shape, fastline.Shape)]
    assert traces  # the trace's template was learned: its later events were not parsed in full


def test_the_real_broker_excerpts_repeated() -> None:
    from log_speed import broker_unit

    _same_rows(broker_unit().decode("utf-8", "replace") * 40)
