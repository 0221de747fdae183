"""The incident report as one self-contained HTML page, to attach to a ticket.

Summary (root causes with their consequences and fixes), a timeline picture per transactional.id
or producer the findings are about, every finding with its evidence, fixes and runbook in triage
order, the config changes, and the inputs. Nothing is fetched when the page is viewed: the CSS is
inline, the pictures are inline SVG, there is no script. Every string from the inputs goes
through Jinja2's autoescaping; only the SVG matplotlib drew (which escapes its own text) is
inserted as markup.
"""

from __future__ import annotations

import re
from typing import TextIO

from .. import __version__
from ..findings import Finding, iso_time
from .model import SIDE_FILES, Report, properties_snippet
from .safe import visible
from .timeline_svg import ChartUnavailable, render_timeline_svg
from .timeline_model import Timelines, short_time
from .triage import in_triage_order, one_fix, subject_text, triage

_NOT_ID = re.compile(r"[^A-Za-z0-9_-]+")


def anchor(prefix: str, text: str) -> str:
    """An HTML id made of safe characters only (``FEN002#1`` -> ``finding-FEN002-1``)."""
    return f"{prefix}-{_NOT_ID.sub('-', text).strip('-') or 'x'}"


def missing_libraries() -> list[str]:
    """The libraries the page needs that cannot be imported (checked before any input is read)."""
    import importlib

    missing = []
    for name in ("matplotlib", "jinja2"):
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


def _environment():
    try:
        import jinja2
    except ImportError as exc:
        raise ChartUnavailable(
            f"the HTML report is written with Jinja2, which is not installed ({exc.name}): pip install 'jinja2>=3.1'") from None
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("kafkadiag.report", "templates"),
        autoescape=True,  # every {{ value }} is escaped: the inputs are untrusted logs
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["visible"] = visible
    env.filters["time"] = short_time
    return env


def _finding_view(f: Finding, timeline_anchor: dict[str, str], key_of: dict[str, str]) -> dict:
    subject = ", ".join(f"{k}={v}" for k, v in f.subject.to_json().items() if v is not None and v != "")
    window = ""
    if f.window_start is not None or f.window_end is not None:
        window = f"{iso_time(f.window_start) or '?'} → {iso_time(f.window_end) or '?'}"
    return {
        "f": f,
        "ref": f.id or f.rule,
        "anchor": anchor("finding", f.id or f.rule),
        "subject": subject,
        "window": window,
        "evidence": [(f"{ev.file}:{ev.line}" if ev.line else ev.file, ev.text) for ev in f.evidence],
        "fix": properties_snippet(f.recommendations) if f.recommendations else {},
        "caused_by": [(c, anchor("finding", c)) for c in f.caused_by],
        "timeline": timeline_anchor.get(key_of.get(f.id or f.rule, ""), ""),
    }


def render_html(report: Report, out: TextIO, title: str | None = None) -> None:
    """Write the page; ``report.timelines`` holds the timelines to draw (the command line fills it)."""
    env = _environment()
    from markupsafe import Markup  # Jinja2's own dependency

    timelines: Timelines = report.timelines or Timelines()
    anchors = {t.key: anchor("timeline", f"{i}-{t.key}") for i, t in enumerate(timelines.items)}
    pictures = [
        {"t": t, "anchor": anchors[t.key], "svg": Markup(render_timeline_svg(t, f"kd{i}"))}
        for i, t in enumerate(timelines.items)
    ]
    ordered = in_triage_order(report.findings)
    all_recs = [r for f in report.findings for r in f.recommendations]
    page = env.get_template("report.html.j2").render(
        title=title or f"kafkadiag {report.command} report",
        only_timelines=report.command == "timeline",
        version=__version__,
        report=report,
        counts=report.counts(),
        stats=report.stats,
        causes=[{"f": c.finding, "anchor": anchor("finding", c.finding.id or c.finding.rule),
                 "subject": subject_text(c.finding), "fix": one_fix(c.finding),
                 "consequences": [{"f": x, "anchor": anchor("finding", x.id or x.rule), "subject": subject_text(x)}
                                  for x in c.consequences]}
                for c in triage(report.findings)],
        details=[_finding_view(f, anchors, timelines.key_of) for f in ordered if f.severity != "info"],
        infos=[_finding_view(f, anchors, timelines.key_of) for f in ordered if f.severity == "info"],
        pictures=pictures,
        left_out=timelines.left_out,
        without_events=timelines.without_events,
        changes=properties_snippet(all_recs) if all_recs else {},
        side_files=SIDE_FILES,
        given=[c for c in report.config if not c.get("default")],
        defaults=[c["key"] for c in report.config if c.get("default")],
    )
    out.write(page)
