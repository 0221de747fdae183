"""YAML and JSON configs read through PyYAML's composer, which keeps every node's position.

Nested mappings are flattened to dotted keys (``spring: kafka: producer: acks`` becomes
``spring.kafka.producer.acks``), the way Spring and Flink flatten them; Spring's ``[a.b]`` map-key
brackets are dropped. Lists become comma-joined values. The mapping nodes are kept so ``--fix``
can add a missing key next to its siblings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import yaml

from .model import Entry


class ParseError(ValueError):
    """A file that does not parse in its format; the message names the line."""


@dataclass
class Mapping:
    """A mapping node of the document, for inserting keys: where it is and how it is written."""

    path: str  # dotted path of the mapping ('' for the document root)
    doc: int
    flow: bool  # {...} style (JSON objects)
    indent: int  # column of its keys (block style)
    last_end: int  # character offset just after its last value
    last_line: int  # 1-based line of its last value's end
    empty: bool
    start: int  # offset just after '{' for flow mappings


@dataclass
class Tree:
    mappings: dict[tuple[int, str], Mapping] = field(default_factory=dict)


def parse_yaml(text: str) -> tuple[list[Entry], Tree]:
    """Entries of every document, in order, and the mapping nodes for insertions."""
    tree = Tree()
    entries: list[Entry] = []
    try:
        docs = list(yaml.compose_all(text, Loader=yaml.SafeLoader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise ParseError(f"{where}{getattr(exc, 'problem', None) or exc}") from None
    for doc, root in enumerate(docs):
        if isinstance(root, yaml.MappingNode):
            _walk(root, (), doc, entries, tree, text)
    return entries, tree


def _component(key: yaml.Node) -> str | None:
    if not isinstance(key, yaml.ScalarNode):
        return None
    value = str(key.value)
    if value.startswith("[") and value.endswith("]"):
        value = value[1:-1]
    return value


def _walk(node: yaml.MappingNode, path: tuple[str, ...], doc: int, entries: list[Entry], tree: Tree, text: str) -> None:
    pairs = [(k, v) for k, v in node.value if _component(k) is not None]
    last = node.value[-1][1] if node.value else None
    flow = bool(node.flow_style)
    indent = pairs[0][0].start_mark.column if pairs else node.start_mark.column
    last_end = last.end_mark.index if last is not None else node.start_mark.index
    tree.mappings[(doc, ".".join(path))] = Mapping(
        path=".".join(path),
        doc=doc,
        flow=flow,
        indent=indent,
        last_end=last_end,
        last_line=_end_line(last, text) if last is not None else node.start_mark.line + 1,
        empty=not node.value,
        start=node.start_mark.index + 1,
    )
    for key, value in pairs:
        sub = path + (_component(key) or "",)
        if isinstance(value, yaml.MappingNode):
            _walk(value, sub, doc, entries, tree, text)
            continue
        entry = Entry(
            key=".".join(sub),
            value="",
            line=key.start_mark.line + 1,
            column=key.start_mark.column + 1,
            end_line=_end_line(value, text),
            doc=doc,
        )
        if isinstance(value, yaml.ScalarNode):
            null = value.tag == "tag:yaml.org,2002:null" and value.value in ("", "~", "null", "Null", "NULL")
            entry.value = "" if null else str(value.value)
            entry.span = (value.start_mark.index, value.end_mark.index)
            entry.quote = value.style if value.style in ('"', "'") else ""
        elif isinstance(value, yaml.SequenceNode):
            entry.value = ",".join(str(item.value) for item in value.value if isinstance(item, yaml.ScalarNode))
            entry.items = [_item(entry.key, i, item, doc, text) for i, item in enumerate(value.value)
                           if isinstance(item, yaml.ScalarNode)]
            entry.maps = [_mapping_item(item, doc, text) for item in value.value if isinstance(item, yaml.MappingNode)]
        entries.append(entry)


def _mapping_item(node: yaml.MappingNode, doc: int, text: str) -> list[Entry]:
    """The entries of one mapping in a sequence (a container, an ``env`` item), keys relative to it.

    Kept apart from the document's own entries so list positions never look like settings."""
    out: list[Entry] = []
    _walk(node, (), doc, out, Tree(), text)
    return out


def _item(key: str, index: int, node: yaml.ScalarNode, doc: int, text: str) -> Entry:
    """One scalar of a sequence (``- KAFKA_ACKS=all`` in a compose ``environment:`` list), placed exactly."""
    return Entry(
        key=f"{key}[{index}]", value=str(node.value), line=node.start_mark.line + 1,
        column=node.start_mark.column + 1, end_line=_end_line(node, text),
        span=(node.start_mark.index, node.end_mark.index), quote=node.style if node.style in ('"', "'") else "", doc=doc,
    )


def _end_line(node: yaml.Node, text: str) -> int:
    """1-based line holding the last character of ``node`` (PyYAML's end mark may sit on the next line)."""
    end = node.end_mark.index
    while end > node.start_mark.index and text[end - 1] in " \t\r\n":
        end -= 1
    return text.count("\n", 0, end) + 1
