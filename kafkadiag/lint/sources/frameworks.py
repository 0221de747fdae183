"""Application frameworks that hand Kafka settings to their clients from their own key spaces.

Each framework is a table of where its keys live (data, not code paths): the part of the key
that names the client, and the part that is the Kafka key. Keys are compared in Spring's relaxed
form (case, ``-`` and ``_`` ignored) where the framework binds them that way.

* Quarkus / SmallRye: ``kafka.*`` and ``mp.messaging.connector.smallrye-kafka.*`` (every channel),
  ``mp.messaging.outgoing|incoming.<channel>.*``,
  ``kafka-streams.*`` and ``quarkus.kafka-streams.application-id``; ``%profile.`` prefixes.
* Micronaut: ``kafka.*``, ``kafka.producers|consumers|streams.<name>.*``.
* Spring Cloud Stream Kafka binder: ``binder.configuration.*``, ``binder.producer-properties.*``,
  ``binder.consumer-properties.*``, ``binder.transaction.transaction-id-prefix``,
  ``binder.transaction.producer.configuration.*``, ``bindings.<name>.producer|consumer.configuration.*``
  and the Kafka Streams binder's ``streams.binder.configuration.*``.
* Any Spring YAML section holding a ``transaction-id-prefix`` / ``transactionIdPrefix`` (an
  application's own producer properties class): its sibling keys, in relaxed form, are the producer's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..keys import kafka_keys, spring_key, spring_relaxed
from ..model import ConfigFile, Entry
from .base import CANNOT_ADD, KeyWriter, derive, renamed, resolved

_EXTRA_KEYS = {"enable.idempotence", "max.in.flight.requests.per.connection", "transaction.timeout.ms",
               "delivery.timeout.ms", "linger.ms", "request.timeout.ms", "retries", "acks", "transactional.id",
               "isolation.level", "processing.guarantee"}


def _relaxed_table() -> dict[str, str]:
    return {spring_relaxed(k.replace(".", "")): k for k in kafka_keys() | _EXTRA_KEYS}


@dataclass
class Client:
    """One client the framework configures, and where its keys come from."""

    role: str  # producer | consumer | streams
    label: str
    entries: list[Entry] = field(default_factory=list)
    prefix: str = ""  # key prefix to add a missing Kafka key under ('' : cannot add)
    ignored: list[tuple[Entry, str]] = field(default_factory=list)  # settings the framework drops, with where they belong
    topics: list[str] = field(default_factory=list)  # topics it writes (producers) or reads (consumers), when the file says


def _profile_of(key: str) -> tuple[str, str]:
    """Quarkus ``%dev.kafka.acks`` → ('dev', 'kafka.acks')."""
    if key.startswith("%") and "." in key:
        head, rest = key[1:].split(".", 1)
        return head, rest
    return "", key


def active_entries(cfg: ConfigFile, profile: str | None, quarkus: bool) -> list[Entry]:
    """The entries in force for ``profile``: Quarkus ``%profile.`` keys (default profile ``prod``)
    and Spring profile documents (``spring.config.activate.on-profile`` / ``spring.profiles``; only
    documents without one, unless ``profile`` names theirs). Later entries override earlier ones."""
    docs_profile: dict[int, str] = {}
    for e in cfg.entries:
        k = ".".join(spring_relaxed(p) for p in e.key.split("."))
        if k in ("spring.config.activate.onprofile", "spring.profiles"):
            docs_profile[e.doc] = e.value
    chosen = profile or ("prod" if quarkus else None)
    out: list[Entry] = []
    profiled: list[Entry] = []
    for e in cfg.entries:
        wanted = docs_profile.get(e.doc)
        if wanted is not None and (profile is None or profile not in {w.strip() for w in wanted.split(",")}):
            continue
        prof, rest = _profile_of(e.key)
        if prof:
            if chosen is None or prof not in chosen.split(","):
                continue
            profiled.append(renamed(e, rest))  # a profile's value wins over the plain key wherever it is written
            continue
        out.append(e)
    return out + profiled


def _val(e: Entry) -> Entry:
    v = resolved(e.value)
    return e if v == e.value else _with(e, v)


def _with(e: Entry, value: str) -> Entry:
    import dataclasses
    return dataclasses.replace(e, value=value, span=None if value != e.value else e.span)


# --- Quarkus and Micronaut ---------------------------------------------------------------------

def read_quarkus(cfg: ConfigFile, profile: str | None = None) -> list[ConfigFile] | None:
    keys = [_profile_of(e.key)[1] for e in cfg.entries]
    if not any(k.startswith(("mp.messaging.", "kafka-streams.", "quarkus.kafka-streams.", "quarkus.kafka."))
               for k in keys):
        return None
    entries = [_val(e) for e in active_entries(cfg, profile, quarkus=True)]
    connector = "mp.messaging.connector.smallrye-kafka."
    globals_ = [renamed(e, e.key[len("kafka."):]) for e in entries if e.key.startswith("kafka.")]
    globals_ += [renamed(e, e.key[len(connector):]) for e in entries if e.key.startswith(connector)]
    clients: dict[tuple[str, str], Client] = {}
    for e in entries:
        m = re.match(r"mp\.messaging\.(outgoing|incoming)\.([^.]+)\.(.+)$", e.key)
        if m:
            role = "producer" if m.group(1) == "outgoing" else "consumer"
            c = clients.setdefault((role, m.group(2)), Client(role, f"Quarkus channel {m.group(2)}",
                                                              list(globals_), f"mp.messaging.{m.group(1)}.{m.group(2)}.",
                                                              topics=[m.group(2)]))
            c.entries.append(renamed(e, m.group(3)))
            if m.group(3) == "topic":
                c.topics = [t.strip() for t in e.value.split(",") if t.strip()]
        elif e.key.startswith("kafka-streams."):
            c = clients.setdefault(("streams", ""), Client("streams", "Quarkus Kafka Streams", [], "kafka-streams."))
            c.entries.append(renamed(e, e.key[len("kafka-streams."):]))
        elif spring_relaxed(e.key.replace(".", "")) == "quarkuskafkastreamsapplicationid":
            c = clients.setdefault(("streams", ""), Client("streams", "Quarkus Kafka Streams", [], "kafka-streams."))
            c.entries.insert(0, renamed(e, "application.id"))
    if not clients and globals_:
        clients[("client", "")] = Client("client", "Quarkus kafka", globals_, "kafka.")
    return _units(cfg, clients)


def read_micronaut(cfg: ConfigFile, profile: str | None = None) -> list[ConfigFile] | None:
    if not any(re.match(r"kafka\.(producers|consumers|streams)\.[^.]+\.", e.key) for e in cfg.entries):
        return None
    entries = [_val(e) for e in active_entries(cfg, profile, quarkus=False)]
    globals_ = [renamed(e, e.key[len("kafka."):]) for e in entries
                if e.key.startswith("kafka.") and not re.match(r"kafka\.(producers|consumers|streams|health|embedded)\.", e.key)]
    roles = {"producers": "producer", "consumers": "consumer", "streams": "streams"}
    clients: dict[tuple[str, str], Client] = {}
    for e in entries:
        m = re.match(r"kafka\.(producers|consumers|streams)\.([^.]+)\.(.+)$", e.key)
        if not m:
            continue
        role = roles[m.group(1)]
        c = clients.setdefault((role, m.group(2)), Client(role, f"Micronaut {m.group(1)} {m.group(2)}", list(globals_),
                                                          f"kafka.{m.group(1)}.{m.group(2)}."))
        c.entries.append(renamed(e, m.group(3)))
    return _units(cfg, clients)


# --- Spring Cloud Stream -----------------------------------------------------------------------

_SCST = "spring.cloud.stream.kafka."


def read_spring_cloud_stream(cfg: ConfigFile, profile: str | None = None) -> list[ConfigFile] | None:
    rel = [[spring_relaxed(p) for p in e.key.split(".")] for e in cfg.entries]
    kafka = any(r[:4] == ["spring", "cloud", "stream", "kafka"] for r in rel)
    bindings_only = any(r[:4] == ["spring", "cloud", "stream", "bindings"] for r in rel)
    rabbit = any(r[:4] == ["spring", "cloud", "stream", "rabbit"] for r in rel) or any(
        e.value.strip().lower() == "rabbit" for e, r in zip(cfg.entries, rel) if r[-1] in ("binder", "defaultbinder", "type"))
    if not kafka and not (bindings_only and not rabbit):
        return None
    entries = [_val(e) for e in active_entries(cfg, profile, quarkus=False)]
    common: list[Entry] = []
    producer: list[Entry] = []
    consumer: list[Entry] = []
    txn: list[Entry] = []
    streams: list[Entry] = []
    bindings: dict[tuple[str, str], list[Entry]] = {}
    for e in entries:
        parts = e.key.split(".")
        r = [spring_relaxed(p) for p in parts]
        if r[:4] != ["spring", "cloud", "stream", "kafka"]:
            continue
        rest, raw = r[4:], parts[4:]
        if rest[:2] == ["binder", "configuration"] and len(raw) > 2:
            common.append(renamed(e, ".".join(raw[2:])))
        elif rest[:2] == ["binder", "producerproperties"] and len(raw) > 2:
            producer.append(renamed(e, ".".join(raw[2:])))
        elif rest[:2] == ["binder", "consumerproperties"] and len(raw) > 2:
            consumer.append(renamed(e, ".".join(raw[2:])))
        elif rest == ["binder", "transaction", "transactionidprefix"]:
            txn.insert(0, renamed(e, "transactional.id"))
        elif rest[:4] == ["binder", "transaction", "producer", "configuration"] and len(raw) > 4:
            txn.append(renamed(e, ".".join(raw[4:])))
        elif rest[:3] == ["streams", "binder", "configuration"] and len(raw) > 3:
            streams.append(renamed(e, ".".join(raw[3:])))
        elif rest[:1] == ["bindings"] and len(rest) > 4 and rest[2] in ("producer", "consumer") and rest[3] == "configuration":
            bindings.setdefault((rest[2], raw[1]), []).append(renamed(e, ".".join(raw[4:])))
    channels = _scst_bindings(entries)
    outputs = [t for b in channels.values() if b.direction == "out" for t in b.topics]
    clients: dict[tuple[str, str], Client] = {}
    if txn:
        clients[("producer", "")] = Client("producer", "Spring Cloud Stream transactional producer",
                                           common + producer + txn, "", topics=outputs)
    elif producer:
        clients[("producer", "")] = Client("producer", "Spring Cloud Stream binder producer", common + producer, "",
                                           topics=outputs)
    if consumer or (common and not txn and not producer and not any(b.direction == "in" for b in channels.values())):
        clients[("consumer", "")] = Client("consumer", "Spring Cloud Stream binder consumer", common + consumer, "")
    for (role, name), own in bindings.items():
        if role == "producer" and txn:
            # With binder transactions one producer factory serves every binding: the binding's own
            # producer settings are never used (Spring Cloud Stream's "Transactional Binder").
            clients[("producer", "")].ignored.extend(
                (e, f"spring.cloud.stream.kafka.binder.transaction.producer.configuration.{e.key}") for e in own)
            continue
        topics = channels[name].topics if name in channels else []
        clients[(role, name)] = Client(role, f"Spring Cloud Stream binding {name}",
                                       common + (producer if role == "producer" else consumer) + own,
                                       f"spring.cloud.stream.kafka.bindings.{name}.{role}.configuration.", topics=topics)
    for name, b in channels.items():
        if b.direction == "in" and ("consumer", name) not in clients and b.anchor is not None:
            # An input binding consumes with the binder's settings: a client of its own, placed at its destination.
            clients[("consumer", name)] = Client("consumer", f"Spring Cloud Stream binding {name}",
                                                 [renamed(b.anchor, "topic"), *common, *consumer],
                                                 f"spring.cloud.stream.kafka.bindings.{name}.consumer.configuration.",
                                                 topics=b.topics)
    if streams:
        clients[("streams", "")] = Client("streams", "Spring Cloud Stream Kafka Streams binder", streams, "")
    return _units(cfg, clients)


@dataclass
class _Binding:
    direction: str = ""  # in | out | '' unknown
    topics: list[str] = field(default_factory=list)
    anchor: Entry | None = None  # destination (or group) entry: where a finding about the binding points


def _scst_bindings(entries: list[Entry]) -> dict[str, _Binding]:
    """Spring Cloud Stream bindings: direction (``<fn>-in-<n>`` / ``-out-`` names, their aliases in
    ``function.bindings``, ``input``/``output``, a ``group`` or ``consumer.``/``producer.`` section) and
    destinations (the binding's name when none is set, as Spring Cloud Stream does)."""
    aliases: dict[str, str] = {}
    out: dict[str, _Binding] = {}
    for e in entries:
        parts = e.key.split(".")
        r = [spring_relaxed(p) for p in parts]
        if r[:5] == ["spring", "cloud", "stream", "function", "bindings"] and len(parts) == 6:
            aliases[e.value.strip()] = parts[5]
        elif r[:4] == ["spring", "cloud", "stream", "bindings"] and len(parts) >= 6:
            b = out.setdefault(parts[4], _Binding())
            prop = r[5]
            if prop == "destination":
                b.topics = [t.strip() for t in e.value.split(",") if t.strip()]
                b.anchor = e
            elif prop == "group":
                b.direction = b.direction or "in"
                b.anchor = b.anchor or e
            elif prop in ("consumer", "producer"):
                b.direction = b.direction or ("in" if prop == "consumer" else "out")
    for name, b in out.items():
        base = aliases.get(name, name)
        m = re.search(r"-(in|out)-\d+$", base)
        if m:
            b.direction = m.group(1)
        elif name in ("input", "output"):
            b.direction = "in" if name == "input" else "out"
        if not b.topics:
            b.topics = [name]
    return out


# --- a transaction-id-prefix in an application's own section -----------------------------------

def read_custom_sections(cfg: ConfigFile, profile: str | None = None) -> list[ConfigFile] | None:
    """Producers configured in sections of the application's own (``app.kafka.producer.transaction-id-prefix``)."""
    if cfg.fmt not in ("yaml", "properties"):
        return None
    entries = [_val(e) for e in active_entries(cfg, profile, quarkus=False)]
    parents = {e.key.rsplit(".", 1)[0] for e in entries
               if "." in e.key and spring_relaxed(e.key.rsplit(".", 1)[1]) == "transactionidprefix"
               and not spring_key(e.key) and not e.key.lower().startswith(("spring.cloud.stream.", "%"))}
    if not parents:
        return None
    table = _relaxed_table()
    clients: dict[tuple[str, str], Client] = {}
    for parent in sorted(parents):
        own: list[Entry] = []
        for e in entries:
            if not e.key.startswith(parent + "."):
                continue
            rest = e.key[len(parent) + 1:]
            if spring_relaxed(rest) == "transactionidprefix":
                own.append(renamed(e, "transactional.id"))
            elif rest.startswith("properties."):
                own.append(renamed(e, rest[len("properties."):]))
            elif "." not in rest and spring_relaxed(rest) in table:
                own.append(renamed(e, table[spring_relaxed(rest)]))
        clients[("producer", parent)] = Client("producer", f"section {parent}", own, "")
    return _units(cfg, clients)


def _units(cfg: ConfigFile, clients: dict[tuple[str, str], Client]) -> list[ConfigFile]:
    out: list[ConfigFile] = []
    for (role, _), c in clients.items():
        if not c.entries:
            continue
        dialect = "streams" if role == "streams" else "java"
        writer = KeyWriter(c.prefix) if c.prefix else CANNOT_ADD
        unit = derive(cfg, dialect, c.entries, c.label, writer=writer, doc=c.entries[-1].doc)
        unit.ignored = list(c.ignored)
        unit.topics = tuple(dict.fromkeys(c.topics))
        if role != "streams":
            unit.role_hint = role
        out.append(unit)
    return out
