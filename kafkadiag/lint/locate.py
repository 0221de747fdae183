"""Point a finding at the line to change.

The line is, in order: the key its first applicable fix changes (where that key is set), else
the first key named in the rule's condition that is set (in condition order, so a rule file
decides which setting it is "about"), else the row's anchor (its transactional.id, group.id...).
Cross-file findings also list the other file's line, e.g. the broker's transaction.max.timeout.ms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..findings import Finding
from ..ruleset.model import AllOf, AnyOf, Comparison, Condition, NotOf, Operand, Rule
from .facts import Facts
from .keys import librdkafka_key
from .model import ConfigFile, Entry
from .rows import Row


@dataclass
class Spot:
    cfg: ConfigFile
    entry: Entry | None
    key: str = ""

    @property
    def line(self) -> int:
        return self.entry.line if self.entry else 1

    @property
    def column(self) -> int:
        return self.entry.column if self.entry else 1


@dataclass
class Located:
    primary: Spot
    related: list[Spot] = field(default_factory=list)


def condition_order(cond: Condition) -> list[str]:
    """Columns a condition reads, in the order they are written."""
    if isinstance(cond, (AllOf, AnyOf)):
        return [f for child in cond.children for f in condition_order(child)]
    if isinstance(cond, NotOf):
        return condition_order(cond.child)
    out = [cond.field]
    if isinstance(cond, Comparison) and isinstance(cond.arg, Operand) and cond.arg.kind == "field":
        out.append(str(cond.arg.value))
    return out


def fix_targets(row: Row, side: str, key: str, rows: list[Row]) -> list[tuple[Row, Entry | None]]:
    """Where a recommended change of ``key`` on ``side`` goes: the row's own file, or every broker
    config of the deployment for a broker-side change."""
    if side == "broker" and row.role not in ("broker", "topic"):
        return [(b, b.entry("broker", key)) for b in rows if b.role == "broker"]
    norm = librdkafka_key(key) if row.dialect == "librdkafka" else key
    return [(row, row.entry(side, norm))]


def locate(finding: Finding, rule: Rule, row_id: int, facts: Facts) -> Located:
    row = facts.rows[row_id]
    sources = facts.sources[row_id]
    spots: list[Spot] = []
    for rec in finding.recommendations:
        for target_row, entry in fix_targets(row, rec.side, rec.config, facts.rows):
            if entry is not None:
                spots.append(Spot(target_row.cfg, entry, rec.config))
    for column in condition_order(rule.when):
        for entry in sources.get(column, []):
            spots.append(Spot(_cfg_of(entry, facts, row), entry, entry.key))
    anchor = row.anchor()
    spots.append(Spot(row.cfg, anchor, anchor.key if anchor else ""))
    unique: list[Spot] = []
    for spot in spots:
        if not any(s.entry is spot.entry and s.cfg is spot.cfg for s in unique):
            unique.append(spot)
    primary = unique[0]
    related = [s for s in unique[1:] if s.entry is not None and s.cfg is not primary.cfg][:3]
    if not primary.key and finding.recommendations:
        primary.key = finding.recommendations[0].config
    return Located(primary, related)


def _cfg_of(entry: Entry, facts: Facts, row: Row) -> ConfigFile:
    if any(e is entry for e in row.cfg.entries):
        return row.cfg
    for other in facts.rows:
        if any(e is entry for e in other.cfg.entries):
            return other.cfg
    return row.cfg
