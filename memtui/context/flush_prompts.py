"""The pre-compaction memory-flush prompts (§7.4), dated in the user's timezone, plus user-time helpers."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from memtui.jscompat import js_trim, js_trim_end
from memtui.settings.context import ContextSettings, valid_timezone

SILENT_REPLY_TOKEN = "NO_REPLY"
FLUSH_VARIANTS = ("2026.4", "2026.2")

TARGET_HINT = "Store durable memories only in memory/YYYY-MM-DD.md (create memory/ if needed)."
APPEND_ONLY_HINT = (
    "If memory/YYYY-MM-DD.md already exists, APPEND new content only and do not overwrite existing entries."
)
READ_ONLY_HINT = (
    "Treat workspace bootstrap/reference files such as MEMORY.md, DREAMS.md, SOUL.md, TOOLS.md, and "
    "AGENTS.md as read-only during this flush; never overwrite, replace, or edit them."
)
REQUIRED_HINTS = (TARGET_HINT, APPEND_ONLY_HINT, READ_ONLY_HINT)

DEFAULT_PROMPT = " ".join([
    "Pre-compaction memory flush.",
    TARGET_HINT,
    READ_ONLY_HINT,
    APPEND_ONLY_HINT,
    "Do NOT create timestamped variant files (e.g., YYYY-MM-DD-HHMM.md); always use the canonical "
    "YYYY-MM-DD.md filename.",
    f"If nothing to store, reply with {SILENT_REPLY_TOKEN}.",
])
DEFAULT_SYSTEM_PROMPT = " ".join([
    "Pre-compaction memory flush turn.",
    "The session is near auto-compaction; capture durable memories to disk.",
    TARGET_HINT,
    READ_ONLY_HINT,
    APPEND_ONLY_HINT,
    f"You may reply, but usually {SILENT_REPLY_TOKEN} is correct.",
])
DEFAULT_PROMPT_2026_2 = " ".join([
    "Pre-compaction memory flush.",
    "Store durable memories now (use memory/YYYY-MM-DD.md; create memory/ if needed).",
    "IMPORTANT: If the file already exists, APPEND new content only and do not overwrite existing entries.",
    f"If nothing to store, reply with {SILENT_REPLY_TOKEN}.",
])
DEFAULT_SYSTEM_PROMPT_2026_2 = " ".join([
    "Pre-compaction memory flush turn.",
    "The session is near auto-compaction; capture durable memories to disk.",
    f"You may reply, but usually {SILENT_REPLY_TOKEN} is correct.",
])

_ORDINAL = {1: "st", 2: "nd", 3: "rd"}
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def _host_timezone() -> str:
    tz_env = (os.environ.get("TZ") or "").strip().lstrip(":")
    if tz_env and valid_timezone(tz_env):
        return tz_env
    try:
        target = os.path.realpath("/etc/localtime")
    except OSError:
        return "UTC"
    marker = "/zoneinfo/"
    if marker in target:
        name = target.split(marker, 1)[1]
        if valid_timezone(name):
            return name
    return "UTC"


def resolve_user_timezone(settings: ContextSettings) -> str:
    """`agents.defaults.userTimezone` when it is a valid IANA zone, else the host's zone, else UTC."""
    return settings.user_timezone or _host_timezone()


def _aware(now: datetime | None) -> datetime:
    if now is None:
        return datetime.now(UTC)
    return now if now.tzinfo is not None else now.replace(tzinfo=UTC)


def date_stamp(now: datetime, timezone: str) -> str:
    """`YYYY-MM-DD` of `now` in `timezone`."""
    return _aware(now).astimezone(ZoneInfo(timezone)).strftime("%Y-%m-%d")


