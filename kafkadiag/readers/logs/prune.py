"""Line templates no rule can match: ``analyze`` drops their lines before a row is built.

A client log is mostly healthy Kafka chatter (state transitions, node disconnects, offsets
set), and every such line used to become a row that the run's log filter (``engine.log_filter``)
then threw away. A line template (:mod:`fastline`) fixes every column but those read from the
line's digit runs, so the filter's conditions can be decided per template: a comparison over
columns the template fixes is evaluated once on those values (with the same
``condition_mask`` the filter uses), one over a column that varies is unknown, and the
condition tree is walked in three-valued logic. A template whose every condition is surely
false drops its lines; the others are parsed and filtered exactly as before, so the rows kept
are the same.

A dropped line still advances the row sequence number, the time anchor and the client ->
transactional.id map the reader keeps, and still counts as an event: only the row is skipped.
A template that could put a number out of its column's range keeps its lines, so that the
row's counted skip is reported as before.
"""

from __future__ import annotations

import functools
import re
import re._parser as _sre  # the standard library's own regex parser: what a pattern must contain

import numpy as np

from kafkadiag.facts.build import SECRET_HINTS, with_subject_label
from kafkadiag.readers.logs.event import DERIVED
from kafkadiag.ruleset.conditions import condition_mask
from kafkadiag.ruleset.config import ConfigView
from kafkadiag.ruleset.model import AllOf, AnyOf, Comparison, Condition, NotOf, Operand, condition_fields
from kafkadiag.tables import LOG_EVENTS

#: Undecided lines after which the templates seen are decided without waiting for the block's end.
SETTLE_LINES = 256
_DTYPES = {c.name: c.dtype for c in LOG_EVENTS.columns}
_NO_CONFIG = ConfigView({}, None)


class Pruner:
    """Per line template: may a row of it match one of ``conditions``?

    ``keeps`` answers from its caches, or None for a template not decided yet: the reader then
    builds that line's row (the log filter decides it exactly) and ``settle`` decides every such
    template at once after the block, as one small frame through ``condition_mask`` (a frame per
    template would cost milliseconds each). Answers are kept on the template shape (the number
    widths decide whether a value can be out of range) and per recipe, both for every input of
    the process (shapes and recipes are shared by them).
    """

    def __init__(self, conditions: tuple[Condition, ...]) -> None:
        self.conditions = conditions
        self._pending: dict[object, None] = {}
        self._undecided = 0  # lines whose rows were built since the last ``settle`` for want of a verdict
        self._by_recipe = _RECIPE_VERDICTS.setdefault(conditions, {})
        if len(_RECIPE_VERDICTS) > 8:
            _RECIPE_VERDICTS.clear()
            self._by_recipe = _RECIPE_VERDICTS.setdefault(conditions, {})

    def keeps(self, shape: object) -> bool | None:
        cached = shape.verdict  # type: ignore[attr-defined]
        if cached is not None and cached[0] is self.conditions:
            return cached[1]
        recipe_keeps = self._by_recipe.get(shape.recipe)  # type: ignore[attr-defined]
        if recipe_keeps is None:
            self._pending[shape.recipe] = None  # type: ignore[attr-defined]
            self._undecided += 1
            if self._undecided < SETTLE_LINES:
                return None
            self.settle()
            recipe_keeps = self._by_recipe[shape.recipe]  # type: ignore[attr-defined]
        verdict = recipe_keeps or not _runs_fit(shape)
        shape.verdict = (self.conditions, verdict)  # type: ignore[attr-defined]
        return verdict

    def settle(self) -> None:
        """Decide the recipes ``keeps`` could not answer for."""
        self._undecided = 0
        if not self._pending:
            return
        recipes = list(self._pending)
        self._pending.clear()
        if len(self._by_recipe) + len(recipes) > 100_000:
            self._by_recipe.clear()
        self._by_recipe.update(zip(recipes, decide([r.specs for r in recipes], self.conditions)))  # type: ignore[attr-defined]


#: conditions -> recipe -> verdict, for every input the process reads.
_RECIPE_VERDICTS: dict[tuple, dict[object, bool]] = {}


def decide(recipes: list[list[tuple]], conditions: tuple[Condition, ...]) -> list[bool]:
    """For each recipe's column specs: may a row of it match one of ``conditions``?"""
    templates = [_template(specs) for specs in recipes]
    open_ = [i for i, t in enumerate(templates) if t is not None]
    verdicts = [True] * len(recipes)
    if not open_:
        return verdicts
    try:
        table = _Templates([templates[i] for i in open_])  # type: ignore[misc]
        may = np.zeros(len(open_), dtype=bool)
        for cond in conditions:
            may |= table.may(cond)
        for i, m in zip(open_, may.tolist()):
            verdicts[i] = m
    except Exception:  # noqa: BLE001 - templates that cannot be decided are kept, never dropped
        pass
    return verdicts


