"""A timeline picture as inline SVG, drawn with matplotlib (imported only when a picture is asked for).

One lane per actor: the coordinator's states as a coloured band, each topic-partition's
transactions as bars from the first write to the marker (green COMMIT, red ABORT, orange still
open), client and broker log events as diamonds (red for errors), and every finding about the id
as a shaded window labelled with its id: the moment of the fence, timeout or expiry.

Incidents mix milliseconds and days (a burst of transactions, then an expiry a week later), so
the time axis is linear within bursts and broken across idle gaps that would otherwise take most
of the width; each break is labelled with the time it skips. Events without a time (old dumps)
follow in input order after a break labelled ``no time``.
"""

from __future__ import annotations

import io
import re
from bisect import bisect_right
from dataclasses import dataclass

from ..findings import iso_time
from .safe import visible
from .timeline_model import Timeline, TimelineEvent

STATE_COLORS = {
    "Empty": "#c7c7c7", "Ongoing": "#6baed6", "PrepareCommit": "#74c476", "CompleteCommit": "#238b45",
    "PrepareAbort": "#fd8d3c", "CompleteAbort": "#d94801", "PrepareEpochFence": "#9e67c9", "Dead": "#252525",
}
OUTCOME_COLORS = {"COMMIT": "#238b45", "ABORT": "#cb181d", "still-open": "#fd8d3c"}
SEVERITY_COLORS = {"error": "#cb181d", "warning": "#e6a100"}
ERROR_LEVELS = {"ERROR", "FATAL", "SEVERE"}
INFO_LEVELS = {"INFO", "DEBUG", "TRACE", "LOG", "NOTICE"}
WARN_LEVELS = {"WARN", "WARNING"}

#: At most this many idle gaps are cut out of the axis (the longest ones).
MAX_BREAKS = 6
#: Share of the axis one break takes.
BREAK_SHARE = 0.06
#: Above the first lane (y grows downwards): break labels at the very top, finding ids under them.
TOP = -1.45
BREAK_LABEL_Y = -1.42
MOMENT_LABEL_Y = -0.35


class ChartUnavailable(RuntimeError):
    """matplotlib or Jinja2 is missing: the HTML report cannot be written (one line, exit 2)."""


@dataclass(frozen=True)
class Segment:
    """A stretch of the axis that is linear in time: ``t0`` at ``x0``, ``scale`` x units per ms."""

    t0: int
    t1: int
    x0: float
    scale: float

    @property
    def x1(self) -> float:
        return self.x0 + (self.t1 - self.t0) * self.scale


@dataclass(frozen=True)
class TimeAxis:
    segments: list[Segment]
    untimed_x0: float  # where events without a time start

    def x(self, t: int | None) -> float | None:
        """Axis position of time ``t`` (inside a break: proportionally across it)."""
        if t is None or not self.segments:
            return None
        starts = [s.t0 for s in self.segments]
        i = max(0, bisect_right(starts, t) - 1)
        seg = self.segments[i]
        if t <= seg.t1 or i == len(self.segments) - 1:
            return seg.x0 + (min(max(t, seg.t0), seg.t1) - seg.t0) * seg.scale
        nxt = self.segments[i + 1]
        share = (t - seg.t1) / max(1, nxt.t0 - seg.t1)
        return seg.x1 + share * (nxt.x0 - seg.x1)

    @property
    def breaks(self) -> list[tuple[float, float, int]]:
        """``(x_from, x_to, skipped ms)`` of every cut-out idle gap."""
        return [(a.x1, b.x0, b.t0 - a.t1) for a, b in zip(self.segments, self.segments[1:])]


def time_axis(times: list[int], untimed: int) -> TimeAxis:
    """Linear segments for ``times``, idle gaps cut out when one would take over half of what remains.

    A gap is cut when it is longer than all smaller gaps together (and at least a second), and
    some smaller gap remains to give the scale: the week before an expiry is cut, the second
    between two transactions of a burst is not.
    """
    unique = sorted(set(times))
    if not unique:
        return TimeAxis([], 0.0)
    gaps = sorted(((b - a, i) for i, (a, b) in enumerate(zip(unique, unique[1:]))), reverse=True)
    remaining = sum(g for g, _ in gaps)
    cut: set[int] = set()
    for g, i in gaps[:MAX_BREAKS]:
        remaining -= g
        if g < 1000 or g <= remaining or remaining == 0:  # the smallest gap stays: it is the scale
            break
        cut.add(i)
    linear_ms = sum(g for g, i in gaps if i not in cut)
    scale = 1.0 / linear_ms if linear_ms else 1.0
    break_width = BREAK_SHARE if linear_ms else 1.0 / max(1, len(cut) + 1)
    segments: list[Segment] = []
    start, x = unique[0], 0.0
    for i, (a, b) in enumerate(zip(unique, unique[1:])):
        if i in cut:
            seg = Segment(start, a, x, scale)
            segments.append(seg)
            start, x = b, seg.x1 + break_width
    segments.append(Segment(start, unique[-1], x, scale))
    end = segments[-1].x1
    return TimeAxis(segments, end + (break_width if untimed else 0.0))


