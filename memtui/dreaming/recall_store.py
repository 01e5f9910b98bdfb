"""The short-term recall store under `<ws>/memory/.dreams/` (§12.3): file shapes, keys and hashes."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memtui.atomic import atomic_write_text
from memtui.errors import MemtuiError
from memtui.jscompat import sha1_hex

DREAMS_DIR = Path("memory") / ".dreams"
RECALL_STORE_NAME = "short-term-recall.json"
PHASE_SIGNALS_NAME = "phase-signals.json"
MAX_QUERY_HASHES = 32
MAX_RECALL_DAYS = 16
MAX_CONCEPT_TAGS = 8

_SHORT_TERM_PATH_RE = re.compile(r"(?:^|/)memory/(?:[^/]+/)*\d{4}-\d{2}-\d{2}(?:-[^/]+)?\.md$")
_SESSION_CORPUS_RE = re.compile(r"(?:^|/)memory/\.dreams/session-corpus/\d{4}-\d{2}-\d{2}\.(?:md|txt)$")
_DREAMING_REPORT_RE = re.compile(r"(?:^|/)memory/dreaming/")
_CONCEPT_TOKEN_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{2,}")
_CONCEPT_STOP_WORDS = frozenset(
    [
        "about",
        "after",
        "agent",
        "again",
        "also",
        "because",
        "before",
        "being",
        "between",
        "build",
        "called",
        "could",
        "daily",
        "default",
        "deploy",
        "during",
        "every",
        "file",
        "files",
        "from",
        "have",
        "into",
        "just",
        "line",
        "lines",
        "long",
        "main",
        "make",
        "memory",
        "month",
        "more",
        "most",
        "move",
        "much",
        "next",
        "note",
        "notes",
        "over",
        "part",
        "past",
        "port",
        "same",
        "score",
        "search",
        "session",
        "sessions",
        "short",
        "should",
        "since",
        "some",
        "than",
        "that",
        "their",
        "there",
        "these",
        "they",
        "this",
        "through",
        "today",
        "using",
        "with",
        "work",
        "workspace",
        "year",
        "cjs",
        "cts",
        "jsx",
        "json",
        "md",
        "mjs",
        "mts",
        "text",
        "toml",
        "ts",
        "tsx",
        "txt",
        "yaml",
        "yml",
    ]
)


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
    """`memory/**/YYYY-MM-DD.md` or a session-corpus day file, but nothing under `memory/dreaming/`."""
    text = normalize_path(path)
    if _DREAMING_REPORT_RE.search(text):
        return False
    return bool(_SHORT_TERM_PATH_RE.search(text) or _SESSION_CORPUS_RE.search(text))


def normalize_snippet(text: str) -> str:
    """Trim and collapse all whitespace runs to one space."""
    return " ".join(text.split())


def hash_query(query: str) -> str:
    """`sha1(lower(query))[:12]`."""
    return sha1_hex(query.strip().lower())[:12]


def claim_hash(snippet: str) -> str:
    """`sha1(normalized snippet)[:12]`."""
    return sha1_hex(normalize_snippet(snippet))[:12]


def entry_key(path: str, start_line: int, end_line: int, claim: str | None = None) -> str:
    """`memory:<path>:<start>:<end>[:<claimHash>]`."""
    base = f"memory:{normalize_path(path)}:{start_line}:{end_line}"
    return f"{base}:{claim}" if claim else base


def derive_concept_tags(path: str, snippet: str, limit: int = MAX_CONCEPT_TAGS) -> list[str]:
    """Distinct lower-case word-like tokens of the file name and snippet, minus stop words and dates."""
    tags: list[str] = []
    for raw in _CONCEPT_TOKEN_RE.findall(f"{Path(path).name} {snippet}"):
        token = raw.strip("./_-").replace("_", "-").lower()
        if not 3 <= len(token) <= 32 or token.isdigit() or re.fullmatch(r"\d{4}-\d{2}-\d{2}", token):
            continue
        if token in _CONCEPT_STOP_WORDS or token in tags:
            continue
        tags.append(token)
        if len(tags) >= limit:
            break
    return tags


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
    def from_json(cls, key: str, raw: Any) -> RecallEntry | None:
        """Parse one stored entry; None when it is not a valid `memory` entry."""
        if not isinstance(raw, dict) or raw.get("source") != "memory":
            return None
        path, start, end = raw.get("path"), raw.get("startLine"), raw.get("endLine")
        if not isinstance(path, str) or not path or not isinstance(start, int) or not isinstance(end, int):
            return None

        def count(name: str) -> int:
            value = raw.get(name)
            return max(0, int(value)) if isinstance(value, (int, float)) else 0

        def strings(name: str, limit: int) -> list[str]:
            value = raw.get(name)
            items = (
                [v.strip() for v in value if isinstance(v, str) and v.strip()]
                if isinstance(value, list)
                else []
            )
            return list(dict.fromkeys(items))[-limit:]

        def number(name: str) -> float:
            value = raw.get(name)
            return max(0.0, float(value)) if isinstance(value, (int, float)) else 0.0

        stamp = raw.get("lastRecalledAt") if isinstance(raw.get("lastRecalledAt"), str) else ""
        return cls(
            key=str(raw.get("key") or key),
            path=normalize_path(path),
            start_line=start,
            end_line=end,
            snippet=normalize_snippet(str(raw.get("snippet") or "")),
            recall_count=count("recallCount"),
            daily_count=count("dailyCount"),
            grounded_count=count("groundedCount"),
            total_score=number("totalScore"),
            max_score=min(1.0, number("maxScore")),
            first_recalled_at=raw["firstRecalledAt"]
            if isinstance(raw.get("firstRecalledAt"), str)
            else stamp,
            last_recalled_at=stamp,
            query_hashes=strings("queryHashes", MAX_QUERY_HASHES),
            recall_days=[d[:10] for d in strings("recallDays", MAX_RECALL_DAYS)],
            concept_tags=strings("conceptTags", MAX_CONCEPT_TAGS),
            claim_hash=raw.get("claimHash") if isinstance(raw.get("claimHash"), str) else None,
            promoted_at=raw.get("promotedAt") if isinstance(raw.get("promotedAt"), str) else None,
        )


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
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DreamingError(
            f"{path} is not valid JSON (line {exc.lineno}: {exc.msg})",
            "fix it by hand or move it aside; memtui will start a fresh one",
        ) from exc


def write_json_state(path: Path, data: Any) -> None:
    """Write JSON (2-space indent, trailing newline) atomically."""
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def load_recall_store(workspace_dir: Path) -> RecallStore:
    """Read `short-term-recall.json` (empty store when missing); invalid entries are dropped."""
    raw = read_json_state(dreams_dir(workspace_dir) / RECALL_STORE_NAME)
    if not isinstance(raw, dict):
        return RecallStore()
    store = RecallStore(updated_at=str(raw.get("updatedAt") or ""))
    entries = raw.get("entries")
    for key, value in entries.items() if isinstance(entries, dict) else []:
        entry = RecallEntry.from_json(key, value)
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
    write_json_state(dreams_dir(workspace_dir) / RECALL_STORE_NAME, data)


def load_phase_signals(workspace_dir: Path) -> PhaseSignalStore:
    """Read `phase-signals.json` (empty when missing)."""
    raw = read_json_state(dreams_dir(workspace_dir) / PHASE_SIGNALS_NAME)
    if not isinstance(raw, dict):
        return PhaseSignalStore()
    store = PhaseSignalStore(updated_at=str(raw.get("updatedAt") or ""))
    entries = raw.get("entries")
    for key, value in entries.items() if isinstance(entries, dict) else []:
        if not isinstance(value, dict):
            continue
        light = value.get("lightHits") if isinstance(value.get("lightHits"), int) else 0
        rem = value.get("remHits") if isinstance(value.get("remHits"), int) else 0
        if light <= 0 and rem <= 0:
            continue
        store.entries[key] = PhaseSignal(
            key=key,
            light_hits=light,
            rem_hits=rem,
            last_light_at=value.get("lastLightAt") if isinstance(value.get("lastLightAt"), str) else None,
            last_rem_at=value.get("lastRemAt") if isinstance(value.get("lastRemAt"), str) else None,
        )
    return store


def save_phase_signals(workspace_dir: Path, store: PhaseSignalStore) -> None:
    """Write `phase-signals.json` atomically."""
    data = {
        "version": 1,
        "updatedAt": store.updated_at,
        "entries": {key: signal.to_json() for key, signal in store.entries.items()},
    }
    write_json_state(dreams_dir(workspace_dir) / PHASE_SIGNALS_NAME, data)
