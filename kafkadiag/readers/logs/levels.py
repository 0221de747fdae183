"""One level vocabulary (ERROR, WARN, INFO, DEBUG, TRACE, FATAL) for every logger's spelling."""

from __future__ import annotations

_LEVELS = {
    "FATAL": "FATAL", "FTL": "FATAL", "CRITICAL": "FATAL", "CRIT": "FATAL", "EMERG": "FATAL",
    "EMERGENCY": "FATAL", "ALERT": "FATAL", "PANIC": "FATAL", "F": "FATAL",
    "ERROR": "ERROR", "ERR": "ERROR", "SEVERE": "ERROR", "FAIL": "ERROR", "E": "ERROR",
    "WARN": "WARN", "WARNING": "WARN", "WRN": "WARN", "W": "WARN",
    "INFO": "INFO", "INF": "INFO", "NOTICE": "INFO", "INFORMATION": "INFO", "I": "INFO",
    "DEBUG": "DEBUG", "DBG": "DEBUG", "DBUG": "DEBUG", "FINE": "DEBUG", "CONFIG": "DEBUG", "D": "DEBUG",
    "TRACE": "TRACE", "TRC": "TRACE", "TRCE": "TRACE", "VRB": "TRACE", "VERBOSE": "TRACE", "FINER": "TRACE",
    "FINEST": "TRACE", "T": "TRACE",
}

#: Level words as they appear in text layouts (used to build recogniser patterns).
LEVEL_WORDS = "FATAL|ERROR|WARNING|WARN|INFO|DEBUG|TRACE|SEVERE|CRITICAL|NOTICE"

#: librdkafka (syslog) levels: 0-3 are errors (emerg, alert, crit, err), 4 warning, 5-6 info, 7 debug.
_SYSLOG = ("ERROR", "ERROR", "ERROR", "ERROR", "WARN", "INFO", "INFO", "DEBUG")


def normalise_level(word: str | None) -> str:
    """Level word in any logger's spelling -> the common vocabulary; '' when unknown."""
    if not word:
        return ""
    return _LEVELS.get(word.strip("[]: ").upper(), "")


def syslog_level(value: int | str) -> str:
    """librdkafka's numeric level (0-7) -> the common vocabulary."""
    try:
        n = int(value)
    except (TypeError, ValueError):
        return normalise_level(str(value))
    return _SYSLOG[n] if 0 <= n < len(_SYSLOG) else ""
