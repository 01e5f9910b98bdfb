"""OpenClaw 2026.9.6's chunker (`MEMORY_CHUNKING_VERSION = 5`, benchmarks/openclaw_record/OPENCLAW-2026.9.6.md §4):
annotation comments stripped from memory files, one chunk per `- ` entry and per heading in MEMORY.md and
USER.md, an overlap carry bounded by the room the next line leaves, and each entry's recall metadata (importance,
triggers, project key) read from its raw lines.

It restates `markdown-chunks.ts` `chunkMarkdown` and `manager-index-preparation.ts`
`prepareMemoryIndexChunks` (the annotations: `annotations.py`); chunk ids keep 2026.4's rule, so only ranges and
texts differ from `chunking.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memtui.index.annotations import (
    CHUNKING_VERSION,
    CURATED_ROOTS,
    INVALID_PROJECT,
    RecallMetadata,
    recall_metadata,
    strip_annotations,
)
from memtui.index.chunking import Chunk, estimate_chars, hash_text, utf16_len, well_formed
from memtui.jscompat import js_trim

__all__ = ["CHUNKING_VERSION", "INVALID_PROJECT", "ChunkV5", "RecallMetadata", "chunk_markdown_v5", "prepare_chunks",
           "strip_annotations"]

_SECTION = re.compile(r"#{1,6}(?:\s|$)")


@dataclass(frozen=True)
class ChunkV5:
    """A chunk and the recall metadata of the entry it belongs to."""

    chunk: Chunk
    metadata: RecallMetadata


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
    curated_root = normalized in CURATED_ROOTS
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
