"""The rule engine: YAML rules (data, never code) evaluated over fact tables into Findings."""

from .errors import RuleError
from .evaluate import EvidenceResolver, evaluate, rule_findings
from .explain import explain, find_rule, rules_listing
from .loader import builtin_rule_sources, load_rules, parse_rule_text
from .model import Rule
from .select import select_rules

__all__ = [
    "EvidenceResolver",
    "Rule",
    "RuleError",
    "builtin_rule_sources",
    "evaluate",
    "explain",
    "find_rule",
    "load_rules",
    "parse_rule_text",
    "rule_findings",
    "rules_listing",
    "select_rules",
]
