"""Events by line template: parse each line shape once, then fill in its numbers.

Logs repeat a few hundred line shapes: a Kafka client prints each message from a format string,
and the layout adds a timestamp, a thread and a logger. Blank out the digit runs of a line and
the rest (the template) decides everything a row holds except those numbers. The first line of
a template is parsed in full, then once per digit run with that run replaced by a sentinel
number: a run whose replacement changes anything but values showing the sentinel is *pinned*
(librdkafka's level digit decides the level), the template's recipe then holds only for that
value. A last probe replaces every free run at once; where a sentinel shows up in a column value,
that column is a function of that run. A recipe is kept only if it reproduces the first line's
row exactly, so a template whose meaning depends on its numbers in another way is parsed in full.

Lookups go through a second key, the line with each digit *character* masked: lines with the
same masked text have their digit runs at the same positions, so a row is built from fixed
slices of the line by a function generated for that shape, without any regular expression.

An event of a few lines (a broker's ERROR and the exception under it) is templated the same way,
its cleaned lines joined by newlines: the digit runs of every line are the template's runs.
"""

from __future__ import annotations

import re
from typing import Callable

from kafkadiag.readers.logs.event import COLUMNS, DERIVED, PLACE_COLUMNS, RawEvent, describe
from kafkadiag.readers.logs.head import Head
from kafkadiag.readers.logs.layouts import Recognisers
from kafkadiag.readers.logs.times import NO_STAMP, Stamp, parse_stamp

_DIGITS = re.compile(r"(\d+)")
_MASK = bytes.maketrans(b"0123456789", b"\x01" * 10)
_SENTINEL = 91_000_001
_SENTINEL_RUN = re.compile(r"91\d{6}")
_LIMIT = 50_000
#: Learning a template describes the line once per digit run: only lines of an ordinary size are
#: learned, so a pathological line (a whole file without newlines) costs one parse, not thousands.
MAX_LEARN_CHARS = 2000
MAX_LEARN_RUNS = 48
#: A larger template (an exception with its frames, whose line numbers are runs) is learned once
#: it has been seen as many times as it has runs, up to these sizes: learning describes it once per
#: run, so it never costs more than the parses of its sightings so far did.
MAX_DEFERRED_CHARS = 16_000
MAX_DEFERRED_RUNS = 400

UNCACHEABLE = object()
DROPPED = object()
_LATER = object()  # not learned yet (seen too few times for its size): parsed in full, not cached

assert COLUMNS[: len(PLACE_COLUMNS)] == PLACE_COLUMNS and COLUMNS[len(PLACE_COLUMNS):] == DERIVED
_CLIENT = DERIVED.index("client_id")
_TXN = DERIVED.index("transactional_id")


class Recipe:
    """What a template says: column specs over its digit runs, where its timestamp is, its kind family.

    ``pinned`` runs change what the line means (librdkafka's level digit): lines of the template
    share the recipe only when those runs have the values in ``pinned``.
    """

    __slots__ = ("specs", "ts_first", "ts_runs", "family", "pinned", "rows")

    def __init__(self, specs: list[tuple], ts_first: int, ts_runs: int, family: str, pinned: dict[int, str]) -> None:
        self.specs = specs  # per DERIVED column: (False, constant) | (None, run) | (True, [text, run, ...])
        self.ts_first = ts_first  # index of the timestamp's first digit run
        self.ts_runs = ts_runs  # digit runs that make up the timestamp (0: the line has none)
        self.family = family
        self.pinned = pinned  # run index -> the value it must have
        #: Generated row functions by the digit runs' places: learning checks the recipe with the
        #: function its first shape then uses, and a function is compiled from source each time.
        self.rows: dict[tuple[tuple[int, int], ...], Callable[..., tuple]] = {}

    def row_function(self, spans: list[tuple[int, int]]) -> Callable[..., tuple]:
        key = tuple(spans)
        row = self.rows.get(key)
        if row is None:
            row = self.rows[key] = _row_function(self.specs, spans)
        return row


