"""Which Kafka versions could have printed a dump, from the line shapes seen in it.

Every distinctive shape (a header spelling, a field order, a codec case, a decoder format) implies
a version range (``dump-log-format.md`` §10). The era of an input is the intersection of the
ranges of everything seen in it; when shapes contradict each other (dumps of two clusters
concatenated) the report says so instead of inventing a range.
"""

from __future__ import annotations

from dataclasses import dataclass


def _key(text: str | None, fill: int) -> tuple[int, ...]:
    if text is None:
        return (fill,) * 4
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [fill] * (4 - len(parts)))


@dataclass(frozen=True)
class Range:
    """Versions ``lo``..``hi`` inclusive; ``hi`` names a whole line (``2.7`` = every 2.7.x)."""

    lo: str | None
    hi: str | None

    @property
    def lo_key(self) -> tuple[int, ...]:
        return _key(self.lo, 0)

    @property
    def hi_key(self) -> tuple[int, ...]:
        return _key(self.hi, 10**6)

    def meet(self, other: "Range") -> "Range | None":
        lo = self.lo if self.lo_key >= other.lo_key else other.lo
        hi = self.hi if self.hi_key <= other.hi_key else other.hi
        merged = Range(lo, hi)
        return merged if merged.lo_key <= merged.hi_key else None

    def text(self) -> str:
        lo = self.lo or "0.10"
        if self.hi is None:
            return f"{lo}+"
        if lo == self.hi:
            return lo
        return f"{lo}-{self.hi}"


#: Shape name -> versions that print it.
EVIDENCE: dict[str, Range] = {
    "log-starting-offset": Range("3.3", None),
    "starting-offset": Range(None, "3.2"),
    "delete-horizon": Range("3.2", None),
    "codec-lower": Range("3.0", None),
    "codec-upper": Range("0.10.2", "2.8"),
    "codec-scala-names": Range("0.10.0", "0.10.1"),
    "batch-no-count": Range("0.11.0.0", "1.1"),
    "batch-count-no-control": Range("2.0.0", "2.0.0"),
    "batch-control-isvalid-mid": Range("2.0.1", "2.1"),
    "batch-isvalid-last": Range("2.2", None),
    "batch-isvalid-last-no-horizon": Range("2.2", "3.1"),
    "legacy-shallow-isvalid-mid": Range("0.11.0.0", "2.1"),
    "legacy-shallow-isvalid-last": Range("2.2", None),
    "message-payloadsize": Range("0.10.0", "0.10.2"),
    "deep-record": Range("0.11.0.0", "2.1"),
    "deep-record-epoch": Range("0.11.0.2", "2.1"),
    "deep-record-no-epoch": Range("0.11.0.0", "0.11.0.1"),
    "pipe-record-lower": Range("2.2", "2.7"),
    "pipe-record-superset": Range("2.8", "2.8"),
    "pipe-record-camel": Range("3.0", None),
    "legacy-record-brace": Range("3.0", "4.2"),
    "legacy-record-no-brace": Range("4.3", None),
    "skip-metadata-key": Range("2.8", None),
    "skip-metadata-space-payload": Range("2.8", "4.2"),
    "skip-metadata-pipe-payload": Range("4.3", None),
    "snapshot-0.11": Range("0.11.0.0", "0.11.0"),
    "snapshot-queue": Range("1.0.0", "1.0.1"),
    "snapshot-first-sequence": Range("1.0.2", "3.0"),
    "snapshot-last-timestamp": Range("3.1", None),
    "option-scala": Range(None, "3.4"),
    "option-java": Range("3.5", None),
    "txn-no-prefix": Range("0.11.0.0", "2.4.0"),
    "txn-no-prefix-hashset": Range("2.4.0", "2.4.0"),
    "txn-prefix-set": Range("2.4.1", "2.4.1"),
    "txn-prefix-list": Range("2.5", "4.0"),
    "txn-delete": Range("2.4.1", None),
    "txn-json": Range("4.1", None),
    "txn-unknown-version": Range("3.4.1", "4.0"),
    "txn-json-skip": Range("4.1", None),
    "non-consecutive-colon": Range(None, "2.2"),
    "non-consecutive-no-colon": Range("2.3", None),
    "java-port": Range("4.3", None),
    "index-empty": Range("2.8", None),
    "leader-change": Range("4.1", None),
    "kraft-snapshot-record": Range("3.3", None),
    "kraft-version-record": Range("3.8", None),
}


class EraTracker:
    """Collects shape evidence for one input and names the narrowest consistent range."""

    def __init__(self) -> None:
        self._seen: dict[str, None] = {}

    def add(self, shape: str) -> None:
        if shape not in self._seen:
            self._seen[shape] = None

    @property
    def shapes(self) -> list[str]:
        return list(self._seen)

    def era(self) -> str:
        clusters: list[Range] = []
        for shape in self._seen:
            rng = EVIDENCE[shape]
            for i, cluster in enumerate(clusters):
                merged = cluster.meet(rng)
                if merged is not None:
                    clusters[i] = merged
                    break
            else:
                clusters.append(rng)
        if not clusters:
            return ""
        if len(clusters) == 1:
            return clusters[0].text()
        return "mixed: " + ", ".join(c.text() for c in clusters)
