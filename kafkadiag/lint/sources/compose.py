"""docker-compose files and ``.env`` files: the ``KAFKA_*`` variables broker images turn into
``server.properties``.

Every service whose image is a Kafka broker image, or whose variables name broker settings, is
one broker config; the number of such services (controllers-only nodes excepted) is the cluster
size. Both ``environment:`` forms are read: the mapping (``KAFKA_ACKS: all``) and the list
(``- KAFKA_ACKS=all``); values keep their exact span so ``--fix`` rewrites them in place, and a
missing key is added to a mapping-form ``environment:`` in the image family's spelling.
An application service configured through Spring Boot's environment variables
(``SPRING_KAFKA_PRODUCER_TRANSACTION_ID_PREFIX``) is read as the Spring properties they bind to.
"""

from __future__ import annotations

import re
from typing import Callable

from ..keys import BROKER_KEYS, spring_env_property
from ..model import ConfigFile, Entry
from .base import CANNOT_ADD, KeyWriter, derive, renamed, with_value
from .connect import WORKER_KEYS, worker_clients
from .envnames import credential_variable, kafka_key

from .envnames import BROKER_IMAGES as _BROKER_IMAGES, BUILTIN_DEFAULT_IMAGES as _BUILTIN_DEFAULT_IMAGES
_SERVICE = re.compile(r"^services\.([^.]+)\.(image|environment|entrypoint|command)(?:\.(.+))?$")
#: A broker image started as another Kafka program (Connect, MirrorMaker, a tool) is no broker.
_OTHER_PROGRAM = re.compile(r"connect-(distributed|standalone)|connect-mirror-maker|kafka-(console|verifiable)-|kafka-run-class")


def read_compose(cfg: ConfigFile) -> list[ConfigFile] | None:
    """The broker configs of a compose file, or None when the file is not one."""
    if cfg.fmt not in ("yaml", "json"):
        return None
    services: dict[str, dict] = {}
    for e in cfg.entries:
        m = _SERVICE.match(e.key)
        if not m:
            continue
        svc = services.setdefault(m.group(1), {"image": "", "env": [], "form": "", "doc": e.doc, "runs": ""})
        if m.group(2) == "image":
            svc["image"] = e.value
        elif m.group(2) in ("entrypoint", "command"):
            svc["runs"] += " " + " ".join([e.value or "", *(item.value for item in e.items)])
        elif m.group(3):
            svc["env"].append((m.group(3), e, None))
            svc["form"] = "map"
        else:
            for item in e.items:
                name, sep, value = item.value.partition("=")
                svc["env"].append((name.strip(), item, value if sep else None))
            svc["form"] = "list"
    if not services:
        return None
    brokers = {name: svc for name, svc in services.items() if _is_broker(svc)}
    workers = {name: svc for name, svc in services.items() if name not in brokers and _connect_entries(svc)}
    count = sum(1 for svc in brokers.values() if not _controller_only(svc))
    out: list[ConfigFile] = []
    for name, svc in brokers.items():
        entries = _entries(svc)
        family = "bitnami" if any(n.startswith("KAFKA_CFG_") for n, _, _ in svc["env"]) else "confluent"
        writer = KeyWriter(f"services.{name}.environment.", ("broker",), family) if svc["form"] == "map" else CANNOT_ADD
        builtin = bool(_BUILTIN_DEFAULT_IMAGES.search(svc["image"]))
        out.append(derive(cfg, "broker", entries, f"compose service {name}", writer=writer, doc=svc["doc"],
                          broker_count=count or None, image_defaults=builtin, credentials=_credentials(svc)))
    for name, svc in workers.items():
        out.extend(worker_clients(cfg, _connect_entries(svc), "", f"compose service {name} (Connect)", doc=svc["doc"],
                                  writable=False))
    for name, svc in services.items():
        spring = [] if name in brokers or name in workers else _spring_entries(svc)
        if spring:
            out.append(derive(cfg, "spring", spring, f"compose service {name} (Spring Boot)", doc=svc["doc"]))
    return out


