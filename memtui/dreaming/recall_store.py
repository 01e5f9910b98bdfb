"""The short-term recall store under `<ws>/memory/.dreams/` (§12.3): file shapes, keys and hashes."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memtui.agentdb.plugin_state import bound_database, short_term_store
from memtui.atomic import atomic_write_text
from memtui.dreaming.concepts import MAX_CONCEPT_TAGS, derive_concept_tags
from memtui.dreaming.contamination import is_contaminated_snippet
from memtui.errors import MemtuiError, StoreError
from memtui.jscompat import js_number, js_squash, js_stringify, js_trim_end, parse_json, sha1_hex

DREAMS_DIR = Path("memory") / ".dreams"
RECALL_STORE_NAME = "short-term-recall.json"
PHASE_SIGNALS_NAME = "phase-signals.json"
MAX_QUERY_HASHES = 32
MAX_RECALL_DAYS = 16

_SHORT_TERM_PATH_RE = re.compile(r"(?:^|/)memory/(?:[^/]+/)*\d{4}-\d{2}-\d{2}\.md$")
_SESSION_CORPUS_RE = re.compile(r"(?:^|/)memory/\.dreams/session-corpus/\d{4}-\d{2}-\d{2}\.(?:md|txt)$")
_DAY_FILE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}\.md$")
_DREAMING_REPORT_RE = re.compile(r"(?:^|/)memory/dreaming/")
_ISO_DAY_RE = re.compile(r"^(\d{4}-\d{2}-\d{2})")


class DreamingError(MemtuiError):
    """Dreaming state cannot be read or written."""


def iso_ms(moment: datetime) -> str:
    """`Date.prototype.toISOString()`: UTC with milliseconds and a `Z`."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def js_float(value: float) -> float | int:
    """A whole float as an int, so JSON output matches JavaScript (`1`, not `1.0`)."""
    return int(value) if float(value).is_integer() else value


def parse_iso(text: str) -> datetime | None:
    """Parse an ISO timestamp (with `Z` or offset); None when unparseable."""
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (TypeError, ValueError):
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def normalize_path(path: str) -> str:
    """Forward slashes, no leading `./`."""
    text = path.replace("\\", "/")
    return text[2:] if text.startswith("./") else text


def is_short_term_path(path: str) -> bool:
    """`memory/**/YYYY-MM-DD.md`, a session-corpus day file or a bare `YYYY-MM-DD.md`; nothing under
    `memory/dreaming/`, and no slug file (`YYYY-MM-DD-<slug>.md`)."""
    text = normalize_path(path)
    if _DREAMING_REPORT_RE.search(text):
        return False
    return bool(_SHORT_TERM_PATH_RE.search(text) or _SESSION_CORPUS_RE.search(text) or _DAY_FILE_RE.match(text))


def normalize_snippet(text: str) -> str:
    """Trim and collapse all whitespace runs to one space (JavaScript's whitespace)."""
    return js_squash(text)


def hash_query(query: str) -> str:
    """`sha1(lower(query))[:12]`."""
    return sha1_hex(query.strip().lower())[:12]


def claim_hash(snippet: str) -> str:
    """`sha1(normalized snippet)[:12]`."""
    return sha1_hex(normalize_snippet(snippet))[:12]


def entry_key(path: str, start_line: float, end_line: float, claim: str | None = None) -> str:
    """`memory:<path>:<start>:<end>[:<claimHash>]` (line numbers printed as JavaScript prints them)."""
    base = f"memory:{normalize_path(path)}:{js_number(start_line)}:{js_number(end_line)}"
    return f"{base}:{claim}" if claim else base


def iso_day(value: Any) -> str | None:
    """The `YYYY-MM-DD` an ISO-like string starts with."""
    match = _ISO_DAY_RE.match(str(value).strip())
    return match.group(1) if match else None


def distinct_strings(values: list[Any], limit: int) -> list[str]:
    """The first `limit` distinct non-empty trimmed strings."""
    out: list[str] = []
    for value in values:
        if isinstance(value, str) and value.strip() and value.strip() not in out:
            out.append(value.strip())
            if len(out) >= limit:
                break
    return out


