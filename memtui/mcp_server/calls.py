"""The two tools: their schemas, their arguments checked, and their JSON (the same as the CLI's `--json`)."""

from __future__ import annotations

import json
import math
import re
from typing import Any, Protocol

import mcp_types as types

from memtui.errors import ToolInputError
from memtui.jscompat import js_stringify

MAX_PATH_CHARS = 4096  # PATH_MAX: a longer `memory_get` path is refused before it reaches the file system

CORPORA = ("memory", "wiki", "all", "sessions")

SEARCH_TOOL = types.Tool(
    name="memory_search",
    description=(
        "Search the agent's memory (MEMORY.md, memory/*.md, extra paths, optionally session transcripts). "
        "Returns ranked snippets with path, line range, score and citation; read more with memory_get."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what to look for"},
            "maxResults": {"type": "number", "description": "results to return (default from config)"},
            "minScore": {"type": "number", "description": "drop results scoring below this"},
            "corpus": {"type": "string", "enum": list(CORPORA), "description": "which corpus to search"},
        },
        "required": ["query"],
    },
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
)

GET_TOOL = types.Tool(
    name="memory_get",
    description=(
        "Read lines of a memory file: MEMORY.md, DREAMS.md, memory/**/*.md or an extra path (.md only). "
        "Use the path and startLine of a memory_search result."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "workspace-relative path, e.g. memory/2026-04-28.md"},
            "from": {"type": "number", "description": "first line, 1-based (default 1)"},
            "lines": {"type": "number", "description": "number of lines (default 120)"},
            "corpus": {"type": "string", "enum": ["memory", "wiki", "all"], "description": "which corpus to read"},
        },
        "required": ["path"],
    },
    annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
)


class MemoryTools(Protocol):
    """What the server needs from a manager (the builtin `MemoryManager` or the QMD one)."""

    @property
    def citations(self) -> str: ...

    def memory_search(self, query: str, *, max_results: int | None = ..., min_score: float | None = ...,
                      session_key: str | None = ..., record: bool = ...) -> dict[str, Any]: ...

    def memory_get(self, path: str, *, from_line: int | None = ..., lines: int | None = ...) -> dict[str, Any]: ...


class ToolArgumentError(ToolInputError, ValueError):
    """A tool call's arguments do not fit the tool's schema."""


def _number(arguments: dict[str, Any], key: str, *, integer: bool = False) -> float | None:
    """`readNumberParam`: a finite number or a numeric string (integers truncated); absent → None. Other
    types are refused (OpenClaw ignores them)."""
    value = arguments.get(key)
    if value is None:
        return None
    if isinstance(value, str) and value.strip():
        try:
            value = float(value.strip())
        except ValueError:
            raise ToolArgumentError(f"{key} must be a number, got {json.dumps(value)}") from None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ToolArgumentError(f"{key} must be a number, got {json.dumps(value)}")
    return math.trunc(value) if integer else value


def _string(arguments: dict[str, Any], key: str) -> str:
    value = arguments.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ToolArgumentError(f"{key} required")
    return value.strip()


def call_memory_search(manager: MemoryTools, arguments: dict[str, Any],
                       session_key: str | None = None) -> dict[str, Any]:
    """Run `memory_search` with MCP arguments (validated) for a session key and return the tool JSON.
    `corpus` as in OpenClaw: `memory` / `sessions` keep the hits of that source, `wiki` searches no memory
    (there are no wiki supplements), `all` is everything."""
    query = _string(arguments, "query")
    corpus = arguments.get("corpus")
    if corpus is not None and corpus not in CORPORA:
        raise ToolArgumentError(f"corpus must be one of {', '.join(CORPORA)}, got {json.dumps(corpus)}")
    max_results = _number(arguments, "maxResults")
    min_score = _number(arguments, "minScore")
    if corpus == "wiki":
        return {"results": [], "citations": manager.citations}
    payload = manager.memory_search(query, max_results=max_results, min_score=min_score, session_key=session_key,
                                    record=True)
    if corpus not in ("memory", "sessions") or "results" not in payload:
        return payload
    kept = [hit for hit in payload["results"] if hit.get("source") == corpus]
    debug = payload.get("debug")
    return dict(payload, results=kept, **({"debug": dict(debug, hits=len(kept))} if isinstance(debug, dict) else {}))


def call_memory_get(manager: MemoryTools, arguments: dict[str, Any],
                    _session_key: str | None = None) -> dict[str, Any]:
    """Run `memory_get` with MCP arguments (validated) and return the tool JSON (`corpus: wiki` finds nothing:
    there are no wiki supplements); a path outside the memory files is OpenClaw's "path required" with the reason
    (`outside_memory`), as every other refusal has."""
    path = _string(arguments, "path")
    if len(path) > MAX_PATH_CHARS:
        raise ToolArgumentError(f"path is too long: {len(path):,} characters (at most {MAX_PATH_CHARS:,})")
    corpus = arguments.get("corpus")
    if corpus is not None and corpus not in ("memory", "wiki", "all"):
        raise ToolArgumentError(f"corpus must be one of memory, wiki, all, got {json.dumps(corpus)}")
    if corpus == "wiki":
        return {"path": path, "text": "", "disabled": True, "error": "wiki corpus result not found"}
    payload = manager.memory_get(path, from_line=_number(arguments, "from", integer=True),
                                 lines=_number(arguments, "lines", integer=True))
    if payload.get("error") == "path required":  # OpenClaw's word for a path outside the memory files: say why
        return {**payload, "error": f"path required: {outside_memory(path)}"}
    return payload


def outside_memory(path: str) -> str:
    """Why `memory_get` refused `path` as outside the memory files (the path named once, then the rule)."""
    text = path.replace("\\", "/")
    if text.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", text):
        why = "is an absolute path"
    elif not text.endswith(".md"):
        why = "is not a .md file"
    elif ".." in text.split("/"):
        why = "leads out of the memory files"
    else:
        why = "is not a memory file"
    return (f"{path} {why}; memory_get reads MEMORY.md, DREAMS.md, memory/**/*.md and the extra paths (.md only, "
            "relative to the workspace)")


def render(payload: dict[str, Any]) -> str:
    """The tool JSON as text, formatted like the CLI's `--json`."""
    return js_stringify(payload, indent=2, drop_none=False)
