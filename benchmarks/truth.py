"""What a benchmark input must give, from the simulator's own counts, and kafkadiag's report in
the same terms (``run.py`` and ``matrix.py`` fail a run where the two differ)."""

from __future__ import annotations

from collections import Counter

MAX_TIMEOUT_MS = 900_000  # transaction.max.timeout.ms (broker default): the hanging rule's upper bound


def dump_truth(summaries: list[dict]) -> dict:
    """Counts over the partitions: batches, commits, aborts, open; the findings the simulator decides."""
    truth: Counter = Counter()
    findings: Counter = Counter()
    for s in summaries:
        truth.update(batches=s["batches"], committed=s["commits"], aborted=s["aborts"], open=len(s["open_transactions"]))
        for t in s["open_transactions"]:
            age = s["end_time"] - t["first_time"]
            if age <= s["timeout_ms"]:
                findings["HNG009"] += 1  # open, still within its timeout: no harm yet
            elif age <= MAX_TIMEOUT_MS:
                findings["HNG002"] += 1  # open past transaction.timeout.ms: hanging
        findings["TMO004"] += s["committed_near_timeout"]
    return {**dict(truth), "findings": dict(findings)}


def txn_state_truth(summary: dict) -> dict:
    """A `__transaction_state` dump whose transactions all completed: its records, its ids, no finding."""
    return {"coordinator_records": summary["coordinator_records"], "transactional_ids": summary["transactional_ids"],
            "findings": {}, "no_other_findings": True}


def observed(report: dict, kind: str) -> dict:
    """What kafkadiag's JSON report says, in the truth's terms."""
    if kind == "log":
        return {"events": int(sum(i["events"] for i in report["inputs"]))}
    s = report["summary"]
    findings = Counter(f["rule"] for f in report["findings"])
    if kind == "txn-state":
        return {"coordinator_records": s["coordinator_records"], "transactional_ids": s["transactional_ids"],
                "findings": dict(findings)}
    return {"batches": s["batches"], "committed": s["committed"], "aborted": s["aborted"], "open": s["open"],
            "findings": dict(findings)}


def compare(truth: dict, got: dict) -> list[str]:
    """Every difference between the truth and what was found, one line each (none: it holds)."""
    out = [f"{k}: {got.get(k)} != {v}" for k, v in truth.items()
           if k not in ("findings", "no_other_findings") and got.get(k) != v]
    for rule, count in truth.get("findings", {}).items():
        seen = got.get("findings", {}).get(rule, 0)
        if seen != count:
            out.append(f"{rule} findings: {seen} != {count}")
    if truth.get("no_other_findings"):
        out += [f"{rule} findings: {n} != 0" for rule, n in got.get("findings", {}).items() if rule not in truth["findings"]]
    return out


