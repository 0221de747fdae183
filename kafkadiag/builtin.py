"""Where the shipped data lives: ``rules/`` (rules and the error vocabulary), inside the wheel or the checkout.

Installed, the folder is the package ``kafkadiag.builtin_rules``; run from a source checkout
without installing, it is the top-level ``rules/`` folder beside the package.
"""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

BUILTIN_PACKAGE = "kafkadiag.builtin_rules"
CHECKOUT_RULES = Path(__file__).resolve().parents[1] / "rules"


def builtin_root() -> Traversable:
    """The shipped ``rules/`` folder."""
    try:
        return resources.files(BUILTIN_PACKAGE)
    except ModuleNotFoundError:
        return CHECKOUT_RULES