class Shape:
    """A recipe placed on one masked line shape: builds rows from fixed slices of the line."""

    __slots__ = ("row", "ts_slice", "family", "second", "fraction", "pins", "recipe", "spans", "names_client", "_ids",
                 "verdict")

    def __init__(self, recipe: Recipe, spans: list[tuple[int, int]]) -> None:
        self.recipe = recipe
        self.spans = spans
        self.row = recipe.row_function(spans)
        self._ids: Callable[[str], tuple] | None = None
        #: ``(conditions, keeps)``: the pruner's answer for this shape (see :mod:`prune`), kept here
        #: because looking it up is a cost every line of a log pays.
        self.verdict: tuple | None = None
        #: Lines of this shape can name both a client and its transactional.id.
        self.names_client = recipe.specs[_CLIENT] != (False, "") and recipe.specs[_TXN] != (False, "")
        self.family = recipe.family
        self.pins = tuple((slice(*spans[i]), value) for i, value in sorted(recipe.pinned.items()))
        self.ts_slice: slice | None = None
        self.second: slice | None = None
        self.fraction: slice | None = None
        if not recipe.ts_runs:
            return
        first, last = spans[recipe.ts_first], spans[recipe.ts_first + recipe.ts_runs - 1]
        self.ts_slice = slice(first[0], last[1])
        # ``yyyy-MM-dd HH:mm:ss[.,]fff`` without zone: the second and the milliseconds are fixed slices
        start = first[0]
        if recipe.ts_runs in (6, 7) and last[1] - start in (19, 23) and first == (start, start + 4):
            self.second = slice(start, start + 19)
            if recipe.ts_runs == 7 and last == (start + 20, start + 23):
                self.fraction = slice(start + 20, start + 23)
            elif recipe.ts_runs == 7:
                self.second = None

    def fits(self, line: str) -> bool:
        """The line's pinned runs have the values this shape was learned with."""
        pins = self.pins
        if len(pins) == 1:  # librdkafka's level digit: the usual case, without a generator
            return line[pins[0][0]] == pins[0][1]
        return all(line[where] == value for where, value in pins)

    def ids(self, line: str) -> tuple[str, str]:
        """``(client_id, transactional_id)`` of a line, without building its row."""
        if self._ids is None:
            self._ids = _columns_function(self.recipe.specs, self.spans, (_CLIENT, _TXN))
        return self._ids(line)  # type: ignore[return-value]

    def stamp(self, line: str) -> Stamp:
        return parse_stamp(line[self.ts_slice]) if self.ts_slice is not None else NO_STAMP

    def time_ms(self, line: str) -> int:
        """Epoch ms of a line with a full ``yyyy-MM-dd HH:mm:ss.SSS`` stamp; -2 when the shape has none."""
        if self.second is None:
            return -2
        second = _SECONDS.get(line[self.second])
        if second is None:
            if len(_SECONDS) > 200_000:
                _SECONDS.clear()
            second = _SECONDS[line[self.second]] = parse_stamp(line[self.second]).ms
        if second < 0 or self.fraction is None:
            return second
        return second + int(line[self.fraction])


_SECONDS: dict[str, int] = {}


#: Learned shapes and recipes, shared by every input this process reads: a recipe is a function of
#: the line's text alone (the recognisers and ``describe`` keep no state), and the few hundred line
#: shapes of a client's logs recur in every file, so a fleet of small logs learns them once.
_SHARED_SHAPES: tuple[dict[bytes, object], dict[bytes, object]] = ({}, {})  # without, with a known broker
_SHARED_RECIPES: dict[tuple, object] = {}
_SHARED_SIGHTINGS: dict[tuple, int] = {}  # large templates not learned yet: times seen
#: What this process learned, in order, as data another process can take (``learned_since``, ``adopt``).
_LEARNED: list[tuple[tuple, tuple]] = []


