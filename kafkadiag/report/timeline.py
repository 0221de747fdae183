"""Render per-transactional.id timelines as rich tables or JSON."""

from __future__ import annotations

import json
from typing import TextIO

import pandas as pd
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..findings import iso_time
from .safe import cell

SOURCE_STYLE = {"coordinator": "magenta", "data": "cyan", "client": "yellow", "broker": "green", "tool": "blue"}


def _groups(events: pd.DataFrame, limit: int):
    for key, group in events.groupby("key", sort=True):
        yield key, group.head(limit), max(0, len(group) - limit)


def render_timeline_text(events: pd.DataFrame, files: list[str], out: TextIO, limit: int = 200) -> None:
    console = Console(file=out, width=None if out.isatty() else 160, highlight=False)
    if events.empty:
        console.print("No events to show.")
        return
    for key, group, more in _groups(events, limit):
        table = Table(title=cell(key, style="bold"), title_justify="left", box=None, header_style="bold", pad_edge=False)
        for col in ("time", "source", "event", "where"):
            table.add_column(col, overflow="fold")
        for e in group.itertuples(index=False):
            where = f"{files[e.file_id]}:{e.line}" if 0 <= e.file_id < len(files) else ""
            table.add_row(iso_time(int(e.time)) or "(no time)", cell(e.source, style=SOURCE_STYLE.get(e.source, "")),
                          cell(e.text), cell(where, style="dim"))
        console.print(table)
        if more:
            console.print(Text(f"… {more} more events (raise --limit)", style="dim"))
        console.print()


def render_timeline_json(events: pd.DataFrame, files: list[str], out: TextIO, limit: int = 200) -> None:
    timelines = []
    for key, group, more in _groups(events, limit):
        timelines.append({
            "key": key,
            "events": [
                {
                    "time": iso_time(int(e.time)), "source": e.source, "kind": e.kind,
                    "transactional_id": e.transactional_id or None,
                    "producer_id": int(e.producer_id) if e.producer_id >= 0 else None,
                    "producer_epoch": int(e.producer_epoch) if e.producer_epoch >= 0 else None,
                    "topic": e.topic or None, "partition": int(e.partition) if e.partition >= 0 else None,
                    "text": e.text,
                    "file": files[e.file_id] if 0 <= e.file_id < len(files) else None,
                    "line": int(e.line) if e.line > 0 else None,
                }
                for e in group.itertuples(index=False)
            ],
            "more": more,
        })
    json.dump({"timelines": timelines}, out, indent=2)
    out.write("\n")
