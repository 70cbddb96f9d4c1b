"""Agent-card caching (RFC 9110 §8.8, §13.1.2, §13.1.3, §13.2.2): the headers a
served document carries and the conditional requests that get 304 Not Modified."""

from __future__ import annotations

import re
from datetime import datetime, timezone

from ._headers import OWS, RequestHeaders, field_lines

__all__ = ["agent_card_headers", "cache_headers", "entity_tag", "not_modified"]

_DAYS = "Mon|Tue|Wed|Thu|Fri|Sat|Sun"
_LONG_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
_MONTHS = (
    "Jan",
    "Feb",
    "Mar",
    "Apr",
    "May",
    "Jun",
    "Jul",
    "Aug",
    "Sep",
    "Oct",
    "Nov",
    "Dec",
)
_MONTH = "|".join(_MONTHS)
_TIME = r"([0-9]{2}):([0-9]{2}):([0-9]{2})"
# RFC 9110 §5.6.7: recipients accept IMF-fixdate and the two obsolete forms.
_IMF_FIXDATE = re.compile(
    rf"(?:{_DAYS}), ([0-9]{{2}}) ({_MONTH}) ([0-9]{{4}}) {_TIME} GMT"
)
_RFC850_DATE = re.compile(
    rf"(?:{_LONG_DAYS}), ([0-9]{{2}})-({_MONTH})-([0-9]{{2}}) {_TIME} GMT"
)
_ASCTIME_DATE = re.compile(
    rf"(?:{_DAYS}) ({_MONTH}) ([0-9]{{2}}| [0-9]) {_TIME} ([0-9]{{4}})"
)


def _http_date(value: str) -> datetime | None:
    """An HTTP-date (RFC 9110 §5.6.7) as an aware UTC datetime; None when invalid."""
    if match := _IMF_FIXDATE.fullmatch(value):
        day, month, year, hour, minute, second = match.groups()
        full_year = int(year)
    elif match := _RFC850_DATE.fullmatch(value):
        day, month, year, hour, minute, second = match.groups()
        # A two-digit year more than 50 years ahead is the latest past year like it.
        now = datetime.now(timezone.utc).year
        full_year = now - now % 100 + int(year)
        if full_year > now + 50:
            full_year -= 100
    elif match := _ASCTIME_DATE.fullmatch(value):
        month, day, hour, minute, second, year = match.groups()
        full_year = int(year)
    else:
        return None
    try:
        return datetime(
            full_year,
            _MONTHS.index(month) + 1,
            int(day),
            int(hour),
            int(minute),
            min(int(second), 59),  # a leap second (60) is allowed by the grammar
            tzinfo=timezone.utc,
        )
    except ValueError:  # 31 Feb, hour 25 and the like
        return None


def _utc_seconds(moment: datetime, what: str) -> datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{what} must be an aware datetime (with a time zone)")
    # HTTP dates have one-second resolution; compare what the client could have seen.
    return moment.astimezone(timezone.utc).replace(microsecond=0)


def agent_card_headers(
    body: bytes, last_modified: datetime, *, max_age: int = 3600
) -> list[tuple[str, str]]:
    """Caching headers for an agent card served as ``body``.

    ``Cache-Control: public, max-age=N``, a strong quoted ``ETag`` derived from the
    bytes (a sha256 prefix, so equal cards get equal tags on every replica) and
    ``Last-Modified`` as an IMF-fixdate. ``last_modified`` must be aware.
    """
    return cache_headers(entity_tag(body), last_modified, max_age=max_age)


def entity_tag(body: bytes) -> str:
    """The strong, quoted ``ETag`` of ``body``: a sha256 prefix, so that equal bytes
    get equal tags on every replica."""
    # Imported here: servers need it, clients (routes.build) do not.
    import hashlib

    return f'"{hashlib.sha256(body).hexdigest()[:32]}"'


def cache_headers(
    etag: str, last_modified: datetime | None, *, max_age: int = 3600
) -> list[tuple[str, str]]:
    """``Cache-Control``, ``ETag`` and ``Last-Modified`` (left out when None) of a
    served document."""
    import email.utils

    if isinstance(max_age, bool) or not isinstance(max_age, int) or max_age < 0:
        raise ValueError(f"max_age must be a non-negative int, not {max_age!r}")
    headers = [("Cache-Control", f"public, max-age={max_age}"), ("ETag", etag)]
    if last_modified is not None:
        moment = _utc_seconds(last_modified, "last_modified")
        headers.append(
            ("Last-Modified", email.utils.format_datetime(moment, usegmt=True))
        )
    return headers


def _entity_tags(value: str) -> list[tuple[bool, str] | None]:
    """Members of an entity-tag list (RFC 9110 §8.8.3): (weak, opaque-tag) or None.

    A member that is not an entity-tag is None, so it can never match. Commas inside
    the quotes belong to the tag.
    """
    members: list[tuple[bool, str] | None] = []
    index, end = 0, len(value)
    while True:
        while index < end and value[index] in OWS + ",":
            index += 1
        if index >= end:
            return members
        weak = value.startswith("W/", index)
        start = index + 2 if weak else index
        close = value.find('"', start + 1) if value.startswith('"', start) else -1
        after = close + 1
        while 0 < after < end and value[after] in OWS:
            after += 1
        opaque = value[start + 1 : close] if close > 0 else ""
        if close > 0 and (after == end or value[after] == ",") and _etagc(opaque):
            members.append((weak, opaque))
            index = after
        else:
            members.append(None)
            comma = value.find(",", index)
            index = end if comma < 0 else comma


def _etagc(opaque: str) -> bool:
    # etagc = %x21 / %x23-7E / obs-text
    return all(c == "!" or "#" <= c <= "~" or "\x80" <= c <= "\xff" for c in opaque)


def not_modified(
    headers: RequestHeaders, etag: str, last_modified: datetime | None
) -> bool:
    """Whether a GET or HEAD for the card deserves 304 Not Modified (RFC 9110).

    ``If-None-Match`` (§13.1.2), when present, decides alone: ``*`` matches, or any
    listed tag matches ``etag`` by weak comparison (``W/`` ignored on either side);
    members that are not entity-tags never match. Otherwise ``If-Modified-Since``
    (§13.1.3) gives 304 when ``last_modified``, at one-second resolution, is not later
    than its date; it is ignored when its value is not one valid HTTP-date (or the
    field is repeated), and when ``last_modified`` is None (a document served without
    one). ``etag`` is the card's ETag as sent; ``last_modified`` must be aware
    (``ValueError`` otherwise).
    """
    tags = _entity_tags(etag)
    if len(tags) != 1 or tags[0] is None:
        raise ValueError(f"etag {etag!r} is not one entity-tag")
    own = tags[0][1]
    moment = (
        None if last_modified is None else _utc_seconds(last_modified, "last_modified")
    )
    if_none_match = field_lines(headers, "If-None-Match")
    if if_none_match:
        # An empty field line adds no member; "*" stays "*" next to one.
        combined = ", ".join(line for line in if_none_match if line.strip(OWS))
        if combined.strip(OWS) == "*":
            return True
        return any(tag is not None and tag[1] == own for tag in _entity_tags(combined))
    if_modified_since = field_lines(headers, "If-Modified-Since")
    if moment is None or len(if_modified_since) != 1:
        return False
    since = _http_date(if_modified_since[0].strip(OWS))
    return since is not None and moment <= since
