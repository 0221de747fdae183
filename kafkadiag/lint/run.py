"""One lint run: files → rows → the ``configs`` table → rules → located, filtered findings.

All files of one run are one deployment, so a producer's transaction.timeout.ms is checked
against the broker file given beside it. The rule engine is the same as analyze's; this module
only adds what config lint needs on top: a location per finding, suppression comments, project
settings and the fix plan.
"""

from __future__ import annotations

import dataclasses
import fnmatch
from dataclasses import dataclass, field
from pathlib import Path

from ..findings import Evidence, Finding, Location, Recommendation
from ..ruleset import load_rules, select_rules
from ..ruleset.evaluate import evaluate
from ..ruleset.model import Rule
from . import defaults
from .detect import detect_dialect
from .sources import expand
from .sources.notconfig import not_a_config
from .discover import discover
from .facts import Facts, build_facts
from .fixes import Plan, plan_fixes
from .load import InputError, NotAConfig, UnreadableError, read_config
from .locate import fix_targets, locate
from .model import ConfigFile
from .rows import build_rows
from .settings import Settings
from .suppress import matches, suppressed, suppressions

TABLE = "configs"


@dataclass
class LintOptions:
    paths: list[str]
    dialect: str | None = None
    kafka_version: str | None = None
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    rule_dirs: list[str] = field(default_factory=list)
    idle: dict[str, int] = field(default_factory=dict)
    settings: Settings = field(default_factory=Settings)
    texts: dict[str, str] = field(default_factory=dict)  # shown path → content to lint instead of the file's
    profile: str | None = None  # Spring / Quarkus / Micronaut profile to resolve (default: the default profile)


@dataclass
class LintResult:
    findings: list[Finding]
    files: list[ConfigFile]
    facts: Facts
    rules: list[Rule]
    version: str
    plan: Plan
    suppressed: int = 0
    notes: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    row_of: dict[int, int] = field(default_factory=dict)  # id(finding) → row id


def lint_rules(opts: LintOptions) -> list[Rule]:
    """The config rules enabled by settings and command line, with severity overrides applied."""
    rules = [r for r in load_rules(opts.rule_dirs) if r.table == TABLE]
    overrides = opts.settings.severity
    if overrides:
        rules = [dataclasses.replace(r, severity=_severity(r, overrides)) for r in rules]
    select = opts.select or opts.settings.select
    ignore = [*opts.settings.ignore, *opts.ignore]
    return select_rules(rules, select, ignore)


def _severity(rule: Rule, overrides: dict[str, str]) -> str:
    best = max((sel for sel in overrides if matches(sel, rule)), key=len, default=None)
    return overrides[best] if best else rule.severity


def run_lint(opts: LintOptions) -> LintResult:
    version = opts.kafka_version or opts.settings.kafka_version or defaults.DEFAULT_KAFKA_VERSION
    defaults.version_code(version)
    rules = lint_rules(opts)
    files, errors, notes, skipped = _read(opts)
    idle = {**opts.settings.idle, **opts.idle}
    assumed = not opts.kafka_version and not opts.settings.kafka_version
    if assumed:
        notes.append(f"defaults of Kafka {version} assumed; pass --kafka-version (or set kafka-version) for yours")
    findings, facts, row_of, count = check_files(files, rules, version, idle, version_assumed=assumed)
    plan = plan_fixes([(f, row_of[id(f)]) for f in findings], facts)
    return LintResult(findings, files, facts, rules, version, plan, count, notes, errors, skipped, row_of)


def check_files(
    files: list[ConfigFile], rules: list[Rule], version: str = defaults.DEFAULT_KAFKA_VERSION,
    idle: dict[str, int] | None = None, version_assumed: bool = False,
) -> tuple[list[Finding], Facts, dict[int, int], int]:
    """Findings of the config rules over parsed files (one deployment), with facts, rows and the suppressed count.

    ``analyze`` calls this too, for the configuration files among its inputs.
    """
    for i, cfg in enumerate(files):
        cfg.file_id = i
    rows = [row for cfg in files for row in build_rows(cfg)]
    facts = build_facts(rows, version, idle or {}, version_assumed)
    findings, row_of = _evaluate(rules, facts) if rows else ([], {})
    findings, count = _filter(findings, rules, files, row_of)
    return findings, facts, row_of, count


