"""The bootstrap files OpenClaw 2026.9.6 injects, and how it cuts them — where it differs from 2026.4.

Read from the 2026.9.6 dist (restated, not copied):

* loader (`workspace-*.mjs` `loadWorkspaceBootstrapFiles`, `workspace-bootstrap-policy-*.mjs`
  `WORKSPACE_BOOTSTRAP_FILENAMES`): AGENTS.md, SOUL.md, IDENTITY.md, USER.md, BOOTSTRAP.md, MEMORY.md in that order
  (no TOOLS.md, no HEARTBEAT.md); USER.md and MEMORY.md only when an entry of that exact name is in the workspace;
  another missing file is `[MISSING] Expected at: …`, one that cannot be read `[UNREADABLE: <reason>]` (the
  reason in memtui's words here);
* sessions (`filterBootstrapFilesForSession`): a sub-agent gets AGENTS.md only, a cron run AGENTS.md, SOUL.md,
  IDENTITY.md and USER.md; sub-agents, cron runs and group or channel chats never get the root MEMORY.md;
* budgets (`bootstrap-*.mjs`, region `src/agents/embedded-agent-helpers/bootstrap.ts`): 20000 per file, 60000 in
  all (`agents.entries.<id>.bootstrapMaxChars` / `bootstrapTotalMaxChars` over `agents.defaults`), USER.md at
  most 4000; cuts never split a surrogate pair (`sliceUtf16Safe`); AGENTS.md over its budget keeps a head (0.45),
  a digest of its policy lines (0.35) and a tail (0.15) (`trimAgentsBootstrapContent`).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path

from memtui.context.bootstrap_files import read_within_workspace
from memtui.context.utf16 import utf16_head, utf16_len, utf16_tail
from memtui.jscompat import js_squash

ORDER = ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md", "MEMORY.md")
SUBAGENT_ALLOWLIST = frozenset({"AGENTS.md"})
CRON_ALLOWLIST = frozenset({"AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"})
USER_MAX_CHARS = 4000
_LISTED_ONLY = ("USER.md", "MEMORY.md")
DIGEST_RATIO, HEAD_RATIO, TAIL_RATIO = 0.35, 0.45, 0.15
DIGEST_MAX_LINE_CHARS = 240
_WORDS = (r"AGENTS\.md|scoped|required|must|never|do not|before subtree|read scoped|owner|security|secret|"
          r"credential|test|validation|command|commit|push|github|pr")
_HIGH_WORDS = r"AGENTS\.md|scoped|required|must|never|do not|before subtree|read scoped|security|secret|credential"
_CJK = "🔴|禁止|嚴禁|不得|絕不|絕對不|切勿"
_CANDIDATE = re.compile(rf"(?<![A-Za-z0-9_])(?:{_WORDS})(?![A-Za-z0-9_])|(?:{_CJK}|必須|務必|一律|紅線)", re.IGNORECASE)
_HIGH = re.compile(rf"(?<![A-Za-z0-9_])(?:{_HIGH_WORDS})(?![A-Za-z0-9_])|(?:{_CJK})", re.IGNORECASE)
_LIST_OR_HEADING = re.compile(r"^(?:#{1,6}|\s*[-*+]|\s*[0-9]+[.)])\s+\S")
_FENCE = re.compile(r"^\s*(?:`{3,}|~{3,})")


def _rest_of_key(session_key: str | None) -> str:
    raw = (session_key or "").strip().lower()
    parts = raw.split(":")
    return ":".join(parts[2:]) if len(parts) >= 3 and parts[0] == "agent" and parts[1] else raw


def session_files(session_key: str | None) -> tuple[frozenset[str] | None, bool]:
    """(the names this session may get — None for all —, whether the root MEMORY.md is withheld)."""
    rest = _rest_of_key(session_key)
    if rest.startswith("subagent:"):
        return SUBAGENT_ALLOWLIST, True
    if rest.startswith("cron:"):
        return CRON_ALLOWLIST, True
    shared = bool({"group", "channel"} & set(rest.split(":")))
    return None, shared


@dataclass(frozen=True)
class Source2026_9:
    """One file as 2026.9.6's loader yields it."""

    name: str
    path: str
    content: str | None
    missing: bool