def merge_recent(values: list[str], value: str, limit: int) -> list[str]:
    """Distinct values in first-seen order with `value` appended, keeping the newest `limit`."""
    merged = list(dict.fromkeys(v for v in values if v))
    if value and value not in merged:
        merged.append(value)
    return merged[-limit:]


@dataclass
class RecallEntry:
    """One short-term recall entry (a snippet of a daily note or session-corpus file)."""

    key: str
    path: str
    start_line: int
    end_line: int
    snippet: str
    recall_count: int = 0
    daily_count: int = 0
    grounded_count: int = 0
    total_score: float = 0.0
    max_score: float = 0.0
    first_recalled_at: str = ""
    last_recalled_at: str = ""
    query_hashes: list[str] = field(default_factory=list)
    recall_days: list[str] = field(default_factory=list)
    concept_tags: list[str] = field(default_factory=list)
    claim_hash: str | None = None
    promoted_at: str | None = None

    @property
    def signal_count(self) -> int:
        """recallCount + dailyCount + groundedCount."""
        return max(0, self.recall_count) + max(0, self.daily_count) + max(0, self.grounded_count)

    def to_json(self) -> dict[str, Any]:
        """The OpenClaw JSON shape, in its field order."""
        data: dict[str, Any] = {
            "key": self.key,
            "path": self.path,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "source": "memory",
            "snippet": self.snippet,
            "recallCount": self.recall_count,
            "dailyCount": self.daily_count,
            "groundedCount": self.grounded_count,
            "totalScore": js_float(self.total_score),
            "maxScore": js_float(self.max_score),
            "firstRecalledAt": self.first_recalled_at,
            "lastRecalledAt": self.last_recalled_at,
            "queryHashes": self.query_hashes,
            "recallDays": self.recall_days,
            "conceptTags": self.concept_tags,
        }
        if self.claim_hash:
            data["claimHash"] = self.claim_hash
        if self.promoted_at:
            data["promotedAt"] = self.promoted_at
        return data

    @classmethod
    def from_json(cls, key: str, raw: Any, now_iso: str) -> RecallEntry | None:
        """One stored entry as OpenClaw's `normalizeStore` reads it; None when it is not a valid `memory`
        entry or its snippet is dreaming output."""
        if not isinstance(raw, dict) or raw.get("source") != "memory" or not isinstance(raw.get("path"), str):
            return None
        path = normalize_path(raw["path"])
        start, end = _js_integer(raw.get("startLine")), _js_integer(raw.get("endLine"))
        if not path or start is None or end is None:
            return None
        snippet = normalize_snippet(raw["snippet"]) if isinstance(raw.get("snippet"), str) else ""
        if snippet and is_contaminated_snippet(snippet):
            return None
        tags = raw.get("conceptTags")
        claim = raw.get("claimHash")
        return cls(
            key=key or entry_key(path, start, end, claim.strip() if isinstance(claim, str) else None),
            path=path,
            start_line=start,
            end_line=end,
            snippet=snippet,
            recall_count=_js_count(raw.get("recallCount")),
            daily_count=_js_count(raw.get("dailyCount")),
            grounded_count=_js_count(raw.get("groundedCount")),
            total_score=max(0.0, _js_number_or_zero(raw.get("totalScore"))),
            max_score=max(0.0, min(1.0, _js_number_or_zero(raw.get("maxScore")))),
            first_recalled_at=raw["firstRecalledAt"] if isinstance(raw.get("firstRecalledAt"), str) else now_iso,
            last_recalled_at=raw["lastRecalledAt"] if isinstance(raw.get("lastRecalledAt"), str) else now_iso,
            query_hashes=distinct_strings(raw["queryHashes"], MAX_QUERY_HASHES)
            if isinstance(raw.get("queryHashes"), list) else [],
            recall_days=[d for d in (iso_day(v) for v in raw["recallDays"]) if d][-MAX_RECALL_DAYS:]
            if isinstance(raw.get("recallDays"), list) else [],
            concept_tags=distinct_strings([t.strip().lower() if isinstance(t, str) else t for t in tags],
                                          MAX_CONCEPT_TAGS) if isinstance(tags, list)
            else derive_concept_tags(path, snippet),
            claim_hash=claim.strip() if isinstance(claim, str) and claim.strip() else None,
            promoted_at=raw["promotedAt"] if isinstance(raw.get("promotedAt"), str) else None,
        )


