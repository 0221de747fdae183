import math

import numpy as np
import pytest

from kafkadiag.ruleset.config import ConfigView
from kafkadiag.ruleset.templates import (
    LIST_LIMIT,
    RenderContext,
    TemplateError,
    format_duration,
    format_int,
    format_time,
    format_value,
    parse_template,
)

COLUMNS = {"topic", "partition", "first_time", "age_ms", "producer_id", "partitions", "zombie", "ratio"}


def render(text, row=None, config=None, defaults=None, count=1, group=None):
    ctx = RenderContext(row or {}, ConfigView(config, defaults), count, group)
    return parse_template(text, COLUMNS).render(ctx)


def test_plain_placeholders_and_literals():
    assert render("{topic}-{partition}", {"topic": "orders", "partition": np.int64(3)}) == "orders-3"


def test_escaped_braces_are_literal():
    assert render("{{topic}} is {topic}; }} and {{", {"topic": "t"}) == "{topic} is t; } and {"


def test_config_placeholder_with_and_without_filter_uses_defaults():
    assert render("{config.transaction.timeout.ms}", config={"transaction.timeout.ms": "60000"}) == "60000"
    assert render("{config.transaction.max.timeout.ms|duration}", defaults={"transaction.max.timeout.ms": 900000}) == "15m"
    assert render("{config.not.set}") == "unknown"


def test_count_placeholder():
    assert render("{_count} rows", count=42) == "42 rows"


@pytest.mark.parametrize(
    "ms, text",
    [
        (-1, "unknown"),
        (0, "0 ms"),
        (850, "850 ms"),
        (1500, "1.5s"),
        (12000, "12s"),
        (60000, "1m"),
        (90000, "1m 30s"),
        (3723000, "1h 2m 3s"),
        (3603000, "1h 0m 3s"),
        (86400000 * 2 + 3600000, "2d 1h"),
        (float("nan"), "unknown"),
        (None, "unknown"),
        (-5000, "-5s"),
    ],
)
def test_duration_filter(ms, text):
    assert format_duration(ms) == text


def test_time_filter():
    assert format_time(0) == "1970-01-01T00:00:00.000Z"
    assert format_time(np.int64(1700000000123)) == "2023-11-14T22:13:20.123Z"
    assert format_time(-1) == "unknown"
    assert render("{first_time|time}", {"first_time": -1}) == "unknown"


def test_int_and_ms_filters_are_plain_integers():
    assert format_int(1234567.0) == "1234567"
    assert format_int(np.int64(-1)) == "-1"
    assert format_int(True) == "1"
    assert render("{age_ms|ms}", {"age_ms": 900000.4}) == "900000"
    assert render("{age_ms|int}", {"age_ms": 12}) == "12"


def test_list_filter_keeps_comma_text_and_lists_group_values():
    assert render("{partitions|list}", {"partitions": "a-0,a-1"}) == "a-0,a-1"
    group = {"producer_id": [7, 5, 7, 9]}
    assert render("{producer_id|list}", {"producer_id": 7}, group=group) == "7,5,9"
    many = {"producer_id": list(range(LIST_LIMIT + 5))}
    assert render("{producer_id|list}", {"producer_id": 0}, group=many).endswith("(+5 more)")


def test_default_rendering():
    assert format_value(True) == "true"
    assert format_value(np.bool_(False)) == "false"
    assert format_value(3.0) == "3"
    assert format_value(0.25) == "0.25"
    assert format_value(math.nan) == "unknown"
    assert format_value("") == ""
    assert format_value(-1) == "-1"


def test_no_attribute_access_or_format_spec():
    for text in ("{topic.__class__}", "{topic[0]}", "{topic:>10}", "{topic!r}", "{ topic }"):
        with pytest.raises(TemplateError, match="invalid placeholder"):
            parse_template(text, COLUMNS)


@pytest.mark.parametrize(
    "text, message",
    [
        ("{nope}", "unknown placeholder '{nope}'"),
        ("{topic|upper}", "unknown filter 'upper'"),
        ("{topic", "unclosed '{' at position 0"),
        ("a } b", "single '}' at position 2"),
        ("{a{topic}}", "unclosed '{'"),
        ("{}", "invalid placeholder '{}'"),
    ],
)
def test_template_errors(text, message):
    with pytest.raises(TemplateError, match=message.replace("{", r"\{").replace("}", r"\}").replace("|", r"\|")):
        parse_template(text, COLUMNS)


def test_fields_lists_columns_read():
    t = parse_template("{topic} {config.x} {_count} {age_ms|duration}", COLUMNS)
    assert t.fields() == {"topic", "age_ms"}


def test_display_for_docs():
    t = parse_template("${{random.uuid}} {topic} {config.a.b|duration} {_count}", COLUMNS)
    assert t.display() == "${random.uuid} {topic} {config.a.b|duration} {_count}"


@pytest.mark.parametrize("value, text", [("orders-tx-7", "orders-tx-7"), ("", "<TRANSACTIONAL_ID>"), (None, "<TRANSACTIONAL_ID>")])
def test_arg_filter_never_leaves_an_empty_command_argument(value, text):
    t = parse_template("describe --transactional-id {transactional_id|arg}", COLUMNS | {"transactional_id"})
    row = {} if value is None else {"transactional_id": value}
    assert t.render(RenderContext(row, ConfigView({}, None))) == f"describe --transactional-id {text}"
