"""Score kafkadiag on the real corpus (fixtures/real): recall and precision per category.

Each case holds text real users posted, labelled from its thread's conclusion (``case.yaml``).
The scoreboard runs ``kafkadiag analyze --format json`` on the case's evidence files, takes the
categories of its error and warning findings (info findings are facts, not diagnoses) and
compares them with the label: an expected category found is a true positive, one missed a false
negative, one reported that is neither expected nor in ``also_ok`` a false positive. A negative
case (``expected: []``) is clean when nothing is reported.

Run it as a script to see the table: ``python tests/real/scoreboard.py [--json FILE] [slug ...]``.
``KAFKADIAG_PYTHON`` names another interpreter to score (e.g. an older build, for a baseline).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "fixtures" / "real"
COUNTED = ("error", "warning")


@dataclass
class Case:
    """One labelled real case."""

    slug: str
    path: Path
    files: list[Path]
    expected: set[str]
    also_ok: set[str]
    client: str
    source: str

    @property
    def negative(self) -> bool:
        return not self.expected


@dataclass
class Outcome:
    """What kafkadiag said about one case."""

    case: Case
    reported: set[str] = field(default_factory=set)
    exit_code: int = 0
    error: str = ""

    @property
    def missed(self) -> set[str]:
        return self.case.expected - self.reported

    @property
    def wrong(self) -> set[str]:
        return self.reported - self.case.expected - self.case.also_ok


class CaseError(ValueError):
    """A case folder whose ``case.yaml`` cannot be read."""


def load_cases(corpus: Path = CORPUS, only: list[str] | None = None) -> list[Case]:
    """Every case folder with a ``case.yaml``, sorted by slug."""
    cases = []
    for folder in sorted(p for p in corpus.iterdir() if (p / "case.yaml").is_file()):
        if only and folder.name not in only:
            continue
        try:
            meta = yaml.safe_load((folder / "case.yaml").read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise CaseError(f"{folder.name}/case.yaml: {exc}".replace("\n", " ")) from None
        files = sorted(p for p in folder.iterdir() if p.is_file() and p.name != "case.yaml")
        cases.append(Case(
            slug=folder.name, path=folder, files=files,
            expected=set(meta.get("expected") or []), also_ok=set(meta.get("also_ok") or []),
            client=str(meta.get("client") or "other"), source=str(meta.get("source") or ""),
        ))
    return cases


def run_in_process(case: Case) -> Outcome:
    """``kafkadiag analyze`` on the case through the CLI in this process (fast; the scoreboard test uses it)."""
    from typer.testing import CliRunner

    from kafkadiag.cli import app

    here = os.getcwd()
    os.chdir(case.path)
    try:
        result = CliRunner().invoke(app, ["analyze", "--format", "json", "--fail-on", "never", *[f.name for f in case.files]])
    finally:
        os.chdir(here)
    outcome = Outcome(case, exit_code=result.exit_code)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        outcome.error = f"{type(result.exception).__name__}: {result.exception}"
        return outcome
    return _read_report(outcome, result.stdout, result.stderr if result.stderr_bytes is not None else "")


def _read_report(outcome: Outcome, stdout: str, stderr: str) -> Outcome:
    try:
        report = json.loads(stdout)
    except json.JSONDecodeError:
        outcome.error = (stderr.strip().splitlines() or ["no output"])[-1]
        return outcome
    outcome.reported = {f["category"] for f in report.get("findings", []) if f.get("severity") in COUNTED}
    if outcome.exit_code not in (0, 1):
        outcome.error = (stderr.strip().splitlines() or [f"exit {outcome.exit_code}"])[-1]
    return outcome


def run_case(case: Case, python: str | None = None, timeout: int = 120) -> Outcome:
    """Run ``kafkadiag analyze`` on the case's files (from the case folder, so paths stay relative)."""
    cmd = [python or sys.executable, "-m", "kafkadiag.cli", "analyze", "--format", "json", "--fail-on", "never",
           *[f.name for f in case.files]]
    env = {**os.environ, "COLUMNS": "200"}
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=case.path, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return Outcome(case, exit_code=-1, error=f"no answer in {timeout} s")
    return _read_report(Outcome(case, exit_code=proc.returncode), proc.stdout, proc.stderr)


def run_all(cases: list[Case], python: str | None = None, workers: int = 3) -> list[Outcome]:
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda c: run_case(c, python), cases))


@dataclass
class Score:
    tp: int = 0
    fn: int = 0
    fp: int = 0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0


