"""Keys, values and headers that look like what real applications write.

The mix deliberately contains what trips up naive dump parsers: payloads with spaces, JSON,
`key:`/`payload:` look-alikes, non-ASCII text (valueSize counts bytes, not characters), null
keys, null values and, rarely, embedded newlines so one record spans several physical lines.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

from .util import utf8_len

CITIES = ("Berlin", "Zürich", "Lisboa", "Kraków", "Oslo", "Madrid", "Tallinn", "Paris")
STATUSES = ("CREATED", "PAID", "SHIPPED", "CANCELLED", "REFUNDED")
HEADER_SETS = ((), (), (), ("traceparent",), ("content-type", "traceparent"), ("__TypeId__",))


@dataclass(frozen=True, slots=True)
class Payload:
    """A record body: key/value text plus what the binary sizes would be."""

    key: str | None
    value: str | None
    key_len: int
    value_len: int
    headers: tuple[str, ...]
    header_sizes: tuple[tuple[int, int], ...]


def make_payload(key: str | None, value: str | None, headers: tuple[str, ...] = ()) -> Payload:
    """Wrap key/value/headers and precompute their encoded lengths."""
    sizes = tuple((len(h), 16 if h != "traceparent" else 55) for h in headers)
    return Payload(key, value, utf8_len(key), utf8_len(value), headers, sizes)


def _json_value(rng: random.Random, n: int) -> str:
    """A compact JSON order event, sized by the number of line items."""
    doc = {
        "orderId": f"o-{rng.randint(10000, 99999)}",
        "customer": {"id": rng.randint(1, 5000), "city": rng.choice(CITIES)},
        "status": rng.choice(STATUSES),
        "items": [{"sku": f"SKU-{rng.randint(100, 999)}", "qty": rng.randint(1, 5),
                   "price": round(rng.uniform(1, 200), 2)} for _ in range(n)],
        "ts": rng.randint(10**12, 2 * 10**12),
    }
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))


def _text_value(rng: random.Random, n: int) -> str:
    """A log-like line with spaces."""
    words = ("order", "created", "by", "user", "in", "store", "amount", "EUR", "note", "ok")
    return " ".join(rng.choice(words) + (str(rng.randint(0, 999)) if rng.random() < 0.3 else "")
                    for _ in range(n))


def _tricky_value(rng: random.Random) -> str:
    """Values that imitate dump syntax or break lines."""
    choice = rng.randrange(5)
    if choice == 0:
        return f"audit key: k{rng.randint(0, 9)} payload: fake offset: {rng.randint(0, 99)} sequence: 3"
    if choice == 1:
        return "{\n  \"pretty\": true,\n  \"lines\": " + str(rng.randint(2, 9)) + "\n}"
    if choice == 2:
        return f"java.lang.IllegalStateException: boom {rng.randint(0, 99)}\n\tat com.example.Job.run(Job.java:42)"
    if choice == 3:
        return "tab\tseparated\tvalue " + rng.choice(CITIES)
    return "endTxnMarker: COMMIT is just text here"


def value_for(rng: random.Random, target_len: int, tricky_rate: float = 0.01) -> str:
    """A value of roughly `target_len` bytes."""
    if rng.random() < tricky_rate:
        return _tricky_value(rng)
    if rng.random() < 0.6:
        text = _json_value(rng, max(1, target_len // 70))
    else:
        text = _text_value(rng, max(2, target_len // 7))
    return text


def key_for(rng: random.Random) -> str | None:
    """Most records are keyed; some producers send null keys."""
    r = rng.random()
    if r < 0.2:
        return None
    if r < 0.9:
        return f"order-{rng.randint(0, 99999)}"
    return f"customer {rng.randint(0, 999)}"


def payload_pool(rng: random.Random, size: int, min_len: int = 50, max_len: int = 300,
                 tricky_rate: float = 0.01, tombstone_rate: float = 0.0) -> list[Payload]:
    """A reusable pool of payloads, so bulk generation does not build JSON per record."""
    pool = []
    for _ in range(size):
        key = key_for(rng)
        if key is not None and rng.random() < tombstone_rate:
            value = None
        else:
            value = value_for(rng, rng.randint(min_len, max_len), tricky_rate)
        pool.append(make_payload(key, value, rng.choice(HEADER_SETS)))
    return pool
