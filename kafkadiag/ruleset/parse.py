"""Validate one parsed YAML rule document and build Rule objects from it.

Every check names the field path (``rules[0].when.all[1]``) so a reviewer can fix a rule file
without reading this code. Table and column names are checked against the table registry the
caller passes, which keeps the engine open to tables added later (log events, configs).
"""

from __future__ import annotations

import difflib
import re
from typing import Collection, Mapping

from ..findings import CATEGORIES, SEVERITIES
from .model import (
    COMPARISON_OPERATORS,
    DOC_SECTIONS,
    OPERATORS,
    SIDES,
    AllOf,
    AnyOf,
    Comparison,
    Condition,
    Docs,
    NotOf,
    Operand,
    RecommendationSpec,
    Rule,
    TableSpec,
)
from .templates import Template, TemplateError, parse_template

RULE_ID = re.compile(r"[A-Z]{3}[0-9]{3}")
RULE_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
CONFIG_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")

FILE_KEYS = ("category", "description", "rules")
REQUIRED_RULE_KEYS = ("id", "name", "table", "severity", "title", "when", "message")
OPTIONAL_RULE_KEYS = ("category", "group_by", "min_count", "recommendations", "runbook", "docs", "references",
                      "normal_traffic")
RECOMMENDATION_KEYS = ("side", "config", "value", "reason", "when")
OPERAND_KEYS = ("field", "config", "times", "plus")
GROUP_KEYS = ("all", "any", "not")


