"""Log timestamps to epoch milliseconds (UTC), in every shape the supported loggers print.

Most lines carry ``yyyy-MM-dd HH:mm:ss[.,]SSS`` so that shape takes a slicing fast path with a
per-date cache; the rest (ISO with offsets or nanoseconds, Go's ``yyyy/MM/dd``, librdkafka's epoch
seconds, epoch millis in JSON, syslog ``Mon dd``) goes through one regular expression. Stamps
without a zone are taken as UTC, since a log line cannot say which zone its writer used. Stamps
without a date (``HH:mm:ss.SSS`` layouts, syslog without a year) come back as a time of day that
the reader anchors to the last full date seen in the same input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

DAY_MS = 86_400_000
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), 1)}


@dataclass(frozen=True)
class Stamp:
    """A parsed timestamp: ``ms`` when the date is known, else ``tod`` (ms into the day).

    ``month_day`` (MMDD) is set for stamps that name a day but no year (syslog, glog).
    """

    ms: int = -1
    tod: int = -1
    month_day: int = 0


NO_STAMP = Stamp()

_day_cache: dict[str, int] = {}


def day_ms(y: int, mo: int, d: int) -> int:
    """Epoch ms of midnight UTC of a civil date; -1 for impossible dates."""
    try:
        return (date(y, mo, d).toordinal() - _EPOCH_ORDINAL) * DAY_MS
    except ValueError:
        return -1


def _cached_day(text: str) -> int:
    """Midnight of a ``yyyy-MM-dd`` (or ``yyyy/MM/dd``) prefix, cached: logs repeat their dates."""
    hit = _day_cache.get(text)
    if hit is None:
        try:
            hit = day_ms(int(text[0:4]), int(text[5:7]), int(text[8:10]))
        except ValueError:
            hit = -1
        if len(_day_cache) > 4096:
            _day_cache.clear()
        _day_cache[text] = hit
    return hit


def _fraction_ms(frac: str) -> int:
    return int((frac + "00")[:3]) if frac else 0


def _zone_ms(tz: str) -> int:
    if not tz or tz in ("Z", "UTC", "GMT"):
        return 0
    sign = -1 if tz[0] == "-" else 1
    digits = tz[1:].replace(":", "")
    hours = int(digits[:2])
    minutes = int(digits[2:4]) if len(digits) >= 4 else 0
    return sign * (hours * 60 + minutes) * 60_000


_FULL = re.compile(
    r"(?P<y>\d{4})[-/.](?P<mo>\d\d)[-/.](?P<d>\d\d)[T _]?(?P<h>\d\d):(?P<mi>\d\d)"
    r"(?::(?P<s>\d\d)(?:[.,:](?P<f>\d{1,9}))?)?\s?(?P<tz>Z|UTC|GMT|[+-]\d\d(?::?\d\d)?)?"
)
_TOD = re.compile(r"(?P<h>\d{1,2}):(?P<mi>\d\d):(?P<s>\d\d)(?:[.,](?P<f>\d{1,9}))?")
_DAY_MONTH_YEAR = re.compile(
    r"(?P<d>\d{1,2})[-/ ](?P<mon>[A-Z][a-z]{2})[-/ ](?P<y>\d{4})[ :](?P<rest>\d{1,2}:\d\d:\d\d(?:[.,]\d{1,9})?)"
)
_MONTH_DAY = re.compile(
    r"(?P<mon>[A-Z][a-z]{2}) +(?P<d>\d{1,2})(?:, (?P<y>\d{4}))? (?P<rest>\d{1,2}:\d\d:\d\d(?:[.,]\d{1,9})?)"
)
_EPOCH = re.compile(r"(?P<sec>\d{9,10})(?:\.(?P<f>\d{1,9}))?|(?P<ms>\d{12,13})|(?P<us>\d{16})|(?P<ns>\d{19})")


def parse_stamp(text: str) -> Stamp:
    """Parse a timestamp string as printed by a logger; ``NO_STAMP`` when it is not one."""
    text = text.strip().strip("[]")
    if len(text) >= 19 and text[4] == "-" and text[7] == "-" and text[13] == ":" and text[16] == ":":
        ms = _fast_iso(text)
        if ms >= 0:
            return Stamp(ms)
    m = _FULL.match(text)
    if m:
        base = day_ms(int(m["y"]), int(m["mo"]), int(m["d"]))
        if base >= 0:
            tod = (int(m["h"]) * 60 + int(m["mi"])) * 60_000 + int(m["s"] or 0) * 1000 + _fraction_ms(m["f"] or "")
            return Stamp(base + tod - _zone_ms(m["tz"] or ""))
    m = _EPOCH.fullmatch(text)
    if m:
        return Stamp(_epoch_ms(m))
    m = _DAY_MONTH_YEAR.match(text)
    if m and m["mon"] in _MONTHS:
        base = day_ms(int(m["y"]), _MONTHS[m["mon"]], int(m["d"]))
        tod = time_of_day(m["rest"])
        if base >= 0 and tod >= 0:
            return Stamp(base + tod)
    m = _MONTH_DAY.match(text)
    if m and m["mon"] in _MONTHS:
        tod = time_of_day(m["rest"])
        if m["y"]:
            base = day_ms(int(m["y"]), _MONTHS[m["mon"]], int(m["d"]))
            return Stamp(base + tod) if base >= 0 and tod >= 0 else NO_STAMP
        return Stamp(tod=tod, month_day=_MONTHS[m["mon"]] * 100 + int(m["d"]))
    tod = time_of_day(text)
    return Stamp(tod=tod) if tod >= 0 else NO_STAMP


def _fast_iso(text: str) -> int:
    second = _second_cache.get(text[:19])
    if second is None:
        second = _second(text[:19])
    if second < 0:
        return -1
    if len(text) == 19:
        return second
    rest = text[19:]
    ms = second
    i = 0
    if rest[0] in ".,":
        j = 1
        while j < len(rest) and rest[j].isdigit():
            j += 1
        ms += _fraction_ms(rest[1:j])
        i = j
    if i < len(rest):
        zone = rest[i:].strip()
        if zone:
            if zone[0] in "+-" or zone in ("Z", "UTC", "GMT"):
                try:
                    ms -= _zone_ms(zone.split()[0])
                except ValueError:
                    return -1
            else:
                return -1
    return ms


_second_cache: dict[str, int] = {}


def _second(key: str) -> int:
    """Epoch ms of a ``yyyy-MM-dd HH:mm:ss`` text (cached: a log repeats each second many times)."""
    base = _cached_day(key[:10])
    try:
        h, mi, sec = int(key[11:13]), int(key[14:16]), int(key[17:19])
    except ValueError:
        h = -1
    value = -1 if base < 0 or h < 0 else base + ((h * 60 + mi) * 60 + sec) * 1000
    if len(_second_cache) > 100_000:
        _second_cache.clear()
    _second_cache[key] = value
    return value


def _epoch_ms(m: re.Match) -> int:
    if m["sec"]:
        return int(m["sec"]) * 1000 + _fraction_ms(m["f"] or "")
    if m["ms"]:
        return int(m["ms"])
    if m["us"]:
        return int(m["us"]) // 1000
    return int(m["ns"]) // 1_000_000


def time_of_day(text: str) -> int:
    """``HH:mm:ss[.SSS]`` -> ms into the day; -1 when the text is not a time of day."""
    m = _TOD.fullmatch(text.strip())
    if not m:
        return -1
    h, mi, s = int(m["h"]), int(m["mi"]), int(m["s"])
    if h > 23 or mi > 59 or s > 60:
        return -1
    return ((h * 60 + mi) * 60 + s) * 1000 + _fraction_ms(m["f"] or "")


def epoch_value_ms(value: object) -> int:
    """A JSON time value (epoch seconds, millis, micros or nanos, number or digits) -> ms; -1 if not one."""
    if isinstance(value, bool):
        return -1
    if isinstance(value, float):
        return int(value * 1000) if value < 1e11 else int(value) if value < 1e14 else int(value / 1000)
    if isinstance(value, int):
        digits = len(str(abs(value)))
        if digits <= 10:
            return value * 1000
        if digits <= 13:
            return value
        if digits <= 16:
            return value // 1000
        return value // 1_000_000
    return -1


class Anchor:
    """Resolves date-less stamps against the last full date seen in the same input."""

    def __init__(self, last_ms: int = -1) -> None:
        self.last_ms = last_ms
        #: A date-less stamp came before any full date: read from a later part of a file, its time
        #: would have come from the part above (``engine.log_ranges`` reads that part again).
        self.wanted_earlier = False

    def resolve(self, stamp: Stamp) -> int:
        if stamp.ms >= 0:
            self.last_ms = stamp.ms
            return stamp.ms
        if stamp.tod < 0:
            return -1
        if self.last_ms < 0:
            self.wanted_earlier = True
            return -1
        day = self.last_ms - self.last_ms % DAY_MS
        if stamp.month_day:
            year = date.fromordinal(self.last_ms // DAY_MS + _EPOCH_ORDINAL).year
            base = day_ms(year, stamp.month_day // 100, stamp.month_day % 100)
            if base < 0:
                return -1
            day = base
        ms = day + stamp.tod
        if not stamp.month_day and ms < self.last_ms - DAY_MS // 2:
            ms += DAY_MS  # the clock passed midnight since the last full date
        self.last_ms = ms
        return ms
