"""Large logs read ahead by other processes (``engine.ahead``) give exactly what reading them in
order here gives: the same findings, reports and configs, also when a worker fails."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine import ahead, log_ranges
from kafkadiag.engine.local import LocalRunner, analyze
from kafkadiag.engine.ranges import range_workers
from kafkadiag.ruleset import load_rules

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
RULES = load_rules()

pytestmark = [pytest.mark.slow,  # every case read ahead and in order
              pytest.mark.skipif(range_workers() < 2, reason="reading ahead needs fork and two cores")]


def _cases() -> list[tuple[str, list[str]]]:
    cases = [("logs", [str(FIXTURES / "logs")]), ("clients", [str(FIXTURES / "clients")]),
             ("mixed-with-dumps", [str(FIXTURES / "clients" / "fenced"), str(FIXTURES / "cases" / "mixed-2.4.1" / "input")])]
    for case in sorted((FIXTURES / "real").iterdir()):
        spec = case / "case.yaml"
        if spec.is_file():
            files = [str(case / f) for f in yaml.safe_load(spec.read_text())["files"]]
            if any(f.endswith((".log", ".txt", ".md")) for f in files):
                cases.append((f"real/{case.name}", files))
    return cases


def _report(paths: list[str]) -> tuple:
    result = analyze(paths, RULES, EffectiveConfig.defaults(), now_ms=1_900_000_000_000,
                     runner=LocalRunner(reduce_logs=True))
    findings = [(f.id, f.rule, f.message, [(e.file, e.line, e.text) for e in f.evidence], f.caused_by)
                for f in result.findings]
    return findings, [r.to_json() for r in result.inputs], len(result.tables["log_events"])


def _read_ahead_all(monkeypatch: pytest.MonkeyPatch, in_parts: bool = False) -> list[int]:
    """Every log input is read ahead, whatever its size (``in_parts``: cut into parts of 2 KB as
    far as its lines allow); returns the file ids that were."""
    taken: list[int] = []
    if in_parts:
        monkeypatch.setattr(log_ranges, "MIN_SPLIT_BYTES", 0)
        monkeypatch.setattr(log_ranges, "PART_BYTES", 2048)
    original = ahead.ReadAhead.take

    def take(self, file_id: int):
        got = original(self, file_id)
        if got is not None:
            taken.append(file_id)
        return got

    monkeypatch.setattr(ahead, "MIN_AHEAD_BYTES", 0)
    monkeypatch.setattr(ahead.ReadAhead, "take", take)
    return taken


@pytest.mark.parametrize("in_parts", [False, True], ids=["whole", "in-parts"])
@pytest.mark.parametrize("name, paths", _cases(), ids=[c[0] for c in _cases()])
def test_reading_ahead_gives_what_reading_in_order_gives(name: str, paths: list[str], in_parts: bool,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    in_order = _report(paths)
    taken = _read_ahead_all(monkeypatch, in_parts)
    assert _report(paths) == in_order
    if not name.startswith("real/"):
        assert taken  # the logs really were read by the pool (a real case may hold no input that sniffs as a log)


def test_a_worker_that_fails_leaves_the_input_to_be_read_here(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [str(FIXTURES / "clients")]
    in_order = _report(paths)
    _read_ahead_all(monkeypatch)

    def fail(*_args):
        raise MemoryError("a worker ran out of memory")

    monkeypatch.setattr(ahead, "_read_elsewhere", fail)
    assert _report(paths) == in_order


def test_the_timeline_keeps_every_row_and_reads_nothing_ahead() -> None:
    from kafkadiag.readers.base import ReadOptions

    reader = ahead.ReadAhead([], ReadOptions())  # no log conditions: every row is kept
    assert reader._pool is None


def _fail_second_part(plan, k, options):
    if k == 1:
        raise MemoryError("a worker ran out of memory")
    return log_ranges.read_part(plan, k, options)


def test_a_part_whose_worker_fails_is_read_here(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = [str(FIXTURES / "clients")]
    in_order = _report(paths)
    _read_ahead_all(monkeypatch, in_parts=True)
    monkeypatch.setattr(ahead, "read_part", _fail_second_part)
    assert _report(paths) == in_order
