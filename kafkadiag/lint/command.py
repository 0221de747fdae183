"""``kafkadiag lint``: the CI / pre-commit check of producer, consumer, broker, Streams, Spring,
Flink and librdkafka configs.

Exit codes follow linters: 0 nothing at or above ``--fail-on`` (default warning), 1 findings at
or above it (or, with ``--diff``, changes to make), 2 usage, settings or parse errors.
"""

from __future__ import annotations

import dataclasses
import sys
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Iterator, Optional, TextIO

import typer

from ..report.model import Report, at_or_above
from ..ruleset import RuleError
from .defaults import VersionError, duration_ms
from .diff import unified_diff
from .discover import DiscoveryError
from .fixes import apply_edits
from .model import ConfigFile
from .run import LintOptions, LintResult, run_lint
from .write import NotWritten, write_fixed
from .settings import Settings, SettingsError, find_settings, load_settings


class LintFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    junit = "junit"
    github = "github"
    markdown = "markdown"


class Dialect(str, Enum):
    java = "java"
    librdkafka = "librdkafka"
    streams = "streams"
    spring = "spring"
    flink = "flink"
    broker = "broker"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


class _Usage(Exception):
    """A problem with what the user asked for: one line on stderr, exit 2."""


def register(app: typer.Typer) -> None:
    """Add the ``lint`` command to the application."""
    app.command("lint")(lint)


