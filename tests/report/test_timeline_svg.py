"""The timeline picture: an axis that cuts idle gaps, and a well-formed SVG for every shape of timeline."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from kafkadiag.report.timeline_model import Moment, Timeline, TimelineEvent
from kafkadiag.report.timeline_svg import render_timeline_svg, time_axis

DAY = 86_400_000


def test_a_week_of_idle_time_is_cut_and_a_burst_is_not() -> None:
    burst = [0, 5, 700, 1400, 2100, 2900]
    axis = time_axis(burst + [2900 + 7 * DAY], 0)
    assert len(axis.segments) == 2 and [b[2] for b in axis.breaks] == [7 * DAY]
    xs = [axis.x(t) for t in burst]
    assert xs == sorted(xs) and xs[-1] == pytest.approx(1.0)  # the burst keeps its proportions, on the whole width
    assert axis.x(700) - axis.x(5) == pytest.approx((700 - 5) / 2900)
    assert axis.x(2900 + 7 * DAY) > xs[-1]


def test_gaps_of_the_same_size_are_not_cut() -> None:
    axis = time_axis([i * 60_000 for i in range(10)], 0)
    assert axis.breaks == [] and axis.x(9 * 60_000) == pytest.approx(1.0)


def test_a_time_inside_a_cut_gap_lands_inside_the_break() -> None:
    axis = time_axis([0, 1000, 1000 + DAY], 0)
    (x0, x1, _), = axis.breaks
    assert x0 < axis.x(1000 + DAY // 2) < x1


def _e(t, source="client", kind="ERROR", lane="client") -> TimelineEvent:
    return TimelineEvent(t, source, kind, lane, "event", "f:1")


SHAPES = {
    "no events": [],
    "one event": [_e(5, "coordinator", "Ongoing", "coordinator")],
    "one instant": [_e(5, "data", "first-write", "t-0"), _e(5, "data", "COMMIT", "t-0")],
    "no times": [_e(None), _e(None, "broker", "INFO", "broker")],
    "some times": [_e(5, kind="WARN"), _e(None, "broker", "INFO", "broker")],
    "far apart": [_e(0), _e(250_000_000_000_000)],
    "unknown kinds": [_e(1, "tool", "whatever", "tool"), _e(2, "data", "odd", "t-1"), _e(3, "coordinator", "Mystery", "coordinator")],
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_every_shape_of_timeline_draws_a_well_formed_picture(name: str) -> None:
    svg = render_timeline_svg(Timeline(name, SHAPES[name], 0, [Moment("X001#1", "error", "t", 1, 10**15)]), "s")
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg") and float(root.get("viewBox").split()[2]) > 0
    assert all(i.startswith("s-") for i in re.findall(r'\bid="([^"]+)"', svg))  # ids scoped to this picture


def test_a_picture_shows_lanes_markers_moments_and_breaks() -> None:
    events = [
        _e(1_000, "coordinator", "Ongoing", "coordinator"), _e(1_010, "data", "first-write", "orders-1"),
        _e(1_020, "data", "first-write", "orders-0"), _e(2_000, "coordinator", "PrepareAbort", "coordinator"),
        _e(2_010, "data", "ABORT", "orders-0"), _e(2_010, "data", "ABORT", "orders-1"),
        _e(2_020, "coordinator", "CompleteAbort", "coordinator"), _e(2_500, "client", "PRODUCER_FENCED", "client"),
        _e(2_500 + 7 * DAY, "coordinator", "tombstone", "coordinator"),
    ]
    svg = render_timeline_svg(Timeline("orders-tx", events, 0, [Moment("TMO001#1", "error", "t", 1_000, 2_000)]), "p")
    texts = [("".join(e.itertext())).strip() for e in ET.fromstring(svg).iter() if e.tag.endswith("text")]
    for label in ("coordinator", "orders-0", "orders-1", "client", "TMO001#1", "+7d 0h", "PrepareAbort", "CompleteAbort",
                  "ABORT marker", "first write", "client error", "expired (tombstone)"):
        assert label in texts, label
    assert texts.index("orders-0") < texts.index("orders-1")  # partitions in order, under the coordinator
