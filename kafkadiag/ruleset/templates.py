"""Safe message templates: ``{column}``, ``{column|filter}``, ``{config.KEY}``, ``{_count}``.

Rule text is data written by people who may not be the ones running the tool, so templates are
parsed once at load time into literal text and placeholders; rendering only substitutes values.
There is no attribute access, indexing or format spec (unlike ``str.format``), and a placeholder
that names neither a column of the rule's table nor a config key is a load-time error.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Collection, Mapping, Sequence

from ..findings import iso_time
from .config import MISSING, ConfigView

COUNT = "_count"
CONFIG_PREFIX = "config."
_PLACEHOLDER = re.compile(
    r"(?P<name>_count|config\.[A-Za-z0-9][A-Za-z0-9._-]*|[A-Za-z_][A-Za-z0-9_]*)(?:\|(?P<filter>[a-z_]+))?"
)
LIST_LIMIT = 20  # distinct values a {column|list} placeholder shows for a group before "+N more"


class TemplateError(ValueError):
    """A template does not parse; the message says where, the loader adds the file and field."""


@dataclass(frozen=True)
class Placeholder:
    kind: str  # "field" | "config" | "count"
    name: str  # column name or config key ("_count" for count)
    filter: str | None = None


@dataclass(frozen=True)
class Template:
    source: str
    parts: tuple[str | Placeholder, ...]

    def fields(self) -> set[str]:
        """Columns this template reads, so evaluation extracts only those."""
        return {p.name for p in self.parts if isinstance(p, Placeholder) and p.kind == "field"}

    def display(self) -> str:
        """The text for documentation: escaped braces shown single, placeholders as written."""
        return "".join(part if isinstance(part, str) else _written(part) for part in self.parts)

    def render(self, ctx: "RenderContext") -> str:
        out: list[str] = []
        for part in self.parts:
            out.append(part if isinstance(part, str) else ctx.render(part))
        return "".join(out)


def _written(p: Placeholder) -> str:
    name = CONFIG_PREFIX + p.name if p.kind == "config" else p.name
    return "{" + name + (f"|{p.filter}" if p.filter else "") + "}"


def is_unknown(value: object) -> bool:
    """Kafka-style "none": -1, '', null or NaN."""
    if value is None or value is MISSING:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    if isinstance(value, str):
        return value == ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value == -1
    return False


def plain(value: object) -> object:
    """numpy scalars to Python scalars, whole floats to ints."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            value = value.item()  # type: ignore[union-attr]
        except (ValueError, AttributeError):
            pass
    if isinstance(value, float) and not math.isnan(value) and value.is_integer():
        return int(value)
    return value


def format_value(value: object) -> str:
    """Default rendering: plain text, ``true``/``false``, whole numbers without ``.0``."""
    kind = type(value)
    if kind is str:  # most values: a report of tens of thousands of findings renders millions
        return value  # type: ignore[return-value]
    if kind is int:
        return str(value)
    value = plain(value)
    if value is None or value is MISSING or (isinstance(value, float) and math.isnan(value)):
        return "unknown"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, set, frozenset)) or hasattr(value, "tolist"):
        items = value.tolist() if hasattr(value, "tolist") else list(value)  # type: ignore[union-attr]
        return ",".join(format_value(v) for v in items)
    return str(value)


def format_time(value: object) -> str:
    """Epoch milliseconds as ISO-8601 UTC; ``unknown`` for -1 / null."""
    if type(value) is int:
        return "unknown" if value == -1 else iso_time(value) or "unknown"  # type: ignore[arg-type]
    value = plain(value)
    if is_unknown(value) or not isinstance(value, (int, float)) or isinstance(value, bool):
        return "unknown" if is_unknown(value) else format_value(value)
    return iso_time(int(round(value))) or "unknown"


