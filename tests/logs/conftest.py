"""Make the log-reader test helpers importable (``from loghelp import ...``)."""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