def _template(specs: list[tuple]) -> tuple[dict[str, object], dict[str, list[str]]] | None:
    """``(fixed values, text pieces)`` of a recipe; None: keep its lines undecided (a fixed value out of range)."""
    fixed: dict[str, object] = {}
    texts: dict[str, list[str]] = {}
    for name, (kind, spec) in zip(DERIVED, specs):
        if kind is False:
            if not _fits(name, spec):
                return None
            fixed[name] = spec
        elif kind is True:
            texts[name] = [p for p in spec if isinstance(p, str)]
    if fixed.get("transactional_id") == "" and fixed.get("client_id") != "":
        del fixed["transactional_id"]  # the reader fills it in from the client's earlier lines
    if any(hint in piece.lower() for piece in texts.get("message", ()) for hint in SECRET_HINTS):
        del texts["message"]  # masked before the rules read it: a text no longer known
    return fixed, texts


def _runs_fit(shape: object) -> bool:
    """Every number column read from a digit run of this shape holds any number of the run's width."""
    spans = shape.spans  # type: ignore[attr-defined]
    return all(_run_fits(name, spans[spec]) for name, (kind, spec) in zip(DERIVED, shape.recipe.specs)  # type: ignore[attr-defined]
               if kind is None)


class _Templates:
    """Templates as rows of one frame: the values each fixes (other columns hold their default and
    are marked not fixed), and the text around the digit runs of its columns made of text and
    numbers. Conditions are evaluated in three-valued logic, vectorised over the templates:
    ``may`` (true for some line of the template) and ``must`` (true for every line)."""

    def __init__(self, templates: list[tuple[dict[str, object], dict[str, list[str]]]]) -> None:
        n = len(templates)
        columns = {c.name: [t[0].get(c.name, c.default) for t in templates] for c in LOG_EVENTS.columns
                   if any(c.name in t[0] for t in templates)}
        self.frame = with_subject_label(LOG_EVENTS.frame(columns, length=n))
        self.fixed = {name: np.array([name in t[0] for t in templates], dtype=bool) for name in columns}
        self.texts = [t[1] for t in templates]
        self.n = n
        self._values: dict[int, np.ndarray] = {}

    def may(self, cond: Condition) -> np.ndarray:
        if isinstance(cond, AllOf):
            return np.logical_and.reduce([self.may(c) for c in cond.children])
        if isinstance(cond, AnyOf):
            return np.logical_or.reduce([self.may(c) for c in cond.children])
        if isinstance(cond, NotOf):
            return ~self.must(cond.child)
        known, value = self._known(cond)
        if known.all():
            return value
        return np.where(known, value, [_text_may(cond, t) for t in self.texts])

    def must(self, cond: Condition) -> np.ndarray:
        if isinstance(cond, AllOf):
            return np.logical_and.reduce([self.must(c) for c in cond.children])
        if isinstance(cond, AnyOf):
            return np.logical_or.reduce([self.must(c) for c in cond.children])
        if isinstance(cond, NotOf):
            return ~self.may(cond.child)
        known, value = self._known(cond)
        if known.all():
            return value
        return np.where(known, value, [_text_must(cond, t) for t in self.texts])

    def _known(self, cmp: Comparison) -> tuple[np.ndarray, np.ndarray]:
        """Which templates fix every column the comparison reads, and its value there (as the log
        filter computes it)."""
        known = np.ones(self.n, dtype=bool)
        for name in condition_fields(cmp):
            known &= self.fixed.get(name, np.zeros(self.n, dtype=bool))
        if not known.any():
            return known, known
        value = self._values.get(id(cmp))
        if value is None:
            value = self._values[id(cmp)] = condition_mask(cmp, self.frame, _NO_CONFIG)
        return known, value


def _pieces(cmp: Comparison, texts: dict[str, list[str]]) -> list[str] | None:
    if condition_fields(cmp) != {cmp.field}:
        return None
    return texts.get(cmp.field)


def _text_may(cmp: Comparison, texts: dict[str, list[str]]) -> bool:
    pieces = _pieces(cmp, texts)
    if pieces is None:
        return True
    if cmp.op == "matches":
        return _may_contain(pieces, cmp.arg)  # type: ignore[arg-type]
    if cmp.op == "eq" and isinstance(cmp.arg, Operand) and cmp.arg.kind == "literal" and _plain(cmp.arg):
        return _possible(pieces, cmp.arg.value)
    if cmp.op == "in":
        return any(_possible(pieces, v) for v in cmp.arg)  # type: ignore[union-attr]
    if cmp.op == "exists":
        return bool(cmp.arg)  # text with a digit run in it is never empty
    return True


