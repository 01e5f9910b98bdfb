"""What an agent's context is built from: pre-compaction flush, session key and sandbox, context tokens,
bootstrap budgets, startup context, user time and `memory_get` limits (§1.3, §1.4, §7, §9)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memtui.issues import FileIssue
from memtui.jscompat import js_trim
from memtui.settings.heartbeat import default_agent_id, heartbeat_section_on
from memtui.settings.raw import agent_entry, get_path
from memtui.settings.values import (
    DEFAULT_GET_LINES,
    DEFAULT_GET_MAX_CHARS,
    non_negative_int,
    parse_byte_size,
    positive_int,
)

DEFAULT_SOFT_THRESHOLD_TOKENS = 4000
DEFAULT_RESERVE_TOKENS_FLOOR = 20_000
DEFAULT_FORCE_FLUSH_TRANSCRIPT_BYTES = 2 * 1024 * 1024

# `agents.defaults.startupContext` limits — key: (default, minimum, maximum)
STARTUP_LIMITS = {
    "dailyMemoryDays": (2, 1, 14),
    "maxFileBytes": (16384, 1, 65536),
    "maxFileChars": (1200, 1, 10000),
    "maxTotalChars": (2800, 1, 50000),
}
STARTUP_DEFAULTS = {key: default for key, (default, _low, _high) in STARTUP_LIMITS.items()}


@dataclass(frozen=True)
class FlushSettings:
    """The resolved `compaction.memoryFlush` settings and the compaction reserve floor."""

    enabled: bool
    soft_threshold_tokens: int
    force_flush_transcript_bytes: int
    reserve_tokens_floor: int
    model: str | None
    prompt: str = ""
    system_prompt: str = ""

    def to_json(self) -> dict[str, Any]:
        """camelCase shape (the custom prompts are reported with the built prompts)."""
        return {
            "enabled": self.enabled,
            "softThresholdTokens": self.soft_threshold_tokens,
            "forceFlushTranscriptBytes": self.force_flush_transcript_bytes,
            "reserveTokensFloor": self.reserve_tokens_floor,
            "model": self.model,
        }


@dataclass(frozen=True)
class ContextSettings:
    """Everything the context reports read from the config for one agent."""

    flush: FlushSettings
    flush_issues: tuple[FileIssue, ...] = ()
    # session keys and the sandbox (`session.*`, `sandbox.mode`, `sandbox.workspaceAccess`)
    main_session_key: str = "agent:main:main"
    sandbox_mode: str = "off"
    workspace_access: str = "none"
    # `agents.defaults.contextTokens` (the flush path's override of the model catalog)
    default_context_tokens: int | None = None
    # `bootstrapMaxChars` / `bootstrapTotalMaxChars`; None = the OpenClaw variant's default
    bootstrap_max_chars: int | None = None
    bootstrap_total_max_chars: int | None = None
    # 2026.9 reads them from the agent's entry first (`resolveBootstrapCharLimit`), then from `agents.defaults`
    agent_bootstrap_max_chars: int | None = None
    agent_bootstrap_total_max_chars: int | None = None
    # `agents.defaults.startupContext`
    startup_enabled: bool = True
    startup_apply_on: tuple[str, ...] = ("new", "reset")
    startup_limits: Mapping[str, int] = field(default_factory=lambda: dict(STARTUP_DEFAULTS))
    # `agents.defaults.userTimezone` (only a zone this system knows) and `timeFormat` ("12" or "24")
    user_timezone: str | None = None
    time_format: str = "12"
    # `agents.defaults.contextLimits` for `memory_get`
    memory_get_max_chars: int = DEFAULT_GET_MAX_CHARS
    memory_get_default_lines: int = DEFAULT_GET_LINES
    # the default agent, and whether its heartbeat prompt section is on (else HEARTBEAT.md is not injected)
    default_agent_id: str = "main"
    heartbeat_section_on: bool = True
    # `agents.defaults.model` (`primary`, or the string) as (provider, model)
    default_model: tuple[str | None, str | None] = (None, None)


def valid_timezone(name: str) -> bool:
    """Whether `name` is an IANA zone this system knows."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # ~1.5 ms (sysconfig): only when a zone is named

    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _block(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _configured_text(block: dict[str, Any], key: str) -> str:
    value = block.get(key)
    return js_trim(value) if isinstance(value, str) else ""


def _flush(raw: dict[str, Any], where: str) -> tuple[FlushSettings, tuple[FileIssue, ...]]:
    """`agents.defaults.compaction`: OpenClaw's flush plan reads no per-agent override."""
    block = _block(get_path(raw, "agents", "defaults", "compaction", "memoryFlush"))
    issues: list[FileIssue] = []
    soft = non_negative_int(block.get("softThresholdTokens"))
    force_raw = block.get("forceFlushTranscriptBytes")
    force = parse_byte_size(force_raw)
    if force_raw is not None and force is None:
        issues.append(FileIssue(where, f"compaction.memoryFlush.forceFlushTranscriptBytes {force_raw!r} is "
                                       "not a byte size (use e.g. 2097152, \"512kb\" or \"2mb\"); using 2mb"))
    floor = non_negative_int(get_path(raw, "agents", "defaults", "compaction", "reserveTokensFloor"))
    model = block.get("model")
    settings = FlushSettings(
        enabled=block.get("enabled") is not False,
        soft_threshold_tokens=DEFAULT_SOFT_THRESHOLD_TOKENS if soft is None else soft,
        force_flush_transcript_bytes=DEFAULT_FORCE_FLUSH_TRANSCRIPT_BYTES if force is None else force,
        reserve_tokens_floor=DEFAULT_RESERVE_TOKENS_FLOOR if floor is None else floor,
        model=js_trim(model) or None if isinstance(model, str) else None,
        prompt=_configured_text(block, "prompt"),
        system_prompt=_configured_text(block, "systemPrompt"),
    )
    return settings, tuple(issues)


def _main_session_key(raw: dict[str, Any], agent_id: str) -> str:
    if get_path(raw, "session", "scope") == "global":
        return "global"
    main_key = get_path(raw, "session", "mainKey")
    main_key = main_key.strip().lower() if isinstance(main_key, str) and main_key.strip() else "main"
    return f"agent:{agent_id}:{main_key}"


def _sandbox(raw: dict[str, Any], entry: dict[str, Any] | None) -> tuple[str, str]:
    defaults = _block(get_path(raw, "agents", "defaults", "sandbox"))
    own = _block(get_path(entry or {}, "sandbox"))
    mode = own.get("mode", defaults.get("mode", "off"))
    access = own.get("workspaceAccess", defaults.get("workspaceAccess", "none"))
    return (mode if mode in ("off", "non-main", "all") else "off",
            access if access in ("none", "ro", "rw") else "none")


def _bootstrap(raw: dict[str, Any], key: str) -> int | None:
    """`agents.defaults.<key>` (OpenClaw's bootstrap budget reads no per-agent override)."""
    return positive_int(get_path(raw, "agents", "defaults", key))


def _agent_bootstrap(raw: dict[str, Any], entry: dict[str, Any] | None, key: str) -> int | None:
    """2026.9.6's `resolveBootstrapCharLimit`: the entry's value if it sets one (a bad one means the default, not
    `agents.defaults`), else `agents.defaults.<key>`."""
    value = (entry or {}).get(key)
    return positive_int(get_path(raw, "agents", "defaults", key) if value is None else value)


def _default_model(raw: dict[str, Any]) -> tuple[str | None, str | None]:
    value = get_path(raw, "agents", "defaults", "model")
    value = value.get("primary") if isinstance(value, dict) else value
    if not isinstance(value, str) or not value.strip():
        return None, None
    provider, _, model = value.strip().partition("/")
    return (provider, model) if model else (None, provider)


def _startup_limits(block: dict[str, Any]) -> dict[str, int]:
    limits = {}
    for key, (default, low, high) in STARTUP_LIMITS.items():
        value = block.get(key)
        numeric = default
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            numeric = math.trunc(value)
        limits[key] = min(high, max(low, numeric))
    return limits


def _positive_config_int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and value > 0 else default


def resolve_context_settings(raw: dict[str, Any], agent_id: str, where: str = "<config>") -> ContextSettings:
    """Read the context settings of `agent_id`. As in OpenClaw 2026.4.29, the flush settings, `contextTokens`
    and the bootstrap budgets come from `agents.defaults` only; the sandbox reads the agent entry over defaults.

    Never raises: a bad `forceFlushTranscriptBytes` becomes a flush issue naming `where`, other bad values
    fall back to their defaults.
    """
    entry = agent_entry(raw, agent_id)
    flush, issues = _flush(raw, where)
    mode, access = _sandbox(raw, entry)
    startup = _block(get_path(raw, "agents", "defaults", "startupContext"))
    apply_on = startup.get("applyOn")
    apply_on = tuple(str(a) for a in apply_on) if isinstance(apply_on, list) and apply_on else ("new", "reset")
    zone = get_path(raw, "agents", "defaults", "userTimezone")
    zone = zone.strip() if isinstance(zone, str) and zone.strip() and valid_timezone(zone.strip()) else None
    limits = _block(get_path(raw, "agents", "defaults", "contextLimits"))
    return ContextSettings(
        flush=flush,
        flush_issues=issues,
        main_session_key=_main_session_key(raw, agent_id),
        sandbox_mode=mode,
        workspace_access=access,
        default_context_tokens=non_negative_int(get_path(raw, "agents", "defaults", "contextTokens")),
        bootstrap_max_chars=_bootstrap(raw, "bootstrapMaxChars"),
        bootstrap_total_max_chars=_bootstrap(raw, "bootstrapTotalMaxChars"),
        agent_bootstrap_max_chars=_agent_bootstrap(raw, entry, "bootstrapMaxChars"),
        agent_bootstrap_total_max_chars=_agent_bootstrap(raw, entry, "bootstrapTotalMaxChars"),
        default_agent_id=default_agent_id(raw),
        heartbeat_section_on=heartbeat_section_on(raw, default_agent_id(raw)),
        default_model=_default_model(raw),
        startup_enabled=startup.get("enabled") is not False,
        startup_apply_on=apply_on,
        startup_limits=_startup_limits(startup),
        user_timezone=zone,
        time_format="24" if get_path(raw, "agents", "defaults", "timeFormat") == "24" else "12",
        memory_get_max_chars=_positive_config_int(limits.get("memoryGetMaxChars"), DEFAULT_GET_MAX_CHARS),
        memory_get_default_lines=_positive_config_int(limits.get("memoryGetDefaultLines"), DEFAULT_GET_LINES),
    )
