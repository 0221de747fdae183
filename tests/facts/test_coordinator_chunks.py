"""The coordinator's per-id walk reads the records a chunk of whole ids at a time
(``facts.coordinator.CHUNK_RECORDS``): its facts must not depend on where chunks end."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from kafkadiag.config import EffectiveConfig
from kafkadiag.engine.local import collect
from kafkadiag.facts import coordinator
from kafkadiag.readers.base import ReadOptions

ROOT = Path(__file__).resolve().parents[2]
INPUTS = sorted(p for p in (ROOT / "fixtures").rglob("*transaction_state*") if p.is_file() and p.suffix in (".txt", ".log"))


def _records(path: Path) -> pd.DataFrame:
    events, _ = collect([str(path)], ReadOptions(), parallel=False)
    frames = [f for f in events.txn_records if len(f)]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


@pytest.mark.parametrize("path", INPUTS[:40], ids=[p.parent.name + "/" + p.name for p in INPUTS[:40]])
def test_facts_do_not_depend_on_the_chunk_size(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recs = _records(path)
    if recs.empty:
        pytest.skip("no coordinator records")
    config = EffectiveConfig.defaults().as_mapping()
    whole = coordinator.build_coordinator_facts(recs, config)
    for size in (1, 3):
        monkeypatch.setattr(coordinator, "CHUNK_RECORDS", size)
        chunked = coordinator.build_coordinator_facts(recs, config)
        for name, frame in whole.items():
            pd.testing.assert_frame_equal(chunked[name], frame)
