"""Command line: `kafkadiag analyze | rules | explain`.

Exit codes follow linters: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage
or input errors (no Kafka evidence in any input, a bad rule file, a bad --config), 3 a reader or
the tool itself failed (the input is named; the report still covers the other inputs). No
traceback reaches the user; set KAFKADIAG_DEBUG=1 to see one for an internal error.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from dataclasses import replace
from datetime import datetime, timezone
from enum import Enum
from pathlib import Path
from typing import Iterator, Optional, TextIO

import typer

from . import __version__
from .config import ConfigError, EffectiveConfig

app = typer.Typer(
    add_completion=True,  # typer's own: --install-completion, --show-completion
    no_args_is_help=True,
    help="Kafka transaction forensics: reads kafka-dump-log output and __transaction_state dumps, "
    "explains fencing, expired transactional ids, timeouts and hanging transactions, and says what to change.",
    context_settings={"help_option_names": ["-h", "--help"]},
)


class Format(str, Enum):
    text = "text"
    json = "json"
    markdown = "markdown"
    html = "html"
    sarif = "sarif"
    junit = "junit"
    github = "github"


class ListFormat(str, Enum):
    """The formats of ``rules`` (the report formats belong to ``analyze``)."""

    text = "text"
    json = "json"


class TimelineFormat(str, Enum):
    """The formats of ``timeline``: the CI formats (SARIF, JUnit, annotations) have nothing to say about it."""

    text = "text"
    json = "json"
    html = "html"
    markdown = "markdown"


class Engine(str, Enum):
    auto = "auto"
    local = "local"
    spark = "spark"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


class UsageError(Exception):
    """Bad input from the user: one line on stderr, exit 2."""


def _fail(message: str) -> None:
    typer.echo(f"kafkadiag: {message}", err=True)
    raise typer.Exit(2)


def parse_time(value: str) -> int:
    """--now as epoch milliseconds or ISO-8601 (UTC when no offset is given)."""
    text = value.strip()
    if text.lstrip("-").isdigit():
        number = int(text)
        return number * 1000 if abs(number) < 100_000_000_000 else number
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--now: cannot read {value!r} as a time (use ISO-8601 like 2024-01-31T10:00:00Z or epoch ms)") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return int(parsed.timestamp() * 1000)


@contextmanager
def _output(path: Optional[Path]) -> Iterator[TextIO]:
    if path is None:
        yield sys.stdout
        return
    try:
        handle = open(path, "w", encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    with handle:
        yield handle


def _load_rules(rule_dirs: list[Path], select: list[str], ignore: list[str]) -> list:
    from .ruleset import load_rules, select_rules

    rules = load_rules([str(d) for d in rule_dirs])
    return select_rules(rules, select, ignore)


def _fill_placeholders(findings: list, bootstrap: Optional[str]) -> None:
    if not bootstrap:
        return
    for f in findings:
        f.runbook = [step.replace("<BOOTSTRAP>", bootstrap) for step in f.runbook]


@app.command()
def analyze(
    paths: list[str] = typer.Argument(..., metavar="PATH", help="Dump files, directories (recursive), globs, .gz files, or - for stdin."),
    format: Format = typer.Option(Format.text, "--format", "-f", help="Output format (html: one self-contained page with timeline pictures)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write the report to this file."),
    config: list[Path] = typer.Option([], "--config", "-c", metavar="FILE", help="Producer or broker .properties whose transaction settings apply (repeatable)."),
    rules: list[Path] = typer.Option([], "--rules", metavar="DIR", help="Directory of extra YAML rules (repeatable)."),
    select: list[str] = typer.Option([], "--select", metavar="RULES", help="Only these rules: ids, id prefixes, names or categories (comma-separated, repeatable)."),
    ignore: list[str] = typer.Option([], "--ignore", metavar="RULES", help="Skip these rules (same forms as --select)."),
    fail_on: FailOn = typer.Option(FailOn.error, "--fail-on", help="Exit 1 when a finding at or above this severity exists."),
    now: Optional[str] = typer.Option(None, "--now", metavar="TIME", help="Treat this time as 'now' for ages of open transactions (default: the end of the evidence)."),
    partition: Optional[str] = typer.Option(None, "--partition", metavar="TOPIC-N", help="TOPIC-N for dumps without a `Dumping` line naming the segment path."),
    bootstrap_server: Optional[str] = typer.Option(None, "--bootstrap-server", metavar="HOST:PORT", help="Fill runbook commands with this bootstrap server."),
    color: Optional[bool] = typer.Option(None, "--color/--no-color", help="Force colours on or off (default: on for a terminal)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Text: only the summary (root causes, their fixes and consequences); the exit code as usual."),
    statistics: bool = typer.Option(False, "--statistics", help="Text: only how many findings each rule raised."),
    show_all: bool = typer.Option(False, "--all", help="Text: every finding in full, also info and the warnings that describe normal traffic (collapsed by default)."),
    engine: Engine = typer.Option(Engine.auto, "--engine", help="local: in this process; spark: Spark tasks; auto: Spark for very large inputs, a --master or Hadoop URIs."),
    master: Optional[str] = typer.Option(None, "--master", metavar="URL", help="Spark master: local[*] (default), spark://HOST:PORT, yarn, k8s://... (implies Spark)."),
    spark_conf: list[str] = typer.Option([], "--spark-conf", metavar="KEY=VALUE", help="Spark setting KEY=VALUE (repeatable), e.g. spark.executor.memory=4g."),
) -> None:
    """Diagnose kafka-dump-log output (data partitions, __transaction_state, snapshots, txnindex)."""
    from .engine.local import analyze as run_analysis
    from .readers.base import ReadOptions
    from .report.model import Report, at_or_above

    effective = EffectiveConfig.defaults()
    for path in config:
        effective.load_properties(str(path))
    now_ms = parse_time(now) if now else None
    if partition is not None and not _valid_partition(partition):
        raise UsageError(f"--partition: expected TOPIC-N (e.g. orders-3), got {partition!r}")
    if (quiet or statistics or show_all) and format != Format.text:
        raise UsageError("--quiet, --statistics and --all shape the text report; use them with --format text")
    _check_paths(paths)
    if format == Format.html:
        _require_html()
    rule_list = _load_rules(rules, select, ignore)
    choice, runner = _engine(engine, master, spark_conf, paths)
    with _progress(quiet, local=choice.name == "local"):
        result = run_analysis(paths, rule_list, effective, now_ms, ReadOptions(partition=partition), runner=runner)
    result.stats["engine"] = {"name": choice.name, "master": choice.master, "reason": choice.reason,
                              **getattr(runner, "details", {})}
    if choice.name == "spark":
        choice = replace(choice, master=str(result.stats["engine"]["master"]))
    _fill_placeholders(result.findings, bootstrap_server)
    notes = [f"engine: {choice.describe()}"]
    if now_ms is None:
        notes.append("ages are measured against the newest timestamp of each partition; pass --now to use another time")
    report = Report(
        "analyze",
        result.findings,
        inputs=[r.to_json() for r in result.inputs],
        config=effective.to_json(),
        stats=result.stats,
        notes=notes,
    )
    if format in (Format.html, Format.markdown):
        report.timelines = _incident_timelines(result)
    with _output(output) as out:
        _render(report, format, out, color, quiet=quiet, stats_only=statistics, show_all=show_all)
    _finish(result, fail_on, at_or_above)


def _progress(quiet: bool, local: bool = True):
    """The progress bar around a long read (stderr on a terminal only, not with --quiet); else nothing."""
    from contextlib import nullcontext

    from .progress_bar import ProgressBar, wanted

    return ProgressBar() if local and wanted(quiet) else nullcontext()


def _require_html() -> None:
    """The HTML report needs its drawing and templating libraries: say so before reading anything."""
    from .report.html import missing_libraries

    missing = missing_libraries()
    if missing:
        wanted = " ".join(f"'{name}>={HTML_MINIMUM[name]}'" for name in missing)
        raise UsageError(f"--format html needs {' and '.join(missing)}, which cannot be imported here: pip install {wanted}")


#: What ``--format html`` needs (also the runtime dependencies in pyproject.toml).
HTML_MINIMUM = {"matplotlib": "3.8", "jinja2": "3.1"}


def _incident_timelines(result):
    """The timelines of the ids the findings are about, root causes first, for the HTML and Markdown reports.

    A finding without a subject (a log signature) is about the id of the events its evidence lines
    are, when the timeline keys them.
    """
    from .engine.timeline import build_timeline
    from .report.timeline_model import evidence_index, finding_key, finding_keys, keys_in_triage_order, timelines_for

    records = result.tables.get("txn_records")
    by_evidence = {}
    if any(not finding_key(f) for f in result.findings if f.severity in ("error", "warning")):
        by_evidence = evidence_index(build_timeline(result.tables, records, include_data=False), result.files)
    key_of = finding_keys(result.findings, by_evidence)
    keys = keys_in_triage_order(result.findings, key_of)
    events = build_timeline(result.tables, records, keys=set(keys)) if keys else None
    return timelines_for(keys, events, result.files, result.findings, key_of)


def _engine(engine: Engine, master: Optional[str], spark_conf: list[str], paths: list[str]):
    """The engine choice and its runner; a bad --spark-conf or an engine that cannot run is a usage error."""
    from .engine.choose import EngineError, choose_engine, make_runner

    conf: dict[str, str] = {}
    for item in spark_conf:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--spark-conf: expected KEY=VALUE, got {item!r}")
        conf[key.strip()] = value.strip()
    if not conf.get("spark.kafkadiag.oneTaskBytes", "0").isdigit():
        raise UsageError("--spark-conf spark.kafkadiag.oneTaskBytes: expected a number of bytes")
    try:
        choice = choose_engine(engine.value, master, paths)
    except EngineError as exc:
        raise UsageError(str(exc)) from None
    if choice.notice:
        typer.echo(f"kafkadiag: {choice.notice}", err=True)
    return choice, make_runner(choice, conf)


#: A reader crashed on an input: the report covers the others, but the run is not complete.
EXIT_READER_FAILED = 3


def _finish(result, fail_on: FailOn, at_or_above) -> None:
    """Say what went wrong with which input, then pick the exit code (2 and 3 win over findings)."""
    for r in result.inputs:
        if r.error:
            typer.echo(f"kafkadiag: {r.path}: {r.error}", err=True)
        elif r.damage:
            typer.echo(f"kafkadiag: warning: {r.path}: {r.damage}; what came before it was read", err=True)
        if not r.error and not r.evidence:
            typer.echo(f"kafkadiag: {r.path}: no Kafka evidence found", err=True)
    if any(r.failed for r in result.inputs):
        raise typer.Exit(EXIT_READER_FAILED)
    if not result.readable:
        _fail("nothing readable: no Kafka evidence in the given inputs (see the inputs table for what each one was)")
    if fail_on != FailOn.never and at_or_above(result.findings, fail_on.value):
        raise typer.Exit(1)


def _check_paths(paths: list[str]) -> None:
    """A mistyped path fails the run before anything is read or printed (exit 2, named once)."""
    from .inputs import missing_paths

    missing = missing_paths(paths)
    if missing:
        more = f" (and {len(missing) - 1} more: {', '.join(missing[1:4])}{', ...' if len(missing) > 4 else ''})" if len(missing) > 1 else ""
        _fail(f"no such file or directory: {missing[0]}{more}")


def _valid_partition(value: str) -> bool:
    topic, _, number = value.rpartition("-")
    return bool(topic) and number.isdigit()


def _render(report, format: Format, out: TextIO, color: Optional[bool], quiet: bool = False,
            stats_only: bool = False, show_all: bool = False) -> None:
    from .report import render_machine

    if not render_machine(report, format.value, out):
        from .report.text import render_text

        render_text(report, out, color=color_wanted(out, color), quiet=quiet, stats_only=stats_only, show_all=show_all)


def color_wanted(out: TextIO, flag: Optional[bool]) -> bool:
    """``--color/--no-color`` first, then ``NO_COLOR``, ``FORCE_COLOR`` / ``CLICOLOR_FORCE``, then a terminal."""
    if flag is not None:
        return flag
    if os.environ.get("NO_COLOR"):
        return False
    if any(os.environ.get(name, "") not in ("", "0") for name in ("FORCE_COLOR", "CLICOLOR_FORCE")):
        return True
    return hasattr(out, "isatty") and out.isatty()


@app.command()
def timeline(
    paths: list[str] = typer.Argument(..., metavar="PATH", help="Dumps, client logs, broker logs (files, directories, globs, .gz, -)."),
    format: TimelineFormat = typer.Option(TimelineFormat.text, "--format", "-f", help="text, json, html (pictures) or markdown."),
    transactional_id: list[str] = typer.Option([], "--transactional-id", "-t", metavar="ID", help="Only these transactional ids (repeatable)."),
    producer_id: list[int] = typer.Option([], "--producer-id", "-p", metavar="PRODUCER_ID", help="Only these producer ids (repeatable)."),
    all_ids: bool = typer.Option(False, "--all", help="Every transactional id, not only those with findings."),
    data: bool = typer.Option(True, "--data/--no-data", help="Include first writes and markers from data-partition dumps."),
    limit: int = typer.Option(200, "--limit", metavar="N", help="At most this many events per transactional id."),
    config: list[Path] = typer.Option([], "--config", "-c", metavar="FILE", help="Producer or broker .properties (repeatable)."),
    now: Optional[str] = typer.Option(None, "--now", metavar="TIME", help="Treat this time as 'now'."),
    partition: Optional[str] = typer.Option(None, "--partition", metavar="TOPIC-N", help="TOPIC-N for dumps without a `Dumping` line."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", help="Write to this file."),
) -> None:
    """One timeline per transactional.id: coordinator states, writes and markers, client and broker events."""
    from .engine.local import analyze as run_analysis
    from .engine.timeline import build_timeline
    from .readers.base import ReadOptions
    from .report.timeline import render_timeline_json, render_timeline_text

    _check_paths(paths)
    if format == TimelineFormat.html:
        _require_html()
    effective = EffectiveConfig.defaults()
    for path in config:
        effective.load_properties(str(path))
    with _progress(False):
        result = run_analysis(paths, _load_rules([], [], []), effective, parse_time(now) if now else None,
                              ReadOptions(partition=partition))
    asked = bool(transactional_id or producer_id)
    keys: set[str] | None = set(transactional_id) | {f"producer {p}" for p in producer_id}
    if not keys and all_ids:
        keys = None
    elif not keys:
        keys = {f.subject.transactional_id or (f"producer {f.subject.producer_id}" if f.subject.producer_id is not None else "")
                for f in result.findings if f.severity in ("error", "warning")} - {""}
        if not keys:
            keys = None
    events = build_timeline(result.tables, result.tables.get("txn_records"), keys=keys, include_data=data,
                            producer_ids=producer_id)
    if not result.readable:
        _fail("nothing readable in the given inputs")
    if asked and events.empty:
        _fail(_nothing_for(transactional_id, producer_id, build_timeline(result.tables, result.tables.get("txn_records"))))
    with _output(output) as out:
        if format == TimelineFormat.json:
            render_timeline_json(events, result.files, out, limit)
        elif format in (TimelineFormat.html, TimelineFormat.markdown):
            _timeline_page(result, events, format, out, limit)
        else:
            render_timeline_text(events, result.files, out, limit)


#: ``timeline --format html|markdown``: more pictures than a report shows, since the ids were asked for.
TIMELINE_PAGE_MAX = 40


def _timeline_page(result, events, format: TimelineFormat, out: TextIO, limit: int) -> None:
    """The timelines (in key order) as the HTML page's pictures or the Markdown report's tables."""
    from .report import render_machine
    from .report.model import Report
    from .report.timeline_model import timelines_for

    keys = sorted(set(events["key"])) if not events.empty else []
    report = Report("timeline", [], inputs=[r.to_json() for r in result.inputs])
    report.timelines = timelines_for(keys, events, result.files, result.findings, max_timelines=TIMELINE_PAGE_MAX,
                                     max_events=limit)
    if format == TimelineFormat.markdown:
        from .report.markdown import render_timeline_tables

        out.write("# kafkadiag timeline\n\n")
        render_timeline_tables(report.timelines, out)
    else:
        render_machine(report, "html", out)


def _nothing_for(tids: list[str], pids: list[int], everything) -> str:
    """One line: what was asked matched no event, and which ids the inputs do have."""
    asked = ", ".join([*(f"transactional id {t}" for t in tids), *(f"producer id {p}" for p in pids)])
    have_tids = sorted({t for t in everything["transactional_id"].astype(str) if t})
    have_pids = sorted({int(p) for p in everything["producer_id"] if p >= 0})

    def some(values: list, noun: str) -> str:
        shown = ", ".join(str(v) for v in values[:8])
        return f"{noun} {shown}" + (f" (and {len(values) - 8} more)" if len(values) > 8 else "")

    parts = [some(have_tids, "transactional ids") if have_tids else "", some(have_pids, "producer ids") if have_pids else ""]
    having = "; ".join(p for p in parts if p) or "no transactional or producer id at all"
    return f"no event of {asked} in the inputs; they have {having}"


@app.command("rules")
def list_rules(
    format: ListFormat = typer.Option(ListFormat.text, "--format", "-f", help="text or json."),
    rules: list[Path] = typer.Option([], "--rules", metavar="DIR", help="Directory of extra YAML rules (repeatable)."),
    select: list[str] = typer.Option([], "--select", metavar="RULES", help="Only these rules."),
    ignore: list[str] = typer.Option([], "--ignore", metavar="RULES", help="Skip these rules."),
) -> None:
    """List the rules: id, severity, category, title."""
    from .ruleset import rules_listing

    listing = rules_listing(_load_rules(rules, select, ignore))
    if format == ListFormat.json:
        typer.echo(json.dumps(listing, indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    from .report.safe import cell

    table = Table(box=None, header_style="bold")
    for col in ("id", "severity", "category", "table", "title"):
        table.add_column(col)
    for item in listing:  # rule files are input too: their text prints as itself
        table.add_row(*(cell(item[k]) for k in ("id", "severity", "category", "table", "title")))
    Console(width=160 if not sys.stdout.isatty() else None).print(table)


@app.command()
def explain(
    rule_id: str = typer.Argument(..., metavar="PATH", help="Rule id (e.g. HNG001) or name."),
    rules: list[Path] = typer.Option([], "--rules", metavar="DIR", help="Directory of extra YAML rules (repeatable)."),
) -> None:
    """Print one rule's documentation and runbook."""
    from .ruleset import explain as explain_rule
    from .ruleset import find_rule

    rule = find_rule(_load_rules(rules, [], []), rule_id)
    typer.echo(explain_rule(rule))


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kafkadiag {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    """Kafka transaction forensics."""
    from .gctune import tune_for_batch

    tune_for_batch()


class Terminated(BaseException):
    """SIGTERM (or SIGHUP) arrived: leave as after Ctrl-C, through the exit handlers that remove spooled input."""


def _on_signal(signum: int, _frame: object) -> None:
    raise Terminated(signum)


def main() -> None:
    """Entry point: run the app, turning known errors into one line and exit code 2."""
    import signal

    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _on_signal)
    _exit_now(_run())


