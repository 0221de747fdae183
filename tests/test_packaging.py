"""The wheel ships every subpackage and the rules (a non-editable `pip install .` must work)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "kafkadiag").rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)
    assert "kafkadiag.builtin_rules" in listed


def test_rules_ship_as_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"]["kafkadiag.builtin_rules"] == "rules"
    assert list((ROOT / "rules").glob("*.yaml"))


def test_report_templates_ship_as_package_data() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert data["kafkadiag.report"] == ["templates/*.j2"]
    assert list((ROOT / "kafkadiag" / "report" / "templates").glob("*.j2"))
