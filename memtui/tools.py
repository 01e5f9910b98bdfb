"""The `memory_search` and `memory_get` tool payloads, byte-compatible with OpenClaw (§9)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, BinaryIO

from memtui.atomic import EscapeError
from memtui.errors import PathError, ToolInputError
from memtui.index.annotations import strip_annotations
from memtui.jscompat import js_length, js_locale_key, js_slice, js_trim, js_trim_end
from memtui.search.agent_db import cli_json
from memtui.search.response import Candidate, SearchResponse
from memtui.settings.values import DEFAULT_GET_LINES, DEFAULT_GET_MAX_CHARS

DEFAULT_TOOL_RESULTS = 10


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


def hit_json(hit: Candidate, *, mode: str, citations: bool, explain: bool) -> dict[str, Any]:
    """One `memory_search` result with OpenClaw's keys in its order: FTS-only hits carry `id` and
    `textScore`, hybrid hits `vectorScore` and `textScore` (no `id`), vector-only hits `id`; then the
    citation when included, then `corpus` (always "memory": the memory manager's corpus). A hit of a 2026.9
    agent (`hit.recall`) has 2026.9.6's keys instead: no `id`, `vectorScore` outside FTS-only mode, `textScore`,
    `snippet`, `source`, then importance, triggers and projectKey when set and `provenance`, then `corpus` and
    the citation (`tail_2026_9`)."""
    if hit.recall is not None:
        item: dict[str, Any] = {"path": hit.path, "startLine": hit.start_line, "endLine": hit.end_line,
                                "score": hit.score}
        if mode != "fts-only":
            item["vectorScore"] = hit.vector_score or 0.0
        item.update(textScore=hit.text_score or 0.0, snippet=hit.snippet, source=hit.source, **hit.recall)
        return tail_2026_9(item, hit, citations=citations, explain=explain)
    data: dict[str, Any] = {} if mode == "hybrid" else {"id": hit.id}
    data.update(path=hit.path, startLine=hit.start_line, endLine=hit.end_line, score=hit.score)
    if mode == "hybrid":
        data.update(vectorScore=hit.vector_score or 0.0, textScore=hit.text_score or 0.0)
    elif mode == "fts-only":
        data["textScore"] = hit.text_score
    data.update(snippet=hit.snippet, source=hit.source)
    return _tool_tail(data, hit, citations=citations, explain=explain)


def _tool_tail(data: dict[str, Any], hit: Candidate, *, citations: bool, explain: bool) -> dict[str, Any]:
    """What the tool adds to a hit: the citation (appended to the snippet too) when included, `corpus`, and the
    score breakdown on request."""
    if citations:
        data["citation"] = format_citation(hit.path, hit.start_line, hit.end_line)
        data["snippet"] = f"{js_trim(data['snippet'])}\n\nSource: {data['citation']}"
    data["corpus"] = "memory"
    if explain:
        data["explain"] = hit.trace()
    return data


def search_payload(response: SearchResponse, *, provider: str, model: str | None, citations_mode: str,
                   session_key: str | None = None, fallback: dict[str, str] | None = None,
                   explain: bool = False, max_results: int | None = None) -> dict[str, Any]:
    """The `memory_search` JSON: results sorted by score then path (`localeCompare`), cut to
    max(1, maxResults ?? 10); `model` only with a provider; `debug.hits` counts the search's results."""
    citations = include_citations(citations_mode, session_key)
    if response.generation is not None:  # OpenClaw 2026.9's own order (exact path tiers first), its hit shape
        hits = response.results
        results = agent_results(response, citations=citations, explain=explain)
    else:
        hits = sorted(response.results, key=lambda h: (-h.score, js_locale_key(h.path)))
        hits = hits[: max(1, DEFAULT_TOOL_RESULTS if max_results is None else math.trunc(max_results))]
        results = [hit_json(h, mode=response.mode, citations=citations, explain=explain) for h in hits]
    payload: dict[str, Any] = {"results": results, "provider": provider}
    if model is not None:
        payload["model"] = model
    if fallback:
        payload["fallback"] = fallback
    payload["citations"] = citations_mode
    if response.generation is not None:
        payload["mode"] = response.mode
    payload["debug"] = {
        "backend": "builtin",
        "effectiveMode": "n/a",
        "searchMs": round(response.elapsed_ms),
        "hits": len(response.results),
    }
    if explain:
        payload["explain"] = response.explain()
    return payload


def agent_results(response: SearchResponse, *, citations: bool, explain: bool) -> list[dict[str, Any]]:
    """2026.9.6's `memory_search` results: the `memory search --json` hits (importance, triggers, projectKey and
    provenance when set), each with `corpus`, and the citation appended to the snippet when citations apply."""
    return [tail_2026_9(item, hit, citations=citations, explain=explain)
            for hit, item in zip(response.results, cli_json(response)["results"], strict=True)]


def tail_2026_9(data: dict[str, Any], hit: Candidate, *, citations: bool, explain: bool) -> dict[str, Any]:
    """What 2026.9.6's tool adds to a hit (`buildMemorySearchPresentation`): the snippet without annotation
    comments, `corpus` (the hit's source), then the citation, appended to the end-trimmed snippet too, when
    citations apply; the score breakdown on request."""
    data.update(snippet=strip_annotations(data["snippet"]), corpus=hit.source)
    if citations:
        data["citation"] = format_citation(hit.path, hit.start_line, hit.end_line)
        data["snippet"] = f"{js_trim_end(data['snippet'])}\n\nSource: {data['citation']}"
    if explain:
        data["explain"] = hit.trace()
    return data


def error_payload(error: str) -> dict[str, Any]:
    """The failure shape of `memory_search` (`buildMemorySearchUnavailableResult`)."""
    reason = js_trim(error) or "memory search unavailable"
    if re.search(r"insufficient_quota|quota|429", reason.lower()):
        warning = "Memory search is unavailable because the embedding provider quota is exhausted."
        action = "Top up or switch embedding provider, then retry memory_search."
    else:
        warning = "Memory search is unavailable due to an embedding/provider error."
        action = "Check embedding provider configuration and retry memory_search."
    return {"results": [], "disabled": True, "unavailable": True, "error": reason, "warning": warning,
            "action": action, "debug": {"warning": warning, "action": action, "error": reason}}


def memory_get(workspace_dir: Path, path: str, *, from_line: int | None = None, lines: int | None = None,
               extra_paths: tuple[str, ...] = (), max_chars: int = DEFAULT_GET_MAX_CHARS,
               default_lines: int = DEFAULT_GET_LINES, generation: str = "2026.4") -> dict[str, Any]:
    """`memory_get`: read a window of a memory file; errors come back as `{path, text:"", disabled, error}`.
    An empty path is a tool input error (ToolInputError), as in OpenClaw; a path outside the memory files is
    "path required" (OpenClaw's word), and a symlink, FIFO, socket, device, folder or a file with another
    hard link is "path required: <why>" (README, "memory_get").

    For a 2026.9 agent (`generation` "2026.9") the answer has 2026.9.6's shape (`read-file.ts`, `tools.ts`):
    `status` "ok" first, `{status: "not_found", text: "", path}` for a missing file, errors as
    `{path, text: "", status: "error", code, error}`; and a file's final newline ends its last line rather than
    starting an empty one."""
    from memtui.index.workspace import memory_location, rel_path  # not loaded by a search-only process

    if not isinstance(path, str) or not js_trim(path):
        raise ToolInputError("path required")
    path = js_trim(path)
    try:
        location = memory_location(workspace_dir, path, extra_paths)
    except PathError as exc:
        return _refused(path, exc.message, generation)
    relative = rel_path(workspace_dir, location.target)
    start, count = _window(from_line, lines, default_lines)
    try:
        with location.open() as handle:
            # A line is kept up to 3 bytes per UTF-16 unit past the budget: enough to cut it as the whole would be.
            selected, more_in_file = _lines_of(handle, start, count, keep=3 * (max(1, max_chars) + 2),
                                               newline_ends_line=generation == "2026.9")
    except (FileNotFoundError, NotADirectoryError):  # OpenClaw answers a path through a file as not found too
        return {"status": "not_found", "text": "", "path": relative} if generation == "2026.9" else \
            {"text": "", "path": relative}
    except EscapeError as exc:  # OpenClaw's "path required", and why
        return _refused(path, f"path required: {exc.message}", generation)
    except IsADirectoryError:
        return _refused(path, f"path required: {path} is a folder", generation)
    except OSError as exc:
        return _refused(path, f"not readable ({exc.strerror})", generation)
    result = _window_result(selected, more_in_file, start, relative, max_chars=max_chars,
                            suggest_read=_is_workspace_memory_path(relative))
    return {"status": "ok", **result} if generation == "2026.9" else result


NOT_ALLOWED_2026_9 = "path is not an allowed Markdown memory file"


def _refused(path: str, error: str, generation: str) -> dict[str, Any]:
    """A refused read: 2026.4's `{path, text, disabled, error}`, or 2026.9.6's `{path, text, status: "error",
    code, error}` (a path outside the memory files in its own words, `MEMORY_PATH_NOT_ALLOWED`)."""
    if generation != "2026.9":
        return {"path": path, "text": "", "disabled": True, "error": error}
    if error == "path required":
        return {"path": path, "text": "", "status": "error", "code": "MEMORY_PATH_NOT_ALLOWED",
                "error": NOT_ALLOWED_2026_9}
    return {"path": path, "text": "", "status": "error", "code": "MEMORY_READ_FAILED", "error": error}


def is_not_found(result: dict[str, Any]) -> bool:
    """Whether a `memory_get` answer says the file does not exist (2026.9: `status` not_found; 2026.4: no window
    and no error)."""
    if "status" in result:
        return result["status"] == "not_found"
    return "from" not in result and not result.get("error")


def _lines_of(handle: BinaryIO, start: int, count: int, *, keep: int,
              newline_ends_line: bool = False) -> tuple[list[str], bool]:
    """Lines `start`…`start + count - 1` (1-based, split at `\\n` as `str.split`) of a file read in blocks, each
    cut after `keep` bytes and decoded (invalid UTF-8 replaced), and whether the file has lines after them:
    what `read_window` takes from the whole text, without holding more than the window in memory. With
    `newline_ends_line` (2026.9.6's `buildMemoryReadResult`), the empty piece after a final `\\n` is no line."""
    first, stop = start - 1, start - 1 + count
    selected: list[bytes] = []
    line = bytearray()
    index = 0
    while block := handle.read(1 << 20):
        at = 0
        while True:
            end = block.find(b"\n", at)
            if first <= index < stop and len(line) < keep:
                line += block[at : end if end >= 0 else len(block)][: keep - len(line)]
            if end < 0:
                break
            if first <= index:
                selected.append(bytes(line))
            line.clear()
            index += 1
            at = end + 1
            if index >= stop:
                more = not newline_ends_line or at < len(block) or bool(handle.read(1))
                return [b.decode("utf-8", errors="replace") for b in selected], more
    if first <= index and (line or not newline_ends_line):
        selected.append(bytes(line))
    return [b.decode("utf-8", errors="replace") for b in selected], False


def _is_workspace_memory_path(relative: str) -> bool:
    """`isMemoryPath` for a path inside the workspace (extra paths outside it do not count)."""
    if relative.startswith(".."):
        return False
    return relative == "MEMORY.md" or relative.lower() == "dreams.md" or relative.startswith("memory/")


def read_window(content: str, relative: str, *, from_line: int | None, lines: int | None, default_lines: int,
                max_chars: int, suggest_read: bool) -> dict[str, Any]:
    """OpenClaw's `buildMemoryReadResult`: lines [from, from+lines) of `content` (from ≥ 1; lines ≥ 1, so 0
    reads one line), then as many of them as fit in `max_chars` UTF-16 code units; a single line over the
    budget is cut at `max_chars` units, with no `nextFrom`. When more remains, a notice says where to go on."""
    file_lines = content.split("\n")
    start, count = _window(from_line, lines, default_lines)
    selected = file_lines[start - 1 : start - 1 + count]
    return _window_result(selected, start - 1 + len(selected) < len(file_lines), start, relative,
                          max_chars=max_chars, suggest_read=suggest_read)


def _window(from_line: int | None, lines: int | None, default_lines: int) -> tuple[int, int]:
    """The first line (≥ 1) and the number of lines (≥ 1) asked for."""
    return max(1, from_line if from_line is not None else 1), max(1, lines if lines is not None else default_lines)


def _window_result(selected: list[str], more_in_file: bool, start: int, relative: str, *, max_chars: int,
                   suggest_read: bool) -> dict[str, Any]:
    budget = max(1, max_chars)
    included = len(selected)
    text = "\n".join(selected)
    while included > 1 and js_length(text) > budget:
        included -= 1
        text = "\n".join(selected[:included])
    hard_cut = js_length(text) > budget
    if hard_cut:
        text, included = js_slice(text, 0, budget), 1
    next_from = start + included if not hard_cut and (more_in_file or included < len(selected)) else None
    truncated = hard_cut or included < len(selected) or more_in_file
    if truncated and text:
        if next_from is not None:
            notice = f"[More content available. Use from={next_from} to continue."
        else:
            notice = "[More content available. Requested excerpt exceeded the default maxChars budget."
        if hard_cut and suggest_read:
            notice += " If you need the full raw line, use read on the source file."
        text = f"{text}\n\n{notice}]"
    result: dict[str, Any] = {"text": text, "path": relative, "from": start, "lines": included}
    if truncated:
        result["truncated"] = True
    if next_from is not None:
        result["nextFrom"] = next_from
    return result
