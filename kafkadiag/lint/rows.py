"""Split each file into the clients it configures: one row per producer, consumer, Streams app,
Flink sink, broker or topic.

A row holds *views*: for each side a rule may talk about (producer, consumer, streams, broker),
the entries that configure it under their Java key names. A Spring ``application.yml`` yields a
producer and a consumer row from one file; a Streams file yields one row whose producer view
merges plain and ``producer.``-prefixed keys the way StreamsConfig does. Each row also knows how
to spell a key that is missing, so ``--fix`` can add it in the file's own dialect.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .keys import (
    CONSUMER_KEYS,
    PRODUCER_KEYS,
    STREAMS_KEYS,
    flink_client_key,
    kafka_keys,
    librdkafka_key,
    spring_key,
    spring_property,
    spring_unbound,
    streams_client_key,
)
from .model import ConfigFile, Entry

View = dict[str, Entry]


@dataclass
class Row:
    cfg: ConfigFile
    role: str  # producer | consumer | streams | broker | topic | client
    dialect: str
    section: str = ""
    views: dict[str, View] = field(default_factory=dict)
    prefix: str = ""  # JSON/YAML section prefix of the row's keys
    topic: str = ""
    doc: int = 0  # YAML document keys are added to
    ignored: list[tuple[Entry, str]] = field(default_factory=list)  # (setting, where it should go) the client never sees

    def view(self, side: str) -> View:
        if side in self.views:
            return self.views[side]
        return self.views.get(_MAIN_VIEW.get(self.role, "client"), {})

    def entry(self, side: str, key: str) -> Entry | None:
        return self.view(side).get(key)

    def value(self, side: str, key: str) -> str | None:
        e = self.entry(side, key)
        return None if e is None else e.value

    def anchor(self) -> Entry | None:
        """The entry a finding about the row as a whole points at."""
        main = self.view(_MAIN_VIEW.get(self.role, "client"))
        for key in ("transactional.id", "processing.guarantee", "application.id", "group.id", "bootstrap.servers"):
            if key in main:
                return main[key]
        entries = [e for v in self.views.values() for e in v.values()]
        return min(entries, key=lambda e: (e.line, e.column)) if entries else None

    def write_key(self, side: str, key: str) -> str | None:
        """The key to add to this row's file for ``key`` on ``side``; None when it cannot be added."""
        if self.cfg.fmt == "describe":
            return None
        if self.cfg.writer is not None:
            inner = self._inner_key(side, key)
            return self.cfg.writer(side, inner) if inner else None
        return self._inner_key(side, key)

    def spelled_key(self, side: str, key: str) -> str | None:
        """How this row's file writes ``key`` on ``side``, also where ``--fix`` cannot add it (a SQL table)."""
        return self.write_key(side, key) or self._inner_key(side, key)

    def _inner_key(self, side: str, key: str) -> str | None:
        """The key as this row's dialect spells it (before a source puts it in its place)."""
        if self.dialect == "spring":
            scope = side if side in ("producer", "consumer", "streams") else self.role
            return spring_property(scope, key)
        if self.dialect == "streams":
            if side == "streams" or key in STREAMS_KEYS:
                return key
            return f"{'consumer' if side == 'consumer' else 'producer'}.{key}"
        if self.dialect == "flink":
            styled = any(k.startswith("properties.") for k in self.cfg_keys())
            return f"properties.{key}" if styled and side != "flink" else key
        return f"{self.prefix}{key}"

    def cfg_keys(self) -> list[str]:
        return [e.key for e in self.cfg.entries]


_MAIN_VIEW = {"producer": "producer", "consumer": "consumer", "streams": "streams", "broker": "broker",
              "topic": "broker", "client": "client"}


def build_rows(cfg: ConfigFile) -> list[Row]:
    """The rows of one file in its dialect (``cfg.dialect`` must be set)."""
    rows = _dialect_rows(cfg)
    if cfg.source:
        for row in rows:
            row.section = f"{cfg.source}" + (f" ({row.section})" if row.section else "")
            row.doc = cfg.unit_doc
            row.ignored = list(cfg.ignored)
    return rows


def _dialect_rows(cfg: ConfigFile) -> list[Row]:
    builder = {
        "java": _clients,
        "librdkafka": _clients,
        "streams": _streams,
        "spring": _spring,
        "flink": _flink,
        "broker": _broker,
    }[cfg.dialect]
    return builder(cfg)


def _last_wins(entries: list[Entry], key_of) -> View:  # type: ignore[no-untyped-def]
    view: View = {}
    for e in entries:
        key = key_of(e)
        if key:
            view[key] = e
    return view


def _roles(view: View) -> list[str]:
    keys = set(view)
    roles = [r for r, marks in (("producer", PRODUCER_KEYS), ("consumer", CONSUMER_KEYS)) if keys & marks]
    return roles or ["client"]


