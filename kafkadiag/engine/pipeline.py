"""The stages of one analysis, shared by every engine.

inputs → event tables (read and reduced: :class:`Collected`) → fact tables (``fact_inputs_of``,
then whole or in producer buckets) → rules → correlation → evidence (``diagnose``). An engine is
a *runner* of the first stage: the local runner reads in this process (large plain files in
parallel byte ranges), the Spark runner gives each input file or byte range to one Spark task. Everything after the read is this module,
so no diagnosis is implemented twice and both engines must give the same findings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol

import pandas as pd

from ..config import EffectiveConfig
from ..facts.build import CollectedEvents, FactInputs, fact_inputs, fact_tables
from ..findings import Evidence, Finding
from ..memory import return_free_memory
from ..readers.base import InputReport, ReadOptions
from .correlate import correlate
from .evidence import fill_evidence


@dataclass
class Collected:
    """What reading every input left behind: reduced events, one report per input, configs found.

    ``files[file_id]`` and ``reports[file_id]`` describe input ``file_id`` in the order the user
    gave them; every engine must number inputs the same way so that findings compare equal.
    """

    events: CollectedEvents
    reports: list[InputReport]
    files: list[str]
    configs: list = field(default_factory=list)


class Runner(Protocol):
    """Runs the stages on some engine; every runner calls the same stage functions."""

    name: str

    def analyze(self, paths: list[str], options: ReadOptions, rules: list, config: EffectiveConfig,
                now_ms: int | None, evaluate: Callable) -> "AnalysisResult": ...


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


def fact_inputs_of(collected: Collected, config: EffectiveConfig, now_ms: int | None) -> FactInputs:
    """The fact stages' inputs, with the configs found among the inputs applied first."""
    for cfg in collected.configs:
        config.overlay_config(cfg)
    return fact_inputs(
        collected.events,
        config.as_mapping(),
        {k: v.is_default for k, v in config.values.items()},
        v2_possible(collected.reports),
        now_ms,
    )


def apply_rules(
    tables: dict[str, pd.DataFrame], rules: list, collected: Collected, config: EffectiveConfig, evaluate: Callable,
    group_counts: dict | None = None,
) -> list[Finding]:
    """Rule stage: the YAML rules over the fact tables, and config rules over configs among the inputs.

    ``group_counts``: the sizes of grouped rules' groups when ``tables`` hold only their
    representative rows (a distributed run).
    """
    files = collected.files

    def resolver(refs: list[tuple[int, int, int]]) -> list[Evidence]:
        out = []
        for file_id, line, byte in refs:
            if byte is None or byte < 0 or file_id is None or file_id < 0 or file_id >= len(files):
                continue
            out.append(Evidence(file=files[file_id], line=line if line and line > 0 else None, text="", byte=int(byte)))
        return out

    extra = {"group_counts": group_counts} if group_counts else {}
    findings = evaluate(rules, tables, config.as_mapping(), resolver, **extra)
    if collected.configs:
        from ..lint.run import check_files

        # Errors only: a config that breaks transactions belongs in the diagnosis; best-practice
        # warnings (replication factor below 3 on a development broker) are `kafkadiag lint`'s job,
        # and so are plaintext credentials (SEC): analyze masks them, they break no transaction.
        config_rules = [r for r in rules if r.table == "configs" and r.prefix != "SEC"]
        findings += [f for f in check_files(collected.configs, config_rules, version_assumed=True)[0] if f.severity == "error"]
    return findings


def diagnose(
    collected: Collected,
    rules: list,
    config: EffectiveConfig,
    now_ms: int | None = None,
    evaluate: Callable | None = None,
    bucket_spans: int | None = None,
) -> AnalysisResult:
    """Every stage after the read: facts, rules, correlation, evidence text, run statistics.

    With ``bucket_spans``, a run with more transactions than that builds its producer facts in
    buckets (:mod:`.buckets`) and keeps only the rows a finding can show, as a distributed run does.
    """
    from ..ruleset.evaluate import evaluate as default_evaluate
    from .buckets import bucket_count, facts_in_buckets

    collected.events.batches.drop_carries()  # the read is over: freed before the fact stages allocate
    return_free_memory()
    inputs = fact_inputs_of(collected, config, now_ms)
    buckets = bucket_count(inputs, bucket_spans)
    group_counts = collected.events.log_counts  # the log rows were reduced while reading (``log_compact``)
    if buckets > 1:
        tables, stats, group_counts = facts_in_buckets(inputs, collected.events, buckets, rules, config.as_mapping())
    else:
        tables = fact_tables(inputs, collected.events)
        stats = summarize(tables, collected.events)
    del inputs
    findings = apply_rules(tables, rules, collected, config, evaluate or default_evaluate, group_counts=group_counts)
    findings = correlate(findings, {r.id for r in rules if r.table == "log_events"})
    fill_evidence(findings)
    return AnalysisResult(findings, collected.reports, collected.files, tables, config, now_ms, stats)


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
        "coordinator_records": int(events.record_count),
    }
