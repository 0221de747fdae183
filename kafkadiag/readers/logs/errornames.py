"""Error names in text: every client's spelling of an error, mapped onto one name.

Every client prints the same broker error differently (Java's enum name or exception class,
librdkafka's ``Broker: ...`` text, sarama's ``kafka server: ...``, aiokafka's class, KafkaJS's
``type``). Rules should see one spelling, so this module maps all of them onto the Kafka protocol
name (``PRODUCER_FENCED``) and librdkafka's local codes onto their name without the leading
underscore (``_FENCED`` -> ``FENCED``). The spellings are data (rules/vocabulary/errors.yaml, read
by vocabulary.py); the matchers below are compiled from them once, at import.
"""

from __future__ import annotations

import re
from typing import Iterable

from kafkadiag.readers.logs.vocabulary import TOKEN, VOCABULARY

#: Kafka protocol error names (org.apache.kafka.common.protocol.Errors), NONE left out.
KAFKA_ERRORS = VOCABULARY.kafka_errors
#: Older or client-specific UPPER_SNAKE spellings of protocol errors -> the current protocol name.
ALIASES = VOCABULARY.aliases
#: librdkafka local (negative) error codes, by name without the leading underscore.
LOCAL_ERRORS = VOCABULARY.local_errors
#: Class, type and enum member names listed in the vocabulary -> error name.
EXCEPTION_ERRORS = VOCABULARY.identifiers
#: Exception simple names that are never an error name even though they end like one.
_NOT_ERRORS = VOCABULARY.not_errors

_TIERS = {name: entry.tier for name, entry in VOCABULARY.entries.items()}
_CATEGORIES = {name: entry.category for name, entry in VOCABULARY.entries.items()}

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SUFFIX = re.compile(r"(?:Exception|Error)$")


def error_of_exception(simple_name: str) -> str:
    """Protocol error name of an exception class, '' when it is not one-to-one with one."""
    if simple_name in EXCEPTION_ERRORS:
        return EXCEPTION_ERRORS[simple_name]
    if simple_name in _NOT_ERRORS:
        return ""
    base = _SUFFIX.sub("", simple_name)
    if not base or not base[0].isupper():
        return ""
    snake = _CAMEL.sub("_", base).upper()
    if snake in KAFKA_ERRORS:
        return snake
    if snake.endswith("_AUTHORIZATION") and snake + "_FAILED" in KAFKA_ERRORS:
        return snake + "_FAILED"
    return ALIASES.get(snake, "")


def error_of_token(token: str) -> str:
    """Normalised name of an UPPER_SNAKE token (``_FENCED`` -> ``FENCED``), '' if not an error name."""
    if token.startswith("_"):
        name = token.lstrip("_")
        return name if name in LOCAL_ERRORS else ""
    if token in KAFKA_ERRORS:
        return token
    return ALIASES.get(token, "")


def error_of_dotnet_code(code: str) -> str:
    """Confluent.Kafka ``ErrorCode`` member (``Local_Fenced``, ``InvalidProducerEpoch``) -> error name."""
    if code in EXCEPTION_ERRORS:
        return EXCEPTION_ERRORS[code]
    if code.startswith("Local_"):
        name = _CAMEL.sub("_", code[6:]).upper()
        return name if name in LOCAL_ERRORS else ""
    return error_of_exception(code)


def category_of(name: str) -> str:
    """The finding category an error points to; ``other`` for the rest of Kafka's errors, '' for non-errors."""
    name = name.lstrip("_")
    if name in _CATEGORIES:
        return _CATEGORIES[name]
    return "other" if name in KAFKA_ERRORS or name in LOCAL_ERRORS else ""


# ---------------------------------------------------------------------------------------------
# Error texts: every phrase and identifier of the vocabulary, in one case-insensitive pass
# ---------------------------------------------------------------------------------------------


