"""The dreaming clock: aware "now", the dreaming day, and the diary's en-US dates."""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo


def resolve_now(now: datetime | None) -> datetime:
    """`now` as an aware datetime (naive values are taken as UTC); the current time when None."""
    if now is None:
        return datetime.now(UTC)
    return now if now.tzinfo else now.replace(tzinfo=UTC)


def dreaming_day(now: datetime, tz: tzinfo | None = None) -> str:
    """`YYYY-MM-DD` of `now` in the dreaming zone (UTC when none is given)."""
    return now.astimezone(tz or UTC).strftime("%Y-%m-%d")


def diary_date(now: datetime, tz: tzinfo | None = None) -> str:
    """en-US long date with time and short zone, e.g. `April 29, 2026 at 3:00 AM PDT`."""
    local = now.astimezone(tz or UTC)
    hour = local.hour % 12 or 12
    suffix = "AM" if local.hour < 12 else "PM"
    return f"{local:%B} {local.day}, {local.year} at {hour}:{local:%M} {suffix} {_zone_label(local)}"


# The only short zone names en-US `Intl.DateTimeFormat` prints; every other zone shows `GMT±H[:MM]`.
_US_ZONE_NAMES = {
    "EST": -300, "EDT": -240, "CST": -360, "CDT": -300, "MST": -420, "MDT": -360,
    "PST": -480, "PDT": -420, "AKST": -540, "AKDT": -480, "HST": -600, "HDT": -540,
}  # fmt: skip


def _zone_label(local: datetime) -> str:
    offset = local.utcoffset()
    minutes = int(offset.total_seconds() // 60) if offset is not None else 0
    name = local.tzname() or ""
    if _US_ZONE_NAMES.get(name) == minutes:
        return name
    if name == "UTC":
        return "UTC"
    if minutes == 0:
        return "GMT"
    sign = "+" if minutes > 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    return f"GMT{sign}{hours}" + (f":{rest:02d}" if rest else "")