def _spring_entries(svc: dict) -> list[Entry]:
    """An application service's ``SPRING_KAFKA_*`` variables as the Spring properties they bind to."""
    return _mapped(svc, spring_env_property)


def _connect_entries(svc: dict) -> list[Entry]:
    """A Connect worker service's ``CONNECT_*`` variables as worker keys."""
    out = _mapped(svc, lambda name: (kafka_key(name, "CONNECT_") or ("",))[0])
    return out if len(WORKER_KEYS & {e.key for e in out}) >= 2 else []


def _credentials(svc: dict) -> list[Entry]:
    """The service's image variables that hold a credential (``KAFKA_CLIENT_PASSWORDS``), at their values."""
    out: list[Entry] = []
    for name, entry, value in svc["env"]:
        if not credential_variable(name):
            continue
        if value is None and svc["form"] == "map":
            out.append(entry)
        elif value is not None:
            out.append(with_value(entry, name, value.strip(), _value_span(entry, name), ""))
    return out


def _is_broker(svc: dict) -> bool:
    if _OTHER_PROGRAM.search(svc["runs"]):
        return False
    keys = {k for k, _ in (kafka_key(n) or ("", "") for n, _, _ in svc["env"])} - {""}
    if _BROKER_IMAGES.search(svc["image"]) and (keys or not svc["env"]):
        return True
    return bool(keys & (BROKER_KEYS | {"process.roles", "node.id", "broker.id"}))


def _controller_only(svc: dict) -> bool:
    for name, entry, value in svc["env"]:
        mapped = kafka_key(name)
        if mapped and mapped[0] == "process.roles":
            text = entry.value if value is None else value
            return {r.strip() for r in text.split(",")} == {"controller"}
    return False


def _entries(svc: dict) -> list[Entry]:
    """A broker service's ``KAFKA_*`` variables as broker keys."""
    return _mapped(svc, lambda name: (kafka_key(name) or ("",))[0])


def _mapped(svc: dict, key_of: Callable[[str], str | None]) -> list[Entry]:
    """The service's variables ``key_of`` names a key for, under that key, each at its value (a
    mapping's value, or the part after ``NAME=`` of a list item) so that ``--fix`` edits it in place."""
    out: list[Entry] = []
    for name, entry, value in svc["env"]:
        key = key_of(name)
        if not key:
            continue
        if value is None and svc["form"] == "map":
            out.append(renamed(entry, key))
        elif value is not None:
            out.append(with_value(entry, key, value.strip(), _value_span(entry, name), ""))
    return out


def _value_span(item: Entry, name: str) -> tuple[int, int] | None:
    """Where the value after ``NAME=`` sits in a list item, inside its quotes if any."""
    if item.span is None or "\\" in item.value:
        return None
    start, end = item.span
    if item.quote:
        start, end = start + 1, end - 1
    start += len(name) + 1
    return (start, end) if start <= end else None


def read_env_file(cfg: ConfigFile) -> list[ConfigFile] | None:
    """A ``.env`` / ``--env-file`` of ``KAFKA_*`` variables: one broker config (cluster size unknown)."""
    if cfg.fmt != "properties" or not cfg.entries:
        return None
    if not all(re.fullmatch(r"[A-Z_][A-Z0-9_]*", e.key) for e in cfg.entries):
        return None
    entries: list[Entry] = []
    credentials: list[Entry] = []
    family = "confluent"
    for e in cfg.entries:
        mapped = kafka_key(e.key)
        if not mapped and not credential_variable(e.key):
            continue
        value, span = e.value, e.span
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'" and span is not None:
            value, span = value[1:-1], (span[0] + 1, span[1] - 1)
        if not mapped:
            credentials.append(with_value(e, e.key, value, span))
            continue
        family = "bitnami" if mapped[1] == "bitnami" else family
        entries.append(with_value(e, mapped[0], value, span))
    if not {e.key for e in entries} & (BROKER_KEYS | {"process.roles", "node.id", "broker.id"}):
        return None

    return [derive(cfg, "broker", entries, "environment file", writer=KeyWriter("", ("broker",), family),
                   image_defaults=False, credentials=credentials)]