def learned_mark() -> int:
    """Where the record of learned templates stands now (for ``learned_since``)."""
    return len(_LEARNED)


def learned_since(mark: int) -> list[tuple[tuple, tuple]]:
    """The templates this process learned after ``mark``, as plain data (picklable)."""
    return _LEARNED[mark:]


def adopt(learned: list[tuple[tuple, tuple]]) -> None:
    """Take templates another process learned: a reader that gets parts of a file another worker
    started skips learning what that worker already did (a quarter of a second for librdkafka
    debug output). An adopted recipe is the one that process checked on its first line."""
    for key, portable in learned:
        variant = _from_portable(portable)
        variants = _SHARED_RECIPES.setdefault(key, [])
        if any(_same_variant(v, variant) for v in variants):  # type: ignore[union-attr]
            continue
        if len(_SHARED_RECIPES) >= _LIMIT or len(variants) > 16:  # type: ignore[arg-type]
            continue
        variants.append(variant)  # type: ignore[union-attr]


def _portable(recipe: object) -> tuple:
    if recipe is UNCACHEABLE:
        return ("uncacheable",)
    if recipe is DROPPED:
        return ("dropped",)
    r: Recipe = recipe  # type: ignore[assignment]
    return ("recipe", r.specs, r.ts_first, r.ts_runs, r.family, r.pinned)


def _from_portable(portable: tuple) -> object:
    if portable[0] == "uncacheable":
        return UNCACHEABLE
    if portable[0] == "dropped":
        return DROPPED
    return Recipe(*portable[1:])


def _same_variant(a: object, b: object) -> bool:
    if isinstance(a, Recipe) and isinstance(b, Recipe):
        return a.pinned == b.pinned
    return a is b


