"""A bundled case with one hostile client log line: what the HTML report tests render."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def case_with_hostile_line(folder: Path, payload: str) -> Path:
    """The timeout-2.4 case copied into ``folder`` with a Java client log whose fencing error message
    ends in ``payload`` (markup, scripts, links): ``folder`` holds the case."""
    folder.mkdir(parents=True, exist_ok=True)
    for f in (ROOT / "fixtures" / "cases" / "timeout-2.4" / "input").iterdir():
        shutil.copy(f, folder / f.name)
    (folder / "app.log").write_text(
        "2019-12-22 12:34:40,100 ERROR [kafka-producer-network-thread | producer-ledger] o.a.k.c.p.i.TransactionManager - "
        "[Producer clientId=producer-ledger, transactionalId=ledger-writer] Transiting to fatal error state due to "
        f"org.apache.kafka.common.errors.ProducerFencedException: {payload}\n")
    return folder
