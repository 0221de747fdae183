"""The one exception the rule engine raises, so the CLI can map it to exit code 2."""

from __future__ import annotations


class RuleError(Exception):
    """A rule file, selector or rule evaluation is invalid.

    ``errors`` holds one line per problem (``file: field.path: what is wrong``) so a single run
    reports every broken rule at once instead of one per attempt.
    """

    def __init__(self, errors: str | list[str]) -> None:
        self.errors = [errors] if isinstance(errors, str) else list(errors)
        super().__init__("\n".join(self.errors))
