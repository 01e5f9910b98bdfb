"""OpenClaw 2026.9.6's curated memory annotations (`curated-annotations.ts`, benchmarks/openclaw_record/
OPENCLAW-2026.9.6.md §4): `<!-- importance: N -->`, `<!-- trigger: … -->` and `<!-- project: … -->` comments,
stripped from a memory file's text before it is chunked and kept as each entry's recall metadata.

Apart from the chunker (`chunking_v5`), so that what reads the metadata back (the stores, search, the tools) does
not load it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from memtui.jscompat import js_trim

# 2026.9.6's `MEMORY_CHUNKING_VERSION`: the chunker that strips these annotations and keeps each chunk's metadata.
CHUNKING_VERSION = 5
INVALID_PROJECT = "!invalid-project-annotation"
# The curated memory files: the chunker cuts them one entry a chunk and reads their annotations; hits from them are
# the agent's own memory.
CURATED_ROOTS = ("MEMORY.md", "memory.md", "USER.md")
_ANNOTATION = re.compile(r"<!--\s*(trigger|importance|project)\s*:", re.IGNORECASE)
_PROJECT = re.compile(r"<!--\s*(project)\s*:", re.IGNORECASE)
_LINE_BREAK = re.compile(r"[\r\n]")
_SPACES = re.compile(r"[ \t]+")
_LINE_ENDS = "\r\n\u2028\u2029"


@dataclass(frozen=True)
class RecallMetadata:
    """`memory_index_chunk_recall_metadata` of a chunk: from `<!-- importance: N -->`, `<!-- trigger: … -->` and
    `<!-- project: … -->` on its entry's lines."""

    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None


def _annotations(text: str, marker: re.Pattern[str], line_scoped: bool) -> Iterator[tuple[int, int, str, str]]:
    """`scanMemoryAnnotations`: (start, end, kind, value) of each `<!-- kind: value -->`; line-scoped, a comment
    whose `-->` is on a later line is skipped."""
    closing, newline, position = -1, -1, 0
    while (match := marker.search(text, position)) is not None:
        value_start = match.end()
        if closing < value_start:
            closing = text.find("-->", value_start)
            if closing < 0:
                return
        if line_scoped:
            if newline < value_start:
                found = _LINE_BREAK.search(text, value_start)
                newline = found.start() if found else len(text)
            if newline < closing:
                position = value_start
                continue
        yield match.start(), closing + 3, match.group(1).lower(), js_trim(text[value_start:closing])
        position = closing + 3


def strip_annotations(text: str) -> str:
    """`stripMemoryAnnotationCarriers`: the text without its one-line annotation comments, and without the spaces
    and tabs that then end a line."""
    parts, cursor = [], 0
    for start, end, _kind, _value in _annotations(text, _ANNOTATION, True):
        parts.append(text[cursor:start])
        cursor = end
    if cursor == 0:
        return text
    parts.append(text[cursor:])
    joined = "".join(parts)
    return _SPACES.sub(lambda m: "" if m.end() == len(joined) or joined[m.end()] in _LINE_ENDS else m.group(), joined)


def _project_key(value: str) -> str | None:
    trimmed = js_trim(value)
    if not trimmed or re.search(r"[\r\n<>]", trimmed):
        return None
    if trimmed.startswith("path:"):
        return trimmed
    separator = trimmed.find("/")
    return trimmed if separator < 1 else trimmed[:separator].lower() + trimmed[separator:]


def _project_keys(text: str) -> str | None:
    markers = len(_PROJECT.findall(text))
    if not markers:
        return None
    keys: dict[str, None] = {}
    parsed = raw = valid = 0
    for _start, _end, _kind, value in _annotations(text, _PROJECT, False):
        parsed += 1
        for piece in value.split(";"):
            raw += 1
            if (key := _project_key(piece)) is not None:
                keys[key] = None
                valid += 1
    if not (parsed == markers and raw > 0 and raw == valid):
        return INVALID_PROJECT
    return "; ".join(keys) or None


def recall_metadata(lines: list[str], *, curated_root: bool, project_scope: bool) -> RecallMetadata:
    """`extractCuratedEntryRecallMetadata` of an entry's raw lines."""
    phrases: dict[str, None] = {}
    importance: int | None = None
    for line in lines if curated_root else []:
        if not line.rstrip().endswith("-->"):
            continue
        for _start, _end, kind, value in _annotations(line, _ANNOTATION, False):
            if kind == "trigger":
                phrases.update((p, None) for part in re.split(r"[,;]", value) if (p := js_trim(part)))
            elif kind == "importance" and value.isascii() and value.isdigit() and 1 <= int(value) <= 10:
                importance = max(importance or int(value), int(value))
    return RecallMetadata(importance=importance, triggers="; ".join(phrases) or None,
                          project_key=_project_keys("\n".join(lines)) if project_scope else None)
