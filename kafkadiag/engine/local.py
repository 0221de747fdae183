"""The in-process engine: stream the inputs, build the facts, run the rules, attach evidence.

Small inputs answer without starting anything heavy; the same fact builders are what a
distributed engine runs per group.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import pandas as pd

from ..config import EffectiveConfig
from ..facts.batch_stream import BatchStream
from ..facts.build import CollectedEvents, build_fact_tables
from ..findings import Evidence, Finding
from ..memory import return_free_memory
from ..readers import EventStream
from ..readers.base import InputReport, ReadOptions
from .correlate import correlate
from .ranges import read_in_ranges
from .evidence import fill_evidence

ProgressHook = Callable[[str, int], None]


@dataclass
class AnalysisResult:
    findings: list[Finding]
    inputs: list[InputReport]
    files: list[str]
    tables: dict[str, pd.DataFrame]
    config: EffectiveConfig
    now_ms: int | None
    stats: dict[str, object] = field(default_factory=dict)

    @property
    def readable(self) -> bool:
        """True when at least one input held Kafka evidence."""
        return any(r.evidence for r in self.inputs)


_ERA_UPPER = re.compile(r"^(?:[\d.]+)\s*[-–]\s*(\d+)\.(\d+)")


def v2_possible(reports: Iterable[InputReport]) -> bool:
    """Protocol v2 needs Kafka 4.0+; a dump whose text shapes end before 4.0 rules it out."""
    eras = [r.era for r in reports if r.era]
    if not eras:
        return True
    for era in eras:
        m = _ERA_UPPER.match(era)
        if not m or int(m.group(1)) >= 4:
            return True
    return False


def collect(paths: list[str], options: ReadOptions, parallel: bool = True) -> tuple[CollectedEvents, EventStream]:
    """Stream every input into the collected events; batch chunks carry only what the reduction reads.

    With ``parallel``, large plain dump files are read in ranges by several processes.
    """
    options = replace(options, columns={**options.columns, "batches": BatchStream.COLUMNS})
    events = CollectedEvents()

    def ranges(file_id: int, display: str, path: str, report: InputReport) -> bool:
        return read_in_ranges(events, file_id, display, path, report, options)

    stream = EventStream(paths, options, range_reader=ranges if parallel else None)
    for table, chunk in stream:
        events.add(table, chunk)
    return events, stream


def analyze(
    paths: list[str],
    rules: list,
    config: EffectiveConfig,
    now_ms: int | None = None,
    options: ReadOptions | None = None,
    evaluate: Callable | None = None,
) -> AnalysisResult:
    """Run the whole pipeline on local inputs."""
    from ..ruleset.evaluate import evaluate as default_evaluate

    evaluate = evaluate or default_evaluate
    events, stream = collect(paths, options or ReadOptions())
    return_free_memory()
    for cfg in stream.configs:
        config.overlay_entries(cfg.path, cfg.entries)
    tables = build_fact_tables(
        events,
        config.as_mapping(),
        {k: v.is_default for k, v in config.values.items()},
        v2_possible(stream.reports),
        now_ms,
    )

    def resolver(refs: list[tuple[int, int, int]]) -> list[Evidence]:
        out = []
        for file_id, line, byte in refs:
            if byte is None or byte < 0 or file_id is None or file_id < 0 or file_id >= len(stream.files):
                continue
            out.append(Evidence(file=stream.files[file_id], line=line if line and line > 0 else None, text="", byte=int(byte)))
        return out

    findings = evaluate(rules, tables, config.as_mapping(), resolver)
    if stream.configs:
        from ..lint.run import check_files

        # Errors only: a config that breaks transactions belongs in the diagnosis; best-practice
        # warnings (replication factor below 3 on a development broker) are `kafkadiag lint`'s job.
        findings += [f for f in check_files(stream.configs, [r for r in rules if r.table == "configs"])[0]
                     if f.severity == "error"]
    findings = correlate(findings, {r.id for r in rules if r.table == "log_events"})
    fill_evidence(findings)
    stats = summarize(tables, events)
    return AnalysisResult(findings, stream.reports, stream.files, tables, config, now_ms, stats)


def summarize(tables: dict[str, pd.DataFrame], events: CollectedEvents) -> dict[str, object]:
    spans = tables["spans"]
    states = spans["state"].value_counts().to_dict() if not spans.empty else {}
    return {
        "batches": int(events.batches.batches),
        "partitions": len(events.batches.partitions),
        "transactions": int(len(spans)),
        "committed": int(states.get("committed", 0)),
        "aborted": int(states.get("aborted", 0)),
        "open": int(states.get("open", 0)),
        "producer_ids": int(spans["producer_id"].nunique()) if not spans.empty else 0,
        "transactional_ids": int(len(tables["transactional_ids"])),
        "coordinator_records": int(sum(len(c) for c in events.txn_records)),
    }
