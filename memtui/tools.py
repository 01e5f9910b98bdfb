"""The `memory_search` and `memory_get` tool payloads, byte-compatible with OpenClaw (§9)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from memtui.atomic import EscapeError, open_for_read, parts_below
from memtui.errors import PathError
from memtui.search.engine import Candidate, SearchResponse
from memtui.settings.values import DEFAULT_GET_LINES, DEFAULT_GET_MAX_CHARS

if TYPE_CHECKING:
    from memtui.index.workspace import MemoryLocation


def format_citation(path: str, start_line: int, end_line: int) -> str:
    """`path#Lstart-Lend`, or `path#Ln` for a single line."""
    if start_line == end_line:
        return f"{path}#L{start_line}"
    return f"{path}#L{start_line}-L{end_line}"


def chat_type(session_key: str | None) -> str:
    """direct / group / channel from a session key (`agent:<id>:…`); a missing key counts as direct."""
    if not session_key:
        return "direct"
    parts = session_key.split(":")
    rest = parts[2:] if len(parts) >= 2 and parts[0] == "agent" else parts
    if "channel" in rest:
        return "channel"
    if "group" in rest:
        return "group"
    return "direct"


def include_citations(mode: str, session_key: str | None) -> bool:
    """`memory.citations`: on, off, or auto (direct chats only)."""
    if mode == "on":
        return True
    if mode == "off":
        return False
    return chat_type(session_key) == "direct"


def hit_json(hit: Candidate, *, citations: bool, explain: bool) -> dict[str, Any]:
    """One `memory_search` result."""
    snippet = hit.snippet
    citation = format_citation(hit.path, hit.start_line, hit.end_line) if citations else None
    if citation:
        snippet = f"{snippet.strip()}\n\nSource: {citation}"
    data: dict[str, Any] = {
        "path": hit.path,
        "startLine": hit.start_line,
        "endLine": hit.end_line,
        "score": hit.score,
        "snippet": snippet,
        "source": hit.source,
    }
    if hit.vector_score is not None:
        data["vectorScore"] = hit.vector_score
    if hit.text_score is not None:
        data["textScore"] = hit.text_score
    if citation:
        data["citation"] = citation
    data["corpus"] = hit.source
    if explain:
        data["explain"] = hit.trace()
    return data


def search_payload(response: SearchResponse, *, provider: str, model: str, citations_mode: str,
                   session_key: str | None = None, fallback: dict[str, str] | None = None,
                   explain: bool = False, max_results: int | None = None) -> dict[str, Any]:
    """The `memory_search` JSON: results sorted by score then path, cut to max(1, maxResults)."""
    citations = include_citations(citations_mode, session_key)
    hits = sorted(response.results, key=lambda h: (-h.score, h.path))
    hits = hits[: max(1, max_results or response.max_results)]
    payload: dict[str, Any] = {
        "results": [hit_json(h, citations=citations, explain=explain) for h in hits],
        "provider": provider,
        "model": model,
    }
    if fallback:
        payload["fallback"] = fallback
    payload["citations"] = citations_mode
    payload["debug"] = {
        "backend": "builtin",
        "effectiveMode": "n/a",
        "searchMs": round(response.elapsed_ms),
        "hits": len(hits),
    }
    if explain:
        payload["explain"] = response.explain()
    return payload


def error_payload(error: str, *, quota: bool = False) -> dict[str, Any]:
    """The failure shape of `memory_search`."""
    warning = (
        "Memory search is unavailable because the embedding provider quota is exhausted."
        if quota
        else "Memory search is unavailable due to an embedding/provider error."
    )
    return {
        "results": [],
        "disabled": True,
        "unavailable": True,
        "error": error,
        "warning": warning,
        "action": "Check the embedding provider configuration, or use --provider none for keyword search.",
    }


def memory_get(workspace_dir: Path, path: str, *, from_line: int | None = None, lines: int | None = None,
               extra_paths: tuple[str, ...] = (), max_chars: int = DEFAULT_GET_MAX_CHARS,
               default_lines: int = DEFAULT_GET_LINES) -> dict[str, Any]:
    """`memory_get`: read a window of a memory file; errors come back as `{path, text:"", disabled, error}`."""
    from memtui.index.workspace import memory_location  # not loaded by a search-only process

    try:
        location = memory_location(workspace_dir, path, extra_paths)
    except PathError as exc:
        return {"path": path, "text": "", "disabled": True, "error": exc.message}
    start = max(1, int(from_line or 1))
    count = max(1, int(lines or default_lines))
    try:
        data = _read_confined(location)
    except FileNotFoundError:
        return {"text": "", "path": path}
    except (EscapeError, IsADirectoryError):
        return {"path": path, "text": "", "disabled": True, "error": "path required"}
    except OSError as exc:
        return {"path": path, "text": "", "disabled": True, "error": f"not readable ({exc.strerror})"}
    all_lines = data.decode("utf-8", errors="replace").split("\n")
    window = all_lines[start - 1 : start - 1 + count]
    kept: list[str] = []
    used = 0
    hard_cut = False
    for line in window:
        cost = len(line) + (1 if kept else 0)
        if used + cost > max_chars:
            if not kept:
                kept.append(line[:max_chars])
                hard_cut = True
            break
        kept.append(line)
        used += cost
    next_line = start + len(kept)
    more = next_line <= len(all_lines) and (len(kept) < len(window) or start - 1 + count < len(all_lines))
    text = "\n".join(kept)
    result: dict[str, Any] = {"text": text, "path": path, "from": start, "lines": len(kept)}
    if hard_cut:
        result["text"] = (f"{text}\n\n[Line {start} exceeds the {max_chars}-character budget and was cut. "
                          "Use the read tool to see the whole line.]")
        result["truncated"] = True
        if start + 1 <= len(all_lines):
            result["nextFrom"] = start + 1
    elif more:
        result["text"] = f"{text}\n\n[More content available. Use from={next_line} to continue.]"
        result["truncated"] = True
        result["nextFrom"] = next_line
    return result


def _read_confined(location: MemoryLocation) -> bytes:
    """The file's bytes, opened once with no symlink followed below its root and no FIFO or device read."""
    with open_for_read(location.root, parts_below(location.root, location.target)) as handle:
        return handle.read()
