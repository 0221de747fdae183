import copy
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from kafkadiag.facts.registry import FACT_TABLES
from kafkadiag.ruleset import RuleError, load_rules, parse_rule_text
from kafkadiag.ruleset import loader
from kafkadiag.ruleset.model import AllOf, AnyOf, Comparison, NotOf

DATA = Path(__file__).parent / "data"


BASE = {
    "category": "hanging-transaction",
    "rules": [
        {
            "id": "HNG001",
            "name": "hanging-transaction",
            "table": "spans",
            "severity": "error",
            "title": "t",
            "when": {"all": [{"field": "state", "eq": "open"}, {"field": "age_ms", "gt": 5}]},
            "message": "{topic}",
        }
    ],
}


def errors_of(mutate, source="rules/hanging.yaml"):
    doc = copy.deepcopy(BASE)
    mutate(doc)
    with pytest.raises(RuleError) as info:
        parse_rule_text(yaml.safe_dump(doc), source)
    return info.value.errors


def rule(doc):
    return doc["rules"][0]


def test_base_document_is_valid():
    (r,) = parse_rule_text(yaml.safe_dump(BASE), "x.yaml")
    assert r.id == "HNG001" and r.category == "hanging-transaction" and r.source == "x.yaml"


def test_load_directory_of_rule_files():
    rules = load_rules([DATA / "rules"], builtin=False)
    assert [r.id for r in rules] == ["FEN001", "HNG001", "HNG002", "SEQ001"]
    by_id = {r.id: r for r in rules}
    assert by_id["FEN001"].category == "config-misuse"  # rule-level override of the file's category
    assert by_id["HNG002"].group_by == ("topic", "partition")
    hng = by_id["HNG001"]
    assert isinstance(hng.when, AllOf) and isinstance(hng.when.children[2], AnyOf)
    assert isinstance(hng.when.children[2].children[1], NotOf)
    assert [rec.config for rec in hng.recommendations] == ["transaction.timeout.ms", "transaction.max.timeout.ms"]
    assert hng.recommendations[1].value.source == "900000"  # YAML number accepted as a value
    assert hng.docs.false_positives.startswith("A dump cut short")
    assert by_id["SEQ001"].source.endswith("sequences.yaml")


def test_single_file_argument():
    assert [r.id for r in load_rules([DATA / "rules" / "fencing.yml"], builtin=False)] == ["FEN001"]


def test_error_names_file_and_field_path_and_reports_every_broken_rule():
    with pytest.raises(RuleError) as info:
        load_rules([DATA / "invalid" / "bad_operator.yaml"], builtin=False)
    path = str(DATA / "invalid" / "bad_operator.yaml")
    assert info.value.errors == [
        f"{path}: rules[0].when.all[1]: unknown operator 'gtt' (expected one of eq, ne, gt, ge, lt, le, in, not_in, "
        "matches, exists); did you mean 'gt'?",
        f"{path}: rules[1].table: unknown table 'spanz' (expected one of {', '.join(sorted(FACT_TABLES))}); "
        "did you mean 'spans'?",
    ]


def test_python_tags_are_rejected():
    with pytest.raises(RuleError, match=r"python_tag.yaml: line 7, column 12: invalid YAML: could not determine a "
                                        r"constructor for the tag 'tag:yaml.org,2002:python/object/apply:os.system'"):
        load_rules([DATA / "invalid" / "python_tag.yaml"], builtin=False)


@pytest.mark.parametrize("tag", ["!!python/object:collections.OrderedDict {}", "!!python/name:os.system ''",
                                 "!!python/object/new:os.system [echo]"])
def test_every_python_tag_is_rejected(tag):
    text = yaml.safe_dump(BASE).replace("title: t", f"title: {tag}")
    with pytest.raises(RuleError, match=r"invalid YAML: could not determine a constructor for the tag 'tag:yaml.org,2002:python/"):
        parse_rule_text(text, "x.yaml")


def test_duplicate_yaml_keys_are_rejected():
    with pytest.raises(RuleError, match=r"duplicate_key.yaml: line 9, column 5: invalid YAML: found duplicate key 'when'"):
        load_rules([DATA / "invalid" / "duplicate_key.yaml"], builtin=False)


def test_duplicate_ids_across_files():
    with pytest.raises(RuleError) as info:
        load_rules([DATA / "dup"], builtin=False)
    (msg,) = info.value.errors
    assert msg == f"{DATA / 'dup' / 'b.yaml'}: rules[0].id: duplicate rule id 'HNG001' (already defined in {DATA / 'dup' / 'a.yaml'})"


def test_duplicate_names_in_one_file():
    def mutate(doc):
        doc["rules"].append(dict(rule(doc), id="HNG002"))

    assert errors_of(mutate) == [
        "rules/hanging.yaml: rules[1].name: duplicate rule name 'hanging-transaction' (already used by HNG001 in rules/hanging.yaml)"
    ]


