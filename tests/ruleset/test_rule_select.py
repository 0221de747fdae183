from pathlib import Path

import pytest

from kafkadiag.ruleset import RuleError, load_rules, select_rules
from kafkadiag.ruleset.select import split_selectors

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def rules():
    return load_rules([DATA / "rules"], builtin=False)  # FEN001 HNG001 HNG002 SEQ001


def ids(rules):
    return [r.id for r in rules]


@pytest.mark.parametrize(
    "select, ignore, expected",
    [
        (None, None, ["FEN001", "HNG001", "HNG002", "SEQ001"]),
        (["HNG"], None, ["HNG001", "HNG002"]),
        (["hng001"], None, ["HNG001"]),
        (["H"], None, ["HNG001", "HNG002"]),
        (["HNG00"], ["HNG002"], ["HNG001"]),
        (None, ["HNG"], ["FEN001", "SEQ001"]),
        (["HNG001"], ["HNG"], ["HNG001"]),  # the more specific selector wins
        (["HNG"], ["HNG"], []),  # a tie goes to --ignore
        (["hanging-transaction"], None, ["HNG001", "HNG002"]),  # category
        (["hanging-partition"], None, ["HNG002"]),  # rule name
        (["out-of-order-sequence"], ["SEQ001"], []),
        (["config-misuse"], None, ["FEN001"]),  # the rule's own category, not its file's
        (["ALL"], ["hanging-transaction"], ["FEN001", "SEQ001"]),
        (["HNG,SEQ"], None, ["HNG001", "HNG002", "SEQ001"]),
        (["fencing"], None, []),  # a known category without rules selects nothing
    ],
)
def test_select_and_ignore(rules, select, ignore, expected):
    assert ids(select_rules(rules, select, ignore)) == expected


def test_unknown_selectors_are_errors(rules):
    with pytest.raises(RuleError) as info:
        select_rules(rules, ["HNX"], ["bogus-category"])
    assert info.value.errors[0].startswith("unknown rule selector 'HNX'")
    assert info.value.errors[1].startswith("unknown rule selector 'bogus-category'")


def test_split_selectors():
    assert split_selectors(["HNG, SEQ001", "", "FEN"]) == ["HNG", "SEQ001", "FEN"]
    assert split_selectors(None) == []
