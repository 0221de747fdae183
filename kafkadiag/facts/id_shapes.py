"""Classify transactional.ids by how they were made.

A transactional.id only fences a zombie if the restarted instance uses the *same* id. Ids built
from a UUID, a random suffix, a host name or a pid are new at every start, so every start gets a
fresh producer id at epoch 0 and nothing is ever fenced. Grouping ids into families (the id with
its generated parts replaced) shows such patterns across hundreds of ids.
"""

from __future__ import annotations

import re

_UUID = re.compile(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}")
_HEX = re.compile(r"(?<![0-9A-Za-z])(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*[0-9])[0-9a-fA-F]{8,}(?![0-9A-Za-z])")
_DIGITS = re.compile(r"\d+")


def family_and_shape(transactional_id: str) -> tuple[str, str]:
    """The id's family (generated parts replaced by placeholders) and its shape.

    Shapes: ``uuid`` (contains a UUID), ``random`` (a long hex token), ``numbered`` (only
    numbers vary: Spring's prefix+N, Streams task ids, Flink's subtask/checkpoint ids, host
    addresses, pids), ``plain`` (nothing generated).
    """
    family = _UUID.sub("<uuid>", transactional_id)
    if family != transactional_id:
        shape = "uuid"
    else:
        family = _HEX.sub("<hex>", transactional_id)
        shape = "random" if family != transactional_id else ""
    numbered = _DIGITS.sub("<n>", family)
    if not shape:
        shape = "numbered" if numbered != family else "plain"
    return numbered, shape