def format_duration(value: object) -> str:
    """Milliseconds as ``850 ms``, ``1.5s`` or ``1h 2m 3s``; ``unknown`` for -1 / null."""
    if type(value) is int:
        if value == -1:
            return "unknown"
        ms = value
    else:
        value = plain(value)
        if is_unknown(value) or not isinstance(value, (int, float)) or isinstance(value, bool):
            return "unknown" if is_unknown(value) else format_value(value)
        ms = int(round(value))
    if ms < 0:
        return "-" + format_duration(-ms)
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        return f"{ms / 1000:.3f}".rstrip("0").rstrip(".") + "s"
    rest = ms // 1000
    units = []
    for suffix, size in (("d", 86_400), ("h", 3_600), ("m", 60), ("s", 1)):
        units.append((rest // size, suffix))
        rest %= size
    nonzero = [i for i, (n, _) in enumerate(units) if n]
    first, last = nonzero[0], nonzero[-1]
    return " ".join(f"{n}{suffix}" for n, suffix in units[first : last + 1])


def format_int(value: object) -> str:
    """A plain integer (no grouping), so it can be pasted into commands and config files."""
    value = plain(value)
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and not math.isnan(value):
        return str(int(round(value)))
    return format_value(value)


def format_list(values: Sequence[object]) -> str:
    """Distinct values, first-seen order, comma-joined; the text of each value is kept as is."""
    seen: dict[str, None] = {}
    for v in values:
        seen.setdefault(format_value(v), None)
    items = list(seen)
    text = ",".join(items[:LIST_LIMIT])
    if len(items) > LIST_LIMIT:
        text += f" (+{len(items) - LIST_LIMIT} more)"
    return text


FILTERS: dict[str, Callable[[object], str]] = {
    "time": format_time,
    "duration": format_duration,
    "int": format_int,
    "ms": format_int,
    "list": format_value,  # for one row; groups go through format_list
    "arg": format_value,  # a command argument: unknown values become ``<NAME>`` (see ``RenderContext``)
}


@dataclass
class RenderContext:
    """Values for one finding: its representative row, the whole group (for ``|list``), config."""

    row: Mapping[str, object]
    config: ConfigView
    count: int = 1
    group: Mapping[str, Sequence[object]] | None = None

    def render(self, p: Placeholder) -> str:
        if p.kind == "count":
            value: object = self.count
        elif p.kind == "config":
            value = self.config.get(p.name)
        elif p.filter == "list" and self.group is not None and p.name in self.group:
            return format_list(self.group[p.name])
        else:
            value = self.row.get(p.name, MISSING)
        if p.filter is None:
            return format_value(value)
        if p.filter == "arg" and is_unknown(plain(value)):
            return f"<{p.name.upper()}>"  # a placeholder the user fills in, never an empty argument
        return FILTERS[p.filter](value)


def parse_template(text: str, columns: Collection[str]) -> Template:
    """Split ``text`` into literals and placeholders, checking every name and filter."""
    parts: list[str | Placeholder] = []
    buf: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "{" and text.startswith("{{", i):
            buf.append("{")
            i += 2
        elif c == "}" and text.startswith("}}", i):
            buf.append("}")
            i += 2
        elif c == "}":
            raise TemplateError(f"single '}}' at position {i} (write '}}}}' for a literal brace)")
        elif c == "{":
            end = text.find("}", i + 1)
            inner = text[i + 1 : end] if end >= 0 else ""
            if end < 0 or "{" in inner:
                raise TemplateError(f"unclosed '{{' at position {i} (write '{{{{' for a literal brace)")
            if buf:
                parts.append("".join(buf))
                buf = []
            parts.append(_placeholder(inner, columns))
            i = end + 1
        else:
            buf.append(c)
            i += 1
    if buf:
        parts.append("".join(buf))
    return Template(text, tuple(parts))


def _placeholder(inner: str, columns: Collection[str]) -> Placeholder:
    m = _PLACEHOLDER.fullmatch(inner)
    if not m:
        raise TemplateError(f"invalid placeholder '{{{inner}}}' (expected {{column}}, {{column|filter}}, "
                            "{config.KEY} or {_count})")
    name, flt = m.group("name"), m.group("filter")
    if flt is not None and flt not in FILTERS:
        raise TemplateError(f"unknown filter '{flt}' in '{{{inner}}}' (expected one of {', '.join(FILTERS)})")
    if name == COUNT:
        return Placeholder("count", COUNT, flt)
    if name.startswith(CONFIG_PREFIX):
        return Placeholder("config", name[len(CONFIG_PREFIX) :], flt)
    if name not in columns:
        raise TemplateError(f"unknown placeholder '{{{inner}}}': '{name}' is not a column of the rule's table "
                            "(config values are written {config.KEY})")
    return Placeholder("field", name, flt)