def test_missing_rules_dir():
    with pytest.raises(RuleError, match="no/such/dir: no such rule file or directory"):
        load_rules(["no/such/dir"], builtin=False)


def _set(path, value):
    def mutate(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def _drop(key):
    def mutate(doc):
        del rule(doc)[key]
    return mutate


R = ("rules", 0)
W = ("rules", 0, "when", "all", 1)


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda d: d.clear(), "(top level): missing required key 'category'"),
        (lambda d: d.pop("rules"), "(top level): missing required key 'rules'"),
        (_set(("extra",), 1), "(top level): unknown key 'extra' (expected one of category, description, rules)"),
        (_set(("category",), "hangin"), "category: unknown category 'hangin' (expected one of fencing, "),
        (_set(("rules",), {}), "rules: expected a list, got a mapping"),
        (_set(R, "text"), "rules[0]: expected a mapping, got text"),
        (_drop("message"), "rules[0]: missing required key 'message'"),
        (_set(R + ("severty",), "error"), "rules[0]: unknown key 'severty' (expected one of id, "),
        (_set(R + ("id",), "hng1"), "rules[0].id: 'hng1' is not a rule id (expected 3 capital letters and 3 digits, e.g. HNG001)"),
        (_set(R + ("name",), "Hanging_Txn"), "rules[0].name: 'Hanging_Txn' is not a kebab-case name"),
        (_set(R + ("category",), "nope"), "rules[0].category: unknown category 'nope'"),
        (_set(R + ("table",), "spam"), "rules[0].table: unknown table 'spam' (expected one of "),
        (_set(R + ("severity",), "fatal"), "rules[0].severity: unknown severity 'fatal' (expected one of error, warning, info)"),
        (_set(R + ("title",), ""), "rules[0].title: expected non-empty text, got text"),
        (_set(R + ("message",), "{topik}"), "rules[0].message: unknown placeholder '{topik}': 'topik' is not a column of the rule's table"),
        (_set(R + ("message",), "{topic|upper}"), "rules[0].message: unknown filter 'upper' in '{topic|upper}'"),
        (_set(R + ("runbook",), ["ok {topic}", "bad {"]), "rules[0].runbook[1]: unclosed '{' at position 4"),
        (_set(R + ("runbook",), "abort"), "rules[0].runbook: expected a list, got text"),
        (_set(R + ("references",), [3]), "rules[0].references[0]: expected non-empty text, got int"),
        (_set(R + ("docs",), {"what": "x", "how": "y"}), "rules[0].docs: unknown key 'how' (expected one of what, why, example, fix, false_positives)"),
        (_set(R + ("group_by",), ["topic", "topic"]), "rules[0].group_by[1]: column 'topic' is listed twice"),
        (_set(R + ("group_by",), ["topics"]), "rules[0].group_by[0]: unknown column 'topics' in table 'spans'; did you mean 'topic'?"),
        (_set(R + ("when",), []), "rules[0].when: expected a condition mapping, got a list"),
        (_set(R + ("when",), {"all": []}), "rules[0].when.all: expected at least one condition"),
        (_set(R + ("when",), {"all": [], "any": []}), "rules[0].when: 'all' must be the only key of its condition, found all, any"),
        (_set(R + ("when",), {"nay": []}), "rules[0].when: expected 'all', 'any', 'not' or 'field', found nay"),
        (_set(R + ("when",), {"not": {"field": "stat", "eq": 1}}), "rules[0].when.not.field: unknown column 'stat' in table 'spans'; did you mean 'state'?"),
        (_set(W, {"field": "age_ms", "gtt": 5}), "rules[0].when.all[1]: unknown operator 'gtt' (expected one of eq, ne, gt, ge, lt, le, in, not_in, matches, exists); did you mean 'gt'?"),
        (_set(W, {"field": "age_ms"}), "rules[0].when.all[1]: missing operator (expected one of eq, "),
        (_set(W, {"field": "age_ms", "gt": 1, "lt": 5}), "rules[0].when.all[1]: one operator per comparison, found gt, lt (combine them with 'all')"),
        (_set(W, {"field": "age_ms", "gt": "5"}), "rules[0].when.all[1].gt: expected a number, {field: ...} or {config: ...}, got text"),
        (_set(W, {"field": "age_ms", "eq": None}), "rules[0].when.all[1].eq: expected text, a number, a boolean, {field: ...} or {config: ...}, got nothing (null)"),
        (_set(W, {"field": "age_ms", "gt": {"config": "a", "field": "b"}}), "rules[0].when.all[1].gt: an operand mapping needs exactly one of 'field' or 'config'"),
        (_set(W, {"field": "age_ms", "gt": {"config": "a", "times": "2"}}), "rules[0].when.all[1].gt.times: expected a number, got text"),
        (_set(W, {"field": "age_ms", "gt": {"config": "a b"}}), "rules[0].when.all[1].gt.config: 'a b' is not a config key"),
        (_set(W, {"field": "age_ms", "gt": {"field": "agee_ms"}}), "rules[0].when.all[1].gt.field: unknown column 'agee_ms' in table 'spans'; did you mean 'age_ms'?"),
        (_set(W, {"field": "age_ms", "gt": {"confg": "x"}}), "rules[0].when.all[1].gt: unknown key 'confg' (expected one of field, config, times, plus); did you mean 'config'?"),
        (_set(W, {"field": "state", "in": []}), "rules[0].when.all[1].in: expected at least one value"),
        (_set(W, {"field": "state", "not_in": ["a", ["b"]]}), "rules[0].when.all[1].not_in[1]: expected text, a number or a boolean, got a list"),
        (_set(W, {"field": "state", "matches": "(open"}), "rules[0].when.all[1].matches: invalid regular expression '(open': missing ), unterminated subpattern"),
        (_set(W, {"field": "state", "exists": "yes please"}), "rules[0].when.all[1].exists: expected true or false, got text"),
        (_set(R + ("recommendations",), [{"side": "client", "config": "x", "value": 1, "reason": "r"}]), "rules[0].recommendations[0].side: unknown side 'client' (expected one of producer, broker, consumer, streams)"),
        (_set(R + ("recommendations",), [{"side": "broker", "config": "x", "value": 1}]), "rules[0].recommendations[0]: missing required key 'reason'"),
        (_set(R + ("recommendations",), [{"side": "broker", "config": "x", "value": "{y}", "reason": "r"}]), "rules[0].recommendations[0].value: unknown placeholder '{y}'"),
        (_set(R + ("recommendations",), [{"side": "broker", "config": "x", "value": 1, "reason": "r", "when": {"field": "age_ms", "gtt": 1}}]), "rules[0].recommendations[0].when: unknown operator 'gtt'"),
    ],
)
def test_validation_errors(mutate, expected):
    (message,) = errors_of(mutate)
    assert message.startswith("rules/hanging.yaml: " + expected), message


