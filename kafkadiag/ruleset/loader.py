"""Find rule files (built-in and ``--rules DIR``), read them as plain YAML data, validate them.

Built-in rules ship inside the wheel as the package ``kafkadiag.builtin_rules`` (the top-level
``rules/`` folder of the source tree); a source checkout that is not installed reads ``rules/``
directly. Problems from every file are collected and raised together as one RuleError.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Mapping

import yaml

from .. import builtin
from ..facts.registry import FACT_TABLES
from ..nesting import MAX_NESTING, too_deep
from ..smallfile import TooLarge, read_small
from .errors import RuleError
from .model import Rule, TableSpec
from .parse import parse_document

RULE_SUFFIXES = (".yaml", ".yml")


_SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when present: ~10x faster


class _StrictSafeLoader(_SafeBase):  # type: ignore[misc, valid-type]
    """``yaml.SafeLoader`` (C-accelerated when available) that also rejects duplicate mapping keys.

    PyYAML keeps the last of two equal keys silently; in a rule file that hides a mistake such as
    two ``when:`` blocks. Subclassing SafeLoader keeps its guarantee: only plain data is built,
    any ``!!python/...`` tag is an error.
    """

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:  # type: ignore[override]
        seen: set[object] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)  # type: ignore[no-untyped-call]
            try:
                duplicate = key in seen
                seen.add(key)
            except TypeError:
                continue
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, f"found duplicate key '{key}'", key_node.start_mark
                )
        return super().construct_mapping(node, deep=deep)


#: Limits checked before the YAML parser sees a rule file: the built-in files are ~40 KB with
#: nesting under 20; libyaml recurses per nesting level and crashes (not raises) past ~10,000.
MAX_RULE_FILE_BYTES = 1 << 20


def check_limits(text: str, source: str) -> str:
    """A user's rule file within the size and nesting the parser handles safely (the built-in
    files are not checked: they ship with the package)."""
    if len(text) > MAX_RULE_FILE_BYTES:
        raise RuleError(f"{source}: rule file too large ({len(text):,} characters; at most {MAX_RULE_FILE_BYTES:,})")
    if too_deep(text):
        raise RuleError(f"{source}: rule file nested deeper than {MAX_NESTING} levels")
    return text


def _read_yaml(text: str, source: str) -> object:
    try:
        return yaml.load(text, Loader=_StrictSafeLoader)  # noqa: S506 - a SafeLoader subclass
    except (ValueError, OverflowError, RecursionError) as exc:  # e.g. a 5,000-digit integer
        raise RuleError(f"{source}: invalid YAML: {type(exc).__name__}: {str(exc)[:160]}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        hint = ""
        if "constructor for the tag" in problem:
            hint = " (rule files are plain data; YAML tags that build objects are not allowed)"
        raise RuleError(f"{source}: {where}invalid YAML: {problem}{hint}") from None


def parse_rule_text(text: str, source: str, tables: Mapping[str, TableSpec] | None = None) -> list[Rule]:
    """Rules from one YAML document; ``source`` is the name used in error messages."""
    return _collect([(source, check_limits(text, source))], FACT_TABLES if tables is None else tables)


def builtin_rule_sources() -> list[tuple[str, str]]:
    """(``rules/<file>``, text) of every built-in rule file, sorted by file name."""
    root = builtin.builtin_root()
    if not root.is_dir():
        return []
    entries = sorted(
        (e for e in root.iterdir() if e.name.endswith(RULE_SUFFIXES) and e.is_file()), key=lambda e: e.name
    )
    return [(f"rules/{e.name}", e.read_text(encoding="utf-8")) for e in entries]


def user_rule_sources(path: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """(path, text) of the rule files of one ``--rules`` argument: a file, or a directory's
    ``*.yaml``/``*.yml`` files (not recursive), sorted by name."""
    p = Path(path)
    if p.is_file():
        files = [p]
    elif p.is_dir():
        files = sorted((f for f in p.iterdir() if f.is_file() and f.name.endswith(RULE_SUFFIXES)), key=lambda f: f.name)
    elif p.exists():
        files = [p]  # a pipe is read up to the limit; a device is refused by read_small
    else:
        raise RuleError(f"{p}: no such rule file or directory")
    out = []
    for f in files:
        if p.is_dir() and f.is_symlink() and not f.resolve().is_relative_to(p.resolve()):
            # Not read at all: its error messages would quote a file the user did not name.
            raise RuleError(f"{f}: a link to a file outside {p}; name that file with --rules to use it")
        try:
            out.append((str(f), check_limits(read_small(f, MAX_RULE_FILE_BYTES, "rule file").decode("utf-8"), str(f))))
        except TooLarge as exc:
            raise RuleError(f"{f}: {exc}") from None
        except OSError as exc:
            raise RuleError(f"{f}: cannot read rule file: {exc.strerror or exc}") from None
        except UnicodeDecodeError:
            raise RuleError(f"{f}: cannot read rule file: not UTF-8 text") from None
    return out


def load_rules(
    rule_paths: Iterable[str | os.PathLike[str]] = (),
    *,
    builtin: bool = True,
    tables: Mapping[str, TableSpec] | None = None,
) -> list[Rule]:
    """Built-in rules (unless ``builtin=False``) plus those under ``rule_paths``, sorted by id.

    Raises RuleError listing every problem of every file, including ids or names defined twice.
    """
    sources = builtin_rule_sources() if builtin else []
    for path in rule_paths:
        sources.extend(user_rule_sources(path))
    return _collect(sources, FACT_TABLES if tables is None else tables)


def _collect(sources: list[tuple[str, str]], registry: Mapping[str, TableSpec]) -> list[Rule]:
    """Parse every (source, text), check ids and names are unique, raise all problems at once."""
    rules: list[Rule] = []
    errors: list[str] = []
    by_id: dict[str, Rule] = {}
    by_name: dict[str, Rule] = {}
    for source, text in sources:
        try:
            doc = _read_yaml(text, source)
        except RuleError as exc:
            errors.extend(exc.errors)
            continue
        parsed, problems = parse_document(doc, source, registry)
        errors.extend(problems)
        for index, rule in parsed:
            if rule.id in by_id:
                first = by_id[rule.id]
                errors.append(
                    f"{source}: rules[{index}].id: duplicate rule id '{rule.id}' (already defined in {first.source})"
                )
            elif rule.name in by_name:
                first = by_name[rule.name]
                errors.append(
                    f"{source}: rules[{index}].name: duplicate rule name '{rule.name}' "
                    f"(already used by {first.id} in {first.source})"
                )
            else:
                by_id[rule.id] = rule
                by_name[rule.name] = rule
                rules.append(rule)
    if errors:
        raise RuleError(errors)
    return sorted(rules, key=lambda r: r.id)
