"""Text from inputs and rule files, made safe to print.

Log lines, transactional ids, paths and rule titles come from files the user did not write; an
escape sequence in one must not retitle the terminal window or clear the screen, and rich markup
in one (``[/bold]``, ``[link=file:///…]``) must print as itself. Control characters other than tab
are shown as ``\\xNN``; text handed to rich is a :class:`~rich.text.Text` (never parsed as markup).
"""

from __future__ import annotations

import re

from rich.text import Text

#: C0 controls except tab and newline, DEL, and the C1 controls (``\\x9b`` starts a CSI sequence too).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: object) -> str:
    """``text`` with control characters shown as ``\\xNN`` (a line's trailing CR dropped)."""
    s = str(text)
    if s.endswith("\r"):
        s = s[:-1]
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", s) if _CONTROL.search(s) else s


def cell(text: object, style: str = "") -> Text:
    """A table cell or line that prints exactly ``text`` (markup not interpreted, controls visible)."""
    return Text(visible(text), style=style)
