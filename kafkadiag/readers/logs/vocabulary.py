"""The error vocabulary: rules/vocabulary/errors.yaml, read and checked once.

Every client prints the same Kafka error its own way (Java's exception class, librdkafka's
``Broker: ...`` text, sarama's ``kafka server: ...``, KafkaJS's type, .NET's ``Local_Fenced``).
Those spellings are data, reviewed like the rules, so that teaching kafkadiag a new one is a line
of YAML. This module turns the file (shipped as the package ``kafkadiag.builtin_rules.vocabulary``,
read from the source tree when that package is not installed) into lookup tables; errornames.py
matches text against them and hits.py derives its pre-filter from them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Iterable, Iterator

import yaml

PACKAGE = "kafkadiag.builtin_rules.vocabulary"
FILE = "errors.yaml"
_CHECKOUT = Path(__file__).resolve().parents[3] / "rules" / "vocabulary" / FILE

#: Finding categories an error can point to (the README's list), and ``other``.
CATEGORIES = frozenset("""
    fencing expired-transactional-id transaction-timeout hanging-transaction request-timeout out-of-order-sequence
    unknown-producer-id invalid-state-transition unresolved-sequences concurrent-transactions coordinator-unavailable
    authorization invalid-txn-timeout-config config-misuse other
""".split())
#: Client families a spelling can belong to.
FAMILIES = ("java", "librdkafka", "kafkajs", "sarama", "franz-go", "python", "dotnet", "go", "redpanda")
TIERS = (0, 1, 2)

#: An UPPER_SNAKE error name as printed, with librdkafka's optional enum prefix; ``n`` is the name.
TOKEN = (
    r"(?<![A-Za-z0-9])(?:RD_KAFKA_RESP_ERR_|ERR_)?(?P<n>_?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|_[A-Z][A-Z0-9]+)(?![A-Za-z0-9])"
)
_TOKEN_ONLY = re.compile(TOKEN + r"\Z")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*\Z")
_NAME = re.compile(r"_?[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*\Z")
#: Shorter phrases would match ordinary prose.
MIN_PHRASE = 12
_ENTRY_KEYS = ("name", "code", "retriable", "exception", "message", "category", "tier", "spellings")
_TOP_KEYS = ("version", "errors", "other_protocol_errors", "other_local_errors", "not_errors")


class VocabularyError(ValueError):
    """A bad vocabulary file; the message names the file, the entry and the field."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One error of the vocabulary, named as events report it (local codes without their ``_``)."""

    name: str
    code: int
    retriable: bool
    exception: str | None
    message: str
    category: str
    tier: int
    local: bool
    spellings: tuple[tuple[str, str], ...]  # (family, spelling)


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The lookup tables built from the file."""

    entries: dict[str, Entry]
    kafka_errors: frozenset[str]  # every protocol error name
    local_errors: frozenset[str]  # every librdkafka local code, without its leading underscore
    aliases: dict[str, str]  # other UPPER_SNAKE spellings -> name
    identifiers: dict[str, str]  # class, type and enum member names -> name
    texts: dict[str, str]  # phrase_key() of phrases and identifiers -> name
    not_errors: frozenset[str]

    def spellings(self) -> Iterator[tuple[str, str, str]]:
        """``(name, family, spelling)`` of every listed spelling."""
        for entry in self.entries.values():
            for family, spelling in entry.spellings:
                yield entry.name, family, spelling


_CLASS_STEM = re.compile(r"(?P<stem>[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)Exception\Z")
#: What follows an exception's stem when prose names the error by it ("an OutOfOrderSequence error").
STEM_WORDS = (" error", " errors", " exception")


def exception_stem(spelling: str) -> str:
    """``OutOfOrderSequence`` of ``OutOfOrderSequenceException``: a class name of two words or more
    without its suffix, as people write the error in prose; '' for anything else."""
    m = _CLASS_STEM.match(spelling)
    return m["stem"] if m else ""


def spelling_kind(spelling: str) -> str:
    """``token`` (an UPPER_SNAKE name), ``identifier`` (one word) or ``phrase``."""
    if _TOKEN_ONLY.match(spelling):
        return "token"
    if _IDENTIFIER.match(spelling):
        return "identifier"
    return "phrase"


def phrase_key(spelling: str) -> str:
    """How a phrase or identifier is matched: lower case, without a trailing period."""
    return spelling.strip().rstrip(".").lower()


def token_name(spelling: str) -> str:
    """The error name an UPPER_SNAKE spelling states (``RD_KAFKA_RESP_ERR__FENCED`` -> ``_FENCED``)."""
    m = _TOKEN_ONLY.match(spelling)
    return m["n"] if m else ""


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------

_SafeBase = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_SafeBase):  # type: ignore[misc, valid-type]
    """Safe loader that rejects duplicate keys (a second ``java:`` would silently drop the first)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:  # type: ignore[override]
        seen: set[object] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)  # type: ignore[no-untyped-call]
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark, f"found duplicate key '{key}'", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def read_source() -> tuple[str, str]:
    """``(source name, text)`` of the shipped vocabulary file."""
    try:
        return "rules/vocabulary/" + FILE, resources.files(PACKAGE).joinpath(FILE).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return str(_CHECKOUT), _CHECKOUT.read_text(encoding="utf-8")