def _read(opts: LintOptions) -> tuple[list[ConfigFile], list[str], list[str], list[str]]:
    files: list[ConfigFile] = []
    errors: list[str] = []
    notes: list[str] = []
    skipped: list[str] = []
    passed_over: list[str] = []  # templates and CI files found in folders: one note for all
    for path, shown, explicit in discover(opts.paths, opts.settings.exclude, errors):
        try:
            cfg = read_config(path, shown, explicit, opts.texts.get(shown))
        except NotAConfig as exc:
            skipped.append(shown)
            if explicit:
                notes.append(str(exc))
            else:
                passed_over.append(shown)
            continue
        except InputError as exc:
            # A file found in a folder may be anything (a large JSON, invalid YAML): a note. One
            # that cannot be read at all leaves the lint incomplete, named or not: an error.
            (errors if explicit or isinstance(exc, UnreadableError) else notes).append(str(exc))
            continue
        forced = opts.dialect or _dialect_setting(shown, opts.settings)
        units = None if forced else read_sources(cfg, opts.profile)
        if units is not None:
            kind, derived = units
            if kind == "not-a-config":
                skipped.append(shown)
                if explicit:
                    notes.append(f"{shown}: {not_a_config(cfg)}, not a configuration: skipped")
                else:
                    passed_over.append(shown)
                continue
            files.extend(derived)
            if not derived and explicit and kind not in ("spring-cloud-stream", "spring-section"):
                notes.append(f"{shown}: {kind} file with no Kafka client or broker settings to check")
            if kind not in ("spring-cloud-stream", "spring-section"):
                continue
        cfg.profile = opts.profile
        cfg.dialect = forced or detect_dialect(cfg) or ""
        if units is not None and cfg.dialect != "spring":
            continue
        if not cfg.dialect:
            skipped.append(shown)
            if explicit:
                notes.append(f"{shown}: no Kafka settings recognised; skipped")
            continue
        files.append(cfg)
    if passed_over:
        named = ", ".join(passed_over[:3]) + (f" and {len(passed_over) - 3} more" if len(passed_over) > 3 else "")
        notes.append(f"{len(passed_over)} template or CI file(s) skipped, not configurations: {named}")
    for i, cfg in enumerate(files):
        cfg.file_id = i
    return files, errors, notes, skipped


def read_sources(cfg: ConfigFile, profile: str | None) -> tuple[str, list[ConfigFile]] | None:
    """The configs a source detector finds in ``cfg`` (compose, Kubernetes, frameworks), or None."""
    return expand(cfg, profile)


def _dialect_setting(shown: str, settings: Settings) -> str | None:
    posix = Path(shown).as_posix()
    for pattern, dialect in settings.dialects.items():
        if fnmatch.fnmatch(posix, pattern) or fnmatch.fnmatch(Path(shown).name, pattern):
            return dialect
    return None


def _evaluate(rules: list[Rule], facts: Facts) -> tuple[list[Finding], dict[int, int]]:
    """Findings with their location, evidence lines (secrets masked) and the row they came from."""
    def resolver(refs: list[tuple[int, int, int]]) -> list[Evidence]:
        return [Evidence(file="", line=line, text="", byte=row_id) for _, line, row_id in refs]

    by_id = {r.id: r for r in rules}
    row_of: dict[int, int] = {}
    findings = evaluate(rules, {TABLE: facts.frame}, {}, resolver)
    for finding in findings:
        row_id = int(finding.evidence[0].byte) if finding.evidence and finding.evidence[0].byte is not None else 0
        row_of[id(finding)] = row_id
        found = locate(finding, by_id[finding.rule], row_id, facts)
        spot = found.primary
        finding.location = Location(spot.cfg.path, spot.line, spot.column)
        finding.config = finding.recommendations[0].config if finding.recommendations else (spot.key or None)
        finding.recommendations = [_spelled(rec, row_id, facts) for rec in finding.recommendations]
        finding.evidence = [
            Evidence(s.cfg.path, s.line, s.cfg.shown_line(s.line).strip())
            for s in [spot, *found.related]
            if s.entry is not None or s is spot
        ]
    return findings, row_of


def _spelled(rec: Recommendation, row_id: int, facts: Facts) -> Recommendation:
    """``rec`` with the file it is fixed in and the key as that file spells it (what ``--fix`` writes there)."""
    targets = fix_targets(facts.rows[row_id], rec.side, rec.config, facts.rows)
    if not targets:
        return rec
    target, entry = targets[0]
    written = target.spelled_key(rec.side, rec.config) or (entry.key if entry is not None else "")
    where = target.cfg.path + (f" ({target.section})" if target.section else "")
    return dataclasses.replace(rec, written="" if written == rec.config else written, where=where)


def _filter(findings: list[Finding], rules: list[Rule], files: list[ConfigFile], row_of: dict[int, int]) -> tuple[list[Finding], int]:
    """Drop duplicates (one file yielding several rows) and suppressed findings; order by place."""
    by_id = {r.id: r for r in rules}
    marks = {cfg.path: suppressions(cfg) for cfg in files}
    seen: set[tuple] = set()
    kept: list[Finding] = []
    count = 0
    for f in findings:
        loc = f.location
        key = (f.rule, loc.file if loc else "", loc.line if loc else 0, loc.column if loc else 0, f.message)
        if key in seen:
            continue
        seen.add(key)
        places: dict[str, list[int]] = {}
        for ev in f.evidence:
            places.setdefault(ev.file, []).append(ev.line or 0)
        if any(suppressed(by_id[f.rule], marks.get(path, {}), lines) for path, lines in places.items()):
            count += 1
            continue
        kept.append(f)
    kept.sort(key=lambda f: (f.location.file if f.location else "", f.location.line or 0 if f.location else 0,
                             f.location.column or 0 if f.location else 0, f.rule))
    return kept, count
