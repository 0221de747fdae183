"""What a parsed config file is: entries with their exact place in the text.

Every entry keeps its line, column and the character span of its value, because lint findings
point at lines, suppression comments sit on lines, and ``--fix`` rewrites values in place so the
rest of the file (order, comments, formatting) stays byte for byte as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

MASK = "********"


@dataclass
class Entry:
    key: str  # as written, unescaped; nested YAML/JSON keys joined with '.'
    value: str  # as the client reads it
    line: int  # 1-based line of the key
    column: int  # 1-based column of the key
    end_line: int = 0  # last physical line of the entry (continuations)
    span: tuple[int, int] | None = None  # character span of the value in the file text; None: not editable
    quote: str = ""  # quote character around a YAML/JSON string value
    doc: int = 0  # YAML document index
    section: str = ""  # JSON/YAML section or kafka-configs entity the entry belongs to
    explicit: bool = True  # False for kafka-configs values that are the broker's built-in default
    secret: bool = False
    items: list["Entry"] = field(default_factory=list)  # YAML sequence items of scalars, each with its own place
    maps: list[list["Entry"]] = field(default_factory=list)  # YAML sequence items that are mappings, keys relative to the item

    @property
    def shown(self) -> str:
        """The value as it may appear in output: masked when the key is sensitive."""
        return MASK if self.secret else self.value

    @property
    def lines(self) -> range:
        return range(self.line, max(self.end_line, self.line) + 1)


@dataclass
class ConfigFile:
    """One input file: its text, format, entries and the dialect it was read as."""

    path: str  # as shown in output (relative when possible)
    text: str
    fmt: str  # properties | yaml | json | describe
    entries: list[Entry] = field(default_factory=list)
    dialect: str = ""
    file_id: int = 0
    explicit: bool = True  # named on the command line (parse errors are fatal) rather than found in a directory
    structure: object = None  # format-specific data the fixer needs (YAML node trees)
    source: str = ""  # where in the file a derived config comes from ("compose service kafka1", "Strimzi Kafka my-cluster")
    unit_doc: int = 0  # YAML document a derived config's missing keys are added to
    writer: Callable[[str, str], str | None] | None = None  # (side, Kafka key) → key to add in the file's own spelling (sources.base.KeyWriter)
    broker_count: int | None = None  # brokers the file shows for the cluster it configures (compose services, replicas)
    origin: list[Entry] | None = None  # every entry of the whole file, for a derived config (secrets stay masked)
    profile: str | None = None  # framework profile(s) the run resolves (None: the default profile)
    ignored: list[tuple[Entry, str]] = field(default_factory=list)  # settings the framework never passes on, and why
    txn_hint: Entry | None = None  # the setting that makes this client transactional without a transactional.id (Connect EOS)
    topics: tuple[str, ...] = ()  # topics the derived client writes or reads, when the file names them
    role_hint: str = ""  # the one client role a derived config configures ('' = judge from its keys)
    image_defaults: bool = True  # unset broker keys take Kafka's built-in defaults (False: the image ships its own)
    credentials: list[Entry] = field(default_factory=list)  # image variables holding a credential (KAFKA_CLIENT_PASSWORDS), not Kafka keys
    code_suffix: str = ""  # code: the language's file suffix it was read as (a pasted block's is not its file's)

    @property
    def lines(self) -> list[str]:
        """Physical lines split on newlines only, as the parsers count them."""
        return [line.rstrip("\r") for line in self.text.split("\n")]

    def secret_lines(self) -> set[int]:
        """Lines that hold any part of a sensitive value; output never shows them."""
        return {n for e in (self.origin or self.entries) + self.entries + self.credentials if e.secret for n in e.lines}

    def shown_line(self, number: int) -> str:
        """Line ``number`` (1-based) with a sensitive value replaced by the mask."""
        lines = self.lines
        if not 1 <= number <= len(lines):
            return ""
        for e in [*self.entries, *self.credentials, *(self.origin or [])]:
            if e.secret and number in e.lines:
                return _masked_line(self, e, number, lines[number - 1])
        return lines[number - 1]


def _masked_line(cfg: ConfigFile, entry: Entry, number: int, text: str) -> str:
    """The key part of the line kept, the value replaced: enough to recognise it, nothing to leak."""
    if number != entry.line:
        return " " * (len(text) - len(text.lstrip())) + MASK
    if entry.span is not None:
        start = entry.span[0] - _line_offset(cfg.text, number)
        if 0 <= start <= len(text):
            return text[:start] + MASK
    return text[: max(entry.column - 1, 0)] + f"{entry.key}: {MASK}"


def _line_offset(text: str, number: int) -> int:
    offset = 0
    for _ in range(number - 1):
        nl = text.find("\n", offset)
        if nl < 0:
            return len(text)
        offset = nl + 1
    return offset


def line_offsets(text: str) -> list[int]:
    """Character offset of the start of every line (index 0 is line 1)."""
    offsets = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            offsets.append(i + 1)
    return offsets