def _js_value(value: Any) -> float | None:
    """JavaScript `Number(value)` for the JSON values a store can hold (None for NaN)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    if value is None:
        return 0.0
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _js_integer(value: Any) -> int | None:
    number = _js_value(value) if value is not None else None
    return int(number) if number is not None and number.is_integer() else None


def _js_count(value: Any) -> int:
    return max(0, math.floor(_js_number_or_zero(value)))


def _js_number_or_zero(value: Any) -> float:
    """`Number(value) || 0`."""
    number = _js_value(value)
    return number if number else 0.0


@dataclass
class PhaseSignal:
    """Light/REM revisits of one recall key (`phase-signals.json`)."""

    key: str
    light_hits: int = 0
    rem_hits: int = 0
    last_light_at: str | None = None
    last_rem_at: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The OpenClaw JSON shape."""
        data: dict[str, Any] = {"key": self.key, "lightHits": self.light_hits, "remHits": self.rem_hits}
        if self.last_light_at:
            data["lastLightAt"] = self.last_light_at
        if self.last_rem_at:
            data["lastRemAt"] = self.last_rem_at
        return data


@dataclass
class RecallStore:
    """`short-term-recall.json`: `{version:1, updatedAt, entries:{key: entry}}`."""

    updated_at: str = ""
    entries: dict[str, RecallEntry] = field(default_factory=dict)


@dataclass
class PhaseSignalStore:
    """`phase-signals.json`: `{version:1, updatedAt, entries:{key: signal}}`."""

    updated_at: str = ""
    entries: dict[str, PhaseSignal] = field(default_factory=dict)


def dreams_dir(workspace_dir: Path) -> Path:
    """`<ws>/memory/.dreams`."""
    return workspace_dir / DREAMS_DIR


def refuse_2026_4_state(workspace_dir: Path) -> None:
    """Raise DreamingError when `workspace_dir` belongs to an OpenClaw 2026.9 agent: its dreaming state lives in
    the global database, and a 2026.4 file here is what `openclaw doctor --fix` imports as the agent's own."""
    database = bound_database(workspace_dir)
    if database is not None:
        raise DreamingError(
            f"{workspace_dir} is an OpenClaw 2026.9 agent's workspace: 2026.9 keeps the dreaming state (short-term "
            f"recalls, phase signals, ingestion) in its global database {database} (table plugin_state_entries, "
            "plugin memory-core), which memtui reads but never writes; memtui does not write 2026.4's "
            "memory/.dreams/*.json here either, since `openclaw doctor --fix` would import it as the agent's own "
            "recall state",
            "let OpenClaw write it: `openclaw memory promote --apply` promotes, OpenClaw's dreaming runs the sweep "
            "(`memtui promote` and `promote-explain` show its candidates read-only)")


def _state(workspace_dir: Path, name: str, kind: str) -> Any:
    """The raw store: 2026.4's JSON file, or for a 2026.9 workspace the same object from OpenClaw's database."""
    database = bound_database(workspace_dir)
    if database is None:
        return read_json_state(dreams_dir(workspace_dir) / name)
    try:
        return short_term_store(database, workspace_dir, kind)
    except StoreError as exc:
        raise DreamingError(exc.message, exc.hint) from None


