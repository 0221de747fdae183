"""Effective configuration values the diagnoses depend on, and where each came from.

Thresholds such as "older than transaction.max.timeout.ms" must use the values of the cluster at
hand. Users pass producer or broker ``.properties`` files with ``--config``; anything not given
falls back to Kafka's default, and the report says so (a finding built on a default is weaker
evidence than one built on the real value).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from .smallfile import TooLarge, read_small

MAX_CONFIG_BYTES = 8 << 20  # a configuration larger than this is not one (2 million keys took 45 s)

#: A Java long: the largest value any of these millisecond settings can take.
LONG_MAX = (1 << 63) - 1

#: Kafka defaults for the keys the rules use (identical from 0.11 to 4.x unless noted).
DEFAULTS: dict[str, int] = {
    "transaction.timeout.ms": 60_000,  # producer
    "transaction.max.timeout.ms": 900_000,  # broker
    "transactional.id.expiration.ms": 604_800_000,  # broker, 7 days
    "producer.id.expiration.ms": 86_400_000,  # broker, 3.0+
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": 10_000,  # broker
    "transaction.remove.expired.transaction.cleanup.interval.ms": 3_600_000,  # broker
    "delivery.timeout.ms": 120_000,  # producer
    "request.timeout.ms": 30_000,  # producer
}

SIDES: dict[str, str] = {
    "transaction.timeout.ms": "producer",
    "transaction.max.timeout.ms": "broker",
    "transactional.id.expiration.ms": "broker",
    "producer.id.expiration.ms": "broker",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "broker",
    "transaction.remove.expired.transaction.cleanup.interval.ms": "broker",
    "delivery.timeout.ms": "producer",
    "request.timeout.ms": "producer",
}


class ConfigError(ValueError):
    """A --config file that cannot be read or holds an unusable value."""


@dataclass
class ConfigValue:
    key: str
    value: int
    source: str  # "default" or "<file>:<line>"

    @property
    def is_default(self) -> bool:
        return self.source == "default"


@dataclass
class EffectiveConfig:
    values: dict[str, ConfigValue] = field(default_factory=dict)

    @classmethod
    def defaults(cls) -> "EffectiveConfig":
        return cls({k: ConfigValue(k, v, "default") for k, v in DEFAULTS.items()})

    def get(self, key: str) -> int:
        return self.values[key].value

    def as_mapping(self) -> dict[str, int]:
        return {k: v.value for k, v in self.values.items()}

    def to_json(self) -> list[dict]:
        return [
            {"key": v.key, "value": v.value, "source": v.source, "default": v.is_default}
            for v in sorted(self.values.values(), key=lambda c: c.key)
        ]

    def overlay_entries(self, path: str, entries: list) -> None:
        """Take the relevant keys of a configuration input (any dialect: ``producer.``/``spring.kafka...``
        prefixes are read by their last part) where only the default is known so far."""
        for entry in entries:
            key = next((k for k in DEFAULTS if entry.key == k or entry.key.endswith("." + k)), None)
            if key is None or not self.values[key].is_default:
                continue
            try:
                value = int(str(entry.value).strip())
            except ValueError:
                continue  # lint reports values that are not numbers
            if 0 < value <= LONG_MAX:
                self.values[key] = ConfigValue(key, value, f"{path}:{entry.line}")

    def load_properties(self, path: str) -> None:
        """Overlay the relevant keys of a Java .properties file (producer or broker)."""
        for key, raw, line in _iter_properties(path):
            if key not in DEFAULTS:
                continue
            try:
                value = int(raw.strip())
            except ValueError:
                raise ConfigError(f"{path}:{line}: {key}={raw!r} is not a whole number of milliseconds") from None
            if value <= 0:
                raise ConfigError(f"{path}:{line}: {key}={value} must be positive")
            if value > LONG_MAX:
                raise ConfigError(f"{path}:{line}: {key}={value} is out of range (at most {LONG_MAX})")
            self.values[key] = ConfigValue(key, value, f"{path}:{line}")


def _iter_properties(path: str) -> Iterator[tuple[str, str, int]]:
    """Java .properties: `key=value`, `key: value` or `key value`, # and ! comments, \\ continuations."""
    try:
        text = read_small(path, MAX_CONFIG_BYTES, "configuration file").decode("utf-8", errors="replace")
    except FileNotFoundError:
        raise ConfigError(f"no such config file: {path}") from None
    except OSError as exc:
        raise ConfigError(f"cannot read config file {path}: {exc.strerror}") from None
    except TooLarge as exc:
        raise ConfigError(f"{path}: {exc}") from None
    pending = ""
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not pending and (not line or line[0] in "#!"):
            continue
        if not pending:
            start = number
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending += line[:-1]
            continue
        line = pending + line
        pending = ""
        for i, ch in enumerate(line):
            if ch in "=: \t":
                key, rest = line[:i], line[i + 1 :].lstrip()
                if ch in " \t" and rest[:1] in ("=", ":"):
                    rest = rest[1:].lstrip()
                yield key.strip(), rest, start
                break
        else:
            yield line, "", start
