"""The transaction protocol of each transactional.id, decided over whole columns
(``facts.coordinator._protocols``), is what reading each id's records in order decides."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from kafkadiag.facts.coordinator import _protocols


def _one_id_at_a_time(recs: pd.DataFrame) -> dict[str, str]:
    """The reference: each id's records in order (how the decision reads in the protocol's terms)."""
    out: dict[str, str] = {}
    for tid, g in recs.groupby("transactional_id", sort=False):
        if (g["client_txn_version"] >= 2).any():
            out[tid] = "v2"
            continue
        proto, ongoing = "", None
        for state, epoch in zip(g["state"].tolist(), g["producer_epoch"].tolist()):
            if state == "Ongoing":
                ongoing = epoch
            elif state == "PrepareCommit" and ongoing is not None:
                proto = "v2" if epoch > ongoing else "v1"  # KIP-890: the commit bumps the epoch
                break
        if not proto:
            versions = set(g["value_version"].tolist())
            proto = "v1" if versions == {0} or g["client_txn_version"].isin([0]).any() else "unknown"
        out[tid] = proto
    return out


@pytest.mark.parametrize("seed", range(40))
def test_column_decision_equals_reading_each_id_in_order(seed: int) -> None:
    rnd = random.Random(seed)
    n = rnd.randrange(0, 80)
    recs = pd.DataFrame({
        "transactional_id": [f"tx-{rnd.randrange(0, 9)}" for _ in range(n)],
        "state": [rnd.choice(["Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit"]) for _ in range(n)],
        "producer_epoch": [rnd.randrange(0, 4) for _ in range(n)],
        "client_txn_version": [rnd.choice([0, 0, 1, 2, np.nan]) for _ in range(n)],
        "value_version": [rnd.choice([0, 0, 1, np.nan]) for _ in range(n)],
    }, index=[rnd.randrange(0, 6) for _ in range(n)])  # frames joined from several inputs repeat index labels
    assert _protocols(recs) == _one_id_at_a_time(recs)


def test_a_commit_at_a_bumped_epoch_is_v2_and_at_the_same_epoch_v1() -> None:
    recs = pd.DataFrame({
        "transactional_id": ["a", "a", "b", "b"], "state": ["Ongoing", "PrepareCommit"] * 2,
        "producer_epoch": [3, 4, 3, 3], "client_txn_version": [np.nan] * 4, "value_version": [0] * 4,
    })
    assert _protocols(recs) == {"a": "v2", "b": "v1"}
