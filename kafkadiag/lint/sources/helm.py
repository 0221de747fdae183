"""Helm values files of the common Kafka charts: the broker settings and broker count they hold.

* Bitnami ``bitnami/kafka``: ``overrideConfiguration`` / ``extraConfigYaml`` maps (also under
  ``controller.`` / ``broker.``), the ``config`` / ``extraConfig`` properties blocks, ``extraEnvVars``
  (``KAFKA_CFG_*``), the older camelCase parameters (``transactionStateLogReplicationFactor``...); brokers are ``replicaCount``
  (ZooKeeper mode) or ``controller.replicaCount`` (combined nodes) + ``broker.replicaCount``.
  Bitnami's image ships its own server.properties, so unset keys are not assumed to be Kafka's.
* Confluent ``cp-helm-charts``: ``configurationOverrides`` (top level or under ``cp-kafka``), brokers
  ``brokers``; the cp-kafka image starts from Kafka's built-in defaults.
"""

from __future__ import annotations

from ..keys import BROKER_KEYS
from ..model import ConfigFile, Entry
from .base import CANNOT_ADD, KeyWriter, derive, renamed
from .envnames import credential_variable, kafka_key
from .kube import properties_block

_BITNAMI_PARAMS = {
    "transactionStateLogReplicationFactor": "transaction.state.log.replication.factor",
    "transactionStateLogMinIsr": "transaction.state.log.min.isr",
    "offsetsTopicReplicationFactor": "offsets.topic.replication.factor",
    "defaultReplicationFactor": "default.replication.factor",
    "numPartitions": "num.partitions",
    "autoCreateTopicsEnable": "auto.create.topics.enable",
    "logRetentionHours": "log.retention.hours",
}
_MAPS = ("overrideConfiguration.", "extraConfigYaml.", "controller.overrideConfiguration.", "broker.overrideConfiguration.")


def read_helm_values(cfg: ConfigFile) -> list[ConfigFile] | None:
    """The broker config of a Kafka chart's values file, or None when the file is not one."""
    if cfg.fmt != "yaml":
        return None
    keys = {e.key: e for e in cfg.entries if e.doc == 0}
    if "apiVersion" in keys or "kind" in keys or "services" in {k.split(".", 1)[0] for k in keys}:
        return None
    for prefix in ("cp-kafka.", ""):
        if any(k.startswith(prefix + "configurationOverrides.") for k in keys) or (prefix and prefix + "brokers" in keys):
            return [_confluent(cfg, keys, prefix)]
    repo = keys.get("image.repository")
    bitnami = (repo is not None and repo.value.endswith("bitnami/kafka")) or (
        "kraft.enabled" in keys and ("controller.replicaCount" in keys or "broker.replicaCount" in keys))
    params = any(k in keys for k in _BITNAMI_PARAMS) and "replicaCount" in keys
    blocks = any(e.key in BROKER_KEYS for b in ("config", "extraConfig") if b in keys for e in properties_block(cfg, keys[b]))
    env_vars = any(e.key == "name" and e.value.startswith("KAFKA_CFG_")
                   for k in ("extraEnvVars", "controller.extraEnvVars", "broker.extraEnvVars") if k in keys
                   for item in keys[k].maps for e in item)
    if bitnami or params or blocks or env_vars:
        return [_bitnami(cfg, keys)]
    return None


def _count(*entries: Entry | None) -> int | None:
    total = 0
    for e in entries:
        if e is None:
            continue
        try:
            total += int(e.value)
        except ValueError:
            return None
    return total or None


def _confluent(cfg: ConfigFile, keys: dict[str, Entry], prefix: str) -> ConfigFile:
    head = prefix + "configurationOverrides."
    entries = [renamed(e, k[len(head):]) for k, e in keys.items() if k.startswith(head)]
    has_map = any(k.startswith(head) for k in keys)
    return derive(cfg, "broker", entries, "Helm values (cp-helm-charts)", broker_count=_count(keys.get(prefix + "brokers")),
                  writer=KeyWriter(head, ("broker",)) if has_map else CANNOT_ADD)


def _bitnami(cfg: ConfigFile, keys: dict[str, Entry]) -> ConfigFile:
    entries: list[Entry] = []
    credentials: list[Entry] = []
    for name, key in _BITNAMI_PARAMS.items():
        if name in keys:
            entries.append(renamed(keys[name], key))
    for block in ("config", "extraConfig", "controller.config", "broker.config"):
        if block in keys:
            entries.extend(properties_block(cfg, keys[block]))
    for k, e in keys.items():
        for prefix in _MAPS:
            if k.startswith(prefix):
                entries.append(renamed(e, k[len(prefix):]))
    for list_key in ("extraEnvVars", "controller.extraEnvVars", "broker.extraEnvVars"):
        for item in (keys[list_key].maps if list_key in keys else []):
            own = {e.key: e for e in item}
            mapped = kafka_key(own["name"].value) if "name" in own else None
            if mapped and "value" in own:
                entries.append(renamed(own["value"], mapped[0]))
            elif "name" in own and "value" in own and credential_variable(own["name"].value):
                credentials.append(renamed(own["value"], own["name"].value))
    kraft = keys.get("kraft.enabled")
    if kraft is not None and kraft.value.lower() == "false":
        count = _count(keys.get("replicaCount")) or _count(keys.get("broker.replicaCount"))
    else:
        combined = keys.get("controller.controllerOnly")
        controllers = None if combined is not None and combined.value.lower() == "true" else keys.get("controller.replicaCount")
        count = _count(controllers, keys.get("broker.replicaCount")) or _count(keys.get("replicaCount"))
    has_map = any(k.startswith("overrideConfiguration.") for k in keys)
    return derive(cfg, "broker", entries, "Helm values (bitnami/kafka)", broker_count=count, image_defaults=False,
                  writer=KeyWriter("overrideConfiguration.", ("broker",)) if has_map else CANNOT_ADD,
                  credentials=credentials)