class LineTemplates:
    """Shapes and recipes of single-line events (the tables are shared by the process's inputs)."""

    def __init__(self, recognise: Recognisers) -> None:
        self._recognise = recognise
        self._shapes = _SHARED_SHAPES
        self._recipes = _SHARED_RECIPES
        self._sightings = _SHARED_SIGHTINGS

    def shapes(self, known_broker: bool) -> dict[bytes, object]:
        """Masked line -> shape, as ``lookup`` finds them (for :mod:`bulk`)."""
        return self._shapes[known_broker]

    def lookup(self, line: str, known_broker: bool) -> object:
        """The line's :class:`Shape`, or ``UNCACHEABLE`` / ``DROPPED``."""
        shapes = self._shapes[known_broker]
        key = line.encode().translate(_MASK)
        shape = shapes.get(key)
        if shape is None or shape.__class__ is Shape and shape.pins and not shape.fits(line):  # type: ignore[union-attr]
            shape = self._place(line, known_broker)
            if shape is _LATER:
                return UNCACHEABLE
            if len(shapes) >= _LIMIT:
                shapes.clear()
            shapes[key] = shape  # the latest pinned variant wins: lines of one level come in runs
        return shape

    def _place(self, line: str, known_broker: bool) -> object:
        if "\x01" in line:
            return UNCACHEABLE
        parts = _DIGITS.split(line)
        template = "\0".join(parts[0::2])
        for recipe in self._recipes.get((template, known_broker), ()):  # type: ignore[union-attr]
            if not isinstance(recipe, Recipe) or all(parts[2 * i + 1] == v for i, v in recipe.pinned.items()):
                break
        else:
            if self._later(line, parts, (template, known_broker)):
                return _LATER
            recipe = self._learn(line, parts, known_broker)
            variants = self._recipes.setdefault((template, known_broker), [])
            if len(self._recipes) >= _LIMIT or len(variants) > 16:  # type: ignore[arg-type]
                self._recipes.clear()
                variants = self._recipes.setdefault((template, known_broker), [])
            variants.append(recipe)  # type: ignore[union-attr]
            if len(_LEARNED) < _LIMIT:
                _LEARNED.append(((template, known_broker), _portable(recipe)))
        if not isinstance(recipe, Recipe):
            return recipe
        return Shape(recipe, _spans(parts))

    def _later(self, line: str, parts: list[str], key: tuple) -> bool:
        """A large template seen fewer times than it has runs: not learned yet (see ``MAX_DEFERRED_RUNS``)."""
        runs = len(parts) // 2
        if (len(line) <= MAX_LEARN_CHARS and runs <= MAX_LEARN_RUNS) or len(line) > MAX_DEFERRED_CHARS \
                or runs > MAX_DEFERRED_RUNS:
            return False
        seen = self._sightings.get(key, 0) + 1
        if seen >= runs:
            self._sightings.pop(key, None)
            return False
        if len(self._sightings) >= _LIMIT:
            self._sightings.clear()
        self._sightings[key] = seen
        return True

    def _learn(self, line: str, parts: list[str], known_broker: bool) -> object:
        if len(line) > MAX_DEFERRED_CHARS or len(parts) > 2 * MAX_DEFERRED_RUNS + 1:
            return UNCACHEABLE
        head = self._recognise(line.partition("\n")[0])
        if head is None or head.stack or head.fields:
            return UNCACHEABLE
        digits = parts[1::2]
        ts_first, ts_runs = _timestamp_runs(line, head, parts)
        if ts_first < 0:
            return UNCACHEABLE
        real = self._describe(line, known_broker)
        if real is UNCACHEABLE:
            return UNCACHEABLE
        free = [i for i in range(len(digits)) if not ts_first <= i < ts_first + ts_runs]
        pinned = {i: digits[i] for i in free if not self._free_run(line, parts, i, real, known_broker)}
        sentinels = [str(_SENTINEL + i) for i in range(len(digits))]
        probe_line = _with_runs(parts, {i: sentinels[i] for i in free if i not in pinned})
        probe = self._describe(probe_line, known_broker)
        if probe is UNCACHEABLE or (real is None) != (probe is None):
            return UNCACHEABLE
        if real is None or probe is None:
            return DROPPED if not pinned else UNCACHEABLE
        if real[1] != probe[1]:  # type: ignore[index]
            return UNCACHEABLE
        recipe = Recipe([_column_spec(probe[0][c], sentinels) for c in DERIVED], ts_first, ts_runs, probe[1], pinned)  # type: ignore[index]
        check = recipe.row_function(_spans(parts))(0, 0, 0, 0, 0, line)[len(PLACE_COLUMNS):]
        if check != tuple(real[0][c] for c in DERIVED):  # type: ignore[index]
            return UNCACHEABLE
        return recipe

    def _describe(self, line: str, known_broker: bool) -> object:
        """What a (possibly probed) line says; UNCACHEABLE when no layout accepts it as one whole event.

        An event of several lines comes as its cleaned lines joined by newlines: the first is
        the head, the others its continuation (an exception and its frames)."""
        first, newline, more = line.partition("\n")
        head = self._recognise(first)
        if head is None or head.stack or head.fields:
            return UNCACHEABLE
        rest = more.split("\n") if newline else []
        described = describe(RawEvent(0, 0, 1 + len(rest), head, first, rest), known_broker)
        return described if described is None else (described[0], described[1])

    def _free_run(self, line: str, parts: list[str], i: int, real: object, known_broker: bool) -> bool:
        """Replacing run ``i`` alone changes nothing but the values that show the new number."""
        sentinel = str(_SENTINEL + i)
        probe = self._describe(_with_runs(parts, {i: sentinel}), known_broker)
        if probe is UNCACHEABLE or (real is None) != (probe is None):
            return False
        if real is None:
            return True
        values, family = real  # type: ignore[misc]
        probe_values, probe_family = probe  # type: ignore[misc]
        if family != probe_family:
            return False
        for column in DERIVED:
            a, b = values[column], probe_values[column]
            if a != b and sentinel not in str(b):
                return False
        return True