def read_json_state(path: Path) -> Any:
    """Parse a JSON state file; None when missing; a clear error (file untouched) when corrupt."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DreamingError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not text.strip():
        return None
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        raise DreamingError(
            f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})",
            "fix it by hand or move it aside; memtui will start a fresh one",
        ) from exc


def write_json_state(path: Path, data: Any, *, root: Path | None = None) -> None:
    """Write JSON as `JSON.stringify(data, null, 2)` plus a newline, atomically (refused in a 2026.9 workspace,
    `root`)."""
    if root is not None:
        refuse_2026_4_state(root)
    atomic_write_text(path, js_stringify(data, 2) + "\n", root=root)


def load_recall_store(workspace_dir: Path, now_iso: str = "") -> RecallStore:
    """Read `short-term-recall.json` (empty store when missing) — for a 2026.9 workspace the recall rows of
    OpenClaw's global database, read-only; invalid and contaminated entries are dropped; missing timestamps read
    as `now_iso`."""
    raw = _state(workspace_dir, RECALL_STORE_NAME, "recall")
    if not isinstance(raw, dict):
        return RecallStore(updated_at=now_iso)
    updated = raw.get("updatedAt")
    store = RecallStore(updated_at=updated if isinstance(updated, str) else now_iso)
    entries = raw.get("entries")
    for key, value in entries.items() if isinstance(entries, dict) else []:
        entry = RecallEntry.from_json(key, value, now_iso)
        if entry is not None:
            store.entries[entry.key] = entry
    return store


def save_recall_store(workspace_dir: Path, store: RecallStore) -> None:
    """Write `short-term-recall.json` atomically."""
    data = {
        "version": 1,
        "updatedAt": store.updated_at,
        "entries": {key: entry.to_json() for key, entry in store.entries.items()},
    }
    write_json_state(dreams_dir(workspace_dir) / RECALL_STORE_NAME, data, root=workspace_dir)


def load_phase_signals(workspace_dir: Path, now_iso: str = "") -> PhaseSignalStore:
    """Read `phase-signals.json` like OpenClaw's `normalizePhaseSignalStore` (empty when missing or corrupt) — for a
    2026.9 workspace the phase rows of OpenClaw's global database."""
    try:
        raw = _state(workspace_dir, PHASE_SIGNALS_NAME, "phase")
    except DreamingError:
        raw = None
    entries = raw.get("entries") if isinstance(raw, dict) else None
    if not isinstance(entries, dict):
        return PhaseSignalStore(updated_at=now_iso)
    updated = raw.get("updatedAt")
    store = PhaseSignalStore(updated_at=updated if isinstance(updated, str) and updated.strip() else now_iso)
    for map_key, value in entries.items():
        if not isinstance(value, dict):
            continue
        own = value.get("key")
        key = own if isinstance(own, str) and own.strip() else map_key
        light, rem = _js_count(value.get("lightHits")), _js_count(value.get("remHits"))
        if light == 0 and rem == 0:
            continue
        stamps = [value.get(name) if isinstance(value.get(name), str) and value[name].strip() else None
                  for name in ("lastLightAt", "lastRemAt")]
        store.entries[key] = PhaseSignal(key=key, light_hits=light, rem_hits=rem, last_light_at=stamps[0],
                                         last_rem_at=stamps[1])
    return store


def save_phase_signals(workspace_dir: Path, store: PhaseSignalStore) -> None:
    """Write `phase-signals.json` atomically."""
    data = {
        "version": 1,
        "updatedAt": store.updated_at,
        "entries": {key: signal.to_json() for key, signal in store.entries.items()},
    }
    write_json_state(dreams_dir(workspace_dir) / PHASE_SIGNALS_NAME, data, root=workspace_dir)


def repair_recall_store(workspace_dir: Path, now_iso: str) -> tuple[bool, int]:
    """OpenClaw's `repairShortTermPromotionArtifacts` for the store: invalid entries dropped, concept tags
    re-derived, the last recall day added to `recallDays`; rewritten only when that changes the file.
    Returns (rewritten, invalid entries removed)."""
    path = dreams_dir(workspace_dir) / RECALL_STORE_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return False, 0
    raw = json.loads(text) if text.strip() else {"version": 1, "updatedAt": now_iso, "entries": {}}
    raw_count = len(raw.get("entries") or {}) if isinstance(raw, dict) and isinstance(raw.get("entries"), dict) \
        else 0
    store = load_recall_store(workspace_dir, now_iso)
    for entry in store.entries.values():
        entry.concept_tags = derive_concept_tags(entry.path, entry.snippet) or entry.concept_tags
        entry.query_hashes = entry.query_hashes[-MAX_QUERY_HASHES:]
        fallback = iso_day(entry.last_recalled_at) or now_iso[:10]
        entry.recall_days = merge_recent(entry.recall_days, fallback, MAX_RECALL_DAYS)
    comparable = {"version": 1, "updatedAt": store.updated_at,
                  "entries": {key: entry.to_json() for key, entry in store.entries.items()}}
    if js_stringify(comparable, 2) + "\n" == js_trim_end(text) + "\n":
        return False, max(0, raw_count - len(store.entries))
    store.updated_at = now_iso
    save_recall_store(workspace_dir, store)
    return True, max(0, raw_count - len(store.entries))