def _run() -> int:
    """Run the app and return the process exit code; never raises (but for KAFKADIAG_DEBUG)."""
    from .engine.spark.session import SparkFailed, SparkUnavailable
    from .facts.span_spill import SpillFailed
    from .report.timeline_svg import ChartUnavailable
    from .ruleset import RuleError

    try:
        code = app(standalone_mode=False)
        return code if isinstance(code, int) else 0
    except typer.Exit as exc:
        return exc.exit_code
    except (UsageError, ConfigError, SparkUnavailable, ChartUnavailable) as exc:
        typer.echo(f"kafkadiag: {exc}", err=True)
        return 2
    except (SparkFailed, SpillFailed) as exc:
        typer.echo(f"kafkadiag: {exc}", err=True)
        return EXIT_READER_FAILED
    except RuleError as exc:
        typer.echo(f"kafkadiag: rule error: {exc}", err=True)
        return 2
    except KeyboardInterrupt:
        typer.echo("kafkadiag: interrupted", err=True)
        return 130
    except Terminated as exc:
        typer.echo("kafkadiag: terminated", err=True)
        return 128 + exc.args[0]
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - the user must never see a traceback
        # Usage errors of the command-line layer (missing argument, bad option value) know how to
        # show themselves and carry their exit code (2).
        if hasattr(exc, "show") and isinstance(getattr(exc, "exit_code", None), int):
            exc.show()
            return exc.exit_code
        if type(exc).__name__ == "Abort":
            return 130
        if os.environ.get("KAFKADIAG_DEBUG"):
            raise
        typer.echo(f"kafkadiag: internal error: {type(exc).__name__}: {exc} (set KAFKADIAG_DEBUG=1 for details)", err=True)
        return 3


def _exit_now(code: int) -> None:
    """Flush the output, run the exit handlers (spooled stdin is removed there), and leave.

    Skipping the interpreter's teardown matters: after a large dump, freeing the fact tables
    object by object takes a noticeable share of the run, for nothing.
    """
    import atexit

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError, OSError):
            pass
    atexit._run_exitfuncs()
    os._exit(code)

from .lint.command import register as _register_lint  # noqa: E402 - the lint command lives in its own package

_register_lint(app)

if __name__ == "__main__":
    main()
