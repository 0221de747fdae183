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


# ---- the distribution people install -------------------------------------------------------

import ast  # noqa: E402
import importlib.metadata  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

import yaml  # noqa: E402

#: "kafkadiag" on PyPI is an unrelated 2019 project; the command and the import package keep the name.
DISTRIBUTION = "kafka-txn-diag"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_distribution_name_and_command() -> None:
    project = _project()
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"kafkadiag": "kafkadiag.entry:main"}


def test_confluent_kafka_is_a_test_dependency_only() -> None:
    project = _project()
    assert not any(dep.startswith("confluent-kafka") for dep in project["dependencies"])
    assert any(dep.startswith("confluent-kafka") for dep in project["optional-dependencies"]["test"])
    # The installed metadata says the same (what pip resolves for a plain install).
    requires = importlib.metadata.metadata(DISTRIBUTION).get_all("Requires-Dist") or []
    runtime = [r for r in requires if "extra ==" not in r]
    assert runtime and not any(r.startswith("confluent-kafka") for r in runtime), requires


def test_no_runtime_module_imports_confluent_kafka() -> None:
    importers = []
    for path in (ROOT / "kafkadiag").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] == "confluent_kafka" for n in names):
                importers.append(str(path.relative_to(ROOT)))
    assert not importers


def test_analyze_runs_with_confluent_kafka_unimportable() -> None:
    """The whole pipeline (dumps, logs, configs, every renderer path of analyze) without the client library."""
    code = ("import sys; sys.modules['confluent_kafka'] = None\n"
            "from kafkadiag.cli import app\n"
            "try:\n    app(['analyze', '--format', 'json', '-o', '/dev/null', '--fail-on', 'never', *sys.argv[1:]],"
            " standalone_mode=False)\n"
            "except SystemExit as exc:\n    sys.exit(exc.code)\n")
    case = ROOT / "fixtures" / "cases" / "mixed-2.4.1" / "input"
    proc = subprocess.run([sys.executable, "-c", code, str(case)], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_readme_install_lines_install_this_project() -> None:
    """Every ``pip install`` in the README installs this project: from a checkout, or by its distribution name."""
    lines = [line.strip() for line in README.splitlines() if re.search(r"\bpip install\b", line)]
    assert lines
    for line in lines:
        target = line.split("pip install", 1)[1].split("#", 1)[0].replace("-q", "").replace("--quiet", "").strip()
        target = target.split("&&", 1)[0].strip().strip("`").strip("'\"")
        assert target.startswith((".", "-e", DISTRIBUTION)), line
    assert "pip install kafkadiag" not in README and "'kafkadiag[" not in README


def test_pre_commit_example_names_real_hooks_and_the_release_tag() -> None:
    hooks = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    block = README.split("### As a pre-commit hook", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    example = yaml.safe_load(block)
    repo = example["repos"][0]
    assert repo["rev"] == f"v{_project()['version']}"  # the annotated tag of this release
    assert {h["id"] for h in repo["hooks"]} <= hooks
    mentioned = set(re.findall(r"kafkadiag-lint(?:-all)?", block))
    assert mentioned <= hooks and "kafkadiag-lint-all" in mentioned
