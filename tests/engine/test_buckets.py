"""Producer facts built in buckets give the report the whole-run stage gives.

``analyze`` builds a large run's producer facts one bucket of producer ids at a time and keeps
only the rows a finding can show (``kafkadiag.engine.buckets``). Here the bucket size is made
tiny, so every case with more than a couple of transactions is cut into many buckets, and the
whole JSON report (findings with evidence and fixes, inputs, summary counts) must equal the one
built from whole tables.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kafkadiag.engine import buckets
from kafkadiag.facts import span_spill
from tests.casebook import ROOT, fixture_cases, json_report

sys.path.insert(0, str(ROOT / "benchmarks"))
from kafkasim import generate_bulk  # noqa: E402

CASES = fixture_cases()
QUICK = [case for case in CASES if case.startswith("cases/")]
TINY_BUCKETS = 2  # transactions per bucket: every case with more than two is cut


def both_ways(monkeypatch, folder: Path, args: list[str]) -> tuple[dict, dict]:
    monkeypatch.setattr(buckets, "BUCKET_SPANS", 10**12)
    whole = json_report(folder, args, ["--engine", "local"])
    monkeypatch.setattr(buckets, "BUCKET_SPANS", TINY_BUCKETS)
    return whole, json_report(folder, args, ["--engine", "local"])


@pytest.mark.parametrize("case", QUICK)
def test_bucketed_facts_give_the_same_report(case: str, monkeypatch) -> None:
    whole, bucketed = both_ways(monkeypatch, *CASES[case])
    assert bucketed["findings"] == whole["findings"]
    assert bucketed == whole


@pytest.mark.slow
@pytest.mark.parametrize("case", [c for c in CASES if c not in QUICK])
def test_every_fixture_gives_the_same_report_bucketed(case: str, monkeypatch) -> None:
    whole, bucketed = both_ways(monkeypatch, *CASES[case])
    assert bucketed == whole


@pytest.mark.parametrize("era", ["2.0", "3.3"])
def test_a_busy_cluster_in_buckets(era: str, tmp_path: Path, monkeypatch) -> None:
    """Hundreds of producers and thousands of transactions in 40 buckets, their partial spans
    spilled to disk while the dump is read: open, aborted and near-timeout transactions give the
    same findings, counts and evidence, and the spill's files are gone afterwards."""
    dump = tmp_path / f"bulk-{era}.txt"
    truth = generate_bulk(dump, 3_000_000, era=era, seed=3, producers=120, segment_bytes=400_000)
    whole = json_report(tmp_path, [dump.name], ["--engine", "local"])
    monkeypatch.setattr(buckets, "BUCKET_SPANS", max(1, whole["summary"]["transactions"] // 40))
    spills: list[str] = []
    real_init = span_spill.SpanSpill.__init__

    def counted(self, shard_of) -> None:
        real_init(self, shard_of)
        spills.append(self._dir)

    monkeypatch.setattr(span_spill.SpanSpill, "__init__", counted)
    bucketed = json_report(tmp_path, [dump.name], ["--engine", "local"])
    assert spills and not any(Path(folder).exists() for folder in spills)
    assert whole["summary"]["committed"] == truth["commits"]
    assert whole["summary"]["aborted"] == truth["aborts"]
    assert whole["findings"]
    assert bucketed == whole


def test_a_full_disk_while_spilling_is_one_line_and_exit_3(tmp_path: Path) -> None:
    """The spill's directory cannot take more (ENOSPC): the command says where and what to set."""
    import subprocess

    dump = tmp_path / "bulk.txt"
    generate_bulk(dump, 1_000_000, era="3.3", seed=4, producers=60, segment_bytes=300_000)
    script = (
        "import errno, sys\n"
        "from kafkadiag.engine import buckets\n"
        "from kafkadiag.facts import span_spill\n"
        "buckets.BUCKET_SPANS = 2\n"
        "def full(self, shard):\n"
        "    raise OSError(errno.ENOSPC, 'No space left on device')\n"
        "span_spill.SpanSpill._file = full\n"
        "from kafkadiag.cli import main\n"
        f"sys.argv = ['kafkadiag', 'analyze', {str(dump)!r}]\n"
        "main()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 3, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "No space left on device" in lines[0] and "TMPDIR" in lines[0], done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("era", ["2.0", "4.1"])
def test_coordinator_records_spilled_by_transactional_id(era: str, tmp_path: Path, monkeypatch) -> None:
    """A ``__transaction_state`` dump of a thousand ids whose records wait on disk while it is read,
    in several flushes, then come back one bucket of ids at a time: the report equals the one built
    from every record at once and the spill's files are gone. (The fixture cases above spill their
    records too, with findings on families, expiry and fencing.)"""
    from kafkasim.txnbulk import generate_txn_state

    dump = tmp_path / f"txn-{era}.txt"
    truth = generate_txn_state(dump, 1_000, era=era, seed=5)
    monkeypatch.setattr(buckets, "BUCKET_SPANS", 10**12)
    whole = json_report(tmp_path, [dump.name], ["--engine", "local"])
    assert whole["summary"]["coordinator_records"] == truth["coordinator_records"]
    assert whole["summary"]["transactional_ids"] == 1_000
    monkeypatch.setattr(buckets, "BUCKET_SPANS", truth["coordinator_records"] // 20)
    monkeypatch.setattr(span_spill, "FLUSH_ROWS", 500)
    spills: list[span_spill.ShardSpill] = []
    real_init = span_spill.RecordSpill.__init__

    def counted(self, shard_of) -> None:
        real_init(self, shard_of)
        spills.append(self)

    monkeypatch.setattr(span_spill.RecordSpill, "__init__", counted)
    bucketed = json_report(tmp_path, [dump.name], ["--engine", "local"])
    assert len(spills) == 1 and spills[0].rows == truth["coordinator_records"]
    assert not Path(spills[0]._dir).exists()
    assert bucketed == whole
