"""Lines of templates no rule can match get no row (``readers.logs.prune``), and nothing else changes:
the rows the run keeps, their sequence numbers, times and transactional ids, and every input's
report are those of a read that built every row and filtered afterwards."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from loggen import write_log
from kafkadiag.engine.local import collect
from kafkadiag.engine.log_filter import log_conditions
from kafkadiag.readers.base import InputReport, ReadContext, ReadOptions
from kafkadiag.readers.logs import bulk, prune, read_logs
from kafkadiag.readers.logs import reader as log_reader
from kafkadiag.readers.logs.prune import required_literal, required_literals
from kafkadiag.ruleset import load_rules

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
CONDITIONS = log_conditions(load_rules())


def _log_inputs() -> list[tuple[str, list[str]]]:
    cases = [(f"logs/{p.name}", [str(p)]) for p in sorted((FIXTURES / "logs").glob("*.log"))]
    cases.append(("clients", [str(FIXTURES / "clients")]))
    for case in sorted((FIXTURES / "real").iterdir()):
        spec = case / "case.yaml"
        if spec.is_file():
            cases.append((f"real/{case.name}", [str(case / f) for f in yaml.safe_load(spec.read_text())["files"]]))
    return cases


def _kept(paths: list[str], monkeypatch: pytest.MonkeyPatch, pruning: bool,
          bulk_from: int = bulk.MIN_HITS) -> tuple[pd.DataFrame, list[dict]]:
    with monkeypatch.context() as m:
        if not pruning:
            m.setattr(prune.Pruner, "keeps", lambda self, shape: True)
            m.setattr(log_reader, "classify", lambda *args: None)  # verdicts of earlier reads stay on the shapes
        m.setattr(bulk, "MIN_HITS", bulk_from)
        events, stream = collect(paths, ReadOptions(log_conditions=CONDITIONS), parallel=False)
    frames = [f for f in events.log_events if len(f)]
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    return rows, [r.to_json() for r in stream.reports]


@pytest.mark.slow  # every log input read pruned and whole, both ways
@pytest.mark.parametrize("bulk_from", [bulk.MIN_HITS, 1], ids=["per-line", "bulk"])
@pytest.mark.parametrize("name, paths", _log_inputs(), ids=[c[0] for c in _log_inputs()])
def test_pruned_read_keeps_exactly_the_rows_and_reports_of_a_full_read(
    name: str, paths: list[str], bulk_from: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bulk``: every block's decided lines are classified at once (``readers.logs.bulk``), however few."""
    pruned, pruned_reports = _kept(paths, monkeypatch, pruning=True, bulk_from=bulk_from)
    full, full_reports = _kept(paths, monkeypatch, pruning=False)
    pd.testing.assert_frame_equal(pruned, full)
    assert pruned_reports == full_reports


def _read(text: str, conditions) -> tuple[list[pd.DataFrame], ReadContext]:
    """One input read as the second of a process: the first settled what its templates are (as the
    first lines of an input do, ``SETTLE_LINES``); a template not decided yet gets its row built."""
    prune._RECIPE_VERDICTS.clear()
    if conditions is not None:
        _read_once(text, conditions)
    return _read_once(text, conditions)


def _read_once(text: str, conditions) -> tuple[list[pd.DataFrame], ReadContext]:
    ctx = ReadContext(0, "app.log", ReadOptions(log_conditions=conditions), InputReport("app.log"))
    return [f for _, f in read_logs(io.BytesIO(text.encode()), ctx)], ctx


def test_healthy_chatter_builds_no_row_but_counts_as_events() -> None:
    buffer = io.StringIO()
    write_log(buffer, 2)
    text = buffer.getvalue()
    every, every_ctx = _read(text, None)
    pruned, pruned_ctx = _read(text, CONDITIONS)
    built = sum(len(f) for f in pruned)
    assert built < sum(len(f) for f in every) / 10  # the error events with their traces are what is left
    # read_logs counts only the events it builds no row for (the input stream counts the rows)
    assert every_ctx.report.events == 0
    assert pruned_ctx.report.events + built == sum(len(f) for f in every)


_TRANSITION = ("2024-03-04 10:00:00.{ms:03d}  INFO 1 --- [ad | producer-tx-{c}] o.a.k.c.p.internals.TransactionManager   : "
               "[Producer clientId=producer-tx-{c}, transactionalId=orders-tx-{t}] Transition from state READY to IN_TRANSACTION\n")
_ABORTING = ("2024-03-04 10:00:00.{ms:03d} ERROR 1 --- [ad | producer-tx-{c}] o.a.k.c.p.internals.TransactionManager   : "
             "[Producer clientId=producer-tx-{c}] Aborting producer batches due to fatal error: PRODUCER_FENCED\n")


