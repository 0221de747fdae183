"""What a loaded rule is: plain frozen dataclasses, built only by the loader after validation.

Keeping the parsed form separate from YAML means evaluation never re-checks shapes or types, and
an invalid rule can never reach it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Protocol, Union

from .templates import Template

COMPARISON_OPERATORS = ("eq", "ne", "gt", "ge", "lt", "le")
OPERATORS = COMPARISON_OPERATORS + ("in", "not_in", "matches", "exists")
SIDES = ("producer", "broker", "consumer", "streams")
DOC_SECTIONS = ("what", "why", "example", "fix", "false_positives")


class TableSpec(Protocol):
    """What a rule may read: any registry entry with these attributes (fact or log-event table)."""

    @property
    def name(self) -> str: ...
    @property
    def columns(self) -> Mapping[str, str]: ...
    @property
    def window(self) -> tuple[str, str]: ...
    @property
    def evidence(self) -> tuple[tuple[str, str, str], ...]: ...


@dataclass(frozen=True)
class Operand:
    """The right-hand side of a comparison: ``value * times + plus``."""

    kind: str  # "literal" | "field" | "config"
    value: object  # the literal, the column name or the config key
    times: float | None = None
    plus: float | None = None


@dataclass(frozen=True)
class Comparison:
    field: str
    op: str  # one of OPERATORS
    # Operand for eq..le; tuple of literals for in/not_in; compiled pattern for matches; bool for exists
    arg: Union[Operand, tuple, "re.Pattern[str]", bool]
    path: str = field(default="", compare=False)  # field path in the rule file, for error messages


@dataclass(frozen=True)
class AllOf:
    children: tuple["Condition", ...]


@dataclass(frozen=True)
class AnyOf:
    children: tuple["Condition", ...]


@dataclass(frozen=True)
class NotOf:
    child: "Condition"


Condition = Union[Comparison, AllOf, AnyOf, NotOf]


@dataclass(frozen=True)
class RecommendationSpec:
    side: str
    config: str
    value: Template
    reason: Template
    when: Condition | None = None


@dataclass(frozen=True)
class Docs:
    what: str = ""
    why: str = ""
    example: str = ""
    fix: str = ""
    false_positives: str = ""


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    category: str
    severity: str
    table: str
    title: str
    when: Condition
    message: Template
    group_by: tuple[str, ...] = ()
    min_count: int = 1  # with group_by: a group of fewer matching rows is no finding (one retried error is not)
    recommendations: tuple[RecommendationSpec, ...] = ()
    runbook: tuple[Template, ...] = ()
    docs: Docs = Docs()
    references: tuple[str, ...] = ()
    #: Why each finding of this warning is healthy traffic whose risk shows in their number (the text
    #: report collapses them unless correlation links one to another finding); "" for a diagnosis.
    normal_traffic: str = ""
    source: str = ""  # the file it came from, as shown in error messages
    table_spec: TableSpec | None = field(default=None, compare=False, repr=False)

    @property
    def prefix(self) -> str:
        """The category code part of the id (``HNG`` of ``HNG001``)."""
        return self.id[:3]


def condition_fields(cond: Condition | None) -> set[str]:
    """Columns a condition reads (both sides), so evaluation extracts only those."""
    if cond is None:
        return set()
    if isinstance(cond, (AllOf, AnyOf)):
        return set().union(*(condition_fields(c) for c in cond.children))
    if isinstance(cond, NotOf):
        return condition_fields(cond.child)
    out = {cond.field}
    if isinstance(cond.arg, Operand) and cond.arg.kind == "field":
        out.add(str(cond.arg.value))
    return out
