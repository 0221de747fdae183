"""The real lint corpus: whole configuration files from public repositories, labelled before
kafkadiag ran on them (fixtures/lint-real/README.md). Recall and precision over the labelled
(case, rule) pairs must stay at or above 0.9."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

CORPUS = Path(__file__).resolve().parents[2] / "fixtures" / "lint-real"
CASES = sorted(p.parent for p in CORPUS.glob("*/case.yaml"))
REQUIRED = ("source", "repository", "path", "commit", "kind", "files", "expected", "also_ok", "conclusion",
            "labelled_before_run")
MINIMUM = 0.9


def _case(folder: Path) -> dict:
    return yaml.safe_load((folder / "case.yaml").read_text(encoding="utf-8"))


def _reported(lint, folder: Path, meta: dict) -> set[str]:
    run = lint([*meta["files"], "--isolated", "--format", "json", "--exit-zero"], cwd=folder)
    assert run.code == 0, run.err
    return {f["rule"] for f in run.json()["findings"] if f["severity"] in ("error", "warning")}


@pytest.mark.parametrize("folder", CASES, ids=[c.name for c in CASES])
def test_case_is_complete(folder):
    meta = _case(folder)
    assert all(k in meta for k in REQUIRED), folder.name
    assert meta["labelled_before_run"] is True
    assert meta["source"].startswith("https://github.com/") and len(meta["commit"]) == 40
    assert all((folder / name).is_file() for name in meta["files"])
    for source in meta.get("sources", []):  # several files, each from its own path and commit
        assert source["file"] in meta["files"] and len(source["commit"]) == 40 and source["url"].startswith("https://github.com/")


def test_files_that_do_not_parse_are_one_line_input_errors(lint):
    """A case labelled ``error: true`` holds a file as committed that is not valid in its format."""
    broken = [f for f in CASES if _case(f).get("error")]
    assert broken
    for folder in broken:
        meta = _case(folder)
        run = lint([*meta["files"], "--isolated", "--format", "json"], cwd=folder)
        assert run.code == 2, run.out
        assert meta["files"][0] in run.err and len(run.err.strip().splitlines()) == 1, run.err


def test_recall_and_precision(lint, capsys):
    assert CASES, "no real cases"
    tp = fp = fn = 0
    misses: list[str] = []
    for folder in CASES:
        meta = _case(folder)
        if meta.get("error"):
            continue
        expected, also_ok = set(meta["expected"]), set(meta["also_ok"])
        got = _reported(lint, folder, meta)
        tp += len(expected & got)
        fn += len(expected - got)
        wrong = got - expected - also_ok
        fp += len(wrong)
        if expected - got or wrong:
            misses.append(f"{folder.name}: missed {sorted(expected - got)}, wrong {sorted(wrong)}")
    recall = tp / (tp + fn) if tp + fn else 1.0
    precision = tp / (tp + fp) if tp + fp else 1.0
    with capsys.disabled():
        print(f"\nlint real corpus: {len(CASES)} cases, recall {recall:.2f} ({tp}/{tp + fn}), "
              f"precision {precision:.2f} ({tp}/{tp + fp})")
        for line in misses:
            print("  " + line)
    assert recall >= MINIMUM and precision >= MINIMUM, misses
