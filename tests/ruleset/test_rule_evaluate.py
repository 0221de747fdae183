import time
from pathlib import Path

import numpy as np
import pytest

from kafkadiag.findings import Evidence, Subject
from kafkadiag.ruleset import RuleError, evaluate, load_rules, parse_rule_text, select_rules

DATA = Path(__file__).parent / "data"


def fake_resolver(refs: list[tuple[int, int, int]]) -> list[Evidence]:
    """Evidence whose text names the reference, so tests can see which rows were cited."""
    return [Evidence(file=f"input{f}.txt", line=None if line < 0 else line, text=f"{f}:{line}:{b}", byte=b)
            for f, line, b in refs]


CONFIG = {"transaction.max.timeout.ms": 60000}
T0 = 1_700_000_000_000


@pytest.fixture(scope="module")
def rules():
    return load_rules([DATA / "rules"], builtin=False)


def run(rules, tables, config=CONFIG, **kw):
    return evaluate(rules, tables, config, fake_resolver, **kw)


@pytest.fixture
def spans(frame):
    return frame(
        "spans",
        4,
        topic=["orders", "orders", "payments", "orders"],
        partition=[0, 0, 1, 0],
        producer_id=[1001, 1002, 2001, 1003],
        producer_epoch=[0, 5, 3, 1],
        transactional_id=["tx-a", "tx-b", "tx-c", "tx-d"],
        state=["open", "open", "open", "committed"],
        protocol=["v1", "v1", "v2", "v1"],
        age_ms=[3_723_000, 120_000, 4_000_000, -1],
        epoch_bump=[0, 0, 0, 0],
        batches=[1, 1, 1, 1],
        first_offset=[10, 20, 30, 40],
        first_time=[T0, T0 + 1000, T0 + 500, T0],
        end_time=[T0 + 100, T0 + 2000, T0 + 600, T0 + 50],
        recommended_timeout_ms=[90_000, 0, 0, 0],
        file_id=[0, 0, 1, 0],
        first_line=[11, 21, 31, 41],
        first_byte=[110, 210, 310, 410],
        marker_file_id=[-1, -1, -1, 0],
        marker_line=[-1, -1, -1, 50],
        marker_byte=[-1, -1, -1, 500],
    )


def test_fact_rule_builds_complete_findings(rules, spans):
    hng = select_rules(rules, ["HNG001"])
    findings = run(hng, {"spans": spans})
    # payments/2001 is v2 with epoch_bump 0 <= batches*2+5, so only the two v1 open spans match
    assert [(f.id, f.subject.producer_id) for f in findings] == [("HNG001#1", 1001), ("HNG001#2", 1002)]
    f = findings[0]
    assert f.rule == "HNG001" and f.category == "hanging-transaction" and f.severity == "error"
    assert f.title == "Hanging transaction pins the last stable offset"
    assert f.message == (
        "Producer 1001 (epoch 0) has had a transaction open on orders-0 since 2023-11-14T22:13:20.000Z "
        "(1h 2m 3s); threshold 1m."
    )
    assert f.subject == Subject("tx-a", 1001, 0, "orders", 0)
    assert (f.window_start, f.window_end) == (T0, T0 + 100)
    assert [e.text for e in f.evidence] == ["0:11:110"]  # marker triple has byte -1: skipped
    assert [(r.side, r.config, r.value) for r in f.recommendations] == [
        ("producer", "transaction.timeout.ms", "90000"),
        ("broker", "transaction.max.timeout.ms", "900000"),
    ]
    assert f.recommendations[0].reason == "Observed transactions of this producer fit in 1m 30s."
    # recommended_timeout_ms is 0 for 1002: the conditional recommendation is dropped
    assert [r.config for r in findings[1].recommendations] == ["transaction.max.timeout.ms"]
    assert f.runbook[1] == (
        "kafka-transactions.sh --bootstrap-server <BOOTSTRAP> abort --topic orders --partition 0 --start-offset 10"
    )
    assert f.references[0].startswith("https://cwiki.apache.org/")


