"""Every simulated incident in every dump era: the categories reported are the ones that happened.

The simulator (benchmarks/simulate.py) models the coordinator and the partitions and writes the
exact text kafka-dump-log.sh prints in each Kafka era, with the ground truth beside it. Healthy
background traffic runs in every case, so false alarms fail these tests too.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine.local import analyze
from kafkadiag.ruleset import load_rules

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import simulate  # noqa: E402

ERAS = ["0.11", "1.1", "2.0", "2.1", "2.4", "2.4.1", "2.8", "3.0", "3.3", "3.5", "4.0", "4.1"]
SCENARIOS = [
    "commit", "client-abort", "fencing", "timeout", "hanging", "lost-marker", "expiration", "expired-zombie",
    "unstable-ids", "sequence-gap", "sequence-duplicate", "restart", "txnlog-compaction", "invalid-transition", "mixed",
]
# Kafka 0.11.0.0-2.4.0's decoder crashes on the first tombstone, so the expiry itself and the
# id's return under a new producer id are never printed; the data alone cannot link the two ids.
NOT_IN_EVIDENCE = {("expiration", era) for era in ("0.11", "1.1", "2.0", "2.1", "2.4")}
RULES = load_rules()


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sim")
    for era in ERAS:
        for scenario in SCENARIOS:
            simulate.generate(scenario, era, out / era / scenario, seed=1)
    return out


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_reported_categories_match_what_happened(generated: Path, era: str, scenario: str) -> None:
    case = generated / era / scenario
    truth = json.loads((case / "expected.json").read_text())
    inputs = sorted(str(p) for p in case.iterdir() if p.name != "expected.json" and not p.name.endswith(".stderr.txt"))
    result = analyze(inputs, RULES, EffectiveConfig.defaults())
    assert all(r.skipped == 0 for r in result.inputs), [r.to_json() for r in result.inputs if r.skipped]
    reported = {f.category for f in result.findings if f.severity in ("error", "warning")}
    expected = set(truth["findings"])
    if (scenario, era) in NOT_IN_EVIDENCE:
        expected.discard("expired-transactional-id")
    assert reported == expected


@pytest.mark.parametrize("era", ["2.4.1", "3.3", "4.1"])
def test_subjects_of_the_incidents(generated: Path, era: str) -> None:
    """The finding names the transactional.id / producer id / partition the incident hit."""
    for scenario in ("fencing", "timeout", "hanging", "unstable-ids"):
        case = generated / era / scenario
        truth = json.loads((case / "expected.json").read_text())
        inputs = sorted(str(p) for p in case.iterdir() if p.name != "expected.json")
        findings = analyze(inputs, RULES, EffectiveConfig.defaults()).findings
        for event in (e for e in truth["expected"] if e.get("finding")):
            matching = [f for f in findings if f.category == event["category"]]
            assert matching, (scenario, event)
            if event.get("producer_id") is not None and event["category"] != "config-misuse":
                assert event["producer_id"] in {f.subject.producer_id for f in matching}, (scenario, event)
            if event.get("transactional_id") and event["category"] in ("fencing", "transaction-timeout"):
                assert event["transactional_id"] in {f.subject.transactional_id for f in matching}, (scenario, event)
