"""What OpenClaw 2026.9.6's `memory_search` carries per hit beside the chunk (benchmarks/openclaw_record/
OPENCLAW-2026.9.6.md §2 "Provenance", §6): the chunk's recall metadata (importance, triggers, project key) and its
provenance — the origin class its path gives (`memory-path-provenance.ts` `resolveMemoryPathClassification`), the
session kind and when the file was observed (`manager-index-preparation.ts` `resolveChunkProvenance`)."""

from __future__ import annotations

import math
import re
from typing import Any

from memtui.index.annotations import CURATED_ROOTS, RecallMetadata
from memtui.jscompat import js_trim

_DREAMS = ("DREAMS.md", "dreams.md")
_USER_FILE = re.compile(r"users/[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}/USER\.md")


def origin_class(path: str, source: str) -> str:
    """The origin class of an indexed file (`path` relative to the workspace, `../…` outside it): `system` for the
    dreaming files, `agent` for the workspace's memory files, `untrusted` for anything else (extra paths, sessions
    without line provenance)."""
    if source != "memory" or path in ("", ".", "..") or path.startswith(("../", "/")) or "\\" in path:
        return "untrusted"
    segments = path.split("/")
    if (len(segments) == 1 and segments[0] in _DREAMS) or (
            segments[0] == "memory" and len(segments) > 1 and segments[1] in ("dreaming", ".dreams")):
        return "system"
    workspace_memory = (len(segments) == 1 and segments[0] in CURATED_ROOTS) or bool(_USER_FILE.fullmatch(path)) \
        or (segments[0] == "memory" and segments[-1].endswith(".md"))
    return "agent" if workspace_memory else "untrusted"


def provenance(path: str, source: str, mtime_ms: float | None) -> dict[str, Any]:
    """`{originClass, sessionKind, observedAt}` of a chunk of a file indexed with mtime `mtime_ms`."""
    observed = max(0, math.floor(mtime_ms)) if mtime_ms is not None and math.isfinite(mtime_ms) else 0
    return {"originClass": origin_class(path, source), "sessionKind": "unknown", "observedAt": observed}


def hit_fields(metadata: RecallMetadata | None, path: str, source: str, mtime_ms: float | None) -> dict[str, Any]:
    """A hit's `importance`, `triggers` and `projectKey` (each only when set, as `attachRecallMetadata` reads
    them) and its `provenance`, in 2026.9.6's key order."""
    fields: dict[str, Any] = {}
    if metadata is not None:
        if isinstance(metadata.importance, int):
            fields["importance"] = metadata.importance
        if metadata.triggers and js_trim(metadata.triggers):
            fields["triggers"] = js_trim(metadata.triggers)
        if metadata.project_key and js_trim(metadata.project_key):
            fields["projectKey"] = js_trim(metadata.project_key)
    fields["provenance"] = provenance(path, source, mtime_ms)
    return fields