def _trie(keys: Iterable[str]) -> str:
    """One regex for many literals, shared prefixes factored out (a flat alternation is 10x slower).

    At every branch the longer continuation is tried first, so the longest spelling wins; a
    spelling that ends in a word character must end at a word boundary.
    """
    root: dict[str, dict] = {}
    for key in keys:
        node = root
        for ch in key:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, dict], last: str) -> str:
        alternatives = []
        for ch, child in sorted(node.items()):
            if not ch:
                continue
            run = ch
            while len(child) == 1 and "" not in child:
                (nxt, child), = child.items()
                run += nxt
            alternatives.append(re.escape(run) + emit(child, run[-1]))
        end = r"(?![a-z0-9_])" if last.isalnum() or last == "_" else ""
        if "" in node:
            alternatives.append(end)
        return alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"

    # Not after "/": a name in a path or link (".../errors/OutOfOrderSequenceException.html") is a
    # page about the error, not the error.
    return r"(?<![a-z0-9_/])" + emit(root, "") if root else r"(?!)"


_TEXTS = VOCABULARY.texts
_TEXT = re.compile(_trie(_TEXTS))


def errors_in_text(lowered: str) -> list[tuple[int, str]]:
    """``(position, name)`` of every error named by an error text in ``lowered`` (already lower case)."""
    return [(m.start(), _TEXTS[m.group()]) for m in _TEXT.finditer(lowered)]


# ---------------------------------------------------------------------------------------------
# Which error is the event's main one
# ---------------------------------------------------------------------------------------------


def tier(name: str) -> int:
    """0 for transaction errors, 1 for coordinator/timeout/authorization errors, 2 for the rest."""
    return _TIERS.get(name, 2)


def main_error(names: list[str]) -> str:
    """The most telling of the event's errors (first of the best tier); '' when there are none."""
    best = ""
    best_tier = 3
    for name in names:
        t = tier(name)
        if t < best_tier:
            best, best_tier = name, t
    return best


# ---------------------------------------------------------------------------------------------
# Finding them in a text
# ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(TOKEN)
_DOTNET_CODE = re.compile(r"\b(?P<local>Local_[A-Z]\w*)|(?:ErrorCode|Code)\s*[.:=]\s*(?P<code>[A-Z]\w+)")
#: A protocol error by its number, as response dumps print it (the Java client's DEBUG
#: ``EndTxnResponseData(throttleTimeMs=0, errorCode=51)``, ``"error_code": 51``): 0 is no error.
_NUMBERED = re.compile(r"(?i)\berror_?code[\"']?\s*[=:]\s*(?P<num>[1-9]\d{0,2})(?!\d)")
_BY_CODE = {entry.code: name for name, entry in VOCABULARY.entries.items() if not entry.local and entry.code > 0}
#: Numbers are read as Kafka's only in a text about Kafka (a database's "error code: 7" is not REQUEST_TIMED_OUT).
_KAFKA_CONTEXT = re.compile(r"(?i)kafka|response|producer|txn|transaction|broker|coordinator")


def find_errors(text: str, exceptions: list[str]) -> list[str]:
    """Every error name the text states, in order of appearance, normalised and without repeats."""
    found: list[tuple[int, str]] = []
    if "_" in text:
        for m in _TOKEN.finditer(text):
            name = error_of_token(m["n"])
            if name:
                found.append((m.start(), name))
    found.extend(errors_in_text(text.lower()))
    for exc in exceptions:
        name = error_of_exception(exc)
        if name:
            pos = text.find(exc)
            found.append((pos if pos >= 0 else len(text), name))
    if "rror" in text and "ode" in text and _KAFKA_CONTEXT.search(text):
        for m in _NUMBERED.finditer(text):
            name = _BY_CODE.get(int(m["num"]), "")
            if name:
                found.append((m.start(), name))
    if "Local_" in text or "Code" in text:
        for m in _DOTNET_CODE.finditer(text):
            name = error_of_dotnet_code(m["local"] or m["code"])
            if name:
                found.append((m.start(), name))
    if not found:
        return []
    found.sort(key=lambda pair: pair[0])
    out: list[str] = []
    for _, name in found:
        if name not in out:
            out.append(name)
    return out
