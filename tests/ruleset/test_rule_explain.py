import json
from pathlib import Path

import pytest

from kafkadiag.ruleset import RuleError, explain, find_rule, load_rules, rules_listing

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def rules():
    return load_rules([DATA / "rules"], builtin=False)


def test_explain_has_ruff_style_sections_in_order(rules):
    text = explain(find_rule(rules, "hng001"))
    assert text.startswith("# hanging-transaction (HNG001)\n\nHanging transaction pins the last stable offset\n")
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections == [
        "## What it does", "## Condition", "## Why is this bad?", "## Example", "## Fix",
        "## False positives", "## Runbook", "## References",
    ]
    assert "Category: hanging-transaction   Severity: error   Table: spans" in text
    assert "  - age_ms > config[transaction.max.timeout.ms]" in text
    assert "epoch_bump <= batches * 2 + 5" in text
    assert ("- producer: transaction.timeout.ms={recommended_timeout_ms|ms} (when recommended_timeout_ms > 0)"
            in text)
    assert "2. kafka-transactions.sh --bootstrap-server <BOOTSTRAP> abort --topic {topic}" in text
    assert "\n\n\n" not in text


def test_explain_leaves_out_empty_sections(rules):
    text = explain(find_rule(rules, "zombie-write"))
    assert [line for line in text.splitlines() if line.startswith("## ")] == ["## Condition"]
    assert "zombie == true" in text


def test_explain_condition_operators(rules):
    text = explain(find_rule(rules, "SEQ001"))
    assert "kind matches /^ga[p]$/" in text
    assert "transactional_id is known" in text


def test_unknown_rule_suggests(rules):
    with pytest.raises(RuleError, match="unknown rule 'HNG011'; did you mean 'HNG001'?"):
        find_rule(rules, "HNG011")


def test_rules_listing_is_json_ready(rules):
    listing = rules_listing(rules)
    assert listing[1] == {
        "id": "HNG001",
        "name": "hanging-transaction",
        "category": "hanging-transaction",
        "severity": "error",
        "table": "spans",
        "title": "Hanging transaction pins the last stable offset",
    }
    assert [row["id"] for row in listing] == ["FEN001", "HNG001", "HNG002", "SEQ001"]
    json.dumps(listing)
