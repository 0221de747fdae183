"""Worker lanes (``engine.lanes``): every call's result in its own future, each file kept to the
lane that started it, idle lanes helping with the file that has the most left, failures contained."""

from __future__ import annotations

import os
import time

import pytest

from kafkadiag.engine.lanes import Lanes
from kafkadiag.engine.ranges import range_workers

pytestmark = pytest.mark.skipif(range_workers() < 2, reason="lanes need fork")


def _pid_after(seconds: float, tag: str) -> tuple[str, int]:
    time.sleep(seconds)
    return tag, os.getpid()


def _fail(message: str) -> None:
    raise ValueError(message)


def _die() -> None:
    os._exit(1)


def _run(groups: list[list[tuple]], workers: int = 2) -> list[list]:
    lanes = Lanes(workers)
    try:
        futures = [lanes.submit_group(calls) for calls in groups]
        lanes.start()
        return [[f.exception(timeout=30) or f.result() for f in group] for group in futures]
    finally:
        lanes.close()


def test_each_call_gets_its_own_result_in_submission_order() -> None:
    groups = [[(_pid_after, (0.0, f"{g}-{k}")) for k in range(5)] for g in range(3)]
    results = _run(groups)
    assert [[tag for tag, _pid in group] for group in results] == [[f"{g}-{k}" for k in range(5)] for g in range(3)]


def test_the_first_files_start_on_different_lanes_and_stay_there() -> None:
    a, b = _run([[(_pid_after, (0.05, "a"))] * 4, [(_pid_after, (0.05, "b"))] * 2 + [(_pid_after, (0.4, "b"))]])
    assert len({pid for _, pid in a}) == 1  # file a never left its lane: b's lane was busy until a ran out
    assert a[0][1] != b[0][1]


def test_a_lane_that_runs_out_helps_with_the_file_that_has_most_left() -> None:
    long_first = [(_pid_after, (0.6, "a"))] + [(_pid_after, (0.0, "a"))] * 4
    a, b = _run([long_first, [(_pid_after, (0.0, "b"))]])
    assert {pid for _, pid in a[1:]} == {b[0][1]}  # the rest of a went to b's lane while a's lane was busy


def test_a_call_that_raises_fails_alone() -> None:
    (ok, failed, after), = _run([[(_pid_after, (0.0, "x")), (_fail, ("no",)), (_pid_after, (0.0, "y"))]])
    assert ok[0] == "x" and after[0] == "y"
    assert isinstance(failed, ValueError)


def test_a_lane_whose_process_dies_fails_its_call_and_the_others_go_on() -> None:
    dying, rest = _run([[(_die, ())], [(_pid_after, (0.2, "b"))] + [(_pid_after, (0.0, "b"))] * 3])
    assert type(dying[0]).__name__ == "BrokenProcessPool"
    assert [tag for tag, _pid in rest] == ["b"] * 4


def test_with_every_lane_dead_every_waiting_call_fails() -> None:
    results = _run([[(_die, ()), (_pid_after, (0.0, "a"))]], workers=1)
    assert all(type(r).__name__ == "BrokenProcessPool" for r in results[0])


_RDKAFKA_LINE = "%7|1700000000.123|TXNSTATE|rdkafka#producer-1| [thrd:main]: Transactional state: {n} -> {m}\n"


def _learn_templates(text: str) -> int:
    """Read a log here; return how many templates this process had to learn for it."""
    import io

    from kafkadiag.readers.base import InputReport, ReadContext, ReadOptions
    from kafkadiag.readers.logs import fastline, read_logs

    mark = fastline.learned_mark()
    ctx = ReadContext(0, "x.log", ReadOptions(), InputReport("x.log"))
    list(read_logs(io.BytesIO(text.encode()), ctx))
    return len(fastline.learned_since(mark))


def test_a_lane_that_helps_with_a_file_takes_what_the_other_lane_learned() -> None:
    text = "".join(_RDKAFKA_LINE.format(n=i, m=i + 1) for i in range(50))
    # the first lane learns, then stays busy; the second, busy meanwhile, then reads the same kind of lines
    results = _run([[(_learn_templates, (text,)), (_pid_after, (1.0, "a"))],
                    [(_pid_after, (0.5, "b")), (_learn_templates, (text,))]])
    assert results[0][0] >= 1  # learned by the first lane
    assert results[1][0][1] != results[0][1][1]  # the second read ran on the other lane
    assert results[1][1] == 0  # which had nothing left to learn