def load_sources(workspace: Path, session_key: str | None) -> list[Source2026_9]:
    """The bootstrap files 2026.9.6 loads for `session_key`, in its order."""
    try:
        listed = set(os.listdir(workspace))
    except OSError:
        listed = set()
    allowed, no_memory = session_files(session_key)
    out = []
    for name in ORDER:
        if (name in _LISTED_ONLY and name not in listed) or (allowed is not None and name not in allowed) or \
                (no_memory and name == "MEMORY.md"):
            continue
        path = workspace / name
        text, why = read_within_workspace(path, workspace)
        if text is None and why == "not found":
            out.append(Source2026_9(name, str(path), None, True))
        else:
            out.append(Source2026_9(name, str(path), text if text is not None else f"[UNREADABLE: {why}]", False))
    return out


def file_budget(name: str, max_chars: int) -> int:
    """The per-file cap: USER.md at most 4000."""
    return min(max_chars, USER_MAX_CHARS) if name.lower() == "user.md" else max_chars


def _digest_line(line: str) -> str:
    normalized = js_squash(line)
    if utf16_len(normalized) <= DIGEST_MAX_LINE_CHARS:
        return normalized
    return utf16_head(normalized, DIGEST_MAX_LINE_CHARS - 1) + "…"


def _digest(candidates: list[tuple[str, bool]], budget: int) -> tuple[str, int]:
    """`buildAgentsPolicyDigest`: high-priority lines first, then the rest, each while it fits; in file order."""
    if budget <= 0:
        return "", 0
    chosen: set[int] = set()
    used = 0
    for want_high in (True, False):
        for index, (text, high) in enumerate(candidates):
            if index in chosen or (want_high and not high):
                continue
            extra = (1 if chosen else 0) + utf16_len(text)
            if used + extra <= budget:
                chosen.add(index)
                used += extra
    return "\n".join(text for index, (text, _) in enumerate(candidates) if index in chosen), \
        max(0, len(candidates) - len(chosen))


def trim_agents_md(trimmed: str, max_chars: int) -> str:
    """`trimAgentsBootstrapContent`: head, marker, policy digest, tail, cut to `max_chars` UTF-16 units (no pair
    split)."""
    head_chars, tail_chars = math.floor(max_chars * HEAD_RATIO), math.floor(max_chars * TAIL_RATIO)
    digest_budget = math.floor(max_chars * DIGEST_RATIO)
    candidates: list[tuple[str, bool]] = []
    if digest_budget > 0:
        prose: str | None = None
        for source_line in re.split(r"\r?\n", trimmed):
            line = _digest_line(source_line)
            if not line or _FENCE.match(line):
                prose = None
            elif _LIST_OR_HEADING.match(line) or _CANDIDATE.search(line):
                candidates.append((line if prose is None else f"{prose}\n{line}", bool(_HIGH.search(line))))
                prose = None
            else:
                prose = line
    digest, omitted = _digest(candidates, digest_budget)
    total = utf16_len(trimmed)

    def render() -> str:
        parts = [utf16_head(trimmed, head_chars), "[...truncated, read AGENTS.md for full content...]",
                 "[Policy digest from AGENTS.md]" if digest else "", digest,
                 f"[...{omitted} more policy lines omitted...]" if omitted > 0 else "",
                 f"…(truncated AGENTS.md: kept {head_chars}+policy {utf16_len(digest)}+{tail_chars} chars of {total})…",
                 utf16_tail(trimmed, tail_chars) if tail_chars > 0 else ""]
        return "\n".join(part for part in parts if part)

    rendered = render()
    while utf16_len(rendered) > max_chars and (tail_chars > 0 or head_chars > 1 or digest_budget > 0):
        overflow = utf16_len(rendered) - max_chars
        if tail_chars > 0:
            tail_chars = max(0, tail_chars - overflow)
        elif head_chars > 1:
            head_chars = max(1, head_chars - overflow)
        else:
            digest_budget = max(0, digest_budget - overflow)
            digest, omitted = _digest(candidates, digest_budget)
        rendered = render()
    return utf16_head(rendered, max_chars) if utf16_len(rendered) > max_chars else rendered
