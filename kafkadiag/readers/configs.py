"""Configuration files given to ``analyze`` as ordinary inputs, read exactly as ``--config`` and ``lint`` read them.

People attach ``server.properties``, a producer ``.properties``, a Spring ``application.yml`` or a
librdkafka config dict to an incident next to the logs. Such a file is recognised by its content
(every line a setting, at least one a Kafka setting, no log line among them), parsed by the lint
parsers, and handed to the engine: its values set the thresholds the rules use, and the config
rules check it as part of the same deployment.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import BinaryIO, Iterator

from kafkadiag.config import MAX_CONFIG_BYTES
from kafkadiag.readers import sniff
from kafkadiag.readers.base import ReadContext

_COMMENT = ("#", "!", "//")
_LOGGISH = re.compile(r"^\s*(?:\[?\d{4}[-/]\d\d[-/]\d\d|\[?\d\d:\d\d:\d\d|%\d\||(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)\b)")
_PROPERTY = re.compile(r"^[A-Za-z_][\w.\-\[\]]*\s*[=:]")


def detect_config(head: bytes) -> tuple[int, str] | None:
    """``(score, "config/<dialect>")`` for a head that is a Kafka configuration file."""
    if sniff.looks_binary(head) or sniff.dump_at_a_glance(head):
        return None
    text = head.decode("utf-8", "replace")
    if len(head) >= sniff.HEAD_BYTES:
        text = text[: text.rfind("\n") + 1]  # the head may end mid-line
    parsed = _settings_of(text, "input")
    if parsed is None:
        return None
    units, kind = parsed
    return max(1, sum(len(u.entries) for u in units)), f"config/{kind}"


def _settings_of(text: str, shown: str, suffix: str = ""):
    """``parse_config`` of a text that is wholly a configuration: no log line, and when read as
    properties, (nearly) every line a setting. ``suffix``: the language of a pasted block."""
    lines = [ln for ln in (s.rstrip() for s in text.splitlines()) if ln.strip() and not ln.lstrip().startswith(_COMMENT)]
    if not lines or any(_LOGGISH.match(ln) for ln in lines[:200]):
        return None
    parsed = parse_config(text, shown, suffix)
    if parsed is None:
        return None
    if parsed[0][0].fmt == "properties" and sum(1 for ln in lines if _PROPERTY.match(ln.lstrip())) < 0.8 * len(lines):
        return None  # prose or a log that happens to hold a few `key=value` lines
    return parsed


def parse_config(text: str, shown: str, suffix: str = ""):
    """``(configs, kind)`` of a text that holds Kafka settings, None otherwise.

    Read exactly as ``kafkadiag lint`` reads it: a compose file, a Strimzi resource or a framework's
    application config yields the configs its source detector finds (kind ``compose``,
    ``kubernetes``, ``quarkus``...); any other file is one config of the dialect its keys show."""
    from kafkadiag.lint.detect import detect_dialect
    from kafkadiag.lint.load import InputError, read_config
    from kafkadiag.lint.sources import expand

    try:
        cfg = read_config(Path(shown + suffix) if suffix else Path(shown), shown, True, text)
    except (InputError, ValueError, RecursionError):
        return None
    found = expand(cfg) if cfg.entries else None
    units = list(found[1]) if found else []
    if found is None or found[0] in ("spring-cloud-stream", "spring-section"):
        dialect = detect_dialect(cfg) if cfg.entries else None
        if dialect:
            cfg.dialect = dialect
            units.append(cfg)
    if not units:
        return None
    kind = found[0] if found and found[0] not in ("spring-cloud-stream", "spring-section") else units[-1].dialect
    return units, kind


def read_config_input(stream: BinaryIO, ctx: ReadContext) -> Iterator[tuple[str, object]]:
    """Parse the whole (small) file; hand the parsed config to the run, yield no event rows."""
    data = stream.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        ctx.skip("configuration file larger than 8 MiB", 1)
        return iter(())
    raw = data.decode("utf-8") if _utf8(data) else data.decode("latin-1")
    ctx.report.lines = raw.count("\n") + (1 if raw and not raw.endswith("\n") else 0)
    parsed = parse_config(raw, ctx.path)
    if parsed is None:
        ctx.skip("not a Kafka configuration", max(1, ctx.report.lines))
        return iter(())
    units, kind = parsed
    ctx.saw_kind(f"config/{kind}")
    ctx.report.events += len({id(e) for u in units for e in u.entries})
    ctx.configs.extend(units)
    return iter(())


#: The lines that open or close a code block, and shell lines that wrap a pasted file (a heredoc).
_FENCE_LINE = re.compile(r"^[ \t]*(?:```|~~~|----[ \t]*$)")
_WRAPPER_LINE = re.compile(r"^[ \t]*(?:(?:cat|tee)\b.*<<-?[ \t]*['\"]?\w+['\"]?.*|EOF)[ \t]*$")


def read_fenced_configs(stream: BinaryIO, ctx: ReadContext) -> Iterator[tuple[str, object]]:
    """The configurations pasted as code blocks in a text the log reader reads (an issue, a note).

    Each block is judged alone, as a whole file would be (``_settings_of``): a block of log lines
    is none. A block that is a configuration is read with every other line of the text left blank,
    so its settings keep their line numbers in the user's file.
    """
    data = stream.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        return iter(())
    lines = (data.decode("utf-8") if _utf8(data) else data.decode("latin-1")).split("\n")
    ctx.report.lines = len(lines)
    for start, end in _blocks(lines):
        body = ["" if _WRAPPER_LINE.match(line) else line for line in lines[start:end]]
        block = "\n".join(body) + "\n"
        if not block.strip() or sniff.dump_at_a_glance(block.encode("utf-8")):
            continue
        parsed = _settings_of("\n" * start + block, ctx.path, block_language(lines[start - 1], block))
        if parsed is None:
            continue
        units, kind = parsed
        ctx.saw_kind(f"config/{kind}")
        ctx.report.events += len({id(e) for u in units for e in u.entries})
        ctx.configs.extend(units)
    return iter(())


#: A fence's info string (```java, ~~~ csharp) -> the suffix of a file in that language.
_LANGUAGES = {"java": ".java", "kotlin": ".kt", "kt": ".kt", "scala": ".scala", "groovy": ".groovy",
              "csharp": ".cs", "cs": ".cs", "c#": ".cs", "python": ".py", "py": ".py", "go": ".go", "golang": ".go",
              "javascript": ".js", "js": ".js", "typescript": ".ts", "ts": ".ts", "ruby": ".rb", "rb": ".rb", "php": ".php"}
_INFO = re.compile(r"^[ \t>]*(?:```|~~~)[ \t]*\{?\.?(?P<lang>[\w#+-]+)")
#: Code a block without an info string plainly is: a .NET client's using, a JVM client's imports or puts.
_DOTNET_CODE = re.compile(r"^\s*using\s+Confluent\.Kafka\s*;", re.M)
_JVM_CODE = re.compile(r"^\s*import\s+org\.apache\.(?:kafka|flink)\.|\.put\(\s*(?:ProducerConfig|ConsumerConfig|StreamsConfig)\.", re.M)


def block_language(fence: str, block: str) -> str:
    """The file suffix of a code block's language, from its fence's info string or its plain shape; '' if none."""
    info = _INFO.match(fence)
    if info and info["lang"].lower() in _LANGUAGES:
        return _LANGUAGES[info["lang"].lower()]
    if _DOTNET_CODE.search(block):
        return ".cs"
    return ".java" if _JVM_CODE.search(block) else ""


def _blocks(lines: list[str]) -> Iterator[tuple[int, int]]:
    """(first line, end) of the body of every closed code block, 0-based."""
    opened = -1
    for i, line in enumerate(lines):
        if not _FENCE_LINE.match(line):
            continue
        if opened < 0:
            opened = i
        else:
            yield opened + 1, i
            opened = -1


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


sniff.register("config", detect_config)