def lint(
    paths: list[str] = typer.Argument(..., metavar="PATH", help="Config files or directories (searched recursively for .properties, .yaml, .yml, .json, .conf, .txt)."),
    format: LintFormat = typer.Option(LintFormat.text, "--format", "-f", help="text, json, sarif (GitHub code scanning), junit, github (workflow annotations) or markdown."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the report (or the diff) to this file."),
    dialect: Optional[Dialect] = typer.Option(None, "--dialect", metavar="DIALECT", help="Read every file as this dialect instead of detecting it from its keys."),
    kafka_version: Optional[str] = typer.Option(None, "--kafka-version", metavar="VERSION", help="Kafka version whose defaults apply (e.g. 3.7); default: settings, else the newest known."),
    select: list[str] = typer.Option([], "--select", metavar="RULES", help="Only these rules: ids, prefixes (PRD), names or categories (comma-separated, repeatable)."),
    ignore: list[str] = typer.Option([], "--ignore", metavar="RULES", help="Skip these rules (same forms as --select)."),
    fail_on: Optional[FailOn] = typer.Option(None, "--fail-on", help="Exit 1 when a finding at or above this severity remains (default: warning)."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when findings remain (still 2 on errors)."),
    diff: bool = typer.Option(False, "--diff", help="Print the recommended changes as a unified diff per file; change nothing."),
    fix: bool = typer.Option(False, "--fix", help="Write the recommended changes into the files, then report what is left."),
    settings_file: Optional[Path] = typer.Option(None, "--settings", metavar="FILE", help="Settings file (.kafkadiag.yaml or pyproject.toml); default: the nearest one upwards."),
    isolated: bool = typer.Option(False, "--isolated", help="Ignore settings files."),
    rules: list[Path] = typer.Option([], "--rules", metavar="DIR", help="Directory of extra YAML rules (repeatable)."),
    idle: list[str] = typer.Option([], "--idle", metavar="DURATION", help="GLOB=DURATION: longest idle gap of matching transactional.ids, e.g. 'reports-*=10d' (repeatable)."),
    color: Optional[bool] = typer.Option(None, "--color/--no-color", help="Force colours on or off (default: on for a terminal)."),
    profile: Optional[str] = typer.Option(None, "--profile", metavar="NAME", help="Spring / Quarkus / Micronaut profile(s) to resolve, comma-separated (default: the default profile; Quarkus: prod)."),
) -> None:
    """Lint Kafka client and broker configs for transaction and exactly-once pitfalls (CI and pre-commit)."""
    try:
        settings = _settings(settings_file, isolated)
        opts = LintOptions(
            paths=list(paths),
            dialect=dialect.value if dialect else None,
            kafka_version=kafka_version,
            select=list(select),
            ignore=list(ignore),
            rule_dirs=[str(r) for r in rules],
            idle=_idle(idle),
            settings=settings,
            profile=profile,
        )
        if diff and fix:
            raise _Usage("--diff and --fix exclude each other (--diff shows what --fix would write)")
        result = run_lint(opts)
        for error in result.errors:
            typer.echo(f"kafkadiag: {error}", err=True)
        if diff:
            code = _diff(result, opts, output)
        else:
            if fix:
                result = _fix(result, opts)
            code = _report(result, format, output, color, fix)
        threshold = (fail_on.value if fail_on else None) or settings.fail_on or "warning"
        if result.errors:
            code = 2
        elif diff:
            code = 0 if exit_zero else code
        elif exit_zero or threshold == "never":
            code = 0
        else:
            code = 1 if at_or_above(result.findings, threshold) else 0
    except (_Usage, SettingsError, VersionError, DiscoveryError, RuleError, OSError) as exc:
        typer.echo(f"kafkadiag: {_one_line(exc)}", err=True)
        raise typer.Exit(2) from None
    raise typer.Exit(code)


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, RuleError):
        return "; ".join(exc.errors)
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    return str(exc)


def _settings(path: Optional[Path], isolated: bool) -> Settings:
    if isolated:
        return Settings()
    if path is not None:
        if not path.is_file():
            raise _Usage(f"--settings: no such file {path}")
        return load_settings(path)
    found = find_settings(Path.cwd())
    return load_settings(found) if found else Settings()


def _idle(values: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for value in values:
        pattern, sep, duration = value.rpartition("=")
        ms = duration_ms(duration) if sep else None
        if not pattern or ms is None or ms <= 0:
            raise _Usage(f"--idle: expected GLOB=DURATION such as 'reports-*=10d', got {value!r}")
        out[pattern] = ms
    return out


@contextmanager
def _output(path: Optional[Path]) -> Iterator[TextIO]:
    if path is None:
        yield sys.stdout
        return
    with open(path, "w", encoding="utf-8") as handle:
        yield handle


FIX_PASSES = 5


def fixed_texts(result: LintResult, opts: LintOptions) -> tuple[dict[str, tuple[ConfigFile, str]], LintResult]:
    """The new content of every file the fixes change, and the lint of that content.

    Fixing can uncover the next problem (enabling idempotence makes acks=1 an error), so fixes
    are applied and re-checked in memory until nothing more changes (at most FIX_PASSES times).
    """
    originals = {cfg.path: cfg for cfg in result.files}
    texts: dict[str, str] = {}
    current = result
    for _ in range(FIX_PASSES):
        changed = {path: new for path, new in _apply(current).items() if new != texts.get(path, originals[path].text)}
        if not changed:
            break
        texts.update(changed)
        current = run_lint(dataclasses.replace(opts, texts=dict(texts)))
    return {p: (originals[p], t) for p, t in texts.items() if t != originals[p].text}, current


def _apply(result: LintResult) -> dict[str, str]:
    by_file: dict[str, list] = {}
    for edit in result.plan.edits:
        by_file.setdefault(edit.cfg.path, []).append(edit)
    return {path: apply_edits(edits[0].cfg, edits) for path, edits in by_file.items()}


def _diff(result: LintResult, opts: LintOptions, output: Optional[Path]) -> int:
    texts, final = fixed_texts(result, opts)
    with _output(output) as out:
        for path, (cfg, new) in sorted(texts.items()):
            out.write(unified_diff(path, cfg.text, new, cfg.secret_lines()))
    for note in final.plan.notes:
        typer.echo(f"kafkadiag: {note}", err=True)
    typer.echo(f"kafkadiag: {len(texts)} file(s) would change", err=True)
    return 1 if texts else 0


def _fix(result: LintResult, opts: LintOptions) -> LintResult:
    texts, final = fixed_texts(result, opts)
    refused: list[str] = []
    written = 0
    for path, (_cfg, new) in texts.items():
        try:
            write_fixed(path, new)
            written += 1
        except NotWritten as exc:
            refused.append(str(exc))
    notes = list(final.plan.notes)
    if written:
        result = run_lint(opts)
    result.notes = [f"fixed {written} file(s)", *refused, *notes, *result.notes]
    return result


def _report(result: LintResult, format: LintFormat, output: Optional[Path], color: Optional[bool], fixing: bool) -> int:
    report = build_report(result)
    with _output(output) as out:
        from ..report import render_machine

        if not render_machine(report, format.value, out, rules=result.rules):
            from .text import render_lint_text

            tty = color if color is not None else (output is None and sys.stdout.isatty())
            shown = {id(f) for f in result.findings}
            fixable = set() if fixing else result.plan.fixable & shown
            render_lint_text(report, out, color=bool(tty), fixable=fixable)
    return 0


def build_report(result: LintResult) -> Report:
    """The lint run as the Report every renderer takes."""
    roles: dict[str, list[str]] = {}
    for row in result.facts.rows:
        roles.setdefault(row.cfg.path, []).append(row.role)
    kinds: dict[str, list[str]] = {}
    for cfg in result.files:
        kinds.setdefault(cfg.path, []).append(cfg.dialect)
    unique = list({cfg.path: cfg for cfg in reversed(result.files)}.values())[::-1]
    inputs = [
        {"path": cfg.path, "kind": ",".join(dict.fromkeys(kinds[cfg.path])), "era": cfg.fmt, "lines": len(cfg.lines),
         "skipped": 0, "roles": ",".join(dict.fromkeys(roles.get(cfg.path, [])))}
        for cfg in unique
    ]
    stats = {
        "files": len(unique),
        "configs": len(result.facts.rows),
        "suppressed": result.suppressed,
        "fixable": sum(1 for f in result.findings if id(f) in result.plan.fixable),
        "kafka_version": result.version,
    }
    return Report("lint", result.findings, inputs=inputs, stats=stats, notes=list(result.notes))
