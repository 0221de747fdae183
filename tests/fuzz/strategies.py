"""Mutations of real inputs for the fuzz suite: what a paste, a truncated copy or a hostile file does.

Seeds are the project's own fixtures (dumps of several eras, ``__transaction_state``, snapshots,
client and broker logs, configs, rule files). A mutation works on lines and bytes the way damage
happens in the field: lines cut, dropped, doubled or swapped; numbers made huge or negative;
control characters, bare carriage returns, NUL and invalid UTF-8 put in; the text truncated.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"

NASTY = [
    b"\x00", b"\r", b"\x1b[2J", b"\x9b31m", b"\xff\xfe", b"\xc3\x28", b"`", b"[/bold]", b"\t", b"\\_\\_",
    b"99999999999999999999", b"-1", b"-9223372036854775809", b"1e309", b"NaN", "\u202e".encode(),
    b"producerEpoch: 32768", b"baseOffset: ", b"Dumping ", b"|", b"%7|", b" ... ", b"{", b"}", b"]",
    b"COMMIT", b"ABORT", b"endTxnMarker: COMMIT coordinatorEpoch: 0", b"transactionalId=",
    b"[" * 3000, b'{"a":' * 3000, b"- " * 2000,  # nesting that parsers recurse on
]


def seed_files(*patterns: str, limit: int = 40_000) -> list[bytes]:
    """Contents (at most ``limit`` bytes each) of the fixture files matching ``patterns``."""
    out = []
    for pattern in patterns:
        for path in sorted(FIXTURES.glob(pattern)):
            if path.is_file():
                out.append(path.read_bytes()[:limit])
    return out


@st.composite
def mutated(draw, seeds: list[bytes]) -> bytes:
    """One seed with a few line- and byte-level mutations."""
    data = draw(st.sampled_from(seeds))
    lines = data.split(b"\n")
    for _ in range(draw(st.integers(0, 6))):
        if not lines:
            lines = [b""]
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["drop", "double", "swap", "cut", "insert", "number", "nasty", "random"]))
        line = lines[i]
        if op == "drop":
            del lines[i]
        elif op == "double":
            lines.insert(i, line)
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "cut":
            lines[i] = line[: draw(st.integers(0, max(len(line), 0)))]
        elif op == "insert":
            lines.insert(i, draw(st.binary(max_size=200)))
        elif op == "number":
            digits = [k for k, c in enumerate(line) if 48 <= c <= 57]
            if digits:
                k = draw(st.sampled_from(digits))
                lines[i] = line[:k] + draw(st.sampled_from([b"9" * 25, b"-", b"99999999999", b"0" * 40])) + line[k:]
        elif op == "nasty":
            k = draw(st.integers(0, len(line)))
            lines[i] = line[:k] + draw(st.sampled_from(NASTY)) + line[k:]
        else:
            lines[i] = draw(st.binary(max_size=120))
    text = b"\n".join(lines)
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]
    if draw(st.integers(0, 9)) == 0:
        text = text.replace(b"\n", draw(st.sampled_from([b"\r\n", b"\r"])))
    return text
