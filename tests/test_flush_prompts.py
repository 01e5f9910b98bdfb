"""Flush prompts (§7.4): verbatim defaults, local date, the Current time line, custom prompt patching."""

from __future__ import annotations

from datetime import UTC, datetime

from memtui.context.flush_prompts import build_flush_prompts, current_time_line
from memtui.settings.context import resolve_context_settings

# 03:05 UTC on 2026-04-30 is 23:05 on Wednesday 2026-04-29 in New York (EDT, UTC-4).
NOW = datetime(2026, 4, 30, 3, 5, tzinfo=UTC)
NY = {"agents": {"defaults": {"userTimezone": "America/New_York"}}}


def _spec(text: str) -> str:
    """A spec paragraph re-joined with single spaces (the quoted prompts contain no other whitespace)."""
    return " ".join(text.split())


SPEC_PROMPT = _spec("""
Pre-compaction memory flush. Store durable memories only in memory/YYYY-MM-DD.md (create memory/ if
needed). Treat workspace bootstrap/reference files such as MEMORY.md, DREAMS.md, SOUL.md, TOOLS.md, and
AGENTS.md as read-only during this flush; never overwrite, replace, or edit them. If memory/YYYY-MM-DD.md
already exists, APPEND new content only and do not overwrite existing entries. Do NOT create timestamped
variant files (e.g., YYYY-MM-DD-HHMM.md); always use the canonical YYYY-MM-DD.md filename. If nothing to
store, reply with NO_REPLY.
""")
SPEC_SYSTEM = _spec("""
Pre-compaction memory flush turn. The session is near auto-compaction; capture durable memories to disk.
Store durable memories only in memory/YYYY-MM-DD.md (create memory/ if needed). Treat workspace
bootstrap/reference files such as MEMORY.md, DREAMS.md, SOUL.md, TOOLS.md, and AGENTS.md as read-only
during this flush; never overwrite, replace, or edit them. If memory/YYYY-MM-DD.md already exists, APPEND
new content only and do not overwrite existing entries. You may reply, but usually NO_REPLY is correct.
""")
SPEC_PROMPT_2026_2 = _spec("""
Pre-compaction memory flush. Store durable memories now (use memory/YYYY-MM-DD.md; create memory/ if
needed). IMPORTANT: If the file already exists, APPEND new content only and do not overwrite existing
entries. If nothing to store, reply with NO_REPLY.
""")
SPEC_SYSTEM_2026_2 = _spec("""
Pre-compaction memory flush turn. The session is near auto-compaction; capture durable memories to disk.
You may reply, but usually NO_REPLY is correct.
""")
READ_ONLY = _spec("""
Treat workspace bootstrap/reference files such as MEMORY.md, DREAMS.md, SOUL.md, TOOLS.md, and AGENTS.md
as read-only during this flush; never overwrite, replace, or edit them.
""")
TIME_LINE = "Current time: Wednesday, April 29th, 2026 - 11:05 PM (America/New_York) / 2026-04-30 03:05 UTC"


def test_default_prompts_verbatim_with_local_date_and_time_line() -> None:
    p = build_flush_prompts(resolve_context_settings(NY, "main"), now=NOW)
    assert p.prompt == SPEC_PROMPT.replace("YYYY-MM-DD", "2026-04-29") + "\n" + TIME_LINE
    assert p.system_prompt == SPEC_SYSTEM.replace("YYYY-MM-DD", "2026-04-29")
    assert p.relative_path == "memory/2026-04-29.md"


def test_2026_2_defaults() -> None:
    p = build_flush_prompts(resolve_context_settings(NY, "main"), now=NOW, variant="2026.2")
    assert p.prompt == SPEC_PROMPT_2026_2.replace("YYYY-MM-DD", "2026-04-29") + "\n" + TIME_LINE
    assert p.system_prompt == SPEC_SYSTEM_2026_2


def test_custom_prompt_gets_missing_hints_and_no_reply_line() -> None:
    raw = {"agents": {"defaults": {"userTimezone": "Asia/Tokyo", "compaction": {"memoryFlush": {
        "prompt": "  Write notes to memory/YYYY-MM-DD.md.  ",
        "systemPrompt": f"Flush now. {READ_ONLY} Reply NO_REPLY.",
    }}}}}
    # 12:05 on Thursday 2026-04-30 in Tokyo (UTC+9)
    p = build_flush_prompts(resolve_context_settings(raw, "main"), now=NOW)
    d = "2026-04-30"
    assert p.prompt == (
        f"Write notes to memory/{d}.md.\n\n"
        f"Store durable memories only in memory/{d}.md (create memory/ if needed).\n\n"
        f"If memory/{d}.md already exists, APPEND new content only and do not overwrite existing entries.\n\n"
        f"{READ_ONLY}\n\n"
        "If no user-visible reply is needed, start with NO_REPLY.\n"
        "Current time: Thursday, April 30th, 2026 - 12:05 PM (Asia/Tokyo) / 2026-04-30 03:05 UTC"
    )
    assert p.system_prompt == (
        f"Flush now. {READ_ONLY} Reply NO_REPLY.\n\n"
        f"Store durable memories only in memory/{d}.md (create memory/ if needed).\n\n"
        f"If memory/{d}.md already exists, APPEND new content only and do not overwrite existing entries."
    )
    assert p.custom_prompt and p.custom_system_prompt


def test_time_line_forms() -> None:
    noon = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)  # Thursday
    assert current_time_line(noon, "UTC") == "Current time: Thursday, January 1st, 2026 - 12:00 PM (UTC) / " \
                                             "2026-01-01 12:00 UTC"
    late = datetime(2026, 1, 12, 0, 7, tzinfo=UTC)  # Monday the 12th: "th" despite ending in 2
    expected = "Current time: Monday, January 12th, 2026 - 00:07 (UTC) / 2026-01-12 00:07 UTC"
    assert current_time_line(late, "UTC", "24") == expected


def test_invalid_timezone_falls_back_to_a_valid_zone() -> None:
    mars = {"agents": {"defaults": {"userTimezone": "Mars/Olympus"}}}
    p = build_flush_prompts(resolve_context_settings(mars, "main"), now=NOW)
    assert "Mars/Olympus" not in p.prompt
