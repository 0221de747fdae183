"""A number too large for its field costs that line (a counted skip with the reason), never the
rest of the input: the findings of the good lines stay, and the run exits by its findings."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # one damaged number in every field of every case

ROOT = Path(__file__).resolve().parents[2]


def run_json(folder: Path) -> tuple[int, dict]:
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "analyze", "--format", "json", str(folder)],
                          capture_output=True, cwd=ROOT)
    assert "Traceback" not in proc.stderr.decode()
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize("case, dump, field, value, reason", [
    ("timeout-2.4", "payment-events-0.log.txt", "producerEpoch", "99999999999", "number out of range"),  # int32 column
    ("fencing-3.3", "orders-0.log.txt", "producerEpoch", "99999999999", "number out of range"),  # era 3.3
    # Above int64 the batch line's own pattern refuses it (offsets have at most 19 digits).
    ("fencing-3.3", "orders-1.log.txt", "baseOffset", "99999999999999999999", "unparsable batch line"),
])
def test_one_out_of_range_number_is_one_counted_skip(tmp_path: Path, case: str, dump: str, field: str, value: str,
                                                     reason: str) -> None:
    source = ROOT / "fixtures" / "cases" / case / "input"
    code, healthy = run_json(source)
    folder = tmp_path / "input"
    shutil.copytree(source, folder)
    text = (folder / dump).read_text(encoding="utf-8")
    (folder / dump).write_text(re.sub(rf"{field}: \d+", f"{field}: {value}", text, count=1), encoding="utf-8")

    damaged_code, damaged = run_json(folder)
    assert damaged_code == code == 1
    assert [f["rule"] for f in damaged["findings"]] == [f["rule"] for f in healthy["findings"]]
    report = next(i for i in damaged["inputs"] if i["path"].endswith(dump))
    assert not report.get("error")
    assert report["skipped"] == 1
    assert any(r.startswith(reason) for r in report["skip_reasons"]), report["skip_reasons"]
    before = next(i for i in healthy["inputs"] if i["path"].endswith(dump))
    assert report["lines"] == before["lines"]  # read to the end


def test_a_time_past_year_9999_is_shown_raw(tmp_path: Path) -> None:
    dump = tmp_path / "payment-events-0.log.txt"
    text = (ROOT / "fixtures" / "cases" / "timeout-2.4" / "input" / dump.name).read_text(encoding="utf-8")
    dump.write_text(re.sub(r"CreateTime: \d+", "CreateTime: 253402300800001", text, count=1), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "kafkadiag.cli", "timeline", str(dump)], capture_output=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr.decode()
    assert "253402300800001 ms" in proc.stdout.decode()
