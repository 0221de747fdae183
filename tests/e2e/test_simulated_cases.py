"""Every simulated incident in every dump era: the incidents reported are the ones that happened.

The simulator (benchmarks/simulate.py) models the coordinator and the partitions and writes the
exact text kafka-dump-log.sh prints in each Kafka era, with the ground truth beside it
(expected.json). Healthy background traffic runs in every case, so false alarms fail these tests
too. For each case the report must hold the categories that occurred, and per category exactly
one finding per incident, naming the transactional.id / producer id / topic-partition the truth
records for it.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine.local import analyze
from kafkadiag.ruleset import load_rules

pytestmark = pytest.mark.slow  # every scenario simulated in every era, then analysed

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import simulate  # noqa: E402

ERAS = ["0.11", "1.1", "2.0", "2.1", "2.4", "2.4.1", "2.8", "3.0", "3.3", "3.5", "4.0", "4.1"]
SCENARIOS = [
    "commit", "client-abort", "fencing", "timeout", "hanging", "lost-marker", "expiration", "expired-zombie",
    "unstable-ids", "sequence-gap", "sequence-duplicate", "restart", "txnlog-compaction", "invalid-transition", "mixed",
]
RULES = load_rules()

#: Per category, the subject fields that identify an incident on both sides. The truth records them
#: per incident (expected.json "expected" entries with "finding": true); findings carry them in
#: their subject. How the incidents of each category are reported:
#:
#: * fencing, transaction-timeout: FEN002 / TMO001 from the coordinator's records. They name the
#:   transaction (transactional.id, producer id) and its first topic, not one partition, so the
#:   partition is not compared and the topic must be one of the transaction's.
#: * hanging-transaction: HNG008 (a span the coordinator never registered) and HNG005 (a marker
#:   lost on one partition of a completed transaction), one per open partition.
#: * expired-transactional-id: each tombstone is EXP003 (info: an expiry is a fact) or, when the id
#:   came back under a new producer id, EXP002, whose subject is that new producer id (the truth's
#:   new_producer_id); a zombie that resumed after the expiry is EXP001 on the partition it wrote.
#: * out-of-order-sequence: SEQ001 (gap) / SEQ002 (duplicate) per producer id and partition; the
#:   producers are idempotent, not transactional, so no transactional.id is compared.
#: * invalid-state-transition: IST001 per transactional.id.
#: * config-misuse: MIS001 reports a family of per-start ids once; it has no single subject, so its
#:   evidence must name ids of that family and only those.
SUBJECT_FIELDS: dict[str, tuple[str, ...]] = {
    "fencing": ("transactional_id", "producer_id"),
    "transaction-timeout": ("transactional_id", "producer_id"),
    "hanging-transaction": ("transactional_id", "producer_id", "topic", "partition"),
    "expired-transactional-id": ("transactional_id", "producer_id", "topic", "partition"),
    "out-of-order-sequence": ("producer_id", "topic", "partition"),
    "invalid-state-transition": ("transactional_id", "producer_id"),
    "config-misuse": (),
}
#: Info-level rules whose findings are incidents the truth counts.
COUNTED_INFO = {"EXP003"}
TXN_ID_IN_TEXT = re.compile(r'transactionalId(?:=|":")([^\s",]+)')


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sim")
    for era in ERAS:
        for scenario in SCENARIOS:
            simulate.generate(scenario, era, out / era / scenario, seed=1)
    return out


_REPORTS: dict[Path, tuple[dict, list]] = {}


def _report(case: Path) -> tuple[dict, list]:
    """(truth, findings) of one case; analysed once for all the tests below."""
    if case not in _REPORTS:
        truth = json.loads((case / "expected.json").read_text())
        inputs = sorted(str(p) for p in case.iterdir()
                        if p.name != "expected.json" and not p.name.endswith(".stderr.txt"))
        result = analyze(inputs, RULES, EffectiveConfig.defaults())
        assert all(r.skipped == 0 for r in result.inputs), [r.to_json() for r in result.inputs if r.skipped]
        _REPORTS[case] = (truth, result.findings)
    return _REPORTS[case]


def in_evidence(incident: dict, truth: dict) -> bool:
    """Kafka 0.11.0.0-2.4.0's decoder crashes on the first tombstone of a __transaction_state
    partition, so expiries at or after that offset are never printed (the simulator records where)."""
    if incident["kind"] != "expired-transactional-id":
        return True
    cut = {c["partition"]: c["offset"] for c in truth.get("transaction_log_crash", [])}.get(
        incident["transaction_log_partition"])
    return cut is None or incident["tombstone_offset"] < cut


def incidents(truth: dict) -> list[dict]:
    return [e for e in truth["expected"] if e.get("finding") and in_evidence(e, truth)]


def truth_key(incident: dict) -> tuple:
    fields = SUBJECT_FIELDS[incident["category"]]
    values = dict(incident)
    if incident["kind"] == "expired-transactional-id" and incident.get("new_producer_id") is not None:
        values["producer_id"] = incident["new_producer_id"]
    return tuple(values.get(f) if values.get(f) != "" else None for f in fields)


def finding_key(finding) -> tuple:
    values = finding.subject.to_json()
    return tuple(values[f] if values[f] != "" else None for f in SUBJECT_FIELDS[finding.category])


def counted(findings: list) -> list:
    return [f for f in findings if f.severity in ("error", "warning") or f.rule in COUNTED_INFO]


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_reported_categories_match_what_happened(generated: Path, era: str, scenario: str) -> None:
    truth, findings = _report(generated / era / scenario)
    reported = {f.category for f in findings if f.severity in ("error", "warning")}
    assert reported == {e["category"] for e in incidents(truth)}


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_incident_counts_and_subjects_match_what_happened(generated: Path, era: str, scenario: str) -> None:
    """Per category: as many findings as incidents, naming the same subjects."""
    truth, findings = _report(generated / era / scenario)
    happened = incidents(truth)
    assert {e["category"] for e in happened} <= set(SUBJECT_FIELDS), "a category this test does not know how to compare"
    found = counted(findings)
    for category in sorted({e["category"] for e in happened} | {f.category for f in found}):
        expected = Counter(truth_key(e) for e in happened if e["category"] == category)
        got = Counter(finding_key(f) for f in found if f.category == category)
        assert got == expected, (category, sorted(f.rule for f in found if f.category == category))

    for f in found:
        if f.category in ("fencing", "transaction-timeout"):
            (incident,) = [e for e in happened if e["category"] == f.category and truth_key(e) == finding_key(f)]
            assert f.subject.topic in {p["topic"] for p in incident["partitions"]}, (f.rule, f.subject)
        if f.category == "config-misuse":
            (family,) = [e for e in happened if e["category"] == "config-misuse"]
            named = {m for ev in f.evidence for m in TXN_ID_IN_TEXT.findall(ev.text)}
            assert named and named <= set(family["transactional_ids"]), (f.rule, sorted(named))
