"""qmd's `--json` search output → memory_search results (§11.4)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memtui.jscompat import parse_json
from memtui.qmd.collections import MEMORY_SOURCE, Collection

NO_RESULTS = "No results found"
_HUNK = re.compile(r"^@@ -(\d+),(\d+)")
_URI = re.compile(r"^qmd://([^/]+)/(.+)$")


class QmdOutputError(ValueError):
    """qmd printed something that holds no JSON array of results."""


@dataclass(frozen=True)
class QmdResultItem:
    """One hit as printed by qmd."""

    docid: str | None
    score: float
    collection: str | None
    file: str | None
    snippet: str
    start_line: int | None
    end_line: int | None


@dataclass(frozen=True)
class MappedHit:
    """A qmd hit mapped to a memory_search result."""

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    source: str
    collection: str


def _first_array(text: str) -> list[Any] | None:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\[", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, list):
            return value
    return None


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _item(raw: Any) -> QmdResultItem | None:
    if not isinstance(raw, dict):
        return None
    score = raw.get("score")
    snippet = raw.get("snippet")
    if not isinstance(snippet, str):
        snippet = raw.get("body") if isinstance(raw.get("body"), str) else ""
    docid = raw.get("docid")
    return QmdResultItem(
        docid=str(docid).lstrip("#") if docid not in (None, "") else None,
        score=float(score) if isinstance(score, int | float) and not isinstance(score, bool) else 0.0,
        collection=raw.get("collection") if isinstance(raw.get("collection"), str) else None,
        file=raw.get("file") if isinstance(raw.get("file"), str) else None,
        snippet=snippet,
        start_line=_int_or_none(raw.get("start_line", raw.get("startLine"))),
        end_line=_int_or_none(raw.get("end_line", raw.get("endLine"))),
    )


def parse_qmd_query_json(stdout: str, stderr: str = "") -> list[QmdResultItem]:
    """`parseQmdQueryJson`: "No results found" → []; else the JSON array on stdout, or the first `[...]`
    array inside noisy output. Raises QmdOutputError when there is none."""
    if NO_RESULTS in stdout or NO_RESULTS in stderr:
        return []
    text = stdout.strip()
    try:
        value = parse_json(text)
    except ValueError:
        value = _first_array(text)
    if not isinstance(value, list):
        head = text[:120].replace("\n", " ") or "(empty)"
        raise QmdOutputError(f"qmd printed no JSON result array: {head}")
    return [item for item in (_item(raw) for raw in value) if item is not None]


def line_range(item: QmdResultItem) -> tuple[int, int]:
    """Explicit lines, else the snippet's `@@ -<start>,<count>` header, else 1..lineCount(snippet)."""
    if item.start_line is not None:
        start = max(1, item.start_line)
        return start, max(start, item.end_line if item.end_line is not None else start)
    header = _HUNK.match(item.snippet)
    if header:
        start, count = int(header.group(1)), int(header.group(2))
        return start, start + max(1, count) - 1
    return 1, max(1, len(item.snippet.split("\n")))


def snippet_text(snippet: str, max_chars: int) -> str:
    """The snippet without qmd's `@@ … @@` header line, cut to `max_chars`."""
    if _HUNK.match(snippet):
        snippet = snippet.split("\n", 1)[1] if "\n" in snippet else ""
    return snippet[:max_chars]


def collection_and_path(item: QmdResultItem) -> tuple[str, str] | None:
    """(collection, collection-relative path) from `file` (plain or a `qmd://` URI) and `collection`."""
    if item.file:
        uri = _URI.match(item.file)
        if uri:
            return uri.group(1), uri.group(2)
        if item.collection:
            return item.collection, item.file.removeprefix("./")
    return None


def result_path(workspace: Path, collection: Collection, rel: str) -> str | None:
    """Workspace-relative when inside the workspace, else `qmd/<collection>/<rel>`; None for a path escaping
    its collection."""
    target = Path(os.path.normpath(collection.path / rel))
    if target != collection.path and collection.path not in target.parents:
        return None
    workspace = Path(os.path.normpath(workspace))
    if workspace in target.parents:
        return target.relative_to(workspace).as_posix()
    return f"qmd/{collection.name}/{target.relative_to(collection.path).as_posix()}"


def map_results(items: list[QmdResultItem], *, workspace: Path, collections: list[Collection],
                max_snippet_chars: int, min_score: float = 0.0,
                resolve_docid: Callable[[str], tuple[str, str] | None] | None = None) -> list[MappedHit]:
    """Map qmd hits to results: paths, lines, snippets; drop unknown collections and `score < min_score`."""
    by_name = {c.name: c for c in collections}
    hits: list[MappedHit] = []
    for item in items:
        if item.score < min_score:
            continue
        located = collection_and_path(item)
        if located is None and item.docid and resolve_docid is not None:
            located = resolve_docid(item.docid)
        if located is None or located[0] not in by_name:
            continue
        collection = by_name[located[0]]
        path = result_path(workspace, collection, located[1])
        if path is None:
            continue
        start, end = line_range(item)
        hits.append(MappedHit(path, start, end, item.score, snippet_text(item.snippet, max_snippet_chars),
                              collection.source, collection.name))
    return hits


def diversify_by_source(hits: list[MappedHit]) -> list[MappedHit]:
    """Round-robin across sources (memory, sessions), each source in its own order, the source of the best
    hit first."""
    groups: dict[str, list[MappedHit]] = {}
    for hit in hits:
        groups.setdefault(hit.source, []).append(hit)
    if len(groups) < 2:
        return list(hits)
    order = sorted(groups, key=lambda s: (-groups[s][0].score, s != MEMORY_SOURCE))
    mixed: list[MappedHit] = []
    for index in range(max(len(g) for g in groups.values())):
        mixed.extend(groups[source][index] for source in order if index < len(groups[source]))
    return mixed


def clamp_injected_chars(hits: list[MappedHit], max_chars: int) -> list[MappedHit]:
    """Keep hits while their snippets fit in `max_chars` in total; the first that overflows is cut to the
    remaining budget and ends the list."""
    kept: list[MappedHit] = []
    used = 0
    for hit in hits:
        room = max_chars - used
        if room <= 0:
            break
        if len(hit.snippet) > room:
            kept.append(replace(hit, snippet=hit.snippet[:room]))
            break
        kept.append(hit)
        used += len(hit.snippet)
    return kept
