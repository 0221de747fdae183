"""Files that look like YAML configs but are not one: templates and CI pipelines.

A Helm template (``{{ .Values.x }}``) is not valid YAML until rendered, and a GitHub Actions or
GitLab CI workflow mentions Kafka only in the commands it runs. A pre-commit run over a
repository must pass over them quietly instead of failing on them.
"""

from __future__ import annotations

import re

from ..model import ConfigFile

_TEMPLATE = re.compile(r"\{\{-?\s*[.$\w(\"'/]|\{%-?\s*\w")


def is_template(text: str) -> bool:
    """Go/Helm (``{{ .Values.x }}``) or Jinja (``{{ var }}``, ``{% if %}``) template text."""
    return bool(_TEMPLATE.search(text))


def not_a_config(cfg: ConfigFile) -> str:
    """Why a parsed file is not a configuration ('' when it may be one)."""
    top = {e.key.split(".", 1)[0] for e in cfg.entries if e.doc == 0}
    if cfg.fmt == "yaml" and {"jobs"} <= top and top & {"on", "True", "true", "name"}:
        return "GitHub Actions workflow"
    if cfg.fmt == "yaml" and "stages" in top and any(k.endswith(".script") for k in (e.key for e in cfg.entries)):
        return "GitLab CI pipeline"
    return ""