class Invalid(Exception):
    """One validation problem at one field path."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")


def _expected(options: Collection[str]) -> str:
    return "expected one of " + ", ".join(options)


def _unknown_key(path: str, key: object, allowed: Collection[str]) -> Invalid:
    hint = difflib.get_close_matches(str(key), list(allowed), n=1)
    suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
    return Invalid(path, f"unknown key '{key}' ({_expected(allowed)}){suggestion}")


def _mapping(value: object, path: str, allowed: Collection[str], required: Collection[str] = ()) -> dict:
    if not isinstance(value, dict):
        raise Invalid(path, f"expected a mapping, got {_kind(value)}")
    for key in value:
        if key not in allowed:
            raise _unknown_key(path, key, allowed)
    for key in required:
        if key not in value:
            raise Invalid(path, f"missing required key '{key}'")
    return value


def _kind(value: object) -> str:
    if value is None:
        return "nothing (null)"
    return {dict: "a mapping", list: "a list", str: "text", bool: "a boolean"}.get(type(value), type(value).__name__)


def _text(value: object, path: str, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise Invalid(path, f"expected non-empty text, got {_kind(value)}")
    return value


def _list(value: object, path: str) -> list:
    if not isinstance(value, list):
        raise Invalid(path, f"expected a list, got {_kind(value)}")
    return value


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_scalar(value: object) -> bool:
    return isinstance(value, (str, int, float, bool))


def _column(value: object, path: str, table: str, columns: Collection[str]) -> str:
    name = _text(value, path)
    if name not in columns:
        hint = difflib.get_close_matches(name, list(columns), n=1)
        suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
        raise Invalid(path, f"unknown column '{name}' in table '{table}'{suggestion}")
    return name


def _template(value: object, path: str, columns: Collection[str], *, scalars: bool = False) -> Template:
    if scalars and _is_scalar(value) and not isinstance(value, str):
        value = ("true" if value else "false") if isinstance(value, bool) else str(value)
    text = _text(value, path)
    try:
        return parse_template(text, columns)
    except TemplateError as exc:
        raise Invalid(path, str(exc)) from None


def parse_condition(node: object, path: str, table: str, columns: Collection[str]) -> Condition:
    """A condition tree node: ``all``/``any`` (lists), ``not`` (one node) or a field comparison."""
    if not isinstance(node, dict):
        raise Invalid(path, f"expected a condition mapping, got {_kind(node)}")
    groups = [k for k in node if k in GROUP_KEYS]
    if groups:
        if len(node) != 1:
            found = ", ".join(map(str, node))
            raise Invalid(path, f"'{groups[0]}' must be the only key of its condition, found {found}")
        key = groups[0]
        if key == "not":
            return NotOf(parse_condition(node[key], f"{path}.not", table, columns))
        items = _list(node[key], f"{path}.{key}")
        if not items:
            raise Invalid(f"{path}.{key}", "expected at least one condition")
        children = tuple(parse_condition(c, f"{path}.{key}[{i}]", table, columns) for i, c in enumerate(items))
        return AllOf(children) if key == "all" else AnyOf(children)
    if "field" not in node:
        found = ", ".join(map(str, node)) or "an empty mapping"
        raise Invalid(path, f"expected 'all', 'any', 'not' or 'field', found {found}")
    name = _column(node["field"], f"{path}.field", table, columns)
    ops = [k for k in node if k != "field"]
    unknown = [k for k in ops if k not in OPERATORS]
    if unknown:
        hint = difflib.get_close_matches(str(unknown[0]), OPERATORS, n=1)
        suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
        raise Invalid(path, f"unknown operator '{unknown[0]}' ({_expected(OPERATORS)}){suggestion}")
    if not ops:
        raise Invalid(path, f"missing operator ({_expected(OPERATORS)})")
    if len(ops) > 1:
        raise Invalid(path, f"one operator per comparison, found {', '.join(ops)} (combine them with 'all')")
    op = ops[0]
    return Comparison(name, op, _argument(op, node[op], f"{path}.{op}", table, columns), path)


def _argument(op: str, value: object, path: str, table: str, columns: Collection[str]) -> object:
    if op in COMPARISON_OPERATORS:
        return _operand(value, path, table, columns, numeric=op not in ("eq", "ne"))
    if op in ("in", "not_in"):
        items = _list(value, path)
        if not items:
            raise Invalid(path, "expected at least one value")
        for i, item in enumerate(items):
            if not _is_scalar(item):
                raise Invalid(f"{path}[{i}]", f"expected text, a number or a boolean, got {_kind(item)}")
        return tuple(items)
    if op == "matches":
        pattern = _text(value, path)
        try:
            return re.compile(pattern)
        except re.error as exc:
            raise Invalid(path, f"invalid regular expression {pattern!r}: {exc}") from None
    if not isinstance(value, bool):
        raise Invalid(path, f"expected true or false, got {_kind(value)}")
    return value


def _operand(value: object, path: str, table: str, columns: Collection[str], *, numeric: bool) -> Operand:
    if isinstance(value, dict):
        node = _mapping(value, path, OPERAND_KEYS)
        refs = [k for k in ("field", "config") if k in node]
        if len(refs) != 1:
            raise Invalid(path, "an operand mapping needs exactly one of 'field' or 'config'")
        for key in ("times", "plus"):
            if key in node and not _is_number(node[key]):
                raise Invalid(f"{path}.{key}", f"expected a number, got {_kind(node[key])}")
        if refs[0] == "field":
            target: str = _column(node["field"], f"{path}.field", table, columns)
        else:
            target = _text(node["config"], f"{path}.config")
            if not CONFIG_KEY.fullmatch(target):
                raise Invalid(f"{path}.config", f"'{target}' is not a config key")
        return Operand(refs[0], target, node.get("times"), node.get("plus"))
    if numeric and not _is_number(value):
        raise Invalid(path, f"expected a number, {{field: ...}} or {{config: ...}}, got {_kind(value)}")
    if not _is_scalar(value):
        expected = "text, a number, a boolean, {field: ...} or {config: ...}"
        raise Invalid(path, f"expected {expected}, got {_kind(value)}")
    return Operand("literal", value)


def _recommendation(value: object, path: str, table: str, columns: Collection[str]) -> RecommendationSpec:
    node = _mapping(value, path, RECOMMENDATION_KEYS, ("side", "config", "value", "reason"))
    side = _text(node["side"], f"{path}.side")
    if side not in SIDES:
        raise Invalid(f"{path}.side", f"unknown side '{side}' ({_expected(SIDES)})")
    key = _text(node["config"], f"{path}.config")
    if not CONFIG_KEY.fullmatch(key):
        raise Invalid(f"{path}.config", f"'{key}' is not a config key")
    when = parse_condition(node["when"], f"{path}.when", table, columns) if "when" in node else None
    return RecommendationSpec(
        side,
        key,
        _template(node["value"], f"{path}.value", columns, scalars=True),
        _template(node["reason"], f"{path}.reason", columns),
        when,
    )


def _docs(value: object, path: str) -> Docs:
    node = _mapping(value, path, DOC_SECTIONS)
    return Docs(**{k: _text(v, f"{path}.{k}", allow_empty=True) for k, v in node.items()})


def parse_rule(raw: object, path: str, file_category: str, source: str, tables: Mapping[str, TableSpec]) -> Rule:
    """One entry of a file's ``rules`` list, fully validated."""
    node = _mapping(raw, path, REQUIRED_RULE_KEYS + OPTIONAL_RULE_KEYS, REQUIRED_RULE_KEYS)
    rule_id = _text(node["id"], f"{path}.id")
    if not RULE_ID.fullmatch(rule_id):
        expected = "expected 3 capital letters and 3 digits, e.g. HNG001"
        raise Invalid(f"{path}.id", f"'{rule_id}' is not a rule id ({expected})")
    name = _text(node["name"], f"{path}.name")
    if not RULE_NAME.fullmatch(name):
        raise Invalid(f"{path}.name", f"'{name}' is not a kebab-case name (e.g. hanging-transaction)")
    category = file_category
    if "category" in node:
        category = _category(node["category"], f"{path}.category")
    table = _text(node["table"], f"{path}.table")
    if table not in tables:
        hint = difflib.get_close_matches(table, list(tables), n=1)
        suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
        raise Invalid(f"{path}.table", f"unknown table '{table}' ({_expected(sorted(tables))}){suggestion}")
    spec = tables[table]
    columns = set(spec.columns)
    severity = _text(node["severity"], f"{path}.severity")
    if severity not in SEVERITIES:
        raise Invalid(f"{path}.severity", f"unknown severity '{severity}' ({_expected(SEVERITIES)})")
    normal_traffic = _normal_traffic(node, path, severity)
    when = parse_condition(node["when"], f"{path}.when", table, columns)
    group_by: list[str] = []
    for i, col in enumerate(_list(node.get("group_by", []), f"{path}.group_by")):
        name_i = _column(col, f"{path}.group_by[{i}]", table, columns)
        if name_i in group_by:
            raise Invalid(f"{path}.group_by[{i}]", f"column '{name_i}' is listed twice")
        group_by.append(name_i)
    min_count = node.get("min_count", 1)
    if isinstance(min_count, bool) or not isinstance(min_count, int) or not 1 <= min_count <= 1_000_000:
        raise Invalid(f"{path}.min_count", "expected a whole number from 1 to 1000000")
    if min_count > 1 and not group_by:
        raise Invalid(f"{path}.min_count", "needs group_by (it counts the rows of each group)")
    recs = tuple(
        _recommendation(r, f"{path}.recommendations[{i}]", table, columns)
        for i, r in enumerate(_list(node.get("recommendations", []), f"{path}.recommendations"))
    )
    runbook = tuple(
        _template(step, f"{path}.runbook[{i}]", columns)
        for i, step in enumerate(_list(node.get("runbook", []), f"{path}.runbook"))
    )
    refs = tuple(
        _text(ref, f"{path}.references[{i}]")
        for i, ref in enumerate(_list(node.get("references", []), f"{path}.references"))
    )
    return Rule(
        id=rule_id,
        name=name,
        category=category,
        severity=severity,
        table=table,
        title=_text(node["title"], f"{path}.title"),
        when=when,
        message=_template(node["message"], f"{path}.message", columns),
        group_by=tuple(group_by),
        min_count=min_count,
        recommendations=recs,
        runbook=runbook,
        docs=_docs(node["docs"], f"{path}.docs") if "docs" in node else Docs(),
        references=refs,
        normal_traffic=normal_traffic,
        source=source,
        table_spec=spec,
    )