def format_user_time(now: datetime, timezone: str, time_format: str = "12") -> str:
    """OpenClaw's prompt time, e.g. `Thursday, April 30th, 2026 - 10:00 AM` (or `- 10:00` in 24-hour form)."""
    local = _aware(now).astimezone(ZoneInfo(timezone))
    day = local.day
    suffix = "th" if 11 <= day <= 13 else _ORDINAL.get(day % 10, "th")
    if time_format == "24":
        clock = f"{local.hour:02d}:{local.minute:02d}"
    else:
        hour = local.hour % 12 or 12
        clock = f"{hour}:{local.minute:02d} {'AM' if local.hour < 12 else 'PM'}"
    return f"{_WEEKDAYS[local.weekday()]}, {_MONTHS[local.month - 1]} {day}{suffix}, {local.year} - {clock}"


def current_time_line(now: datetime, timezone: str, time_format: str = "12") -> str:
    """`Current time: <user time> (<tz>) / YYYY-MM-DD HH:MM UTC`."""
    utc = _aware(now).astimezone(UTC).strftime("%Y-%m-%d %H:%M")
    return f"Current time: {format_user_time(now, timezone, time_format)} ({timezone}) / {utc} UTC"


def ensure_safety_hints(text: str) -> str:
    """Append each of the three required hints (target, append-only, read-only) that the text lacks."""
    result = js_trim(text)
    for hint in REQUIRED_HINTS:
        if hint not in result:
            result = f"{result}\n\n{hint}" if result else hint
    return result


def ensure_no_reply_hint(text: str) -> str:
    """Append the NO_REPLY line when the text never mentions NO_REPLY."""
    if SILENT_REPLY_TOKEN in text:
        return text
    return f"{text}\n\nIf no user-visible reply is needed, start with {SILENT_REPLY_TOKEN}."


def _append_time_line(text: str, time_line: str) -> str:
    trimmed = js_trim_end(text)
    if not trimmed:
        return time_line
    if "Current time:" in trimmed:
        return trimmed
    return f"{trimmed}\n{time_line}"


@dataclass(frozen=True)
class FlushPrompts:
    """The user and system prompts of the silent flush turn, and where it writes."""

    prompt: str
    system_prompt: str
    relative_path: str
    date_stamp: str
    timezone: str
    custom_prompt: bool
    custom_system_prompt: bool
    variant: str

    def to_json(self) -> dict[str, Any]:
        """camelCase shape."""
        return {
            "prompt": self.prompt,
            "systemPrompt": self.system_prompt,
            "relativePath": self.relative_path,
            "dateStamp": self.date_stamp,
            "userTimezone": self.timezone,
            "customPrompt": self.custom_prompt,
            "customSystemPrompt": self.custom_system_prompt,
            "variant": self.variant,
        }


def build_flush_prompts(settings: ContextSettings, *, now: datetime | None = None,
                        variant: str = "2026.4") -> FlushPrompts:
    """The flush prompts OpenClaw `variant` would send at `now` (defaults or patched custom prompts)."""
    moment = _aware(now)
    timezone = resolve_user_timezone(settings)
    time_line = current_time_line(moment, timezone, settings.time_format)
    stamp = date_stamp(moment, timezone)
    custom_prompt = settings.flush.prompt
    custom_system = settings.flush.system_prompt
    if variant == "2026.2":
        prompt = ensure_no_reply_hint(custom_prompt or DEFAULT_PROMPT_2026_2)
        system = ensure_no_reply_hint(custom_system or DEFAULT_SYSTEM_PROMPT_2026_2)
    else:
        prompt = ensure_no_reply_hint(ensure_safety_hints(custom_prompt or DEFAULT_PROMPT))
        system = ensure_no_reply_hint(ensure_safety_hints(custom_system or DEFAULT_SYSTEM_PROMPT))
        system = system.replace("YYYY-MM-DD", stamp)
    return FlushPrompts(
        prompt=_append_time_line(prompt.replace("YYYY-MM-DD", stamp), time_line),
        system_prompt=system,
        relative_path=f"memory/{stamp}.md",
        date_stamp=stamp,
        timezone=timezone,
        custom_prompt=bool(custom_prompt),
        custom_system_prompt=bool(custom_system),
        variant=variant,
    )
