"""The ``kafkadiag`` command's entry point: ``--version`` is answered before anything heavy loads.

The command line itself (:mod:`kafkadiag.cli`) imports typer, the config model and, through the
rule engine, pandas: about a second on a small machine, too long for a version check in a script.
"""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] in (["--version"], ["-V"]):
        from . import __version__

        sys.stdout.write(f"kafkadiag {__version__}\n")
        return
    from .memory import purge_freed_arrow_memory

    purge_freed_arrow_memory()  # before anything imports pyarrow
    from .cli import main as run

    run()


if __name__ == "__main__":
    main()