@pytest.mark.parametrize("repeat", [1, 100], ids=["per-line", "bulk"])
def test_a_pruned_line_still_tells_which_transactional_id_a_client_has(repeat: int) -> None:
    """The last pruned line naming a client decides (the client moves to another id half way)."""
    lines = [_TRANSITION.format(ms=i % 1000, c=i % 3, t=i % 3 + (10 if i >= repeat // 2 else 0)) for i in range(3 * repeat)]
    text = "".join(lines) + _ABORTING.format(ms=999, c=1) + _ABORTING.format(ms=999, c=4)
    rows, ctx = _read(text, CONDITIONS)
    kept = pd.concat(rows, ignore_index=True)
    assert list(kept["transactional_id"]) == ["orders-tx-11", ""]  # producer-tx-4 never named one
    assert list(kept["seq"]) == [3 * repeat, 3 * repeat + 1] and list(kept["line"]) == [3 * repeat + 1, 3 * repeat + 2]
    assert ctx.report.events == 3 * repeat  # the rows built are counted by the stream; the pruned lines here


def test_a_template_whose_numbers_may_not_fit_keeps_its_lines() -> None:
    line = ("2024-03-04 10:00:00.001  INFO 1 --- [ad | producer-tx-1] o.a.k.c.p.internals.TransactionManager   : "
            "[Producer clientId=producer-tx-1, transactionalId=tx-1] ProducerId set to 99999999999999999999 with epoch 3\n")
    _, full = _read(line, None)
    _, pruned = _read(line, CONDITIONS)
    assert full.report.skip_reasons == pruned.report.skip_reasons and sum(full.report.skip_reasons.values()) == 1


@pytest.mark.parametrize("pattern, literal", [
    (r"Invalid transition attempted", "Invalid transition attempted"),
    (r"still have unstable offsets", "still have unstable offsets"),
    (r"^Initialized transactionalId \S+ with producerId", "Initialized transactionalId "),
    (r"(?i)rollback of ongoing transaction.*due to timeout", "rollback of ongoing transaction"),
    (r"(?i)fail|panic", None),  # either word will do: nothing is required
    (r"(abc)?def", "def"),
    (r"x(abcd)+y", "abcd"),
    (r"a*b", "b"),
    (r"(?i:timeout) in x", " in x"),
    (r"partition 12 is", "partition "),  # a literal with digits could span a digit run: only the parts around them
    (r"\d+", None),
])
def test_required_literal(pattern: str, literal: str | None) -> None:
    assert required_literal(re.compile(pattern)) == literal


@pytest.mark.parametrize("pattern, literals", [
    (r"(?i)rollback of ongoing transaction.*due to timeout|aborting.*transaction.*(timed out|due to timeout)",
     ("rollback of ongoing transaction", "transaction")),
    (r"(?i)fail|panic", ("fail", "panic")),
    (r"Invalid transition attempted", ("Invalid transition attempted",)),
    (r"fenced|\d+ epoch", ("fenced", " epoch")),
    (r"fenced|\d+", None),  # one alternative requires no text: nothing is required
    (r"(?:x|y)z", ("z",)),  # alternatives inside a group: the text around them
])
def test_required_literals_of_alternatives(pattern: str, literals: tuple[str, ...] | None) -> None:
    assert required_literals(re.compile(pattern)) == literals


def test_a_broker_line_is_pruned_when_no_alternative_of_a_pattern_can_match() -> None:
    """``Wrote producer snapshot`` lines get no row: the timeout rule's pattern is two alternatives,
    neither of whose texts the template holds; a rollback line still gets its row."""
    snapshot = ("[2024-03-04 10:00:00,030] INFO [ProducerStateManager partition=clicks-22] Wrote producer snapshot at "
                "offset 8257022 with 3 producer ids in 2 ms. (kafka.log.ProducerStateManager)\n")
    rollback = ("[2024-03-04 10:00:01,030] INFO [TransactionCoordinator id=2] Completed rollback of ongoing transaction "
                "for transactionalId tx-7 due to timeout (kafka.coordinator.transaction.TransactionCoordinator)\n")
    text = snapshot * 600 + rollback * 3
    rows, ctx = _read_once(text, CONDITIONS)
    built = sum(len(f) for f in rows)
    assert ctx.report.events + built == 603  # rows built are counted by the input stream
    assert 3 <= built < 300


def test_every_built_in_message_pattern_is_analysed_soundly() -> None:
    """Whatever the literal found, every string the pattern matches contains it (checked on the
    pattern's own example texts from the rule tests' fixtures would be better; here: samples)."""
    samples = [
        "Invalid transition attempted from state READY to state ABORTING_TRANSACTION",
        "Rollback of ongoing transaction orders-1 due to timeout",
        "Aborting transaction tx-9 because it timed out",
        "Initialized transactionalId tx-1 with producerId 5 and producer epoch 3 on partition __transaction_state-7",
        "group coordinator lost: transaction txn failed",
    ]
    from kafkadiag.ruleset.model import AllOf, AnyOf, Comparison, NotOf

    def patterns(cond):
        if isinstance(cond, (AllOf, AnyOf)):
            for c in cond.children:
                yield from patterns(c)
        elif isinstance(cond, NotOf):
            yield from patterns(cond.child)
        elif isinstance(cond, Comparison) and cond.op == "matches":
            yield cond.arg

    for cond in CONDITIONS:
        for pattern in patterns(cond):
            literal = required_literal(pattern)
            literals = required_literals(pattern)
            for text in samples:
                if pattern.search(text):
                    folded = text.lower() if pattern.flags & re.IGNORECASE else text
                    fold = str.lower if pattern.flags & re.IGNORECASE else str
                    assert literal is None or fold(literal) in folded
                    assert literals is None or any(fold(lit) in folded for lit in literals)


def test_the_first_input_of_a_process_is_pruned_after_a_few_hundred_lines() -> None:
    buffer = io.StringIO()
    write_log(buffer, 2)  # one block
    prune._RECIPE_VERDICTS.clear()
    rows, ctx = _read_once(buffer.getvalue(), CONDITIONS)
    built = sum(len(f) for f in rows)
    assert built < ctx.report.events  # most of the chatter got no row


def _kept_rows(text: str, pruning: bool) -> pd.DataFrame:
    from kafkadiag.engine.log_filter import keep_matching

    rows, _ = _read(text, CONDITIONS if pruning else None)
    frame = pd.concat(rows, ignore_index=True)
    return keep_matching(frame, CONDITIONS).reset_index(drop=True)


_TOD = "{t} [kafka-producer-network-thread | p-1] INFO  o.a.k.c.p.i.TransactionManager - " \
       "[Producer clientId=p-1, transactionalId=tx-1] Transition from state READY to IN_TRANSACTION\n"
_FENCED = "{t} [kafka-producer-network-thread | p-1] ERROR o.a.k.c.p.i.TransactionManager - " \
          "[Producer clientId=p-1, transactionalId=tx-1] Aborting producer batches due to fatal error\n" \
          "org.apache.kafka.common.errors.ProducerFencedException: There is a newer producer with the same transactionalId which fences the current one.\n"


@pytest.mark.parametrize("first, times, last", [
    ("2024-03-04 23:59:58.000", ["23:59:58.500", "23:59:59.900", "00:00:00.100", "00:00:01.000"], "00:00:02.000"),
    ("2024-03-04 10:00:00.000", ["10:00:00.500", "22:30:00.000", "09:00:00.000"], "00:00:02.000"),
    ("2024-03-04 10:00:00.000", ["2024-13-45 10:00:01.000", "10:00:02.000"], "10:00:03.000"),  # no date at all
    ("2024-03-04 10:00:00.000", ["21:00:00.000", "08:00:00.000", "19:00:00.000"], "06:00:00.000"),  # days pass
])
def test_times_after_pruned_lines_are_those_of_a_full_read(first: str, times: list[str], last: str) -> None:
    """Pruned lines' stamps are read only when a later row needs the anchor: the times must not change."""
    cycle = "".join(_TOD.format(t=t) for t in times)
    text = _TOD.format(t=first) + cycle * 200 + _FENCED.format(t=last) + cycle * 10  # the error mid-block
    pruned, full = _kept_rows(text, True), _kept_rows(text, False)
    assert len(full) == 1 and full["time"][0] > 0
    pd.testing.assert_frame_equal(pruned, full)


def test_pinned_librdkafka_lines_are_classified_at_once_and_read_as_line_by_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """librdkafka's level digit pins every shape (``%7|`` and ``%6|`` lines of one text mean different
    things): lines whose pinned digits match their shape's go through the bulk path, the others line
    by line, and the rows and reports are those of a read that built every row. The real captures of
    every run, repeated so that every block has enough lines for the bulk path."""
    captures = b"".join(p.read_bytes() for p in sorted((FIXTURES / "clients").glob("*/input/librdkafka.log")))
    assert captures.count(b"\n%6|") and captures.count(b"\n%7|")
    path = tmp_path / "librdkafka.log"
    path.write_bytes(captures * 40)
    fitted: list[int] = []
    fitting = bulk._fitting

    def counted(*args):
        ok = fitting(*args)
        fitted.append(int(ok.sum()))
        return ok

    monkeypatch.setattr(bulk, "_fitting", counted)
    pruned, pruned_reports = _kept([str(path)], monkeypatch, pruning=True)
    full, full_reports = _kept([str(path)], monkeypatch, pruning=False)
    assert sum(fitted) > 5_000  # the bulk path took pinned lines (not only the per-line path)
    pd.testing.assert_frame_equal(pruned, full)
    assert pruned_reports == full_reports