def score(outcomes: list[Outcome]) -> tuple[dict[str, Score], Score, float]:
    """Per-category scores, the overall (micro-averaged) score, and the share of clean negatives."""
    per: dict[str, Score] = {}
    total = Score()
    for o in outcomes:
        for cat in o.case.expected:
            s = per.setdefault(cat, Score())
            if cat in o.reported:
                s.tp += 1
                total.tp += 1
            else:
                s.fn += 1
                total.fn += 1
        for cat in o.wrong:
            per.setdefault(cat, Score()).fp += 1
            total.fp += 1
    negatives = [o for o in outcomes if o.case.negative]
    clean = sum(1 for o in negatives if not o.wrong) / len(negatives) if negatives else 1.0
    return dict(sorted(per.items())), total, clean


def table(outcomes: list[Outcome]) -> str:
    """The scoreboard as text: one row per category, the totals, then every miss."""
    per, total, clean = score(outcomes)
    rows = [f"{'category':28} {'TP':>4} {'FN':>4} {'FP':>4} {'recall':>7} {'precision':>9}"]
    for cat, s in per.items():
        rows.append(f"{cat:28} {s.tp:4} {s.fn:4} {s.fp:4} {s.recall:7.2f} {s.precision:9.2f}")
    rows.append(f"{'overall':28} {total.tp:4} {total.fn:4} {total.fp:4} {total.recall:7.2f} {total.precision:9.2f}")
    negatives = [o for o in outcomes if o.case.negative]
    rows.append(f"cases {len(outcomes)} (negatives {len(negatives)}, clean {clean:.2f}); "
                f"client families {len({o.case.client for o in outcomes})}")
    for o in outcomes:
        if o.missed or o.wrong or o.error:
            parts = []
            if o.missed:
                parts.append("missed " + ",".join(sorted(o.missed)))
            if o.wrong:
                parts.append("wrong " + ",".join(sorted(o.wrong)))
            if o.exit_code == 2 and o.case.negative:
                parts.append("no Kafka evidence (exit 2)")
            elif o.error:
                parts.append(f"error: {o.error}")
            rows.append(f"  {o.case.slug}: " + "; ".join(parts))
    return "\n".join(rows)


def to_json(outcomes: list[Outcome]) -> dict:
    per, total, clean = score(outcomes)
    return {
        "categories": {c: {"tp": s.tp, "fn": s.fn, "fp": s.fp, "recall": s.recall, "precision": s.precision}
                       for c, s in per.items()},
        "overall": {"tp": total.tp, "fn": total.fn, "fp": total.fp, "recall": total.recall, "precision": total.precision},
        "negatives_clean": clean,
        "cases": {o.case.slug: {"expected": sorted(o.case.expected), "reported": sorted(o.reported),
                                "missed": sorted(o.missed), "wrong": sorted(o.wrong), "exit": o.exit_code,
                                "error": o.error} for o in outcomes},
    }


KNOWN = Path(__file__).with_name("known_outcomes.yaml")


def known_outcomes(path: Path = KNOWN) -> dict[str, dict[str, list[str]]]:
    """The ledger of cases kafkadiag gets wrong today: slug -> missed and wrong categories."""
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {slug: {"missed": sorted(v.get("missed") or []), "wrong": sorted(v.get("wrong") or [])}
            for slug, v in data.items()}


def differences(outcomes: list[Outcome], known: dict[str, dict[str, list[str]]]) -> list[str]:
    """Cases whose outcome is not the ledger's: lost (now wrong) or won (the ledger entry is stale)."""
    out = []
    seen = set()
    for o in outcomes:
        seen.add(o.case.slug)
        now = {"missed": sorted(o.missed), "wrong": sorted(o.wrong)}
        was = known.get(o.case.slug, {"missed": [], "wrong": []})
        if now != was:
            out.append(f"{o.case.slug}: ledger says missed {was['missed']} wrong {was['wrong']}, "
                       f"now missed {now['missed']} wrong {now['wrong']}")
    out += [f"{slug}: in the ledger but not in the corpus" for slug in sorted(set(known) - seen)]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", help="only these cases")
    parser.add_argument("--json", type=Path, help="also write the scores and per-case outcomes here")
    args = parser.parse_args()
    outcomes = run_all(load_cases(only=args.slugs), python=os.environ.get("KAFKADIAG_PYTHON"))
    print(table(outcomes))
    known = known_outcomes()
    if args.slugs:  # a partial run is held to the ledger entries of the cases it ran
        ran = {o.case.slug for o in outcomes}
        known = {slug: v for slug, v in known.items() if slug in ran}
    changed = differences(outcomes, known)
    print("\n".join(["against tests/real/known_outcomes.yaml:", *changed]) if changed else
          "every case as tests/real/known_outcomes.yaml says")
    if args.json:
        args.json.write_text(json.dumps(to_json(outcomes), indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
