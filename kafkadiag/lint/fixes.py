"""``--fix`` / ``--diff``: turn findings' recommended settings into edits of the files themselves.

An existing setting has its value replaced in place (its key spelling, quoting and any comment
on the line stay); a missing one is added next to its siblings in the file's own dialect
(``producer.`` prefix in Streams files, ``spring.kafka.producer.properties.`` in Spring files,
``properties.`` in Flink table options, a nested YAML or JSON key where the file nests). Every
other byte of the file is kept, so comments and order survive.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..findings import Finding
from .facts import Facts
from .locate import fix_targets
from .model import ConfigFile, Entry, line_offsets
from .properties import escape_key, escape_value
from .yamlconf import Tree


@dataclass
class Edit:
    cfg: ConfigFile
    entry: Entry | None  # the setting to change; None to add ``key``
    key: str
    value: str
    rule: str
    doc: int = 0


@dataclass
class Plan:
    edits: list[Edit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fixable: set[int] = field(default_factory=set)  # id() of findings with at least one edit


def plan_fixes(findings: list[tuple[Finding, int]], facts: Facts) -> Plan:
    """Edits for the recommendations of ``findings`` (each with its row id), first finding first;
    a later finding that wants another value for a key already being changed is left out."""
    plan = Plan()
    claimed: dict[tuple[str, int, str], Edit] = {}
    for finding, row_id in findings:
        row = facts.rows[row_id]
        for rec in finding.recommendations:
            targets = fix_targets(row, rec.side, rec.config, facts.rows)
            if not targets:
                plan.notes.append(f"{finding.rule}: {rec.config}={rec.value} belongs in the broker config, "
                                  "which was not linted; change it there")
                continue
            for target, entry in targets:
                edit = _edit(target, entry, rec.side, rec.config, rec.value, finding.rule, plan)
                if edit is None:
                    continue
                slot = (target.cfg.path, id(entry) if entry else 0, edit.key if entry is None else "")
                if slot in claimed:
                    if claimed[slot].value != edit.value:
                        plan.notes.append(f"{finding.rule}: not changing {rec.config} in {target.cfg.path} to {rec.value}; "
                                          f"{claimed[slot].rule} already sets it to {claimed[slot].value}")
                    plan.fixable.add(id(finding))
                    continue
                if entry is not None and entry.value.strip() == edit.value:
                    continue
                claimed[slot] = edit
                plan.edits.append(edit)
                plan.fixable.add(id(finding))
    return plan


def _edit(row, entry: Entry | None, side: str, key: str, value: str, rule: str, plan: Plan) -> Edit | None:  # type: ignore[no-untyped-def]
    cfg = row.cfg
    if cfg.fmt == "describe":
        plan.notes.append(f"{rule}: {cfg.path} is kafka-configs output; apply {key}={value} with kafka-configs.sh --alter")
        return None
    if entry is not None:
        if entry.span is None:
            plan.notes.append(f"{rule}: {cfg.path}:{entry.line}: {entry.key} cannot be rewritten automatically; set it to {value}")
            return None
        return Edit(cfg, entry, entry.key, value, rule, entry.doc)
    write = row.write_key(side, key)
    if write is None:
        where = f" ({row.section})" if row.section else ""
        plan.notes.append(f"{rule}: {cfg.path}{where} has no place to add {key} automatically; set it to {value}")
        return None
    return Edit(cfg, None, write, value, rule, row.doc)


# --- applying edits ----------------------------------------------------------------------------

def apply_edits(cfg: ConfigFile, edits: list[Edit]) -> str:
    """The file's text with ``edits`` applied (all offsets refer to the original text)."""
    changes: list[tuple[int, int, int, str]] = []  # (start, end, sequence, text)
    for seq, edit in enumerate(edits):
        if edit.entry is not None and edit.entry.span is not None:
            start, end = edit.entry.span
            changes.append((start, end, seq, _format_value(cfg, edit.entry, edit.value, start == end)))
        else:
            changes.append(_insert_change(cfg, edit, seq))
    text = cfg.text
    for start, end, _, new in sorted(changes, key=lambda c: (c[0], c[2]), reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _insert_change(cfg: ConfigFile, edit: Edit, seq: int) -> tuple[int, int, int, str]:
    offset, new = _insertion(cfg, edit)
    return offset, offset, seq, new


def _format_value(cfg: ConfigFile, entry: Entry, value: str, empty: bool) -> str:
    if cfg.fmt == "properties":
        return escape_value(value)
    if cfg.fmt == "json":
        if entry.quote or not _bare_json(value):
            return json.dumps(value)
        return value
    if entry.quote == '"':
        return json.dumps(value)
    if entry.quote == "'":
        return "'" + value.replace("'", "''") + "'"
    text = value if _plain_yaml(value) else json.dumps(value)
    return (" " + text) if empty and not cfg.text[entry.span[0] - 1 : entry.span[0]].isspace() else text  # type: ignore[index]


def _bare_json(value: str) -> bool:
    return value in ("true", "false", "null") or bool(re.fullmatch(r"-?\d+(\.\d+)?", value))


def _plain_yaml(value: str) -> bool:
    return bool(value) and not re.search(r"[:#{}\[\],&*!|>'\"%@`]|^\s|\s$|^-", value)


def _insertion(cfg: ConfigFile, edit: Edit) -> tuple[int, str]:
    """(offset, text) adding ``edit.key`` to the file."""
    offsets = line_offsets(cfg.text)
    if cfg.fmt == "properties":
        last = max((e.end_line for e in cfg.entries), default=len(offsets))
        return _after_line(cfg.text, offsets, last, f"{escape_key(edit.key)}={escape_value(edit.value)}")
    tree = cfg.structure if isinstance(cfg.structure, Tree) else Tree()
    candidates = [m for (doc, path), m in tree.mappings.items()
                  if doc == edit.doc and (path == "" or edit.key == path or edit.key.startswith(path + "."))]
    if not candidates:
        text = f"{edit.key}: {edit.value if _plain_yaml(edit.value) else json.dumps(edit.value)}"
        return _after_line(cfg.text, offsets, len(offsets), text)
    mapping = max(candidates, key=lambda m: len(m.path))
    rest = edit.key[len(mapping.path) + 1 :] if mapping.path else edit.key
    if mapping.flow:
        value = edit.value if _bare_json(edit.value) else json.dumps(edit.value)
        pair = f"{json.dumps(rest)}: {value}"
        if mapping.empty:
            return mapping.start, pair
        return mapping.last_end, f",\n{' ' * mapping.indent}{pair}"
    value = edit.value if _plain_yaml(edit.value) else json.dumps(edit.value)
    return _after_line(cfg.text, offsets, mapping.last_line, f"{' ' * mapping.indent}{rest}: {value}")


def _after_line(text: str, offsets: list[int], line: int, new_line: str) -> tuple[int, str]:
    """Insert ``new_line`` as a whole line after line ``line`` (1-based)."""
    if line < len(offsets):
        return offsets[line], new_line + "\n"
    if text and not text.endswith("\n"):
        return len(text), "\n" + new_line + "\n"
    return len(text), new_line + "\n"
