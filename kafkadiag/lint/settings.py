"""Per-project lint settings: ``[tool.kafkadiag]`` in ``pyproject.toml`` or ``.kafkadiag.yaml``.

Looked up from the current directory upwards; the first file that has settings wins (like ruff).
Keys (dashes or underscores): ``select``, ``ignore``, ``severity`` (rule id or prefix → error,
warning, info), ``kafka-version``, ``fail-on``, ``infrequent-producers`` (transactional.id glob →
longest idle gap, e.g. ``"reports-*": 10d``), ``dialects`` (file glob → dialect) and ``exclude``
(file globs). An unknown key is an error, so a typo never silently disables a setting.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..findings import SEVERITIES
from ..nesting import MAX_NESTING, too_deep
from ..smallfile import TooLarge, read_small
from .defaults import duration_ms
from .detect import DIALECTS

SETTINGS_FILES = (".kafkadiag.yaml", ".kafkadiag.yml", "pyproject.toml")
FAIL_ON = ("error", "warning", "info", "never")
KEYS = ("select", "ignore", "severity", "kafka_version", "fail_on", "infrequent_producers", "dialects", "exclude")


class SettingsError(ValueError):
    """Settings that cannot be used; the message names the file and key."""


@dataclass
class Settings:
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    kafka_version: str | None = None
    fail_on: str | None = None
    idle: dict[str, int] = field(default_factory=dict)
    dialects: dict[str, str] = field(default_factory=dict)
    exclude: list[str] = field(default_factory=list)
    source: str | None = None


MAX_SETTINGS_BYTES = 1 << 20


def find_settings(start: Path) -> Path | None:
    """The nearest settings file from ``start`` upwards that actually holds kafkadiag settings."""
    for folder in [start, *start.parents]:
        for name in SETTINGS_FILES:
            candidate = folder / name
            if candidate.is_file() and (name != "pyproject.toml" or _pyproject_table(candidate) is not None):
                return candidate
    return None


def load_settings(path: Path) -> Settings:
    if path.name == "pyproject.toml":
        table = _pyproject_table(path) or {}
    else:
        try:
            table = yaml.safe_load(_settings_text(path)) or {}
        except yaml.YAMLError as exc:
            raise SettingsError(f"{path}: cannot read settings: {exc}") from None
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: expected a mapping of settings")
    return parse_settings(table, str(path))


def _settings_text(path: Path) -> str:
    """A settings file's text, if it is small and shallow enough for a parser to take safely."""
    try:
        text = read_small(path, MAX_SETTINGS_BYTES, "settings file").decode("utf-8")
    except (OSError, TooLarge, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read settings: {exc}") from None
    if too_deep(text):
        raise SettingsError(f"{path}: cannot read settings: nested deeper than {MAX_NESTING} levels")
    return text


def _pyproject_table(path: Path) -> dict | None:
    try:
        data = tomllib.loads(_settings_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: cannot read: {exc}") from None
    table = data.get("tool", {}).get("kafkadiag")
    return table if isinstance(table, dict) else None


def parse_settings(table: dict, source: str) -> Settings:
    out = Settings(source=source)
    for raw_key, value in table.items():
        key = str(raw_key).replace("-", "_")
        where = f"{source}: {raw_key}"
        if key not in KEYS:
            raise SettingsError(f"{where}: unknown setting (expected one of {', '.join(k.replace('_', '-') for k in KEYS)})")
        if key in ("select", "ignore", "exclude"):
            setattr(out, key, _strings(value, where))
        elif key == "severity":
            out.severity = {str(k): _choice(v, SEVERITIES, f"{where}.{k}") for k, v in _mapping(value, where).items()}
        elif key == "kafka_version":
            out.kafka_version = str(value)
        elif key == "fail_on":
            out.fail_on = _choice(value, FAIL_ON, where)
        elif key == "infrequent_producers":
            out.idle = {str(k): _duration(v, f"{where}.{k}") for k, v in _mapping(value, where).items()}
        elif key == "dialects":
            out.dialects = {str(k): _choice(v, DIALECTS, f"{where}.{k}") for k, v in _mapping(value, where).items()}
    return out


def _strings(value: object, where: str) -> list[str]:
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise SettingsError(f"{where}: expected a list of strings")


def _mapping(value: object, where: str) -> dict:
    if not isinstance(value, dict):
        raise SettingsError(f"{where}: expected a mapping")
    return value


def _choice(value: object, options: tuple[str, ...], where: str) -> str:
    text = str(value).lower()
    if text not in options:
        raise SettingsError(f"{where}: {value!r} is not one of {', '.join(options)}")
    return text


def _duration(value: object, where: str) -> int:
    ms = duration_ms(str(value))
    if ms is None or ms <= 0:
        raise SettingsError(f"{where}: {value!r} is not a duration (e.g. 36h, 10d, 600000)")
    return ms
