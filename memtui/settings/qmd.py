"""`memory.qmd` settings with OpenClaw 2026.4.29's code defaults (§11.5)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memtui.errors import ConfigError
from memtui.settings.raw import get_path

SEARCH_MODES = ("search", "vsearch", "query")
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")
_UNIT_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


def parse_duration_ms(value: Any, default_ms: int, *, default_unit: str = "ms", where: str = "") -> int:
    """`"5m"`, `"60m"`, `"30s"`, `"1h"` or a number (in `default_unit`) → milliseconds."""
    if value is None:
        return default_ms
    if isinstance(value, bool):
        raise ConfigError(f"{where}: expected a duration like \"5m\", got {value!r}")
    match = _DURATION.match(str(value))
    if not match:
        raise ConfigError(f"{where}: expected a duration like \"5m\" or \"30s\", got {value!r}")
    return int(float(match.group(1)) * _UNIT_MS[match.group(2) or default_unit])


@dataclass(frozen=True)
class QmdPath:
    """One `memory.qmd.paths[]` entry."""

    path: str
    name: str | None = None
    pattern: str = "**/*.md"


@dataclass(frozen=True)
class QmdSettings:
    """Resolved `memory.qmd` block."""

    command: str = "qmd"
    node_dir: str | None = None
    search_mode: str = "search"
    include_default_memory: bool = True
    paths: tuple[QmdPath, ...] = ()
    sessions_enabled: bool = False
    sessions_export_dir: str | None = None
    sessions_retention_days: int | None = None
    update_interval_ms: int = 5 * 60_000
    debounce_ms: int = 15_000
    on_boot: bool = True
    embed_interval_ms: int = 60 * 60_000
    command_timeout_ms: int = 30_000
    update_timeout_ms: int = 120_000
    embed_timeout_ms: int = 120_000
    max_results: int = 4
    max_snippet_chars: int = 450
    max_injected_chars: int = 2200
    timeout_ms: int = 4000
    scope: dict[str, Any] | None = field(default=None, hash=False)


def _int(block: Mapping[str, Any], key: str, default: int, where: str) -> int:
    value = block.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise ConfigError(f"{where}.{key}: expected a positive number, got {value!r}")
    return int(value)


def _block(raw: Any, *keys: str) -> dict[str, Any]:
    value = get_path(raw, *keys)
    return value if isinstance(value, dict) else {}


def resolve_qmd_settings(raw: dict[str, Any], environ: Mapping[str, str] | None = None) -> QmdSettings:
    """Read `memory.qmd` (command: config, else `$MEMTUI_QMD_BIN`, else `qmd`; only its first token)."""
    environ = os.environ if environ is None else environ
    qmd = _block(raw, "memory", "qmd")
    where = "memory.qmd"
    command_raw = qmd.get("command") or environ.get("MEMTUI_QMD_BIN") or "qmd"
    if not isinstance(command_raw, str) or not command_raw.split():
        raise ConfigError(f"{where}.command: expected the qmd binary, got {command_raw!r}")
    mode = qmd.get("searchMode", "search")
    if mode not in SEARCH_MODES:
        raise ConfigError(f"{where}.searchMode: use one of {', '.join(SEARCH_MODES)}, got {mode!r}")
    paths = []
    for index, entry in enumerate(qmd.get("paths") or []):
        entry = {"path": entry} if isinstance(entry, str) else entry
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) or not entry["path"].strip():
            raise ConfigError(f"{where}.paths[{index}]: expected {{path, name?, pattern?}}, got {entry!r}")
        paths.append(QmdPath(entry["path"], entry.get("name") or None, entry.get("pattern") or "**/*.md"))
    sessions = _block(qmd, "sessions")
    update = _block(qmd, "update")
    limits = _block(qmd, "limits")
    scope = qmd.get("scope")
    if scope is not None and not isinstance(scope, dict):
        raise ConfigError(f"{where}.scope: expected {{default?, rules?}}, got {scope!r}")
    retention = sessions.get("retentionDays")
    return QmdSettings(
        command=command_raw.split()[0],
        node_dir=environ.get("MEMTUI_QMD_NODE_DIR") or None,
        search_mode=mode,
        include_default_memory=qmd.get("includeDefaultMemory", True) is not False,
        paths=tuple(paths),
        sessions_enabled=sessions.get("enabled") is True,
        sessions_export_dir=sessions.get("exportDir") or None,
        sessions_retention_days=int(retention) if isinstance(retention, int | float) and retention > 0 else None,
        update_interval_ms=parse_duration_ms(update.get("interval"), 5 * 60_000, default_unit="m",
                                             where=f"{where}.update.interval"),
        debounce_ms=_int(update, "debounceMs", 15_000, f"{where}.update"),
        on_boot=update.get("onBoot", True) is not False,
        embed_interval_ms=parse_duration_ms(update.get("embedInterval"), 60 * 60_000, default_unit="m",
                                            where=f"{where}.update.embedInterval"),
        command_timeout_ms=_int(update, "commandTimeoutMs", 30_000, f"{where}.update"),
        update_timeout_ms=_int(update, "updateTimeoutMs", 120_000, f"{where}.update"),
        embed_timeout_ms=_int(update, "embedTimeoutMs", 120_000, f"{where}.update"),
        max_results=_int(limits, "maxResults", 4, f"{where}.limits"),
        max_snippet_chars=_int(limits, "maxSnippetChars", 450, f"{where}.limits"),
        max_injected_chars=_int(limits, "maxInjectedChars", 2200, f"{where}.limits"),
        timeout_ms=_int(limits, "timeoutMs", 4000, f"{where}.limits"),
        scope=scope,
    )
