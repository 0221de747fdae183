"""Kafka Connect workers (``connect-distributed.properties`` and the like).

A worker is recognised by the settings only Connect has (storage topics, converters, plugin
path). Its ``producer.`` / ``consumer.`` overrides configure the clients its tasks run; with
``exactly.once.source.support=enabled`` (KIP-618, Kafka 3.3+) source tasks run transactional
producers whose ``transactional.id`` Connect assigns, so those producers are checked as
transactional ones.
"""

from __future__ import annotations

from ..model import ConfigFile, Entry
from .base import CANNOT_ADD, KeyWriter, derive, renamed

WORKER_KEYS = {
    "offset.storage.topic", "config.storage.topic", "status.storage.topic", "key.converter", "value.converter",
    "plugin.path", "exactly.once.source.support", "offset.storage.file.filename", "offset.flush.interval.ms",
}


def read_connect_worker(cfg: ConfigFile) -> list[ConfigFile] | None:
    """The clients of a Connect worker config, or None when the file is not one."""
    keys = {e.key: e for e in cfg.entries}
    if cfg.fmt not in ("properties", "yaml") or len(WORKER_KEYS & set(keys)) < 2:
        return None
    return worker_clients(cfg, cfg.entries, "", "Connect worker")


def worker_clients(cfg: ConfigFile, entries: list[Entry], prefix: str, source: str, doc: int = 0,
                   writable: bool = True) -> list[ConfigFile]:
    """Producer and consumer configs of a worker whose keys start with ``prefix``."""
    own = {e.key[len(prefix):]: e for e in entries if e.key.startswith(prefix)}
    eos = own.get("exactly.once.source.support")
    transactional = eos is not None and eos.value.strip().lower() == "enabled"
    common = [renamed(e, k) for k, e in own.items() if k in ("bootstrap.servers", "security.protocol", "sasl.mechanism")]
    out: list[ConfigFile] = []
    for role in ("producer", "consumer"):
        head = f"{role}."
        clients = [renamed(e, k[len(head):]) for k, e in own.items() if k.startswith(head)]
        if not clients and not (role == "producer" and transactional):
            continue
        unit = derive(cfg, "java", common + clients, f"{source} {role}s", doc=doc,
                      writer=KeyWriter(prefix + head) if writable else CANNOT_ADD)
        unit.role_hint = role
        if role == "producer" and transactional:
            unit.txn_hint = eos
        out.append(unit)
    return out


def read_mirror_maker(cfg: ConfigFile) -> list[ConfigFile] | None:
    """A MirrorMaker 2 properties file (``clusters = A, B`` and ``A->B.enabled`` flows): the clients
    it runs against each cluster, from the global and the ``<alias>.`` prefixed producer / consumer
    overrides; ``exactly.once.source.support=enabled`` (dedicated mode, Kafka 3.5+) makes the
    producers writing to the target clusters transactional."""
    keys = {e.key: e for e in cfg.entries}
    if cfg.fmt != "properties" or "clusters" not in keys or not any("->" in k for k in keys):
        return None
    aliases = [a.strip() for a in keys["clusters"].value.split(",") if a.strip()]
    targets = {k.split("->", 1)[1].split(".", 1)[0] for k, e in keys.items()
               if "->" in k and k.endswith(".enabled") and e.value.strip().lower() == "true"}
    out = worker_clients(cfg, [e for k, e in keys.items() if not any(k.startswith(f"{a}.") for a in aliases)
                               and "->" not in k], "", "MirrorMaker 2")
    glob_eos = keys.get("exactly.once.source.support")
    for alias in aliases:
        own = [e for k, e in keys.items() if k.startswith(f"{alias}.")]
        if glob_eos is not None and alias in targets and f"{alias}.exactly.once.source.support" not in keys:
            own.append(renamed(glob_eos, f"{alias}.exactly.once.source.support"))
        out.extend(worker_clients(cfg, own, f"{alias}.", f"MirrorMaker 2 cluster {alias}"))
    return out
