"""What every source detector produces: configs derived from one file, in Kafka's own key names.

A docker-compose file, a Strimzi resource or a Quarkus ``application.properties`` holds Kafka
settings under other names and in other places. A detector maps each setting to its Kafka key
while keeping the entry's line, column and value span in the original file, so findings point at
the real line and ``--fix`` edits the real text. The derived configs share the file's text and
path; they differ in entries, dialect and how a missing key is spelled when a fix adds it.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from ..model import ConfigFile, Entry
from ..secrets import is_sensitive
from .envnames import env_name


@dataclass(frozen=True)
class KeyWriter:
    """How a source spells a Kafka key it lacks, so ``--fix`` can add it in place: ``prefix`` + the
    key (as an image's environment variable when ``env_family`` is set), only for ``sides`` when
    given; ``prefix=None`` when the format leaves no place to add one. A plain value, not a
    closure: derived configs travel between processes (the Spark runner pickles them)."""

    prefix: str | None
    sides: tuple[str, ...] = ()
    env_family: str = ""

    def __call__(self, side: str, key: str) -> str | None:
        if self.prefix is None or (self.sides and side not in self.sides):
            return None
        return self.prefix + (env_name(key, self.env_family) if self.env_family else key)


CANNOT_ADD = KeyWriter(None)


def derive(cfg: ConfigFile, dialect: str, entries: list[Entry], source: str, *,
           writer: KeyWriter = CANNOT_ADD, doc: int = 0,
           broker_count: int | None = None, image_defaults: bool = True,
           credentials: list[Entry] | None = None) -> ConfigFile:
    """A config read from part of ``cfg`` (same path and text), with entries under Kafka's names;
    ``credentials`` are image variables holding a credential, checked and masked like secret keys."""
    for e in entries:
        e.secret = e.secret or is_sensitive(e.key)
    for e in credentials or []:
        e.secret = True
    return dataclasses.replace(
        cfg, entries=entries, origin=cfg.origin or cfg.entries, dialect=dialect, source=source, writer=writer, unit_doc=doc,
        broker_count=broker_count, image_defaults=image_defaults, credentials=list(credentials or []),
    )


def renamed(entry: Entry, key: str) -> Entry:
    """``entry`` under another key name, at the same place."""
    return dataclasses.replace(entry, key=key, items=[], maps=[])


_PLACEHOLDER = re.compile(r"\$\{([^}:]*)(?::([^}]*))?\}")


def resolved(value: str) -> str:
    """A value with ``${NAME:default}`` placeholders replaced by their default, the way the
    application reads it when the variable is not set; a placeholder without a default stays."""
    return _PLACEHOLDER.sub(lambda m: m.group(2) if m.group(2) is not None else m.group(0), value)


def with_value(entry: Entry, key: str, value: str, span: tuple[int, int] | None, quote: str = "") -> Entry:
    """An entry for part of a larger value (``KAFKA_ACKS=1`` inside a list item)."""
    return dataclasses.replace(entry, key=key, value=value, span=span, quote=quote, items=[], maps=[])
