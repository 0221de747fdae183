"""What a recognised first line of a log event says, whatever layout printed it."""

from __future__ import annotations

from dataclasses import dataclass, field

from kafkadiag.readers.logs.times import NO_STAMP, Stamp

#: Line-format families; the reader reports ``log/<family>`` kinds from them.
JAVA = "java"
BROKER = "broker"
LIBRDKAFKA = "librdkafka"
KAFKAJS = "kafkajs"
PYTHON = "python"
GO = "go"
DOTNET = "dotnet"
TOOL = "tool"
TEXT = "text"


@dataclass(slots=True)
class Head:
    """The first line of an event, split into its parts.

    ``message`` is the line without timestamp, level, logger and thread. ``facility`` and
    ``client`` are librdkafka's facility and client name; ``stack`` carries a stack trace that a
    JSON layout put in a field; ``fields`` keeps other JSON/logfmt fields worth reading (ids);
    ``ts`` is the timestamp as printed (lets a whole-line template recompute the time).
    """

    stamp: Stamp = NO_STAMP
    level: str = ""
    logger: str = ""
    message: str = ""
    family: str = TEXT
    thread: str = ""
    facility: str = ""
    client: str = ""
    stack: str = ""
    fields: dict[str, object] = field(default_factory=dict)
    ts: str = ""  # the timestamp text as printed
    library: str = ""  # set when the layout alone names the writer (a tool's own messages)