def _ticks(axis: TimeAxis, width: float) -> tuple[list[float], list[str]]:
    """Tick positions and labels: each segment's start and end, and a few inside long segments."""
    positions: list[float] = []
    labels: list[str] = []
    last_day = ""
    min_gap = width * 0.09
    for seg in axis.segments:
        n_inner = int((seg.x1 - seg.x0) / (width * 0.2))
        times = [seg.t0] + [seg.t0 + (seg.t1 - seg.t0) * k // (n_inner + 1) for k in range(1, n_inner + 1)] + [seg.t1]
        for t in times:
            x = axis.x(t)
            if x is None or (positions and x - positions[-1] < min_gap):
                continue
            stamp = iso_time(t) or ""
            day, _, clock = stamp.partition("T")
            positions.append(x)
            labels.append(f"{clock.rstrip('Z')}\n{day}" if day != last_day else clock.rstrip("Z"))
            last_day = day
    return positions, labels


def _duration(ms: int) -> str:
    """``7d 0h``, ``5m 44s``, ``2.5s``: the time a break skips."""
    s = ms / 1000
    if s < 60:
        return f"{s:.1f}s"
    units = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
    parts = []
    for name, size in units:
        if s >= size or parts:
            parts.append(f"{int(s // size)}{name}")
            s %= size
        if len(parts) == 2:
            break
    return " ".join(parts)


def _log_style(kind: str) -> tuple[str, str]:
    """(colour, legend label) of a client or broker event from its level or error code."""
    upper = kind.upper()
    if upper in WARN_LEVELS:
        return "#e6a100", "warning"
    if upper in INFO_LEVELS:
        return "#969696", "info"
    return "#cb181d", "error"  # ERROR, FATAL, or an error code (PRODUCER_FENCED, ...)


def render_timeline_svg(t: Timeline, salt: str) -> str:
    """The picture of one timeline as an ``<svg>`` element (no XML prolog), ready to inline in HTML.

    ``salt`` keeps the ids matplotlib gives clip paths and markers unique across the pictures of
    one page. Text stays text (``svg.fonttype: none``), so the page needs no font file.
    """
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ChartUnavailable(
            f"the HTML report draws its timelines with matplotlib, which is not installed ({exc.name}): "
            "pip install 'matplotlib>=3.8'") from None

    lanes = t.lanes
    row = {lane: i for i, lane in enumerate(lanes)}
    timed = [e for e in t.events if e.time is not None]
    untimed = [e for e in t.events if e.time is None]
    axis = time_axis([e.time for e in timed], len(untimed))
    untimed_x = {id(e): axis.untimed_x0 + i * (1.0 / max(1, len(untimed))) * (0.25 if timed else 1.0)
                 for i, e in enumerate(untimed)}

    def x_of(e: TimelineEvent) -> float:
        return axis.x(e.time) if e.time is not None else untimed_x[id(e)]

    xs = [x_of(e) for e in t.events]
    x_max = max(xs, default=1.0) or 1.0
    pad = x_max * 0.03 or 0.03
    rc = {"svg.fonttype": "none", "svg.hashsalt": salt, "text.parse_math": False, "font.size": 8,
          "font.family": "sans-serif", "axes.spines.top": False, "axes.spines.right": False}
    with matplotlib.rc_context(rc):
        fig = Figure(figsize=(10, 1.6 + 0.45 * len(lanes)), layout="constrained")
        ax = fig.add_subplot()
        legend: dict[str, object] = {}
        _coordinator_band(ax, t, row, x_of, x_max + pad, legend)
        _transactions(ax, t, row, x_of)
        _points(ax, t, row, x_of, legend)
        _moments(ax, t, axis, legend)
        for i, (x0, x1, skipped) in enumerate(axis.breaks):
            ax.axvspan(x0, x1, color="#f0f0f0", zorder=0)
            ax.text((x0 + x1) / 2, BREAK_LABEL_Y + 0.28 * (i % 2), f"+{_duration(skipped)}", ha="center", va="top",
                    fontsize=7, color="#636363")
        if untimed:
            label = "no time (input order)"
            if timed:
                ax.axvspan(axis.untimed_x0 - BREAK_SHARE, axis.untimed_x0 - pad / 2, color="#f0f0f0", zorder=0)
            ax.text(axis.untimed_x0, BREAK_LABEL_Y, label, ha="left", va="top", fontsize=7, color="#636363")
        ax.set_yticks(range(len(lanes)), [visible(lane) for lane in lanes])
        ax.set_ylim(len(lanes) - 0.4, TOP)
        ax.set_xlim(-pad, x_max + pad)
        positions, labels = _ticks(axis, x_max + 2 * pad)
        ax.set_xticks(positions, labels)
        ax.grid(axis="x", color="#e0e0e0", linewidth=0.6)
        ax.set_axisbelow(True)
        if legend:
            fig.legend(list(legend.values()), list(legend.keys()), loc="outside lower center",
                       ncol=min(6, len(legend)), fontsize=7, frameon=False)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    svg = buffer.getvalue()
    return _scoped_ids(svg[svg.index("<svg"):], salt)


_ID_ATTR = re.compile(r'\bid="([^"]+)"')
_ID_REF = re.compile(r'(url\(#|xlink:href="#|href="#)([^)"]+)')


def _scoped_ids(svg: str, prefix: str) -> str:
    """Every id in the picture (and every reference to one) prefixed, so that the pictures of one
    page share no id (matplotlib names them ``figure_1``, ``axes_1``, ... in every figure)."""
    svg = _ID_ATTR.sub(lambda m: f'id="{prefix}-{m.group(1)}"', svg)
    return _ID_REF.sub(lambda m: f"{m.group(1)}{prefix}-{m.group(2)}", svg)


def _coordinator_band(ax, t: Timeline, row: dict, x_of, x_end: float, legend: dict) -> None:
    """The coordinator's state from one record to the next, as a coloured band."""
    from matplotlib.patches import Patch

    states = [e for e in t.events if e.source == "coordinator"]
    if not states:
        return
    y = row["coordinator"]
    for e, nxt in zip(states, states[1:] + [None]):
        x0 = x_of(e)
        if e.kind == "tombstone":
            ax.plot([x0], [y], marker="X", color="#252525", markersize=8, linestyle="none", zorder=4)
            legend.setdefault("expired (tombstone)", _marker_proxy("X", "#252525"))
            continue
        x1 = x_of(nxt) if nxt is not None else min(x_end, x0 + x_end * 0.01)
        color = STATE_COLORS.get(e.kind, "#9ecae1")
        ax.barh(y, max(x1 - x0, x_end * 0.002), left=x0, height=0.5, color=color, edgecolor="white", linewidth=0.3,
                zorder=2)
        legend.setdefault(e.kind, Patch(color=color))


def _marker_proxy(marker: str, color: str):
    from matplotlib.lines import Line2D

    return Line2D([], [], marker=marker, color=color, linestyle="none", markersize=7)


def _transactions(ax, t: Timeline, row: dict, x_of) -> None:
    """Per partition: a bar from each first write to the marker that ended it (or to 'still open')."""
    open_at: dict[str, float] = {}
    for e in t.events:
        if e.source != "data":
            continue
        if e.kind == "first-write":
            open_at.setdefault(e.lane, x_of(e))
            continue
        start = open_at.pop(e.lane, None)
        color = OUTCOME_COLORS.get(e.kind, "#636363")
        if start is not None:
            ax.plot([start, x_of(e)], [row[e.lane]] * 2, color=color, linewidth=4, alpha=0.45,
                    solid_capstyle="butt", zorder=2)


def _points(ax, t: Timeline, row: dict, x_of, legend: dict) -> None:
    """Every data and log event as a marker, one scatter per style."""
    from matplotlib.lines import Line2D

    styles: dict[tuple[str, str, str], list[tuple[float, int]]] = {}
    for e in t.events:
        if e.source == "coordinator":
            continue
        if e.source == "data":
            marker, color, label = {
                "first-write": ("o", "#08519c", "first write"),
                "COMMIT": ("s", OUTCOME_COLORS["COMMIT"], "COMMIT marker"),
                "ABORT": ("X", OUTCOME_COLORS["ABORT"], "ABORT marker"),
                "still-open": (">", OUTCOME_COLORS["still-open"], "still open"),
            }.get(e.kind, ("P", "#636363", "data"))
        else:
            color, level = _log_style(e.kind)
            marker, label = "D", f"{e.source} {level}"
        styles.setdefault((marker, color, label), []).append((x_of(e), row[e.lane]))
    for (marker, color, label), points in styles.items():
        ax.scatter([p[0] for p in points], [p[1] for p in points], marker=marker, color=color, s=26,
                   linewidths=0.4, edgecolors="white", zorder=5)
        legend.setdefault(label, Line2D([], [], marker=marker, color=color, linestyle="none", markersize=6))


def _moments(ax, t: Timeline, axis: TimeAxis, legend: dict) -> None:
    """Each finding's window, shaded across every lane and labelled with the finding's id at the top."""
    from matplotlib.patches import Patch

    for i, m in enumerate(t.moments):
        x0, x1 = axis.x(m.start if m.start is not None else m.end), axis.x(m.end if m.end is not None else m.start)
        if x0 is None or x1 is None:
            continue
        color = SEVERITY_COLORS.get(m.severity, "#636363")
        if x1 - x0 > 1e-9:
            ax.axvspan(x0, x1, color=color, alpha=0.12, zorder=1)
        ax.axvline(x1, color=color, linewidth=1.2, linestyle="--", zorder=3)
        ax.text(x1, MOMENT_LABEL_Y - 0.26 * (i % 3), f" {visible(m.finding_id)}", ha="left", va="bottom",
                fontsize=7, color=color, fontweight="bold")
        legend.setdefault(f"finding window ({m.severity})", Patch(color=color, alpha=0.3))
