"""Merging one incident's dump and log findings, and linking causes to consequences."""

from kafkadiag.engine.correlate import correlate
from kafkadiag.findings import Evidence, Finding, Subject

T = 1_700_000_000_000


def finding(rule, category, severity="error", tid="app-1", pid=None, start=T, end=None, evidence="x.log"):
    return Finding(rule=rule, category=category, severity=severity, title=rule, message=f"{rule} happened.",
                   subject=Subject(transactional_id=tid, producer_id=pid), window_start=start,
                   window_end=end if end is not None else start,
                   evidence=[Evidence(file=evidence, line=1, text=rule, byte=0)])


def test_timeout_chain_root_cause_first():
    findings = correlate([
        finding("FEN101", "fencing", start=T + 70_000),
        finding("TMO001", "transaction-timeout", start=T, end=T + 65_000, evidence="txn.dump"),
        finding("MIS101", "config-misuse", start=T + 71_000),
        finding("REQ101", "request-timeout", severity="warning", start=T - 5_000, end=T + 40_000),
    ], from_logs={"FEN101", "MIS101", "REQ101"})
    by_rule = {f.rule: f for f in findings}
    assert by_rule["REQ101"].caused_by == []
    assert by_rule["TMO001"].caused_by == ["REQ101#1"]
    assert "TMO001#1" in by_rule["FEN101"].caused_by
    assert set(by_rule["MIS101"].caused_by) == {"TMO001#1", "FEN101#1"}
    assert by_rule["REQ101"].to_json()["root_cause"] is True and by_rule["FEN101"].to_json()["root_cause"] is False


def test_other_transactional_id_is_not_linked():
    findings = correlate([finding("TMO001", "transaction-timeout", tid="a"), finding("FEN101", "fencing", tid="b", start=T + 1)],
                         from_logs={"FEN101"})
    assert all(f.caused_by == [] for f in findings)


def test_cause_after_consequence_window_is_not_linked():
    findings = correlate([finding("TMO001", "transaction-timeout", start=T + 3_600_000),
                          finding("FEN101", "fencing", start=T)], from_logs={"FEN101"})
    assert all(f.caused_by == [] for f in findings)


def test_dump_and_log_of_one_fence_are_one_finding():
    dump = finding("FEN002", "fencing", pid=7, start=T, evidence="__transaction_state-3.dump")
    log = finding("FEN101", "fencing", pid=None, start=T + 3_000, evidence="app.log")
    findings = correlate([dump, log], from_logs={"FEN101"})
    assert [f.rule for f in findings] == ["FEN002"]
    assert [e.file for e in findings[0].evidence] == ["__transaction_state-3.dump", "app.log"]
    assert "Also seen as FEN101" in findings[0].message


def test_two_dump_findings_stay_apart():
    a = finding("HNG005", "hanging-transaction", pid=7)
    b = finding("HNG008", "hanging-transaction", pid=7)
    assert len(correlate([a, b])) == 2


def test_a_merged_finding_is_found_by_the_id_it_gained():
    # The dump finding knows only the producer id; the first log finding brings the transactional.id;
    # a second log finding naming only that transactional.id must still join the same incident.
    dump = finding("FEN002", "fencing", tid=None, pid=7, start=T, evidence="__transaction_state-3.dump")
    with_both = finding("FEN101", "fencing", tid="app-1", pid=7, start=T + 1_000, evidence="a.log")
    tid_only = finding("FEN102", "fencing", tid="app-1", pid=None, start=T + 2_000, evidence="b.log")
    findings = correlate([tid_only, with_both, dump], from_logs={"FEN101", "FEN102"})
    assert [f.rule for f in findings] == ["FEN002"]
    assert [e.file for e in findings[0].evidence] == ["__transaction_state-3.dump", "a.log", "b.log"]


def test_many_incidents_each_link_only_their_own_cause():
    # Thousands of unrelated incidents (an incident-heavy cluster): each consequence is linked to the
    # cause of its own transactional.id, never to another's.
    causes = [finding("TMO001", "transaction-timeout", tid=f"app-{i}", start=T + i, evidence="txn.dump") for i in range(3000)]
    effects = [finding("MIS101", "config-misuse", tid=f"app-{i}", start=T + i + 500) for i in range(3000)]
    findings = correlate(causes + effects, from_logs={"MIS101"})
    by_id = {f.id: f for f in findings}
    for effect in (f for f in findings if f.rule == "MIS101"):
        assert len(effect.caused_by) == 1
        assert by_id[effect.caused_by[0]].subject.transactional_id == effect.subject.transactional_id


def _one_producer_everywhere(count: int) -> list:
    """A fencing finding per partition, all of producer id 7 (one producer writing every partition)."""
    return [finding("FEN001", "fencing", tid=None, pid=7, start=T + i * 1_000, evidence=f"p{i}.log") for i in range(count)]


def test_findings_of_one_producer_are_not_compared_pairwise(monkeypatch):
    # Counted, not timed: every finding correlation looks at for another one is a comparison.
    import kafkadiag.engine.correlate as module

    looked_at = []
    sharing = module._sharing
    monkeypatch.setattr(module, "_sharing", lambda index, f, categories: looked_at.append(len(
        found := sharing(index, f, categories))) or found)
    for count in (1_500, 6_000):
        looked_at.clear()
        out = correlate(_one_producer_everywhere(count), from_logs=set())
        assert len(out) == count and all(f.caused_by == [] for f in out)
        assert len(looked_at) >= count  # every finding was looked up (the count is of real work)
        assert sum(looked_at) <= count, f"{count} findings of one producer: {sum(looked_at)} comparisons"


def test_a_timeout_config_the_running_producers_refute_is_dropped():
    from kafkadiag.findings import Location

    config = finding("FLK002", "invalid-txn-timeout-config", tid="flink", evidence="job.sql")
    config.location = Location("job.sql", 12, 4)
    running = finding("SEQ101", "out-of-order-sequence", tid="flink-0-3", start=T + 1)
    assert [f.rule for f in correlate([config, running], from_logs={"SEQ101"})] == ["SEQ101"]
    # Another id's trouble, or a producer that never started, leaves the config finding standing.
    other = finding("SEQ101", "out-of-order-sequence", tid="orders-0-1", start=T + 1)
    stuck = finding("CNA102", "coordinator-unavailable", tid="flink-0-3", start=T + 1)
    assert "FLK002" in {f.rule for f in correlate([config, other, stuck], from_logs={"SEQ101", "CNA102"})}
