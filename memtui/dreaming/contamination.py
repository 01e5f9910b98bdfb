"""Snippets that are dreaming output rather than memory (OpenClaw 2026.4.29's `isContaminatedDreamingSnippet`):
a staged-candidate or reflection block, a promotion marker, or the narrative prompt line of a dreaming
transcript. They are neither recorded nor ranked nor promoted."""

from __future__ import annotations

import re

from memtui.jscompat import js_squash

_PROMOTION_MARKER = re.compile(r"<!--\s*openclaw-memory-promotion:", re.IGNORECASE)
_NARRATIVE_PROMPT = re.compile(r"\[[^\]]*dreaming-narrative[^\]]*]\s*(?:User|Assistant):\s*Write a dream diary "
                               r"entry from these memory fragments:?", re.IGNORECASE)
_DIFF_PREFIX = re.compile(r"@@\s*-\d+(?:,\d+)?\s+[-*+]\s+", re.IGNORECASE)
_LEAD = re.compile(r"^(?:Candidate:|Reflections?:)", re.IGNORECASE)
_FIELDS = tuple(re.compile(p, re.IGNORECASE | re.ASCII) for p in (
    r"\bconfidence:\s*\d", r"\bevidence:\s*(?:memory/\.dreams/session-corpus/|memory/)", r"\bstatus:\s*staged\b",
    r"\brecalls:\s*\d+\b"))


def _without_lead_prefix(snippet: str) -> str:
    """Drop leading diff hunks (`@@ -3,4 - `), brackets, parentheses and list or quote markers."""
    index = 0
    while index < len(snippet):
        hunk = _DIFF_PREFIX.match(snippet, index)
        if hunk:
            index = hunk.end()
            continue
        char = snippet[index]
        if char in "[(":
            index += 1
            while index < len(snippet) and snippet[index] == " ":
                index += 1
            continue
        if char in "-*+>" and snippet[index + 1:index + 2] == " ":
            index += 2
            continue
        break
    return snippet[index:]


def is_contaminated_snippet(raw: str) -> bool:
    """Whether `raw` is dreaming output: a marker or narrative prompt line, or a Candidate/Reflection lead with
    confidence, evidence, staged status and recalls fields."""
    snippet = js_squash(raw)
    if not snippet:
        return False
    if _PROMOTION_MARKER.search(snippet) or _NARRATIVE_PROMPT.search(snippet):
        return True
    return bool(_LEAD.match(_without_lead_prefix(snippet))) and all(p.search(snippet) for p in _FIELDS)
