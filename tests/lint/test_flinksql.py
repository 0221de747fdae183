"""Flink SQL DDL: the WITH options of Kafka tables are linted like any Flink sink config."""

from __future__ import annotations

from kafkadiag.lint.flinksql import looks_like_flink_ddl, parse_flink_ddl

SINK = """-- orders job
CREATE TABLE orders_out (
  id BIGINT,
  total DECIMAL(10, 2)
) WITH (
  'connector' = 'kafka',
  'topic' = 'orders',
  'properties.bootstrap.servers' = 'kafka:9092',
  'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.transactional-id-prefix' = 'orders-'{timeout}
);

CREATE TABLE clicks (id BIGINT) WITH ('connector' = 'kafka', 'topic' = 'clicks', 'format' = 'json');
"""


def test_options_of_each_kafka_table_with_their_places() -> None:
    text = SINK.format(timeout="")
    entries = parse_flink_ddl(text)
    assert looks_like_flink_ddl(text)
    assert [(e.section, e.key) for e in entries][:2] == [("orders_out", "connector"), ("orders_out", "topic")]
    assert {e.section for e in entries} == {"orders_out", "clicks"}
    prefix = next(e for e in entries if e.key == "sink.transactional-id-prefix")
    assert (prefix.line, prefix.value, text[prefix.span[0]:prefix.span[1]]) == (11, "orders-", "'orders-'")


def test_a_value_the_code_fills_in_stays_whole_and_quotes_are_unescaped() -> None:
    code = ('t_env.execute_sql(f"""\n  CREATE TABLE sink (a STRING) WITH (\n'
            "    'connector' = 'upsert-kafka',\n    'properties.bootstrap.servers' = '{props['bootstrap.servers']}',\n"
            "    'topic' = 'it''s'\n  )\n\"\"\")\n")
    values = {e.key: e.value for e in parse_flink_ddl(code)}
    assert values == {"connector": "upsert-kafka", "properties.bootstrap.servers": "{props['bootstrap.servers']}", "topic": "it's"}


def test_other_connectors_are_not_kafka_configs() -> None:
    text = "CREATE TABLE t (a INT) WITH ('connector' = 'jdbc', 'url' = 'jdbc:x');"
    assert not looks_like_flink_ddl(text) and parse_flink_ddl(text) == []


def test_an_exactly_once_sink_with_flinks_default_timeout_fails_the_lint(lint, write) -> None:
    folder = write({"job.sql": SINK.format(timeout="")})
    run = lint(["job.sql", "--format", "json", "--isolated"], cwd=folder)
    flk = [f for f in run.json()["findings"] if f["rule"] == "FLK002"]
    assert len(flk) == 1 and flk[0]["location"]["line"] == 11  # the sink table's transactional id, not the source table
    assert run.code != 0
    # The fix names the option as the table's WITH clause takes it, and the table it goes in.
    (rec,) = flk[0]["recommendations"]
    assert (rec["config"], rec["key_in_file"], rec["value"]) == ("transaction.timeout.ms", "properties.transaction.timeout.ms", "900000")
    assert rec["file"] == "job.sql (Flink SQL table orders_out)"
    text = lint(["job.sql", "--format", "markdown", "--isolated"], cwd=folder).out
    assert "# job.sql (Flink SQL table orders_out)\nproperties.transaction.timeout.ms=900000" in text


def test_a_timeout_the_broker_accepts_passes(lint, write) -> None:
    folder = write({"job.sql": SINK.format(timeout=",\n  'properties.transaction.timeout.ms' = '900000'")})
    run = lint(["job.sql", "--format", "json", "--isolated"], cwd=folder)
    assert "FLK002" not in run.rules()


def test_a_sql_file_in_a_folder_is_found(lint, write) -> None:
    folder = write({"jobs/orders.sql": SINK.format(timeout="")})
    assert "FLK002" in lint([".", "--format", "json", "--isolated"], cwd=folder).rules()


def test_fix_rewrites_a_value_in_place_with_sql_quoting(lint, write) -> None:
    folder = write({"job.sql": SINK.format(timeout=",\n  'properties.transaction.timeout.ms' = '3600000'")})
    lint(["job.sql", "--fix", "--isolated"], cwd=folder)
    text = (folder / "job.sql").read_text()
    assert "  'properties.transaction.timeout.ms' = '900000'\n" in text
    assert "FLK002" not in lint(["job.sql", "--format", "json", "--isolated"], cwd=folder).rules()
