"""Kubernetes resources that carry Kafka configs: Strimzi ``Kafka`` (``spec.kafka.config``, with
the broker count from ``spec.kafka.replicas`` or the broker ``KafkaNodePool`` replicas of the
same file), ``KafkaConnect`` worker configs, ``KafkaMirrorMaker2`` (its Connect cluster and its
connectors' producers, ``mirror2.py``; the other Strimzi kinds are recognised, not read), broker and
Connect containers of a ``StatefulSet`` / ``Deployment`` / ``Pod`` (their ``env:`` lists), and a
``ConfigMap`` whose data holds a ``.properties`` payload or ``KAFKA_*`` broker variables.
"""

from __future__ import annotations

from ..keys import BROKER_KEYS
from ..model import ConfigFile, Entry, line_offsets
from ..properties import parse_properties
from .base import CANNOT_ADD, KeyWriter, derive, renamed
from .connect import WORKER_KEYS, worker_clients
from .envnames import BROKER_IMAGES, BUILTIN_DEFAULT_IMAGES, credential_variable, kafka_key
from .mirror2 import read_mirror_maker2

_STRIMZI = "kafka.strimzi.io/"
_WORKLOADS = {"StatefulSet": "spec.template.spec.containers", "Deployment": "spec.template.spec.containers",
              "DaemonSet": "spec.template.spec.containers", "Pod": "spec.containers"}


def read_kube(cfg: ConfigFile) -> list[ConfigFile] | None:
    """Configs of the Kubernetes resources in a YAML file, or None when it holds none we read."""
    if cfg.fmt != "yaml":
        return None
    docs: dict[int, dict[str, Entry]] = {}
    for e in cfg.entries:
        docs.setdefault(e.doc, {})[e.key] = e
    kinds = {doc: (d.get("kind").value if d.get("kind") else "", d.get("apiVersion").value if d.get("apiVersion") else "")
             for doc, d in docs.items()}
    if not any(kind and api for kind, api in kinds.values()):
        return None
    out: list[ConfigFile] = []
    recognised = False
    for doc, (kind, api) in kinds.items():
        entries = [e for e in cfg.entries if e.doc == doc]
        if api.startswith(_STRIMZI) and kind == "Kafka":
            recognised = True
            out.append(_strimzi_kafka(cfg, doc, docs, kinds))
        elif api.startswith(_STRIMZI) and kind in ("KafkaConnect", "KafkaMirrorMaker2", "KafkaNodePool", "KafkaTopic",
                                                    "KafkaUser", "KafkaConnector", "KafkaBridge", "KafkaRebalance"):
            recognised = True
            if kind == "KafkaConnect":
                out.extend(worker_clients(cfg, entries, "spec.config.", f"Strimzi KafkaConnect {_name(docs[doc])}", doc=doc))
            elif kind == "KafkaMirrorMaker2":
                out.extend(read_mirror_maker2(cfg, doc, docs[doc], _name(docs[doc])))
        elif kind in _WORKLOADS:
            found = _workload(cfg, doc, docs[doc], kind)
            recognised = recognised or bool(found)
            out.extend(found)
        elif kind == "ConfigMap":
            found = _configmap(cfg, doc, entries)
            recognised = recognised or bool(found)
            out.extend(found)
    return out if recognised else None


def _name(doc: dict[str, Entry]) -> str:
    e = doc.get("metadata.name")
    return e.value if e else "?"


def _strimzi_kafka(cfg: ConfigFile, doc: int, docs: dict[int, dict[str, Entry]], kinds: dict) -> ConfigFile:
    d = docs[doc]
    name = _name(d)
    prefix = "spec.kafka.config."
    entries = [renamed(e, e.key[len(prefix):]) for e in cfg.entries if e.doc == doc and e.key.startswith(prefix)]
    count = _int(d.get("spec.kafka.replicas"))
    if count is None:
        pools = [docs[o] for o, (k, a) in kinds.items() if k == "KafkaNodePool" and a.startswith(_STRIMZI)
                 and (docs[o].get("metadata.labels.strimzi.io/cluster") or Entry("", "", 0, 0)).value == name]
        brokers = [p for p in pools if "broker" in ((p.get("spec.roles") or Entry("", "", 0, 0)).value.split(","))]
        counts = [_int(p.get("spec.replicas")) for p in brokers]
        count = sum(c for c in counts if c) if brokers and all(c is not None for c in counts) else None
    has_config = cfg.structure is not None and (doc, "spec.kafka.config") in getattr(cfg.structure, "mappings", {})

    writer = KeyWriter(prefix, ("broker",)) if has_config else CANNOT_ADD
    return derive(cfg, "broker", entries, f"Strimzi Kafka {name}", writer=writer, doc=doc, broker_count=count)


