"""Human documentation of rules: ``kafkadiag explain ID`` and ``kafkadiag rules``.

Everything is printed from the rule's own YAML (docs, condition, fixes, runbook), so the help
can never drift from what the engine actually checks.
"""

from __future__ import annotations

import difflib
import re
from typing import Sequence

from .errors import RuleError
from .model import AllOf, Comparison, Condition, NotOf, Operand, Rule

_SYMBOLS = {"eq": "==", "ne": "!=", "gt": ">", "ge": ">=", "lt": "<", "le": "<="}


def find_rule(rules: Sequence[Rule], key: str) -> Rule:
    """The rule whose id (any case) or name is ``key``; RuleError with a suggestion otherwise."""
    for rule in rules:
        if rule.id == key.upper() or rule.name == key:
            return rule
    names = [r.id for r in rules] + [r.name for r in rules]
    hint = difflib.get_close_matches(key, names, n=1) or difflib.get_close_matches(key.upper(), names, n=1)
    suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
    raise RuleError(f"unknown rule '{key}'{suggestion} (`kafkadiag rules` lists them)")


def rules_listing(rules: Sequence[Rule]) -> list[dict]:
    """One row per rule for ``kafkadiag rules`` (text table or ``--format json``)."""
    return [
        {"id": r.id, "name": r.name, "category": r.category, "severity": r.severity, "table": r.table, "title": r.title}
        for r in sorted(rules, key=lambda r: r.id)
    ]


def _operand(op: Operand) -> str:
    if op.kind == "literal":
        return _literal(op.value)
    text = op.value if op.kind == "field" else f"config[{op.value}]"
    if op.times is not None:
        text = f"{text} * {_literal(op.times)}"
    if op.plus is not None:
        text = f"{text} {'-' if op.plus < 0 else '+'} {_literal(abs(op.plus))}"
    return str(text)


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    return str(value)


def describe_comparison(cmp: Comparison) -> str:
    """One comparison as a short expression, e.g. ``age_ms > config[transaction.max.timeout.ms]``."""
    if cmp.op in _SYMBOLS:
        return f"{cmp.field} {_SYMBOLS[cmp.op]} {_operand(cmp.arg)}"  # type: ignore[arg-type]
    if cmp.op in ("in", "not_in"):
        items = ", ".join(_literal(v) for v in cmp.arg)  # type: ignore[union-attr]
        return f"{cmp.field} {'in' if cmp.op == 'in' else 'not in'} [{items}]"
    if cmp.op == "matches":
        pattern = cmp.arg.pattern if isinstance(cmp.arg, re.Pattern) else str(cmp.arg)
        return f"{cmp.field} matches /{pattern}/"
    return f"{cmp.field} is {'known' if cmp.arg else 'unknown (-1, empty or null)'}"


def describe_condition(cond: Condition, indent: int = 0) -> list[str]:
    """The condition tree as indented lines: ``all of:`` / ``any of:`` / ``not:`` then items."""
    pad = "  " * indent
    if isinstance(cond, Comparison):
        return [f"{pad}{describe_comparison(cond)}"]
    if isinstance(cond, NotOf):
        return [f"{pad}not:", *describe_condition(cond.child, indent + 1)]
    head = "all of:" if isinstance(cond, AllOf) else "any of:"
    lines = [f"{pad}{head}"]
    for child in cond.children:  # type: ignore[union-attr]
        sub = describe_condition(child, indent + 2)
        lines.append(f"{pad}  - {sub[0].lstrip()}")
        lines.extend(sub[1:])
    return lines


def inline_condition(cond: Condition) -> str:
    """The condition on one line: ``a and (b or not c)``."""
    if isinstance(cond, Comparison):
        return describe_comparison(cond)
    if isinstance(cond, NotOf):
        return f"not ({inline_condition(cond.child)})"
    joiner = " and " if isinstance(cond, AllOf) else " or "
    parts = [inline_condition(c) for c in cond.children]  # type: ignore[union-attr]
    children = cond.children  # type: ignore[union-attr]
    wrapped = (p if len(children) == 1 or isinstance(c, Comparison) else f"({p})" for p, c in zip(parts, children))
    return joiner.join(wrapped)


def _section(title: str, body: str | list[str]) -> list[str]:
    text = body if isinstance(body, str) else "\n".join(body)
    return [f"## {title}", "", text.rstrip(), ""] if text.strip() else []


def explain(rule: Rule) -> str:
    """The full documentation of one rule, as Markdown-ish text (like ``ruff rule``)."""
    docs = rule.docs
    lines = [
        f"# {rule.name} ({rule.id})",
        "",
        f"{rule.title}",
        "",
        f"Category: {rule.category}   Severity: {rule.severity}   Table: {rule.table}"
        + (f"   Grouped by: {', '.join(rule.group_by)}" if rule.group_by else ""),
        f"Defined in: {rule.source}" if rule.source else "",
        "",
    ]
    lines += _section("What it does", docs.what)
    lines += _section("Condition", describe_condition(rule.when))
    lines += _section("Why is this bad?", docs.why)
    lines += _section("Example", docs.example)
    fixes = [docs.fix.rstrip()] if docs.fix.strip() else []
    if rule.recommendations:
        if fixes:
            fixes.append("")
        fixes.append("Recommended configuration:")
        for rec in rule.recommendations:
            cond = f" (when {inline_condition(rec.when)})" if rec.when is not None else ""
            fixes.append(f"- {rec.side}: {rec.config}={rec.value.display()}{cond}")
            fixes.append(f"  {rec.reason.display()}")
    lines += _section("Fix", fixes)
    lines += _section("False positives", docs.false_positives)
    if rule.normal_traffic:
        lines += _section("Normal traffic (collapsed in the text report)", rule.normal_traffic)
    lines += _section("Runbook", [f"{i}. {step.display()}" for i, step in enumerate(rule.runbook, 1)])
    lines += _section("References", [f"- {ref}" for ref in rule.references])
    text = "\n".join(line for i, line in enumerate(lines) if line or (i and lines[i - 1]))
    return text.rstrip() + "\n"