def _with_runs(parts: list[str], runs: dict[int, str]) -> str:
    out = list(parts)
    for i, value in runs.items():
        out[2 * i + 1] = value
    return "".join(out)


def _spans(parts: list[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for i, part in enumerate(parts):
        if i % 2:
            spans.append((pos, pos + len(part)))
        pos += len(part)
    return spans


def _timestamp_runs(line: str, head: Head, parts: list[str]) -> tuple[int, int]:
    """``(first run, run count)`` of the timestamp; (0, 0) without one; (-1, 0) when it is not whole runs."""
    if not head.ts:
        return (0, 0) if head.stamp.ms < 0 and head.stamp.tod < 0 else (-1, 0)
    start = line.find(head.ts)
    if start < 0:
        return -1, 0
    ts_parts = _DIGITS.split(head.ts)
    count = len(ts_parts) // 2
    first = len(_DIGITS.findall(line[:start]))
    if start > 0 and line[start - 1].isdigit():
        return -1, 0
    if ts_parts[0] or ts_parts[-1] not in ("", "Z") or ts_parts[1::2] != parts[1::2][first:first + count]:
        return -1, 0  # only stamps that start and end with a digit run (optionally "Z")
    return first, count


def _column_spec(value: object, sentinels: list[str]) -> tuple:
    """``(False, constant)``, ``(None, run index)`` for an int, or ``(True, pieces)`` for a string."""
    if isinstance(value, int):
        text = str(value)
        return (None, sentinels.index(text)) if text in sentinels else (False, value)
    text = str(value)
    if "91" not in text:
        return (False, value)
    pieces: list[object] = []
    rest = text
    while True:
        m = _SENTINEL_RUN.search(rest)
        if m is None or m.group(0) not in sentinels:
            pieces.append(rest)
            break
        pieces.append(rest[: m.start()])
        pieces.append(sentinels.index(m.group(0)))
        rest = rest[m.end():]
    return (True, pieces)


def _row_function(specs: list[tuple], spans: list[tuple[int, int]]) -> Callable[..., tuple]:
    """Generate ``lambda file_id, line, byte, seq, time, s: (...)`` reading digit runs as slices of ``s``."""
    names, exprs = _column_exprs(specs, spans, range(len(specs)))
    source = "lambda file_id, line, byte, seq, time, s: (file_id, line, byte, 1, seq, time, " + ", ".join(exprs) + ",)"
    return eval(source, names)  # noqa: S307 - an expression we generated from our own values


def _columns_function(specs: list[tuple], spans: list[tuple[int, int]], columns: tuple[int, ...]) -> Callable[[str], tuple]:
    """Generate ``lambda s: (...)`` for the DERIVED columns at positions ``columns`` only."""
    names, exprs = _column_exprs(specs, spans, columns)
    return eval("lambda s: (" + ", ".join(exprs) + ",)", names)  # noqa: S307 - generated from our own values


def _column_exprs(specs: list[tuple], spans: list[tuple[int, int]], columns) -> tuple[dict[str, object], list[str]]:
    """Python expressions over the line ``s`` for the given DERIVED columns, and the names they use."""
    names: dict[str, object] = {"__builtins__": {"int": int}}
    exprs: list[str] = []

    def run(k: int) -> str:
        a, b = spans[k]
        return f"s[{a}:{b}]"

    for i in columns:
        kind, spec = specs[i]
        if kind is False:
            names[f"c{i}"] = spec
            exprs.append(f"c{i}")
        elif kind is None:
            exprs.append(f"int({run(spec)})")  # type: ignore[arg-type]
        else:
            text = "".join(p.replace("{", "{{").replace("}", "}}") if isinstance(p, str) else "{}" for p in spec)  # type: ignore[union-attr]
            args = [run(p) for p in spec if isinstance(p, int)]  # type: ignore[union-attr]
            names[f"f{i}"] = text
            exprs.append(f"f{i}.format({', '.join(args)})")
    return names, exprs
