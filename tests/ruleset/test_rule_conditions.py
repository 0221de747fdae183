import numpy as np
import pandas as pd
import pytest
import yaml

from kafkadiag.facts.registry import FACT_TABLES
from kafkadiag.ruleset.conditions import ConditionError, condition_mask
from kafkadiag.ruleset.config import ConfigView
from kafkadiag.ruleset.parse import parse_condition

COLUMNS = set(FACT_TABLES["spans"].columns)


def cond(text):
    return parse_condition(yaml.safe_load(text), "when", "spans", COLUMNS)


def mask(text, df, config=None, defaults=None):
    return condition_mask(cond(text), df, ConfigView(config, defaults)).tolist()


@pytest.fixture
def spans(frame):
    return frame(
        "spans",
        5,
        state=["open", "committed", "aborted", "open", ""],
        age_ms=[100, 200, 300, -1, 500],
        batches=[1, 2, 3, 4, 5],
        epoch_bump=[0, 1, 10, 0, 1],
        protocol=["v1", "v2", "unknown", "v2", "v1"],
        transactional_id=["app-1", "app-2", "", "other", "app-10"],
        zombie=[False, True, False, True, False],
        producer_id=[1, 2, 3, 4, 5],
    )


@pytest.mark.parametrize(
    "text, expected",
    [
        ("{field: state, eq: open}", [True, False, False, True, False]),
        ("{field: state, ne: open}", [False, True, True, False, True]),
        ("{field: age_ms, gt: 200}", [False, False, True, False, True]),
        ("{field: age_ms, ge: 200}", [False, True, True, False, True]),
        ("{field: age_ms, lt: 200}", [True, False, False, True, False]),
        ("{field: age_ms, le: 200}", [True, True, False, True, False]),
        ("{field: protocol, in: [v1, unknown]}", [True, False, True, False, True]),
        ("{field: protocol, not_in: [v1, unknown]}", [False, True, False, True, False]),
        ("{field: transactional_id, matches: '^app-\\d$'}", [True, True, False, False, False]),
        ("{field: transactional_id, matches: 'app'}", [True, True, False, False, True]),
        ("{field: transactional_id, exists: true}", [True, True, False, True, True]),
        ("{field: age_ms, exists: true}", [True, True, True, False, True]),
        ("{field: age_ms, exists: false}", [False, False, False, True, False]),
        ("{field: zombie, eq: true}", [False, True, False, True, False]),
        ("{field: producer_id, in: [2, 4]}", [False, True, False, True, False]),
        ("{field: producer_id, matches: '^[13]$'}", [True, False, True, False, False]),
    ],
)
def test_operators(spans, text, expected):
    assert mask(text, spans) == expected


def test_field_operand_with_times_and_plus(spans):
    # epoch_bump > batches * 2 + 1  ->  [0>3, 1>5, 10>7, 0>9, 1>11]
    assert mask("{field: epoch_bump, gt: {field: batches, times: 2, plus: 1}}", spans) == [False, False, True, False, False]


def test_config_operand_with_defaults_and_arithmetic(spans):
    text = "{field: age_ms, gt: {config: transaction.timeout.ms, times: 0.5, plus: -10}}"
    # config wins over defaults; text values from .properties files are numbers
    # 400 * 0.5 - 10 = 190
    assert mask(text, spans, {"transaction.timeout.ms": "400"}, {"transaction.timeout.ms": 0}) == [False, True, True, False, True]
    # missing from config -> defaults: 420 * 0.5 - 10 = 200
    assert mask(text, spans, {}, {"transaction.timeout.ms": 420}) == [False, False, True, False, True]


def test_missing_config_is_an_error_naming_the_field_path(spans):
    with pytest.raises(ConditionError, match=r"when: config key 'transaction.timeout.ms' has no value and no default"):
        mask("{field: age_ms, gt: {config: transaction.timeout.ms}}", spans)


def test_nesting_all_any_not(spans):
    text = """
    all:
      - {field: state, in: [open, aborted, committed]}
      - any:
          - {field: protocol, eq: unknown}
          - not: {field: age_ms, ge: 150}
          - all:
              - {field: zombie, eq: true}
              - {field: age_ms, gt: 150}
    """
    # row0: open, age 100 -> not(ge150) True; row1: committed, zombie & 200>150 True; row2: unknown True;
    # row3: open, age -1 -> not(ge150) True; row4: state '' excluded
    assert mask(text, spans) == [True, True, True, True, False]
    assert mask("not: {not: {field: state, eq: open}}", spans) == [True, False, False, True, False]


def test_nulls_never_match_orderings(frame):
    df = pd.DataFrame({"age_ms": [1.0, np.nan, 3.0], "state": pd.Series(["open", None, "x"], dtype="str")})
    assert mask("{field: age_ms, gt: 0}", df) == [True, False, True]
    assert mask("{field: age_ms, exists: true}", df) == [True, False, True]
    assert mask("{field: state, ne: open}", df) == [False, True, True]
    assert mask("{field: state, exists: false}", df) == [False, True, False]
    assert mask("{field: state, matches: 'o'}", df) == [True, False, False]


def test_type_mismatch_is_a_condition_error(spans):
    with pytest.raises(ConditionError, match=r"when: cannot compare column 'state'"):
        mask("{field: state, gt: 3}", spans)


def test_missing_column_in_data_is_an_error(spans):
    with pytest.raises(ConditionError, match="column 'age_ms' is missing"):
        mask("{field: age_ms, gt: 3}", spans.drop(columns=["age_ms"]))


def test_empty_frame(frame):
    assert mask("{field: state, eq: open}", frame("spans", 0)) == []