def _clients(cfg: ConfigFile) -> list[Row]:
    """Plain Java or librdkafka client configs, split into JSON/YAML sections when nested."""
    normal = librdkafka_key if cfg.dialect == "librdkafka" else (lambda k: k)
    known = kafka_keys()
    groups: dict[str, list[Entry]] = {}
    for e in cfg.entries:
        section = ""
        if not cfg.source and cfg.fmt in ("yaml", "json") and normal(e.key) not in known and "." in e.key:
            head, rest = e.key.split(".", 1)
            if normal(rest) in known:
                section = head
        groups.setdefault(section, []).append(e)
    rows: list[Row] = []
    for section, entries in groups.items():
        cut = len(section) + 1 if section else 0
        view = _last_wins(entries, lambda e: normal(e.key[cut:]))
        if section and not set(view) & known:
            continue
        for role in [cfg.role_hint] if cfg.role_hint else _roles(view):
            rows.append(Row(cfg, role, cfg.dialect, section, {role: view, "client": view}, f"{section}." if section else ""))
    return rows


def _streams(cfg: ConfigFile) -> list[Row]:
    plain = [e for e in cfg.entries if not streams_client_key(e.key)[0]]
    views: dict[str, View] = {"streams": _last_wins(plain, lambda e: e.key)}
    for client in ("producer", "consumer"):
        view = dict(views["streams"])
        for e in cfg.entries:
            side, key = streams_client_key(e.key)
            if side == client and not e.key.startswith("main."):
                view[key] = e
        if client == "consumer":
            for e in cfg.entries:
                if e.key.startswith("main.consumer."):
                    view[e.key[len("main.consumer."):]] = e
        views[client] = view
    return [Row(cfg, "streams", "streams", "", views)]


def _spring(cfg: ConfigFile) -> list[Row]:
    """Spring Boot: producer, consumer and Streams rows of the profile in force.

    As Spring resolves them: documents without a profile condition apply in order (a later one
    overrides an earlier one); a document for a profile (``spring.config.activate.on-profile``,
    ``spring.profiles``) applies only when that profile is active (``--profile``)."""
    from .sources.frameworks import active_entries

    active = active_entries(cfg, cfg.profile, quarkus=False)
    scoped: dict[str, View] = {s: {} for s in ("common", "producer", "consumer", "streams", "template")}
    ignored: dict[str, list[tuple[Entry, str]]] = {s: [] for s in ("producer", "consumer", "streams")}
    for e in active:
        mapped = spring_key(e.key)
        if mapped:
            scoped[mapped[0]][mapped[1]] = e
            continue
        unbound = spring_unbound(e.key)
        if unbound and unbound[0] in ignored:
            ignored[unbound[0]].append((e, spring_property(unbound[0], unbound[1])))
    label = f"profile {cfg.profile}" if cfg.profile else ""
    last_doc = max((e.doc for e in active), default=0)
    rows: list[Row] = []
    for role in ("producer", "consumer", "streams"):
        own = scoped[role] | (scoped["template"] if role == "producer" else {})
        if not own:
            continue
        view = {**scoped["common"], **scoped[role]}
        if role == "producer":
            view.update(scoped["template"])
        section = f"spring.kafka.{role}" + (f" ({label})" if label else "")
        views = {role: view, "client": view}
        if role == "streams":
            views["producer"] = view
        rows.append(Row(cfg, role, "spring", section, views, doc=max((e.doc for e in own.values()), default=last_doc),
                        ignored=ignored[role]))
    if not rows and scoped["common"]:
        rows.append(Row(cfg, "client", "spring", f"spring.kafka ({label})" if label else "spring.kafka",
                        {"client": scoped["common"]}, doc=last_doc))
    return rows


def _flink(cfg: ConfigFile) -> list[Row]:
    flink = _last_wins(cfg.entries, lambda e: e.key)
    producer: View = {}
    for e in cfg.entries:
        key = flink_client_key(e.key)
        if key is None and e.key in kafka_keys():
            key = e.key
        if key:
            producer[key] = e
    sink = any(k.startswith(("sink.", "transactional-id-prefix", "delivery-guarantee")) for k in flink)
    role = "producer" if sink or set(producer) & PRODUCER_KEYS else "client"
    return [Row(cfg, role, "flink", "", {"flink": flink, "producer": producer, "client": producer})]


def _broker(cfg: ConfigFile) -> list[Row]:
    if cfg.fmt != "describe":
        return [Row(cfg, "broker", "broker", "", {"broker": _last_wins(cfg.entries, lambda e: e.key)})]
    sections: dict[str, list[Entry]] = {}
    for e in cfg.entries:
        sections.setdefault(e.section, []).append(e)
    rows = []
    for section, entries in sections.items():
        topic = section.split(" ", 1)[1] if section.startswith("topic ") else ""
        view = _last_wins(entries, lambda e: e.key)
        rows.append(Row(cfg, "topic" if topic else "broker", "broker", section, {"broker": view}, topic=topic))
    return rows