def test_unknown_subject_values_are_none(rules, spans):
    spans = spans.copy()
    spans["transactional_id"] = ["tx-a", "", "tx-c", "tx-d"]
    spans["producer_epoch"] = [0, -1, 3, 1]
    findings = run(select_rules(rules, ["HNG001"]), {"spans": spans})
    # '' sorts first in Subject.sort_key
    assert findings[0].subject == Subject(None, 1002, None, "orders", 0)
    assert findings[0].message.startswith("Producer 1002 (epoch -1)")


def test_config_defaults_are_used_for_missing_keys(rules, spans):
    hng = select_rules(rules, ["HNG001"])
    findings = evaluate(hng, {"spans": spans}, {}, fake_resolver, config_defaults={"transaction.max.timeout.ms": 3_800_000})
    assert [f.subject.producer_id for f in findings] == []  # 3_723_000 < 3_800_000
    findings = evaluate(hng, {"spans": spans}, {}, fake_resolver, config_defaults={"transaction.max.timeout.ms": 100_000})
    assert [f.subject.producer_id for f in findings] == [1001, 1002]
    assert findings[0].message.endswith("threshold 1m 40s.")


def test_missing_config_is_a_rule_error_naming_file_and_rule(rules, spans):
    hng = select_rules(rules, ["HNG001"])
    with pytest.raises(RuleError, match=r"hanging.yaml: rules\[0\].when.all\[1\]: config key 'transaction.max.timeout.ms' "
                                        r"has no value and no default \(rule HNG001\)"):
        run(hng, {"spans": spans}, config={})


def test_group_by_merges_rows(rules, spans):
    findings = run(select_rules(rules, ["HNG002"]), {"spans": spans})
    assert [f.id for f in findings] == ["HNG002#1", "HNG002#2"]
    orders, payments = findings
    assert orders.subject == Subject(None, None, None, "orders", 0)  # producers differ -> None
    assert payments.subject == Subject("tx-c", 2001, 3, "payments", 1)
    assert orders.message == "2 open transaction(s) on orders-0 from producers 1001,1002; oldest since 2023-11-14T22:13:20.000Z."
    assert (orders.window_start, orders.window_end) == (T0, T0 + 2000)
    assert [e.text for e in orders.evidence] == ["0:11:110", "0:21:210"]
    assert orders.runbook == ["Literal braces stay: {topic} is not filled in, orders is."]


def test_evidence_is_deduplicated_sorted_and_capped(frame):
    (rule,) = parse_rule_text(
        """
category: hanging-transaction
rules:
  - id: HNG009
    name: all-spans
    table: spans
    severity: info
    title: every span of a partition
    when: {field: batches, ge: 0}
    group_by: [topic]
    message: "{_count}"
""",
        "t.yaml",
    )
    n = 10
    df = frame(
        "spans",
        n,
        topic="t",
        batches=1,
        file_id=[1] * 5 + [0] * 5,
        first_line=list(range(n)),
        first_byte=[900, 800, 700, 600, 500, 400, 300, 200, 100, 100],
        marker_file_id=[0] * n,
        marker_line=[-1] * n,
        marker_byte=[5] * n,
    )
    (f,) = evaluate([rule], {"spans": df}, {}, fake_resolver, max_evidence=4)
    # marker (0, -1, 5) repeated 10 times -> once; then log order by (file, byte)
    assert [e.text for e in f.evidence] == ["0:-1:5", "0:8:100", "0:9:100", "0:7:200"]
    assert f.message == "10"


def test_missing_and_empty_tables_yield_nothing(rules, frame):
    assert run(rules, {}) == []
    assert run(rules, {"spans": frame("spans", 0)}) == []


def test_output_is_deterministic_whatever_the_row_order(rules, spans):
    spans = spans.copy()
    spans["zombie"] = [True, False, True, True]
    expected = [f.to_json() for f in run(rules, {"spans": spans})]
    assert [e["id"] for e in expected] == ["HNG001#1", "HNG001#2", "HNG002#1", "HNG002#2", "FEN001#1", "FEN001#2", "FEN001#3"]
    rng = np.random.default_rng(7)
    for _ in range(5):
        shuffled = spans.iloc[rng.permutation(len(spans))].reset_index(drop=True)
        assert [f.to_json() for f in run(list(reversed(rules)), {"spans": shuffled})] == expected


