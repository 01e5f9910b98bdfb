"""Dreaming settings (§12.1–12.2) from `plugins.entries.memory-core.config.dreaming`, and its zone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any

from memtui.errors import ConfigError
from memtui.settings.raw import get_path

STORAGE_MODES = ("inline", "separate", "both")


@dataclass(frozen=True)
class LightSettings:
    """Light phase defaults."""

    enabled: bool = True
    lookback_days: int = 2
    limit: int = 100
    dedupe_similarity: float = 0.9


@dataclass(frozen=True)
class RemSettings:
    """REM phase defaults."""

    enabled: bool = True
    lookback_days: int = 7
    limit: int = 10
    min_pattern_strength: float = 0.75


@dataclass(frozen=True)
class DeepSettings:
    """Deep phase defaults."""

    enabled: bool = True
    limit: int = 10
    min_score: float = 0.8
    min_recall_count: int = 3
    min_unique_queries: int = 3
    recency_half_life_days: float = 14.0
    max_age_days: float = 30.0


@dataclass(frozen=True)
class DreamingSettings:
    """Resolved dreaming configuration."""

    enabled: bool = False
    timezone: str | None = None
    storage_mode: str = "separate"
    separate_reports: bool = False
    light: LightSettings = LightSettings()
    rem: RemSettings = RemSettings()
    deep: DeepSettings = DeepSettings()

    @property
    def writes_inline(self) -> bool:
        """Phase blocks go into today's daily note (`inline`, `both`)."""
        return self.storage_mode in ("inline", "both")

    @property
    def writes_reports(self) -> bool:
        """Phase reports go to `memory/dreaming/<phase>/<day>.md` (`separate`, `both`, `separateReports`)."""
        return self.storage_mode in ("separate", "both") or self.separate_reports

    def tz(self) -> tzinfo:
        """The configured zone, else the local zone."""
        return resolve_timezone(self.timezone)


def resolve_timezone(name: str | None) -> tzinfo:
    """An IANA zone by name; the system's local zone when `name` is empty."""
    if not name:
        local = datetime.now().astimezone().tzinfo
        return local if local is not None else UTC
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError  # only when a zone is named (a search records recalls)

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(
            f"unknown timezone {name!r} in the dreaming config; use an IANA name like Europe/Paris"
        ) from exc


def _number(block: Any, key: str, default: float) -> float:
    value = block.get(key) if isinstance(block, dict) else None
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ConfigError(f"dreaming setting {key!r} must be a non-negative number, got {value!r}")
    return float(value)


def _flag(block: Any) -> bool:
    """`phases.<phase>.enabled` (on unless `false`)."""
    return not (isinstance(block, dict) and block.get("enabled") is False)


def dreaming_settings(raw: dict[str, Any]) -> DreamingSettings:
    """Read `plugins.entries.memory-core.config.dreaming` (timezone falls back to `userTimezone`)."""
    block = get_path(raw, "plugins", "entries", "memory-core", "config", "dreaming")
    block = block if isinstance(block, dict) else {}
    timezone = block.get("timezone") or get_path(raw, "agents", "defaults", "userTimezone")
    mode = get_path(block, "storage", "mode") or "separate"
    if mode not in STORAGE_MODES:
        raise ConfigError(f"dreaming.storage.mode must be one of {', '.join(STORAGE_MODES)}, got {mode!r}")
    light_block = get_path(block, "phases", "light")
    rem_block = get_path(block, "phases", "rem")
    deep_block = get_path(block, "phases", "deep")
    light_defaults, rem_defaults, deep_defaults = LightSettings(), RemSettings(), DeepSettings()
    return DreamingSettings(
        enabled=block.get("enabled") is True,
        timezone=timezone if isinstance(timezone, str) else None,
        storage_mode=mode,
        separate_reports=get_path(block, "storage", "separateReports") is True,
        rem=RemSettings(
            enabled=_flag(rem_block),
            lookback_days=int(_number(rem_block, "lookbackDays", rem_defaults.lookback_days)),
            limit=int(_number(rem_block, "limit", rem_defaults.limit)),
            min_pattern_strength=_number(rem_block, "minPatternStrength", rem_defaults.min_pattern_strength),
        ),
        light=LightSettings(
            enabled=_flag(light_block),
            lookback_days=int(_number(light_block, "lookbackDays", light_defaults.lookback_days)),
            limit=int(_number(light_block, "limit", light_defaults.limit)),
            dedupe_similarity=_number(light_block, "dedupeSimilarity", light_defaults.dedupe_similarity),
        ),
        deep=DeepSettings(
            enabled=_flag(deep_block),
            limit=int(_number(deep_block, "limit", deep_defaults.limit)),
            min_score=_number(deep_block, "minScore", deep_defaults.min_score),
            min_recall_count=int(_number(deep_block, "minRecallCount", deep_defaults.min_recall_count)),
            min_unique_queries=int(_number(deep_block, "minUniqueQueries", deep_defaults.min_unique_queries)),
            recency_half_life_days=_number(
                deep_block, "recencyHalfLifeDays", deep_defaults.recency_half_life_days
            ),
            max_age_days=_number(deep_block, "maxAgeDays", deep_defaults.max_age_days),
        ),
    )
