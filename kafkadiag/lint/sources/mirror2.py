"""Strimzi ``KafkaMirrorMaker2``: the Connect cluster MirrorMaker 2 runs on, and the producers of its
source connectors.

Two layouts: ``kafka.strimzi.io/v1beta2`` (``spec.connectCluster`` names one of ``spec.clusters[]``)
and ``v1`` (``spec.target`` is that cluster, ``spec.mirrors[].source`` the others). Only the Connect
cluster's ``config`` is a worker config (storage topics, ``exactly.once.source.support``,
``producer.`` / ``consumer.`` overrides), read like a ``KafkaConnect``'s; the other clusters' ``config``
only reaches the connectors' connections to them. A mirror's ``sourceConnector.config`` may override
the producer its tasks write to the target with (``producer.override.*``, applied over the worker's
``producer.*``): with exactly-once enabled on the workers those producers are transactional (KIP-618).
"""

from __future__ import annotations

from ..model import ConfigFile, Entry
from .base import CANNOT_ADD, derive, renamed
from .connect import worker_clients

_OVERRIDE = "sourceConnector.config.producer.override."


def read_mirror_maker2(cfg: ConfigFile, doc: int, d: dict[str, Entry], name: str) -> list[ConfigFile]:
    """Worker clients of the Connect cluster and the overridden producers of each mirror."""
    worker = _worker_entries(d)
    if worker is None:
        return []
    entries, prefix, alias = worker
    label = f"Strimzi KafkaMirrorMaker2 {name}"
    out = worker_clients(cfg, entries, prefix, f"{label} cluster {alias}", doc=doc, writable=False)
    own = {e.key[len(prefix):]: e for e in entries if e.key.startswith(prefix)}
    eos = own.get("exactly.once.source.support")
    transactional = eos is not None and eos.value.strip().lower() == "enabled"
    base = {k[len("producer."):]: e for k, e in own.items() if k.startswith("producer.")}
    for mirror in (d["spec.mirrors"].maps if "spec.mirrors" in d else []):
        fields = {e.key: e for e in mirror}
        overrides = {k[len(_OVERRIDE):]: e for k, e in fields.items() if k.startswith(_OVERRIDE)}
        if not overrides:
            continue
        merged = {**base, **overrides}
        unit = derive(cfg, "java", [renamed(e, k) for k, e in merged.items()],
                      f"{label} mirror {_source_alias(fields)}->{alias} source connector producers", doc=doc,
                      writer=CANNOT_ADD)
        unit.role_hint = "producer"
        if transactional:
            unit.txn_hint = eos
        out.append(unit)
    return out


def _worker_entries(d: dict[str, Entry]) -> tuple[list[Entry], str, str] | None:
    """(entries, key prefix of the worker config, alias) of the cluster the Connect workers run on."""
    if any(k.startswith("spec.target.") for k in d):  # v1: spec.target
        target = d.get("spec.target.alias")
        return list(d.values()), "spec.target.config.", target.value if target is not None else "target"
    connect = d.get("spec.connectCluster")
    if connect is None or "spec.clusters" not in d:
        return None
    for item in d["spec.clusters"].maps:
        fields = {e.key: e for e in item}
        if "alias" in fields and fields["alias"].value == connect.value:
            return item, "config.", connect.value
    return None


def _source_alias(fields: dict[str, Entry]) -> str:
    for key in ("sourceCluster", "source.alias"):
        if key in fields:
            return fields[key].value
    return "?"
