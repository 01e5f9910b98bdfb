"""The bundled demo: an OpenClaw state dir with weeks of memory, installed with its dates moved to today."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from importlib.resources import files
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import json5

from memtui.errors import PathError
from memtui.settings.paths import legacy_memtui_dir, sessions_dir

DEMO_AGENT_ID = "main"
WORKSPACE_PLACEHOLDER = '"__DEMO_WORKSPACE__"'
MS_PER_DAY = 86_400_000

_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?![\d])")
_DAILY_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:-[^/]*)?\.md$")
_MS_FIELDS = re.compile(
    r'("(?:timestamp|updatedAt|sessionStartedAt|lastInteractionAt|memoryFlushAt)":\s*)(\d{12,14})(?![\d.])'
)
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DIARY_DATE = re.compile(
    r"\*(" + "|".join(_MONTHS) + r") (\d{1,2}), (\d{4}) at (\d{1,2}):(\d{2}) (AM|PM) ([A-Za-z0-9+-]+)\*"
)
_SESSION_HEADER = re.compile(r"^(# Session: )(\d{4}-\d{2}-\d{2}) (\d{2}):(\d{2}):(\d{2}) (\S+)$", re.MULTILINE)


@dataclass(frozen=True)
class DemoPaths:
    """Where an installed demo lives, and how far its dates were moved."""

    root: Path
    state_dir: Path
    config_path: Path
    workspace_dir: Path
    sessions_dir: Path
    store_path: Path
    agent_id: str
    today: date
    shift_days: int


def _bundled_state() -> Path:
    source = Path(str(files(__name__).joinpath("data", "state")))
    if not (source / "openclaw.json").is_file():
        raise PathError(f"the bundled demo data is missing from {source}", "reinstall memtui")
    return source


def newest_daily_date(memory_dir: Path) -> date:
    """The date of the newest `memory/YYYY-MM-DD*.md` file in a memory folder."""
    dates = []
    for path in memory_dir.glob("*.md"):
        match = _DAILY_NAME.match(path.name)
        if match:
            dates.append(date.fromisoformat(match.group(1)))
    if not dates:
        raise PathError(f"no daily logs (YYYY-MM-DD.md) in {memory_dir}")
    return max(dates)


def _shift_iso_dates(text: str, days: int) -> str:
    def repl(match: re.Match[str]) -> str:
        try:
            moved = date(int(match.group(1)), int(match.group(2)), int(match.group(3))) + timedelta(days=days)
        except ValueError:
            return match.group(0)
        return moved.isoformat()

    return _ISO_DATE.sub(repl, text)


def _zone_name(moment: datetime, zone: ZoneInfo | None, fallback: str) -> str:
    if zone is None:
        return fallback
    return moment.replace(tzinfo=zone).tzname() or fallback


def _shift_diary_dates(text: str, days: int, zone: ZoneInfo | None) -> str:
    def repl(match: re.Match[str]) -> str:
        month, day, year, hour, minute, half, tz = match.groups()
        moved = date(int(year), _MONTHS.index(month) + 1, int(day)) + timedelta(days=days)
        hour24 = int(hour) % 12 + (12 if half == "PM" else 0)
        local = datetime(moved.year, moved.month, moved.day, hour24, int(minute))
        return f"*{_MONTHS[moved.month - 1]} {moved.day}, {moved.year} at {hour}:{minute} {half} " \
               f"{_zone_name(local, zone, tz)}*"

    return _DIARY_DATE.sub(repl, text)


def _fix_session_headers(text: str, zone: ZoneInfo | None) -> str:
    def repl(match: re.Match[str]) -> str:
        prefix, day, hour, minute, second, tz = match.groups()
        local = datetime.fromisoformat(f"{day}T{hour}:{minute}:{second}")
        return f"{prefix}{day} {hour}:{minute}:{second} {_zone_name(local, zone, tz)}"

    return _SESSION_HEADER.sub(repl, text)


def _shift_ms_fields(text: str, days: int) -> str:
    return _MS_FIELDS.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + days * MS_PER_DAY}", text)


def _demo_zone(config_text: str) -> ZoneInfo | None:
    name = json5.loads(config_text).get("agents", {}).get("defaults", {}).get("userTimezone")
    try:
        return ZoneInfo(name) if isinstance(name, str) else None
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _rewrite(rel: Path, text: str, days: int, zone: ZoneInfo | None, workspace: Path) -> str:
    text = _shift_iso_dates(text, days)
    if rel.suffix in (".json", ".jsonl"):
        text = _shift_ms_fields(text, days)
        text = text.replace(WORKSPACE_PLACEHOLDER, json.dumps(str(workspace)))
    elif rel.suffix == ".md":
        text = _shift_diary_dates(text, days, zone)
        text = _fix_session_headers(text, zone)
    return text


def _daily_mtime(day: date) -> float:
    evening = datetime(day.year, day.month, day.day, 18, 0).timestamp()
    return min(evening, time.time())


def _copy_tree(source: Path, staging: Path, final_state: Path, days: int) -> None:
    zone = _demo_zone((source / "openclaw.json").read_text(encoding="utf-8"))
    workspace = final_state / "workspace"
    for path in sorted(source.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(source)
        rel = rel.with_name(_shift_iso_dates(rel.name, days))
        out = staging / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        text = _rewrite(rel, path.read_text(encoding="utf-8"), days, zone, workspace)
        out.write_text(text, encoding="utf-8", newline="\n")
        match = _DAILY_NAME.match(rel.name) if rel.parent.name == "memory" else None
        if match:
            stamp = _daily_mtime(date.fromisoformat(match.group(1)))
            os.utime(out, (stamp, stamp))


def install_demo(target: Path, *, today: date | None = None) -> DemoPaths:
    """Copy the bundled demo into `<target>/state` (target must be new or empty), moving every date so the
    newest daily log is `today`; the config's workspace points at the copy."""
    target = Path(target).expanduser().resolve()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise PathError(f"{target} is not an empty directory", "choose a new or empty directory for the demo")
    today = today or date.today()
    target.mkdir(parents=True, exist_ok=True)
    state = target / "state"
    source = _bundled_state()
    days = (today - newest_daily_date(source / "workspace" / "memory")).days
    staging = Path(tempfile.mkdtemp(prefix=".state-", dir=target))
    try:
        _copy_tree(source, staging, state, days)
        os.replace(staging, state)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return DemoPaths(
        root=target,
        state_dir=state,
        config_path=state / "openclaw.json",
        workspace_dir=state / "workspace",
        sessions_dir=sessions_dir(state, DEMO_AGENT_ID),
        store_path=legacy_memtui_dir(state) / f"{DEMO_AGENT_ID}.sqlite",  # the demo's own folder
        agent_id=DEMO_AGENT_ID,
        today=today,
        shift_days=days,
    )
