"""A log read in parts and joined (``engine.log_ranges``) gives exactly what one whole read gives:
the same rows (line numbers, ``seq``, times, transactional ids) and the same input report,
wherever the cuts fall; parts whose guessed start the part above contradicts are read again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from kafkadiag.engine import log_ranges
from kafkadiag.engine.ahead import _read_elsewhere
from kafkadiag.engine.local import reduction_options
from kafkadiag.engine.log_filter import log_conditions
from kafkadiag.readers.base import ReadOptions
from kafkadiag.readers.sniff import sniff
from kafkadiag.ruleset import load_rules

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
REDUCED = replace(reduction_options(ReadOptions()), log_conditions=log_conditions(load_rules()))
EVERY_ROW = ReadOptions()


def _logs(*folders: str) -> list[Path]:
    found = []
    for folder in folders:
        for path in sorted((FIXTURES / folder).rglob("*")):
            if path.is_file() and path.stat().st_size > 500 and sniff(path.read_bytes()[:65536]).startswith("log/"):
                found.append(path)
    return found


def _rows(chunks: list) -> pd.DataFrame | None:
    frames = [chunk for table, chunk in chunks if table == "log_events" and len(chunk)]
    return pd.concat(frames, ignore_index=True) if frames else None


def _in_parts(path: Path, parts: int, options: ReadOptions) -> tuple[pd.DataFrame | None, dict, int] | None:
    plan = log_ranges.plan_log(0, str(path), options, parts=parts, min_bytes=0)
    if plan is None:
        return None
    join = log_ranges.LogJoin(plan, options)
    for k in range(len(plan.cuts) - 1):
        join.add(k, log_ranges.read_part(plan, k, options))
    return _rows(join.chunks), join.finish().to_json(), join.reread


def _assert_same_as_whole(path: Path, parts_list: tuple[int, ...], options: ReadOptions) -> int:
    """Return how many parts were read again over all the cuts tried."""
    whole = _read_elsewhere(0, str(path), options)
    expected = _rows(whole.chunks)
    reread = 0
    for parts in parts_list:
        got = _in_parts(path, parts, options)
        if got is None:
            continue
        rows, report, again = got
        reread += again
        assert report == whole.report.to_json(), (path, parts)
        if expected is None:
            assert rows is None, (path, parts)
        else:
            assert rows is not None, (path, parts)
            pd.testing.assert_frame_equal(rows, expected, obj=f"{path} in {parts} parts")
    return reread


@pytest.mark.parametrize("options", [REDUCED, EVERY_ROW], ids=["reduced", "every-row"])
@pytest.mark.parametrize("path", _logs("logs", "clients"), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_a_fixture_log_in_parts_reads_as_a_whole(path: Path, options: ReadOptions) -> None:
    _assert_same_as_whole(path, (2, 3, 7, 31), options)


@pytest.mark.slow
@pytest.mark.parametrize("path", _logs("real", "rules", "cases"), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_real_log_in_parts_reads_as_a_whole(path: Path) -> None:
    for options in (REDUCED, EVERY_ROW):
        _assert_same_as_whole(path, (2, 3, 7, 31), options)


def test_cuts_fall_before_lines_that_start_with_a_timestamp() -> None:
    path = FIXTURES / "clients" / "abortable" / "input" / "librdkafka.log"
    plan = log_ranges.plan_log(0, str(path), REDUCED, parts=7, min_bytes=0)
    assert plan is not None and len(plan.cuts) == 8
    data = path.read_bytes()
    for cut in plan.cuts[1:-1]:
        assert data[cut - 1:cut] == b"\n" and data[cut:cut + 3] == b"%7|"


def test_a_client_named_with_its_transactional_id_in_an_earlier_part_keeps_it(tmp_path: Path) -> None:
    """librdkafka names the transactional id once; later lines of its client take it from there."""
    path = FIXTURES / "clients" / "abortable" / "input" / "librdkafka.log"
    plan = log_ranges.plan_log(0, str(path), EVERY_ROW, parts=7, min_bytes=0)
    assert plan is not None
    later = log_ranges.read_part(plan, 3, EVERY_ROW)
    assert later.end.open_rows and not later.end.txn_by_client  # rows of a client this part never ties to its id
    assert _assert_same_as_whole(path, (7,), EVERY_ROW) == 0
    assert _assert_same_as_whole(path, (7,), REDUCED) == 0


def _concatenated(tmp_path: Path, name: str, pieces: list[tuple[Path, int]]) -> Path:
    out = tmp_path / name
    out.write_bytes(b"".join(p.read_bytes() * times for p, times in pieces))
    return out


def test_date_less_stamps_after_a_full_date_are_read_again_from_it(tmp_path: Path) -> None:
    dated = FIXTURES / "clients" / "fenced" / "input" / "python-logging.log"
    time_only = FIXTURES / "logs" / "java_log4j2_short.log"
    assert dated.read_bytes()[:2] == b"20" and time_only.read_bytes()[:1].isdigit()
    path = _concatenated(tmp_path, "dated-then-time-only.log", [(dated, 1), (time_only, 4)])
    assert _assert_same_as_whole(path, (2, 3, 5, 9), EVERY_ROW) > 0


def test_broker_lines_after_a_client_head_are_read_again_as_a_broker_log(tmp_path: Path) -> None:
    client = FIXTURES / "clients" / "fenced" / "input" / "python-logging.log"
    broker = FIXTURES / "logs" / "broker_server.log"
    repeats = 1 + 450 // max(1, client.read_bytes().count(b"\n"))  # the head decision sees client lines only
    path = _concatenated(tmp_path, "client-then-broker.log", [(client, repeats), (broker, 3)])
    assert _assert_same_as_whole(path, (2, 3, 5, 9), EVERY_ROW) > 0
    assert _assert_same_as_whole(path, (9, 13), REDUCED) > 0


def test_not_split_compressed_small_or_not_a_log(tmp_path: Path) -> None:
    log = FIXTURES / "clients" / "abortable" / "input" / "librdkafka.log"
    assert log_ranges.plan_log(0, str(log), REDUCED) is None  # below the size worth splitting
    gz = tmp_path / "librdkafka.log.gz"
    import gzip

    gz.write_bytes(gzip.compress(log.read_bytes()))
    assert log_ranges.plan_log(0, str(gz), REDUCED, parts=4, min_bytes=0) is None
    dump = next((FIXTURES / "cases" / "commit-4.1" / "input").iterdir())
    assert log_ranges.plan_log(0, str(dump), REDUCED, parts=4, min_bytes=0) is None


_ID_RULE = """\
category: fencing
rules:
  - id: TST901
    name: any-event-of-one-id
    table: log_events
    severity: info
    title: Any event of one transactional id
    when: {field: transactional_id, eq: orders-tx-abortable}
    message: "{who}"
    runbook: ["-"]
    docs: {what: "-", why: "-", example: "-", fix: "-"}
"""


def test_a_row_a_rule_matches_only_by_its_inherited_transactional_id_is_kept(tmp_path: Path) -> None:
    """The part cannot reduce such a row (its id is not known there); the join completes and keeps it."""
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "ids.yaml").write_text(_ID_RULE)
    options = replace(REDUCED, log_conditions=log_conditions(load_rules([str(rules)], builtin=False)))
    path = FIXTURES / "clients" / "abortable" / "input" / "librdkafka.log"
    whole = _rows(_read_elsewhere(0, str(path), options).chunks)
    assert whole is not None and (whole["line"] > path.read_bytes().count(b"\n") // 2).any()
    assert _assert_same_as_whole(path, (2, 7), options) == 0
