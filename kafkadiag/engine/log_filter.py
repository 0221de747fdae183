"""Keep only the log events some rule can match, chunk by chunk, while the logs stream in.

A client log holds mostly healthy chatter (state transitions, node disconnects): kept whole, a
2 GB log became millions of rows in memory. The rules over ``log_events`` are row by row, so a
row no rule's condition matches can never be part of a finding; the Spark runner drops such
rows on its executors for the same reason. Configs found among the inputs may still change the
values a condition compares with, so comparisons with a config value are relaxed to "may match"
here, and the rules run exactly on the rows kept. (The timeline keeps every event: it does not
use this.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..facts.build import with_subject_label
from ..ruleset.conditions import condition_mask
from ..ruleset.config import ConfigView
from ..ruleset.model import AllOf, AnyOf, Comparison, Condition, NotOf, Operand

LOG_TABLE = "log_events"


def relax(cond: Condition) -> Condition | None:
    """A condition true wherever ``cond`` may be true whatever the config; None: always true."""
    if isinstance(cond, Comparison):
        return None if isinstance(cond.arg, Operand) and cond.arg.kind == "config" else cond
    if isinstance(cond, AllOf):
        kept = tuple(c for c in (relax(child) for child in cond.children) if c is not None)
        return AllOf(kept) if kept else None
    if isinstance(cond, AnyOf):
        children = [relax(child) for child in cond.children]
        return None if any(c is None for c in children) else AnyOf(tuple(children))  # type: ignore[arg-type]
    if isinstance(cond, NotOf):
        return None if relax(cond.child) != cond.child else cond  # a relaxed child cannot be negated safely
    return None


def log_conditions(rules: list) -> tuple[Condition, ...] | None:
    """The relaxed conditions of the rules over log events; None when nothing can be dropped."""
    conditions = [relax(r.when) for r in rules if r.table == LOG_TABLE]
    if any(c is None for c in conditions):
        return None  # a rule that may match any row
    return tuple(c for c in conditions if c is not None)


def reduced(table: str, chunk, conditions: tuple[Condition, ...] | None):
    """A reader's chunk as the run keeps it: log events only where one of ``conditions`` matches
    (``ReadOptions.log_conditions``; None keeps all), any other table as it is."""
    if conditions is None or table != LOG_TABLE or not len(chunk):
        return chunk
    return keep_matching(chunk, conditions)


def keep_matching(chunk: pd.DataFrame, conditions: tuple[Condition, ...]) -> pd.DataFrame:
    """The rows of a ``log_events`` chunk that one of ``conditions`` matches."""
    if not len(chunk):
        return chunk
    mask = matching_mask(chunk, conditions)
    return chunk if mask.all() else chunk[mask].reset_index(drop=True)


def matching_mask(chunk: pd.DataFrame, conditions: tuple[Condition, ...]) -> np.ndarray:
    """Which rows of a ``log_events`` chunk one of ``conditions`` matches."""
    mask = np.zeros(len(chunk), dtype=bool)
    if not len(chunk):
        return mask
    labelled = with_subject_label(chunk)  # what the rules read: masked messages, subject labels
    view = ConfigView({}, None)
    for cond in conditions:
        mask |= condition_mask(cond, labelled, view)
    return mask
