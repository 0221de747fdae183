"""In a plain block (ASCII, no escapes, no carriage returns) the log reader takes shortcuts: a
line's raw text stands for its cleaned text, and a trace's indented frames continue the event
without a look at each. Reading every block as if it were not plain must give the same rows."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
import yaml

from loggen import write_log
from kafkadiag.readers.base import InputReport, ReadContext, ReadOptions
from kafkadiag.readers.logs import read_logs
from kafkadiag.readers.logs import reader as log_reader

ROOT = Path(__file__).resolve().parents[2]


def _inputs() -> list[tuple[str, bytes]]:
    out = [(f"logs/{p.name}", p.read_bytes()) for p in sorted((ROOT / "fixtures" / "logs").glob("*.log"))]
    for case in sorted((ROOT / "fixtures" / "real").iterdir()):
        spec = case / "case.yaml"
        if spec.is_file():
            files = [case / f for f in yaml.safe_load(spec.read_text())["files"]]
            out.append((f"real/{case.name}", b"".join(f.read_bytes() for f in files if f.is_file())))
    buffer = io.StringIO()
    write_log(buffer, 3, seed=5)
    generated = buffer.getvalue()
    out.append(("generated", generated.encode()))
    # frames followed by whitespace-only lines, a code fence and an entity: where a trace may end
    odd, extra = [], ["\t", "   ", "  ```", "\tat x.Y(&lt;init&gt;)", "", "\t\t"]
    lines = generated.split("\n")
    for i, line in enumerate(lines):
        odd.append(line)
        last_frame = line.startswith("\t") and i + 1 < len(lines) and not lines[i + 1].startswith("\t")
        if last_frame:
            odd.append(extra[(i // 3) % 3])  # whitespace only after a trace's last frame
        elif line.startswith("\tat ") and i % 7 == 0:
            odd.append(extra[i % len(extra)])
    out.append(("generated with odd lines in traces", "\n".join(odd).encode()))
    return out


def _rows(data: bytes) -> tuple[pd.DataFrame, dict]:
    ctx = ReadContext(0, "app.log", ReadOptions(), InputReport("app.log"))
    frames = [f for _, f in read_logs(io.BytesIO(data), ctx)]
    return (pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()), ctx.report.to_json()


@pytest.mark.parametrize("name, data", _inputs(), ids=[n for n, _ in _inputs()])
def test_reading_without_the_plain_block_shortcuts_gives_the_same_rows(name: str, data: bytes,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    shortcut, shortcut_report = _rows(data)
    events = log_reader._LogReader._events

    def not_plain(self, *args, **kwargs):
        self._plain_block = False
        return events(self, *args, **kwargs)

    monkeypatch.setattr(log_reader._LogReader, "_events", not_plain)
    full, full_report = _rows(data)
    pd.testing.assert_frame_equal(shortcut, full)
    assert shortcut_report == full_report
