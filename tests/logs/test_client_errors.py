"""The client-conditions half of the vocabulary (rules/vocabulary/client-errors.yaml): valid, matched, never pre-filtered away."""

from __future__ import annotations

import numpy as np
import pytest

from kafkadiag.readers.logs.client_errors import VocabularyError, client_errors, needle, parse, vocabulary
from kafkadiag.readers.logs.hits import hit_mask, line_array
from kafkadiag.readers.logs.vocabulary import VOCABULARY

CATEGORIES = {
    "fencing", "expired-transactional-id", "transaction-timeout", "hanging-transaction", "request-timeout",
    "out-of-order-sequence", "unknown-producer-id", "invalid-state-transition", "unresolved-sequences",
    "concurrent-transactions", "coordinator-unavailable", "authorization", "invalid-txn-timeout-config", "config-misuse",
}
EXAMPLES = [(e.name, e.error, x) for e in vocabulary() for x in e.examples]


def test_entries_are_valid_and_do_not_shadow_protocol_errors() -> None:
    protocol = set(VOCABULARY.entries)
    for entry in vocabulary():
        assert entry.category in CATEGORIES and entry.examples, entry.name
        assert entry.name not in protocol or entry.error == entry.name, entry.name
        assert entry.error == entry.name or entry.error in protocol, entry.error  # an alias names a real error


@pytest.mark.parametrize(("name", "error", "text"), EXAMPLES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(EXAMPLES)])
def test_each_example_names_its_condition_and_passes_the_prefilter(name: str, error: str, text: str) -> None:
    assert error in client_errors(text)
    assert hit_mask(line_array((text + "\n").encode(), np.array([0])))[0], "the log reader would drop this line unread"


def test_a_wrapped_message_still_matches() -> None:
    text = "java.lang.IllegalStateException: Cannot use transactional methods without \nenabling transactions by setting"
    assert client_errors(text) == ["TRANSACTIONS_NOT_ENABLED"]


@pytest.mark.parametrize(
    "text",
    [
        "kafka-transactions.sh find-hanging found no hanging transactions on broker 1",  # the all-clear
        "after the abort there are not any dangling transactions left",
        "the LSO is not stuck: the consumer lag is the transaction markers",
        "the request hangs until the transaction coordinator answers",  # a call that hangs, not a transaction
    ],
)
def test_an_all_clear_or_a_hanging_call_is_no_hanging_transaction(text: str) -> None:
    assert not {"HANGING_TXN_REPORTED", "LSO_STUCK"} & set(client_errors(text))


def test_needles_are_literals_every_match_contains() -> None:
    assert needle(r"Expiring \d+ record\(s\)") == " record(s)"
    assert needle(r"(init|commit)[_ ]?transactions?\b.{0,80}(timed out)") == "transaction"
    assert needle(r"(a|b)") == ""


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"errors": [{"name": "lower", "category": "fencing", "patterns": ["x"]}]}, "errors[0].name"),
        ({"errors": [{"name": "A_B", "category": "fencing", "patterns": ["("]}]}, "errors[0].patterns"),
        ({"errors": [{"name": "A_B", "category": "fencing", "patterns": ["x"], "tier": 7}]}, "errors[0].tier"),
        ({"rules": []}, "expected a mapping with an 'errors' list"),
    ],
)
def test_a_bad_entry_is_refused_with_its_place(doc: dict, message: str) -> None:
    with pytest.raises(VocabularyError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse(doc, "client-errors.yaml")