def test_sorted_by_severity_then_rule(rules, spans, frame):
    spans = spans.copy()
    spans["zombie"] = [True, False, False, False]
    seq = frame(
        "sequence_anomalies",
        2,
        kind=["gap", "duplicate"],
        transactional_id=["tx-a", "tx-a"],
        topic="orders",
        partition=0,
        missing=[3, 1],
        file_id=0,
        line=[5, 6],
        byte=[50, 60],
    )
    findings = run(rules, {"spans": spans, "sequence_anomalies": seq})
    assert [(f.severity, f.id) for f in findings] == [
        ("error", "HNG001#1"), ("error", "HNG001#2"),
        ("warning", "HNG002#1"), ("warning", "HNG002#2"), ("warning", "SEQ001#1"),
        ("info", "FEN001#1"),
    ]
    seq_finding = findings[4]
    assert seq_finding.message == "3 record(s) missing for tx-a on orders-0."
    assert seq_finding.window_start is None  # prev_time / time unknown


def test_resolver_receives_references_and_its_evidence_is_kept(rules, spans):
    calls = []

    def resolver(refs):
        calls.append(list(refs))
        return [Evidence(file="f.log", line=7, text="batch")]

    (f, *_) = evaluate(select_rules(rules, ["HNG001"]), {"spans": spans}, CONFIG, resolver)
    assert calls[0] == [(0, 11, 110)]
    assert f.evidence == [Evidence(file="f.log", line=7, text="batch")]


def test_type_mismatch_at_evaluation_is_a_rule_error(frame):
    (rule,) = parse_rule_text(
        """
category: hanging-transaction
rules:
  - id: HNG009
    name: bad-compare
    table: spans
    severity: info
    title: t
    when: {field: state, gt: {config: limit}}
    message: m
""",
        "user/bad.yaml",
    )
    with pytest.raises(RuleError, match=r"^user/bad.yaml: rules\[0\].when: cannot compare column 'state'"):
        evaluate([rule], {"spans": frame("spans", 3, state="open")}, {"limit": 3}, fake_resolver)


@pytest.mark.slow  # a million rows through every rule
def test_million_rows(rules, frame):
    n = 1_000_000
    rng = np.random.default_rng(1)
    states = np.array(["open", "committed", "aborted"])
    protocols = np.array(["v1", "v2", "unknown"])
    open_rows = np.zeros(n, dtype=bool)
    open_rows[rng.choice(n, 1000, replace=False)] = True
    df = frame(
        "spans",
        n,
        topic=np.char.add("topic-", (np.arange(n) % 50).astype(str)).tolist(),
        partition=np.arange(n) % 12,
        producer_id=np.arange(n),
        producer_epoch=rng.integers(0, 5, n),
        state=np.where(open_rows, "open", states[1 + np.arange(n) % 2]).tolist(),
        protocol=protocols[np.arange(n) % 3].tolist(),
        age_ms=np.where(open_rows, rng.integers(0, 120_000, n), -1),
        epoch_bump=rng.integers(0, 3, n),
        batches=rng.integers(1, 10, n),
        first_time=T0 + np.arange(n),
        end_time=T0 + np.arange(n) + 10,
        file_id=0,
        first_line=np.arange(n),
        first_byte=np.arange(n) * 100,
    )
    selected = select_rules(rules, ["HNG"])
    start = time.perf_counter()
    findings = run(selected, {"spans": df})
    elapsed = time.perf_counter() - start
    print(f"\n1M-row evaluation of {len(selected)} rules: {elapsed * 1000:.0f} ms, {len(findings)} findings")
    is_open = df["state"] == "open"
    expected_hng001 = is_open & (df["age_ms"] > 60000) & (
        df["protocol"].isin(["v1", "unknown"]) | ~(df["epoch_bump"] <= df["batches"] * 2 + 5)
    )
    hng001 = [f for f in findings if f.rule == "HNG001"]
    assert sorted(f.subject.producer_id for f in hng001) == sorted(df.loc[expected_hng001, "producer_id"].tolist())
    hng002 = [f for f in findings if f.rule == "HNG002"]
    groups = df[is_open].groupby(["topic", "partition"]).size()
    assert len(hng002) == len(groups)
    assert sum(int(f.message.split()[0]) for f in hng002) == int(is_open.sum())
