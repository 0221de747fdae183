"""Effective configuration values the diagnoses depend on, and where each came from.

Thresholds such as "older than transaction.max.timeout.ms" must use the values of the cluster at
hand. Users pass producer or broker ``.properties`` files with ``--config``; anything not given
falls back to Kafka's default, and the report says so (a finding built on a default is weaker
evidence than one built on the real value).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .lint import defaults as lint_defaults

MAX_CONFIG_BYTES = 8 << 20  # a configuration larger than this is not one (2 million keys took 45 s)

#: A Java long: the largest value any of these millisecond settings can take.
LONG_MAX = (1 << 63) - 1

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


def _defaults() -> dict[str, int]:
    """The analyze thresholds' defaults, from lint's one table of versioned defaults (newest Kafka;
    producer.id.expiration.ms, unknown before 3.4, falls back to the broker's own fallback)."""
    code = lint_defaults.version_code(lint_defaults.DEFAULT_KAFKA_VERSION)
    table = {**lint_defaults.java_producer(code), **lint_defaults.broker(code)}
    return {key: int(table[key]) for key in SIDES}  # type: ignore[arg-type]


#: Kafka defaults for the keys the rules use (from kafkadiag.lint.defaults: one table for lint and analyze).
DEFAULTS: dict[str, int] = _defaults()


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

    def overlay_config(self, cfg: object) -> None:
        """Take the relevant values of a configuration input where only the default is known so far.

        ``cfg`` is a parsed ``kafkadiag.lint.model.ConfigFile`` with its dialect set; its values are
        read exactly as lint reads them (the same rows: a Spring producer's
        ``spring.kafka.producer.properties.transaction.timeout.ms``, a compose broker's
        ``KAFKA_TRANSACTION_MAX_TIMEOUT_MS``). Values that are not numbers are lint's to report."""
        for key, entry in _relevant(cfg):
            if not self.values[key].is_default:
                continue
            try:
                value = int(str(entry.value).strip())
            except ValueError:
                continue
            if 0 < value <= LONG_MAX:
                self.values[key] = ConfigValue(key, value, f"{cfg.path}:{entry.line}")  # type: ignore[attr-defined]

    def load_properties(self, path: str) -> None:
        """Overlay the relevant keys of a ``--config`` file (any format lint reads: properties,
        Spring YAML, compose, Strimzi...); a relevant value that is not a usable number is an error."""
        from .lint.load import InputError, read_config

        try:
            cfg = read_config(Path(path), path)
        except FileNotFoundError:
            raise ConfigError(f"no such config file: {path}") from None
        except InputError as exc:
            raise ConfigError(str(exc) if str(exc).startswith(path) else f"cannot read config file {path}: {exc}") from None
        for unit in _units(cfg):
            for key, entry in _relevant(unit):
                raw = entry.value.strip()
                line = entry.line
                try:
                    value = int(raw)
                except ValueError:
                    raise ConfigError(f"{path}:{line}: {key}={raw!r} is not a whole number of milliseconds") from None
                if value <= 0:
                    raise ConfigError(f"{path}:{line}: {key}={value} must be positive")
                if value > LONG_MAX:
                    raise ConfigError(f"{path}:{line}: {key}={value} is out of range (at most {LONG_MAX})")
                self.values[key] = ConfigValue(key, value, f"{path}:{line}")


def _units(cfg: object) -> list:
    """The configs lint reads from a parsed file: a source's (compose, Strimzi...) or the file itself."""
    from .lint.detect import detect_dialect
    from .lint.sources import expand

    found = expand(cfg)  # type: ignore[arg-type]
    units = list(found[1]) if found else []
    if found is None or found[0] in ("spring-cloud-stream", "spring-section"):
        dialect = detect_dialect(cfg)  # type: ignore[arg-type]
        if dialect:
            cfg.dialect = dialect  # type: ignore[attr-defined]
            units.append(cfg)
    return units


def _relevant(cfg: object) -> list:
    """(key, entry) of every threshold key ``cfg`` sets, taken from the side the key belongs to."""
    from .lint.rows import build_rows

    if not getattr(cfg, "dialect", ""):
        return []
    out = []
    for row in build_rows(cfg):  # type: ignore[arg-type]
        for key, side in SIDES.items():
            if (side == "broker") != (row.role in ("broker", "topic")):
                continue
            entry = row.entry(side, key)
            if entry is not None:
                out.append((key, entry))
    return out
