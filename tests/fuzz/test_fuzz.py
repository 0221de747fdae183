"""Property tests on mutated real inputs: no reader, config reader or rule loader ever raises;
every dropped line is a counted skip with a reason; the same inputs in another order give the
same findings; a log read that prunes the lines no rule can match keeps the rows and the report
of a read that builds every row.

The number of examples is bounded (``KAFKADIAG_FUZZ_EXAMPLES``, 30 by default) and the run is
reproducible; ``python benchmarks/fuzz.py`` runs the same properties long and at random.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from unittest import mock

import pandas as pd
import pytest

from hypothesis import given
from hypothesis import strategies as st
from strategies import ROOT, mutated, seed_files

from kafkadiag.config import ConfigError, EffectiveConfig
from kafkadiag.engine.local import analyze
from kafkadiag.engine.log_filter import keep_matching, log_conditions
from kafkadiag.inputs import InputStream, cr_only
from kafkadiag.lint.load import InputError, read_config
from kafkadiag.readers import read_input
from kafkadiag.readers.base import InputReport, ReadOptions
from kafkadiag.readers import dumplog_fast, dumplog_legacy
from kafkadiag.readers.dumplog import read_dump
from kafkadiag.readers.base import ReadContext
from kafkadiag.readers.logs import reader as log_reader
from kafkadiag.readers.logs.prune import Pruner
from kafkadiag.ruleset import RuleError, load_rules
from kafkadiag.ruleset.loader import parse_rule_text

pytestmark = pytest.mark.slow  # property-based runs of the whole pipeline

DUMPS = seed_files("cases/fencing-3.3/input/orders-0.*", "cases/mixed-2.4.1/input/__transaction_state-1*.log.txt",
                   "cases/timeout-2.4/input/*-0.log.txt", "cases/commit-0.11/input/*-0.log.txt",
                   "cases/seed-two-instances/input/*", "readers/*.txt", "cases/hanging-3.5/input/*snapshot*")
LOGS = seed_files("logs/*.log", "logs/*.txt", "logs/*.md", "logs/*.jsonl")
CONFIGS = seed_files("lint/*/fail/*.properties", "lint/*/fail/*.yml", "lint/*/fail/*.yaml", "lint/*/fail/*.json")
RULES = [p.read_bytes() for p in sorted((ROOT / "rules").glob("*.yaml"))]
RULE_TABLES = None
_RULES = load_rules()
_LOG_CONDITIONS = log_conditions(_RULES)


def _read(data: bytes, options: ReadOptions | None = None) -> InputReport:
    return _read_rows(data, options)[0]


def _read_rows(data: bytes, options: ReadOptions | None = None) -> tuple[InputReport, list[pd.DataFrame]]:
    report = InputReport("input")

    def opener(_display: str) -> InputStream:
        return InputStream(io.BytesIO(data), compressed=False, cr_lines=cr_only(data[: 64 << 10]))

    logs = [chunk for table, chunk in read_input(0, "input", report, options or ReadOptions(chunk_rows=512), [],
                                                 opener=opener) if table == "log_events"]
    return report, logs


def _check_report(report: InputReport) -> None:
    assert not report.failed, report.error  # a reader crashed: the run would exit 3
    assert report.skipped == sum(report.skip_reasons.values()) >= 0
    assert all(reason and "\n" not in reason for reason in report.skip_reasons)
    assert report.lines >= 0 and report.events >= 0


@given(mutated(DUMPS))
def test_dump_readers_never_raise_and_count_what_they_skip(data: bytes) -> None:
    _check_report(_read(data))


@given(mutated(LOGS))
def test_log_reader_never_raises_and_counts_what_it_skips(data: bytes) -> None:
    _check_report(_read(data))


def _kept(data: bytes) -> tuple[dict, pd.DataFrame]:
    report, chunks = _read_rows(data, ReadOptions(chunk_rows=512, log_conditions=_LOG_CONDITIONS))
    frames = [f for f in (keep_matching(c, _LOG_CONDITIONS) for c in chunks if len(c)) if len(f)]
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()  # no row kept: no columns either
    return report.to_json(), rows


@given(mutated(LOGS))
def test_a_pruned_log_read_keeps_the_rows_and_report_of_a_full_read(data: bytes) -> None:
    _kept(data)  # the templates of this input are decided (a process's first lines get full rows)
    pruned_report, pruned = _kept(data)
    with mock.patch.object(Pruner, "keeps", lambda self, shape: True), \
            mock.patch.object(log_reader, "classify", lambda *args: None):  # the verdicts stay on the shapes
        full_report, full = _kept(data)
    assert pruned_report == full_report
    pd.testing.assert_frame_equal(pruned, full)


def _dump_rows(data: bytes, fast: bool) -> tuple[dict, dict[str, pd.DataFrame]]:
    report = InputReport("input")
    ctx = ReadContext(0, "input", ReadOptions(chunk_rows=512), report)
    parts: dict[str, list[pd.DataFrame]] = {}
    for name, frame in read_dump(io.BytesIO(data), ctx, fast=fast, block_size=4096):
        parts.setdefault(name, []).append(frame)
    return report.to_json(), {name: pd.concat(frames, ignore_index=True) for name, frames in parts.items()}


@given(mutated(DUMPS))
def test_the_vectorised_dump_paths_read_exactly_what_the_line_parser_reads(data: bytes) -> None:
    with mock.patch.object(dumplog_fast, "MIN_FAST_BATCHES", 4), mock.patch.object(dumplog_legacy, "MIN_RECORDS", 4):
        fast_report, fast = _dump_rows(data, fast=True)
    slow_report, slow = _dump_rows(data, fast=False)
    assert fast_report == slow_report
    assert fast.keys() == slow.keys()
    for name in fast:
        pd.testing.assert_frame_equal(fast[name], slow[name])


@given(st.binary(max_size=3000))
def test_random_bytes_are_never_a_crash(data: bytes) -> None:
    _check_report(_read(data))


@given(mutated(CONFIGS))
def test_config_readers_never_raise_but_their_own_errors(data: bytes) -> None:
    text = data.decode("utf-8", errors="replace")
    for name in ("producer.properties", "application.yml", "config.json"):
        try:
            read_config(Path(name), name, True, text)
        except InputError as exc:
            assert "\n" not in str(exc).strip() or name != "producer.properties"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "producer.properties"
        path.write_bytes(data)
        try:
            EffectiveConfig.defaults().load_properties(str(path))
        except ConfigError as exc:
            assert str(exc).startswith(str(path)) or "config file" in str(exc)


@given(mutated(RULES))
def test_rule_loader_never_raises_but_rule_errors(data: bytes) -> None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return  # user rule files are read as UTF-8: a decoding error is reported before parsing
    try:
        parse_rule_text(text, "fuzzed.yaml")
    except RuleError as exc:
        assert str(exc).startswith("fuzzed.yaml")


def _findings(paths: list[str]) -> list[tuple]:
    result = analyze(paths, _RULES, EffectiveConfig.defaults(), now_ms=1_900_000_000_000)
    for report in result.inputs:
        _check_report(report)
    return [(f.id, f.rule, f.severity, f.message, [(e.file, e.line, e.text) for e in f.evidence],
             [(r.config, r.value) for r in f.recommendations], f.caused_by) for f in result.findings]


@given(st.lists(st.one_of(mutated(DUMPS), mutated(LOGS)), min_size=2, max_size=3), st.randoms(use_true_random=False))
def test_the_pipeline_never_raises_and_input_order_does_not_matter(inputs: list[bytes], rnd) -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i, data in enumerate(inputs):
            path = Path(folder) / f"input-{i}.txt"
            path.write_bytes(data)
            paths.append(str(path))
        given_order = _findings(paths)
        shuffled = paths[:]
        rnd.shuffle(shuffled)
        again = _findings(shuffled)
        first = next((i for i, (a, b) in enumerate(zip(given_order, again)) if a != b), None)
        assert again == given_order, (len(given_order), len(again),
                                      None if first is None else (given_order[first], again[first]))
