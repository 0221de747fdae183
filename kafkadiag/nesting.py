"""How deeply a YAML or JSON text nests, found without parsing it.

Parsers recurse: 50,000 nested ``[`` crash the C YAML parser, and a few thousand overflow Python's
JSON decoder and the project's own readers. Rule, settings and configuration files deeper than
``MAX_NESTING`` are refused before a parser sees them.
"""

from __future__ import annotations

import re

MAX_NESTING = 200
_BRACKETS = re.compile(r"[\[\]{}]")
_INDENT = re.compile(r"^ +(?=\S)", re.M)


def nesting_depth(text: str) -> int:
    """An upper bound of a YAML or JSON text's nesting: flow brackets (counted even inside strings,
    so a stray quote cannot hide them) and block indentation / 2. Cheap: it runs on every load."""
    depth = deepest = 0
    for m in _BRACKETS.finditer(text):
        if m.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        elif depth:
            depth -= 1
    indent = max((len(m.group()) for m in _INDENT.finditer(text)), default=0)
    return max(deepest, indent // 2)


def too_deep(text: str) -> bool:
    """Nested deeper than a parser takes safely."""
    return nesting_depth(text) > MAX_NESTING
