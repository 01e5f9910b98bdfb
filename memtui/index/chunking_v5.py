"""OpenClaw 2026.9.6's chunker (`MEMORY_CHUNKING_VERSION = 5`, benchmarks/openclaw_record/OPENCLAW-2026.9.6.md §4):
annotation comments stripped from memory files, one chunk per `- ` entry and per heading in MEMORY.md and
USER.md, an overlap carry bounded by the room the next line leaves, and each entry's recall metadata (importance,
triggers, project key) read from its raw lines.

It restates `markdown-chunks.ts` `chunkMarkdown`, `curated-annotations.ts` and `manager-index-preparation.ts`
`prepareMemoryIndexChunks`; chunk ids keep 2026.4's rule, so only ranges and texts differ from `chunking.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from memtui.index.chunking import Chunk, estimate_chars, hash_text, utf16_len, well_formed
from memtui.jscompat import js_trim

CHUNKING_VERSION = 5
INVALID_PROJECT = "!invalid-project-annotation"
_ANNOTATION = re.compile(r"<!--\s*(trigger|importance|project)\s*:", re.IGNORECASE)
_PROJECT = re.compile(r"<!--\s*(project)\s*:", re.IGNORECASE)
_LINE_BREAK = re.compile(r"[\r\n]")
_SECTION = re.compile(r"#{1,6}(?:\s|$)")
_SPACES = re.compile(r"[ \t]+")
_LINE_ENDS = "\r\n\u2028\u2029"
_CURATED_ROOTS = ("MEMORY.md", "memory.md", "USER.md")


@dataclass(frozen=True)
class RecallMetadata:
    """`memory_index_chunk_recall_metadata` of a chunk: from `<!-- importance: N -->`, `<!-- trigger: … -->` and
    `<!-- project: … -->` on its entry's lines."""

    importance: int | None = None
    triggers: str | None = None
    project_key: str | None = None


@dataclass(frozen=True)
class ChunkV5:
    """A chunk and the recall metadata of the entry it belongs to."""

    chunk: Chunk
    metadata: RecallMetadata


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


def _utf16_prefix(text: str, limit: int) -> str:
    """`truncateUtf16Safe`: at most `limit` UTF-16 units, never half a surrogate pair."""
    if utf16_len(text) <= limit:
        return text
    units = 0
    for index, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > limit:
            return text[:index]
    return text


def _tail(text: str, budget: int) -> str:
    """`takeTailByEstimatedChars`: the end of `text` that fits in `budget` estimated chars."""
    total, start = 0, len(text)
    while start > 0:
        total += estimate_chars(text[start - 1])
        if total > budget:
            break
        start -= 1
    return text[start:]


def chunk_markdown_v5(content: str, *, tokens: int = 400, overlap: int = 80,
                      per_entry: bool = False) -> list[tuple[Chunk, tuple[int, int] | None]]:
    """`chunkMarkdown` of version 5: each chunk with its entry's line span (per-entry mode, `- ` entries only)."""
    max_chars, overlap_chars = max(32, tokens * 4), max(0, overlap * 4)
    chunks: list[tuple[Chunk, tuple[int, int] | None]] = []
    current: list[tuple[str, int]] = []
    current_chars = 0
    entry_start: int | None = None
    entry_first = 0

    def flush() -> None:
        if current:
            text = well_formed("\n".join(line for line, _ in current))
            chunks.append((Chunk(current[0][1], current[-1][1], text, hash_text(text)), None))

    def carry(window: int) -> None:
        nonlocal current, current_chars
        kept: list[tuple[str, int]] = []
        total = 0
        for line, line_no in reversed(current if window > 0 else []):
            size = estimate_chars(line) + 1
            if size > window - total:
                tail = _tail(line, window - total - 1) if not kept else ""
                if tail:
                    kept.insert(0, (tail, line_no))
                    total += estimate_chars(tail) + 1
                break
            total += size
            kept.insert(0, (line, line_no))
            if total >= window:
                break
        current, current_chars = kept, total

    def append(segment: str, line_no: int, chars: int) -> None:
        nonlocal current_chars
        if current_chars + chars + 1 > max_chars and current:
            flush()
            carry(min(overlap_chars, max(0, max_chars - chars - 1)))
        current.append((segment, line_no))
        current_chars += chars + 1

    def finish_entry(end_line: int) -> None:
        if entry_start is not None:
            chunks[entry_first:] = [(chunk, (entry_start, end_line)) for chunk, _ in chunks[entry_first:]]

    for index, line in enumerate(content.split("\n")):
        line_no = index + 1
        kind = None
        if per_entry:
            kind = "entry" if line.startswith("- ") else "section" if _SECTION.match(line) or index == 0 else None
        if kind:
            flush()
            finish_entry(line_no - 1)
            current, current_chars = [], 0
            entry_start = line_no if kind == "entry" else None
            entry_first = len(chunks)
        if not line:
            append("", line_no, 0)
        rest = line
        while rest:
            coarse = _utf16_prefix(rest, max_chars)
            coarse_chars = estimate_chars(coarse)
            if coarse_chars > max_chars:
                piece, piece_chars = "", 0
                for char in coarse:
                    chars = estimate_chars(char)
                    if piece_chars + chars > max_chars:
                        append(piece, line_no, piece_chars)
                        piece, piece_chars = "", 0
                    piece += char
                    piece_chars += chars
                append(piece, line_no, piece_chars)
            else:
                append(coarse, line_no, coarse_chars)
            rest = rest[len(coarse):]
    flush()
    finish_entry(len(content.split("\n")))
    return chunks


def prepare_chunks(content: str, path: str, source: str, *, tokens: int = 400, overlap: int = 80) -> list[ChunkV5]:
    """`prepareMemoryIndexChunks`: a file's chunks as 2026.9.6 indexes them (whitespace-only chunks dropped), each
    with the recall metadata of its entry (of the chunk itself outside per-entry mode)."""
    normalized = path.replace("\\", "/")
    memory = source == "memory"
    per_entry = memory and normalized in ("MEMORY.md", "USER.md")
    chunks = chunk_markdown_v5(strip_annotations(content) if memory else content, tokens=tokens, overlap=overlap,
                               per_entry=per_entry)
    raw_lines = content.replace("\r\n", "\n").split("\n") if memory else []
    curated_root = normalized in _CURATED_ROOTS
    project_scope = memory and normalized.upper() != "USER.MD"
    spans: dict[tuple[int, int], RecallMetadata] = {}
    prepared = []
    for chunk, entry in chunks:
        if not js_trim(chunk.text):
            continue
        span = entry or (chunk.start_line, chunk.end_line)
        if span not in spans:
            spans[span] = recall_metadata(raw_lines[span[0] - 1 : span[1]], curated_root=curated_root,
                                          project_scope=project_scope)
        prepared.append(ChunkV5(chunk, spans[span]))
    return prepared