def _normal_traffic(node: dict, path: str, severity: str) -> str:
    """``normal_traffic``: why each finding of this warning rule is healthy traffic (the text report collapses them).

    Only a warning can say so: info findings are collapsed anyway, and an error is never normal traffic.
    """
    if "normal_traffic" not in node:
        return ""
    text = _text(node["normal_traffic"], f"{path}.normal_traffic")
    if severity != "warning":
        raise Invalid(f"{path}.normal_traffic", f"only a warning rule can describe normal traffic, not a {severity} rule")
    return " ".join(text.split())


def _category(value: object, path: str) -> str:
    category = _text(value, path)
    if category not in CATEGORIES:
        raise Invalid(path, f"unknown category '{category}' ({_expected(CATEGORIES)})")
    return category


def parse_document(
    doc: object, source: str, tables: Mapping[str, TableSpec]
) -> tuple[list[tuple[int, Rule]], list[str]]:
    """All valid rules of one file with their index in ``rules``, and the problems found
    (``file: path: message`` lines).

    Each broken rule is reported and skipped so one run lists every problem in the file.
    """
    try:
        node = _mapping(doc, "(top level)", FILE_KEYS, ("category", "rules"))
        category = _category(node["category"], "category")
        entries = _list(node["rules"], "rules")
        if "description" in node:
            _text(node["description"], "description", allow_empty=True)
    except Invalid as exc:
        return [], [f"{source}: {exc.path}: {exc.message}"]
    rules: list[tuple[int, Rule]] = []
    errors: list[str] = []
    for i, raw in enumerate(entries):
        try:
            rules.append((i, parse_rule(raw, f"rules[{i}]", category, source, tables)))
        except Invalid as exc:
            errors.append(f"{source}: {exc.path}: {exc.message}")
    return rules, errors