def test_yaml_syntax_error_names_line():
    with pytest.raises(RuleError, match=r"^bad.yaml: line \d+, column \d+: invalid YAML: "):
        parse_rule_text("category: fencing\nrules: [\n", "bad.yaml")


def test_empty_file():
    with pytest.raises(RuleError, match=r"^empty.yaml: \(top level\): expected a mapping, got nothing \(null\)$"):
        parse_rule_text("", "empty.yaml")


@dataclass(frozen=True)
class LogTable:
    name: str = "client_events"
    columns: dict = field(default_factory=lambda: {"time": "t", "level": "l", "message": "m", "file_id": "f", "line": "l", "byte": "b"})
    window: tuple = ("time", "time")
    evidence: tuple = (("file_id", "line", "byte"),)


def test_table_registry_is_pluggable():
    text = """
category: fencing
rules:
  - id: FEN101
    name: fenced-in-client-log
    table: client_events
    severity: error
    title: Producer fenced
    when: {field: message, matches: ProducerFencedException}
    message: "{level}: {message}"
"""
    (r,) = parse_rule_text(text, "user.yaml", tables={"client_events": LogTable()})
    assert r.table == "client_events" and isinstance(r.when, Comparison)
    with pytest.raises(RuleError, match=re.escape("user.yaml: rules[0].table: unknown table 'client_events' (expected one of ")):
        parse_rule_text(text, "user.yaml")


def test_builtin_rules_from_checkout_folder(tmp_path, monkeypatch):
    (tmp_path / "hanging.yaml").write_text(yaml.safe_dump(BASE))
    (tmp_path / "notes.txt").write_text("not a rule file")
    from kafkadiag import builtin

    monkeypatch.setattr(builtin, "BUILTIN_PACKAGE", "kafkadiag_no_such_package.rules")
    monkeypatch.setattr(builtin, "CHECKOUT_RULES", tmp_path)
    assert loader.builtin_rule_sources()[0][0] == "rules/hanging.yaml"
    rules = load_rules()
    assert [r.source for r in rules] == ["rules/hanging.yaml"]
    # a user rule reusing a built-in id is a duplicate
    user = tmp_path / "user"
    user.mkdir()
    (user / "mine.yaml").write_text(yaml.safe_dump(BASE))
    with pytest.raises(RuleError, match="duplicate rule id 'HNG001' \\(already defined in rules/hanging.yaml\\)"):
        load_rules([user])


def test_builtin_rules_load_without_error():
    """Whatever the real rules/ folder holds must validate against the registry."""
    for r in load_rules():
        assert r.source.startswith("rules/")