def _workload(cfg: ConfigFile, doc: int, d: dict[str, Entry], kind: str) -> list[ConfigFile]:
    """Broker containers of a StatefulSet / Deployment / Pod, configured by ``KAFKA_*`` variables in
    their ``env:`` list; every replica is a broker. Connect containers (``CONNECT_*``) are workers."""
    containers = d.get(_WORKLOADS[kind])
    if containers is None:
        return []
    replicas = _int(d.get("spec.replicas")) if kind != "Pod" else 1
    out: list[ConfigFile] = []
    for container in containers.maps:
        own = {e.key: e for e in container}
        image = own["image"].value if "image" in own else ""
        env = [(item.get("name").value, item.get("value")) for item in
               ({e.key: e for e in m} for m in (own["env"].maps if "env" in own else [])) if item.get("name")]
        broker = [(kafka_key(name), value) for name, value in env if value is not None and kafka_key(name)]
        keys = {mapped[0] for mapped, _ in broker}
        name = own["name"].value if "name" in own else "?"
        if keys & (BROKER_KEYS | {"process.roles", "node.id", "broker.id"}) or (BROKER_IMAGES.search(image) and broker):
            entries = [renamed(value, mapped[0]) for mapped, value in broker]
            credentials = [renamed(value, n) for n, value in env if value is not None and credential_variable(n)]
            out.append(derive(cfg, "broker", entries, f"{kind} {_name(d)} container {name}", doc=doc,
                              broker_count=replicas if kind != "DaemonSet" else None,
                              image_defaults=bool(BUILTIN_DEFAULT_IMAGES.search(image)), credentials=credentials))
            continue
        workers = [renamed(value, kafka_key(n, "CONNECT_")[0]) for n, value in env  # type: ignore[index]
                   if value is not None and kafka_key(n, "CONNECT_")]
        if len(WORKER_KEYS & {e.key for e in workers}) >= 2:
            out.extend(worker_clients(cfg, workers, "", f"{kind} {_name(d)} container {name} (Connect)", doc=doc,
                                      writable=False))
    return out


def _int(entry: Entry | None) -> int | None:
    if entry is None:
        return None
    try:
        return int(entry.value.strip())
    except ValueError:
        return None


def _configmap(cfg: ConfigFile, doc: int, entries: list[Entry]) -> list[ConfigFile]:
    """``data: {server.properties: |...}``: the payload parsed as properties, placed in the file."""
    from ..detect import detect_dialect

    out: list[ConfigFile] = []
    env = [(e, kafka_key(e.key[len("data."):])) for e in entries if e.key.startswith("data.") and "." not in e.key[len("data."):]]
    env = [(e, mapped) for e, mapped in env if mapped]
    if {key for _, (key, _) in env} & (BROKER_KEYS | {"process.roles", "node.id", "broker.id"}):
        # data: {KAFKA_PROCESS_ROLES: ...} handed to a broker container with envFrom
        family = "bitnami" if any(fam == "bitnami" for _, (_, fam) in env) else "confluent"
        credentials = [e for e in entries if e.key.startswith("data.") and credential_variable(e.key[len("data."):])]
        out.append(derive(cfg, "broker", [renamed(e, key) for e, (key, _) in env], "ConfigMap environment", doc=doc,
                          writer=KeyWriter("data.", ("broker",), family), image_defaults=False,
                          credentials=[renamed(e, e.key[len("data."):]) for e in credentials]))
    for e in entries:
        if not e.key.startswith("data."):
            continue
        placed = properties_block(cfg, e)
        if not placed:
            continue
        probe = ConfigFile(path=cfg.path, text=cfg.text, fmt="properties", entries=placed)
        dialect = detect_dialect(probe)
        if dialect and dialect not in ("spring", "flink"):
            out.append(derive(cfg, dialect, placed, f"ConfigMap {e.key[len('data.'):]}", doc=doc,
                              writer=CANNOT_ADD))
    return out


def properties_block(cfg: ConfigFile, e: Entry) -> list[Entry]:
    """The settings of a ``.properties`` payload held in a YAML literal block (``key: |``), each
    placed at its own line of the file so findings and fixes land there; [] for any other value."""
    if "\n" not in e.value or e.span is None or cfg.text[e.span[0]:e.span[0] + 1] != "|":
        return []  # only literal blocks keep the payload's lines as written
    offsets = line_offsets(cfg.text)
    lines = cfg.lines
    first = e.line  # the payload starts on the line after the key
    body = [ln for ln in lines[first:first + e.value.count("\n") + 1] if ln.strip()]
    if not body:
        return []
    indent = len(body[0]) - len(body[0].lstrip(" "))
    payload_offsets = line_offsets(e.value)
    placed: list[Entry] = []
    for p in parse_properties(e.value):
        line = first + p.line
        if line - 1 >= len(offsets):
            continue
        span = None
        if p.span is not None:
            start_line = e.value.count("\n", 0, p.span[0])
            if start_line == e.value.count("\n", 0, p.span[1]):
                base = offsets[first + start_line] + indent - payload_offsets[start_line]
                span = (p.span[0] + base, p.span[1] + base)
        placed.append(Entry(p.key, p.value, line, p.column + indent, first + p.end_line, span, doc=e.doc))
    return placed
