"""Read one file into a ConfigFile: pick the format by content, parse it, mark secrets."""

from __future__ import annotations

import json
from pathlib import Path

from ..config import MAX_CONFIG_BYTES
from ..nesting import MAX_NESTING, too_deep
from ..smallfile import TooLarge, read_small
from .codeconf import code_dialect, parse_code_config
from .describe import looks_like_describe, parse_describe
from .flinksql import looks_like_flink_ddl, parse_flink_ddl
from .model import ConfigFile, Entry
from .properties import parse_properties
from .secrets import is_sensitive
from .sources.notconfig import is_template
from .yamlconf import ParseError, parse_yaml


class InputError(ValueError):
    """A file that cannot be read or parsed; the message names it."""


class NotAConfig(InputError):
    """A file that is not a configuration (a Helm or Jinja template): passed over, counted."""


class UnreadableError(InputError):
    """The file is there but cannot be read (permissions, I/O): the run must not pass for complete."""


def read_config(path: Path, shown: str, explicit: bool = True, text: str | None = None) -> ConfigFile:
    """Parse ``path`` (shown in output as ``shown``) in the format its content has; ``text``
    stands in for the file's content (a fix being checked before it is written, or a block pasted
    in a text, whose ``path`` then carries the block's language as its suffix)."""
    if text is None:
        text = _read_text(path, shown)
    if text.startswith("\ufeff"):
        text = text[1:]
    if too_deep(text):
        raise InputError(f"{shown}: nested deeper than {MAX_NESTING} levels: not read")
    if is_template(text):
        raise NotAConfig(f"{shown}: a template ({{{{ }}}} or {{% %}}), not a configuration: skipped")
    fmt = sniff_format(text, path.suffix.lower())
    cfg = ConfigFile(path=shown, text=text, fmt=fmt, explicit=explicit,
                     code_suffix=path.suffix.lower() if fmt == "code" else "")
    try:
        cfg.entries, cfg.structure = _parse(text, fmt, path.suffix.lower())
    except ParseError as exc:
        raise InputError(f"{shown}: invalid {fmt.upper()}: {exc}") from None
    for entry in cfg.entries:
        entry.secret = is_sensitive(entry.key)
    return cfg


def _read_text(path: Path, shown: str) -> str:
    try:
        raw = read_small(path, MAX_CONFIG_BYTES, "configuration file")
    except OSError as exc:
        raise UnreadableError(f"{shown}: cannot read: {exc.strerror}") from None
    except TooLarge as exc:
        raise InputError(f"{shown}: {exc}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")  # java.util.Properties.load(InputStream) reads ISO-8859-1


def sniff_format(text: str, suffix: str) -> str:
    """properties, yaml, json, describe or sql (Flink SQL DDL), from the content (the suffix only breaks ties)."""
    body = text.lstrip()
    if looks_like_describe(text):
        return "describe"
    if suffix not in (".yml", ".yaml", ".json", ".properties") and looks_like_flink_ddl(text):
        return "sql"
    if code_dialect(text, suffix):
        return "code"
    if body.startswith("{"):
        return "json"
    if suffix in (".yml", ".yaml"):
        return "yaml"
    if suffix == ".json":
        return "json"
    if suffix in (".properties", ".conf", ".cfg"):
        return "properties"
    lines = [ln for ln in (s.strip() for s in text.splitlines()) if ln and not ln.startswith(("#", "!"))]
    if lines and lines[0] == "---":
        return "yaml"
    yaml_like = sum(1 for ln in lines if _yaml_line(ln))
    props_like = sum(1 for ln in lines if "=" in ln.split(":", 1)[0])
    if yaml_like and yaml_like >= props_like and any(ln.endswith(":") for ln in lines):
        return "yaml"
    return "properties"


def _yaml_line(line: str) -> bool:
    key, sep, _ = line.partition(":")
    return bool(sep) and "=" not in key and " " not in key.strip()


def _parse(text: str, fmt: str, suffix: str = "") -> tuple[list[Entry], object]:
    if fmt == "describe":
        return parse_describe(text), None
    if fmt == "properties":
        return parse_properties(text), None
    if fmt == "sql":
        return parse_flink_ddl(text), None
    if fmt == "code":
        return parse_code_config(text, suffix), None
    try:
        return parse_yaml(text)
    except ParseError:
        if fmt != "json":
            raise
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ParseError(f"line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    return _flat_json(data, text), None


def _flat_json(data: object, text: str, prefix: str = "") -> list[Entry]:
    """JSON PyYAML could not read (tabs and the like): values without editable spans."""
    out: list[Entry] = []
    if not isinstance(data, dict):
        return out
    for key, value in data.items():
        full = f"{prefix}{key}"
        if isinstance(value, dict):
            out.extend(_flat_json(value, text, full + "."))
            continue
        at = text.find(json.dumps(str(key)))
        line = text.count("\n", 0, at) + 1 if at >= 0 else 1
        shown = ",".join(map(str, value)) if isinstance(value, list) else ("true" if value is True else "false" if value is False else "" if value is None else str(value))
        out.append(Entry(key=full, value=shown, line=line, column=1, end_line=line))
    return out