def load() -> Vocabulary:
    """The shipped vocabulary, checked."""
    source, text = read_source()
    return parse(text, source)


def parse(text: str, source: str = "errors.yaml") -> Vocabulary:
    """Check one vocabulary document and build its tables; VocabularyError names what is wrong."""
    try:
        doc = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise VocabularyError(f"{source}: {where}invalid YAML: {getattr(exc, 'problem', None) or exc}") from None
    return _Builder(source).build(doc)


class _Builder:
    """Validates the document piece by piece and fills the tables."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.entries: dict[str, Entry] = {}
        self.kafka: set[str] = set()
        self.local: set[str] = set()
        self.aliases: dict[str, str] = {}
        self.identifiers: dict[str, str] = {}
        self.texts: dict[str, str] = {}

    def fail(self, where: str, problem: str) -> VocabularyError:
        return VocabularyError(f"{self.source}: {where}: {problem}")

    def build(self, doc: object) -> Vocabulary:
        if not isinstance(doc, dict):
            raise self.fail("top level", "expected a mapping with version and errors")
        unknown = sorted(set(map(str, doc)) - set(_TOP_KEYS))
        if unknown:
            raise self.fail("top level", f"unknown key(s) {unknown}; expected {list(_TOP_KEYS)}")
        if doc.get("version") != 1:
            raise self.fail("version", f"{doc.get('version')!r} is not a supported version (1)")
        errors = doc.get("errors")
        if not isinstance(errors, list) or not errors:
            raise self.fail("errors", "expected a non-empty list of entries")
        raw = [self.entry(i, item) for i, item in enumerate(errors)]
        self.compact("other_protocol_errors", doc.get("other_protocol_errors") or {}, local=False)
        self.compact("other_local_errors", doc.get("other_local_errors") or {}, local=True)
        for entry, where in raw:
            self.add_name(entry.name, entry.local, where)
            self.entries[entry.name] = entry
        for entry, where in raw:
            self.index(entry, where)
        not_errors = doc.get("not_errors") or []
        if not isinstance(not_errors, list) or not all(isinstance(n, str) and _IDENTIFIER.match(n) for n in not_errors):
            raise self.fail("not_errors", "expected a list of class names")
        clash = sorted(set(not_errors) & set(self.identifiers))
        if clash:
            raise self.fail("not_errors", f"{clash} are also spellings of errors")
        return Vocabulary(self.entries, frozenset(self.kafka), frozenset(self.local), self.aliases,
                          self.identifiers, self.texts, frozenset(not_errors))

    def entry(self, i: int, item: object) -> tuple[Entry, str]:
        where = f"errors[{i}]"
        if not isinstance(item, dict):
            raise self.fail(where, "expected a mapping")
        name = item.get("name")
        if not isinstance(name, str) or not _NAME.match(name):
            raise self.fail(where, f"field 'name': {name!r} is not an UPPER_SNAKE error name")
        where = f"errors[{i}] ({name})"
        unknown = sorted(set(map(str, item)) - set(_ENTRY_KEYS))
        missing = [k for k in _ENTRY_KEYS if k not in item]
        if unknown or missing:
            raise self.fail(where, f"unknown field(s) {unknown}" if unknown else f"missing field(s) {missing}")
        local = name.startswith("_")
        code = item["code"]
        in_range = isinstance(code, int) and not isinstance(code, bool) and (
            -200 < code < -100 if local else code >= -1 and code != 0)
        if not in_range:
            expected = "a local code between -200 and -100" if local else "a protocol error code (-1 or above, not 0)"
            raise self.fail(where, f"field 'code': {code!r} is not {expected}")
        if not isinstance(item["retriable"], bool):
            raise self.fail(where, f"field 'retriable': {item['retriable']!r} is not true or false")
        exception = item["exception"]
        if local and exception is not None:
            raise self.fail(where, "field 'exception': must be null for a local code")
        if not local and not (isinstance(exception, str) and _IDENTIFIER.match(exception)):
            raise self.fail(where, f"field 'exception': {exception!r} is not a Java class name")
        if not isinstance(item["message"], str) or not item["message"].strip():
            raise self.fail(where, "field 'message': expected the default message text")
        if item["category"] not in CATEGORIES:
            raise self.fail(where, f"field 'category': {item['category']!r} is not one of {sorted(CATEGORIES)}")
        if item["tier"] not in TIERS or isinstance(item["tier"], bool):
            raise self.fail(where, f"field 'tier': {item['tier']!r} is not one of {list(TIERS)}")
        return Entry(
            name=name.lstrip("_") if local else name, code=code, retriable=item["retriable"], exception=exception,
            message=item["message"], category=item["category"], tier=item["tier"], local=local,
            spellings=tuple(self.spellings(where, item["spellings"])),
        ), where

    def spellings(self, where: str, value: object) -> Iterator[tuple[str, str]]:
        if not isinstance(value, dict):
            raise self.fail(where, "field 'spellings': expected a mapping of client family to a list of texts")
        for family, items in value.items():
            if family not in FAMILIES:
                problem = f"unknown client family {family!r}; expected one of {list(FAMILIES)}"
                raise self.fail(where, f"field 'spellings': {problem}")
            if not isinstance(items, list) or not items:
                raise self.fail(where, f"field 'spellings.{family}': expected a non-empty list")
            for spelling in items:
                if not isinstance(spelling, str) or not spelling.strip():
                    raise self.fail(where, f"field 'spellings.{family}': {spelling!r} is not a text")
                yield family, spelling

    def compact(self, field: str, value: object, local: bool) -> None:
        if not isinstance(value, dict):
            raise self.fail(field, "expected a mapping of error name to code")
        for name, code in value.items():
            if not isinstance(name, str) or not _NAME.match(name) or name.startswith("_") != local:
                raise self.fail(field, f"{name!r} is not a {'local (_NAME)' if local else 'protocol'} error name")
            if not isinstance(code, int) or isinstance(code, bool):
                raise self.fail(f"{field}.{name}", f"{code!r} is not an error code")
            self.add_name(name.lstrip("_") if local else name, local, field)

    def add_name(self, name: str, local: bool, where: str) -> None:
        if name in self.kafka or name in self.local:
            raise self.fail(where, f"{name} is listed twice")
        (self.local if local else self.kafka).add(name)

    def index(self, entry: Entry, where: str) -> None:
        for family, spelling in entry.spellings:
            field = f"field 'spellings.{family}': {spelling!r}"
            kind = spelling_kind(spelling)
            if kind == "token":
                self.token(entry, token_name(spelling), where, field)
            elif kind == "identifier" and sum(c.isupper() for c in spelling) < 2:
                raise self.fail(where, f"{field} is too plain a word to name an error")
            elif kind == "phrase" and len(phrase_key(spelling)) < MIN_PHRASE:
                raise self.fail(where, f"{field} is shorter than {MIN_PHRASE} characters")
            if kind == "identifier":
                self.claim(self.identifiers, spelling, entry.name, where, field)
            if kind != "token":
                self.claim(self.texts, phrase_key(spelling), entry.name, where, field)
            stem = exception_stem(spelling) if kind == "identifier" else ""
            for word in STEM_WORDS if stem else ():
                self.texts.setdefault(phrase_key(stem + word), entry.name)  # an explicit spelling wins

    def token(self, entry: Entry, token: str, where: str, field: str) -> None:
        own = "_" + entry.name if entry.local else entry.name
        if token == own:
            return
        if token.startswith("_") or entry.local or token in self.kafka:
            raise self.fail(where, f"{field} is the name of another error")
        self.claim(self.aliases, token, entry.name, where, field)

    def claim(self, table: dict[str, str], key: str, name: str, where: str, field: str) -> None:
        """Give ``key`` to ``name``; a spelling may name one error only."""
        owner = table.setdefault(key, name)
        if owner != name:
            raise self.fail(where, f"{field} already spells {owner}")


# ---------------------------------------------------------------------------------------------
# The log pre-filter
# ---------------------------------------------------------------------------------------------


def token_literal(literal: str) -> bool:
    """Whether a pre-filter literal is an UPPER_SNAKE name, to be matched as a whole token (``_SSL`` must
    not match inside ``SASL_SSL``)."""
    return spelling_kind(literal) == "token"


def _covers(literal: str, is_token: bool, text: str) -> bool:
    """Whether a line holding ``text`` passes the pre-filter literal ``literal``."""
    at = text.find(literal)
    while at >= 0 and is_token:
        end = at + len(literal)
        if (at == 0 or not text[at - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            return True
        at = text.find(literal, at + 1)
    return at >= 0


def prefilter_literals(base: Iterable[str]) -> tuple[str, ...]:
    """Literals a line must contain to be parsed: ``base`` (plain substrings) plus, for every error name
    and spelling of the vocabulary that contains none of them nor ``kafka``, that text itself, without a
    trailing period (the fewest that cover them all; see token_literal)."""
    base = tuple(base)
    wanted: set[str] = set()
    names = ["_" + e.name if e.local else e.name for e in VOCABULARY.entries.values()]
    spellings = [s for _, _, s in VOCABULARY.spellings()]
    stems = [stem for s in spellings if (stem := exception_stem(s))]  # covers the class name and the prose forms
    for text in names + spellings + stems:
        literal = text.strip().rstrip(".")
        if not any(k in literal for k in base) and "kafka" not in literal and "Kafka" not in literal:
            wanted.add(literal)
    kept: list[tuple[str, bool]] = []
    for literal in sorted(wanted, key=lambda s: (len(s), s)):
        if not any(_covers(k, is_token, literal) for k, is_token in kept):
            kept.append((literal, token_literal(literal)))
    return base + tuple(k for k, _ in kept)


VOCABULARY = load()
