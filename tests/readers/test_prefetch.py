"""parallel_map: results in input order; on one core the work runs in the consumer's own thread."""

from __future__ import annotations

import threading

import pytest

from kafkadiag.readers import prefetch


def _work(item: int) -> tuple[int, int]:
    return item * item, threading.get_ident()


@pytest.mark.parametrize("workers", [1, 2, 4])
def test_results_come_in_input_order(workers: int) -> None:
    results = list(prefetch.parallel_map(iter(range(200)), _work, workers=workers))
    assert [r for r, _thread in results] == [i * i for i in range(200)]


def test_one_core_means_no_thread_beside_the_consumer() -> None:
    here = threading.get_ident()
    threads = {t for _r, t in prefetch.parallel_map(iter(range(50)), _work, workers=1)}
    assert threads == {here}


def test_a_task_s_cores_bound_the_scan_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefetch.os, "cpu_count", lambda: 8)
    try:
        prefetch.use_cores(1)
        assert prefetch.default_workers() == 1
        prefetch.use_cores(3)
        assert prefetch.default_workers() == 3
    finally:
        prefetch.use_cores(None)
    assert prefetch.default_workers() == 4


def test_an_error_in_the_work_reaches_the_consumer() -> None:
    def fail(item: int) -> int:
        if item == 3:
            raise ValueError("bad block")
        return item

    for workers in (1, 2):
        with pytest.raises(ValueError, match="bad block"):
            list(prefetch.parallel_map(iter(range(10)), fail, workers=workers))