def _text_must(cmp: Comparison, texts: dict[str, list[str]]) -> bool:
    pieces = _pieces(cmp, texts)
    if pieces is None:
        return False
    if cmp.op == "ne" and isinstance(cmp.arg, Operand) and cmp.arg.kind == "literal" and _plain(cmp.arg):
        return not _possible(pieces, cmp.arg.value)
    if cmp.op == "not_in":
        return not any(_possible(pieces, v) for v in cmp.arg)  # type: ignore[union-attr]
    if cmp.op == "exists":
        return bool(cmp.arg)
    return False


def _plain(op: Operand) -> bool:
    return op.times is None and op.plus is None


def _possible(pieces: list[str], value: object) -> bool:
    """Can the text ``pieces[0] <digits> pieces[1] ... <digits> pieces[-1]`` equal ``value``?"""
    if not isinstance(value, str):
        return False
    return re.fullmatch(r"\d+".join(map(re.escape, pieces)), value) is not None


def _may_contain(pieces: list[str], pattern: re.Pattern) -> bool:
    """Can ``pattern`` be found in a text made of ``pieces`` with digit runs between them?

    Only when the pattern requires a literal without digits (one of a few, for a pattern of
    alternatives) is the answer ever no: such a literal cannot overlap a digit run, so it must
    stand inside one piece.
    """
    literals = required_literals(pattern)
    if literals is None:
        return True
    if pattern.flags & re.IGNORECASE:
        if not all(lit.isascii() for lit in literals) or not all(p.isascii() for p in pieces):
            return True  # case folding beyond ASCII is not a plain lower()
        lowered = [p.lower() for p in pieces]
        return any(lit.lower() in p for lit in literals for p in lowered)
    return any(lit in p for lit in literals for p in pieces)


@functools.lru_cache(maxsize=1024)
def required_literals(pattern: re.Pattern) -> tuple[str, ...] | None:
    """Digit-free texts one of which every match of ``pattern`` contains, or None.

    One text for most patterns (:func:`required_literal`); for a pattern that is alternatives
    at its top (``rollback of ongoing transaction.*due to timeout|aborting.*transaction``), one
    per alternative, if each has one.
    """
    try:
        parsed = _sre.parse(pattern.pattern, pattern.flags & ~re.IGNORECASE)
    except Exception:  # noqa: BLE001 - a pattern the parser does not take is not analysed
        return None
    items = list(parsed.data)
    if len(items) == 1 and items[0][0] is _sre.BRANCH:
        out = []
        for alternative in items[0][1][1]:
            found = _literals(alternative.data)
            if not found:
                return None
            out.append(max(found, key=len))
        return tuple(out)
    literal = required_literal(pattern)
    return None if literal is None else (literal,)


@functools.lru_cache(maxsize=1024)
def required_literal(pattern: re.Pattern) -> str | None:
    """A digit-free text every match of ``pattern`` contains (the longest found), or None."""
    try:
        parsed = _sre.parse(pattern.pattern, pattern.flags & ~re.IGNORECASE)
    except Exception:  # noqa: BLE001 - a pattern the parser does not take is not analysed
        return None
    found = _literals(parsed.data)
    return max(found, key=len) if found else None


def _literals(items) -> list[str]:
    """Digit-free literal runs that every match of the sequence ``items`` contains."""
    found: list[str] = []
    run: list[str] = []
    for op, arg in items:
        if op is _sre.LITERAL:
            run.append(chr(arg))
            continue
        found.append("".join(run))
        run = []
        if op is _sre.SUBPATTERN and not arg[1] and not arg[2]:  # a group without flags of its own
            found.extend(_literals(arg[3].data))
        elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) and arg[0] >= 1:
            found.extend(_literals(arg[2].data))
    found.append("".join(run))
    return [part for f in found for part in _DIGIT_RUNS.split(f) if part]


_DIGIT_RUNS = re.compile(r"\d+")  # the parts of a literal between its digits are required too
def _fits(name: str, value: object) -> bool:
    """A fixed value the column can hold (the sink would reject the row otherwise)."""
    dtype = _DTYPES[name]
    if dtype == "object" or not isinstance(value, int) or np.dtype(dtype).kind not in "iu":
        return True
    info = np.iinfo(np.dtype(dtype))
    return int(info.min) <= value <= int(info.max)


def _run_fits(name: str, span: tuple[int, int]) -> bool:
    """Every number of the run's width fits the column (a run has no sign)."""
    dtype = _DTYPES[name]
    if dtype == "object" or np.dtype(dtype).kind not in "iu":
        return True
    return span[1] - span[0] < len(str(int(np.iinfo(np.dtype(dtype)).max)))
