"""``--select`` / ``--ignore``: choose rules by id, id prefix, category or name, ruff-style.

When both lists match a rule, the more specific selector wins (``--select HNG001 --ignore HNG``
keeps HNG001); on a tie ``--ignore`` wins. ``ALL`` matches every rule. A selector that matches no
rule and names no category is an error, so a typo does not silently disable checks.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from ..findings import CATEGORIES
from .errors import RuleError
from .model import Rule

ALL = "ALL"


def split_selectors(values: Iterable[str] | None) -> list[str]:
    """Flatten repeated and comma-separated CLI values (``--select HNG,FEN --select EXP001``)."""
    out: list[str] = []
    for value in values or ():
        out.extend(part.strip() for part in value.split(",") if part.strip())
    return out


def specificity(selector: str, rule: Rule) -> int:
    """How precisely ``selector`` names ``rule``: 0 no match, 1 ALL, then id prefix length + 1;
    a category counts as its three-letter prefix (4), a rule name as the full id (7)."""
    if selector.upper() == ALL:
        return 1
    if selector == rule.category:
        return 4
    if selector == rule.name:
        return len(rule.id) + 1
    if rule.id.startswith(selector.upper()):
        return len(selector) + 1
    return 0


def select_rules(
    rules: Sequence[Rule], select: Iterable[str] | None = None, ignore: Iterable[str] | None = None
) -> list[Rule]:
    """Rules enabled by ``select`` (default: all) and not overridden by ``ignore``, in input order."""
    selectors = split_selectors(select) or [ALL]
    ignores = split_selectors(ignore)
    _check_known(selectors + ignores, rules)
    chosen = []
    for rule in rules:
        on = max((specificity(s, rule) for s in selectors), default=0)
        off = max((specificity(s, rule) for s in ignores), default=0)
        if on > off:
            chosen.append(rule)
    return chosen


def _check_known(selectors: list[str], rules: Sequence[Rule]) -> None:
    unknown = [
        s for s in selectors
        if s.upper() != ALL and s not in CATEGORIES and not any(specificity(s, r) for r in rules)
    ]
    if unknown:
        raise RuleError([f"unknown rule selector '{s}' (expected a rule id or prefix such as HNG001 or HNG, "
                         "a rule name, a category, or ALL)" for s in unknown])
