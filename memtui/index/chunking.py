"""The Markdown chunker, identical to OpenClaw 2026.4's `chunkMarkdown` (§3).

Sizes are "estimated characters": JavaScript string length (UTF-16 code units) with every
CJK-range character counted as 4. Chunk line numbers are 1-based and inclusive.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memtui.jscompat import sha256_hex

_CJK_CLASS = "[\u2e80-\u9fff\ua000-\ua4ff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]"
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
EMBEDDING_BATCH_MAX_BYTES = 8000


@functools.cache
def _cjk() -> re.Pattern[str]:
    """The CJK character class, compiled on first use (~2 ms, which a search-only process never pays)."""
    return re.compile(_CJK_CLASS)


@dataclass(frozen=True)
class Chunk:
    """A piece of a file: inclusive 1-based line range, its text and sha256(text)."""

    start_line: int
    end_line: int
    text: str
    hash: str


def utf16_len(text: str) -> int:
    """JavaScript `text.length`: UTF-16 code units."""
    if text.isascii():
        return len(text)
    return len(text) + len(_ASTRAL.findall(text))


def estimate_chars(text: str) -> int:
    """`estimateStringChars`: UTF-16 length with each CJK character counted as 4 (a surrogate pair once)."""
    if text.isascii():
        return len(text)
    extra = 0
    for match in _cjk().finditer(text):
        extra += 2 if ord(match.group()) > 0xFFFF else 3
    return utf16_len(text) + extra


def well_formed(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD, as Node's UTF-8 encoder (SQLite, hashing) does.
    A segment cut at a fixed UTF-16 length can split an emoji; OpenClaw stores that chunk with U+FFFD."""
    return text if text.isascii() else _LONE_SURROGATE.sub("\ufffd", text)


def hash_text(text: str) -> str:
    """sha256 of the text as Node would hash it (lone surrogates become U+FFFD)."""
    return sha256_hex(well_formed(text))


def _slice_utf16(text: str, size: int) -> list[str]:
    """Cut `text` into pieces of `size` UTF-16 code units (as JS `slice` would)."""
    if not _ASTRAL.search(text):
        return [text[i : i + size] for i in range(0, len(text), size)]
    units = text.encode("utf-16-le", "surrogatepass")
    step = size * 2
    return [units[i : i + step].decode("utf-16-le", "surrogatepass") for i in range(0, len(units), step)]


def _split_keeping_pairs(text: str, size: int) -> list[str]:
    """OpenClaw's fine split: pieces of `size` UTF-16 units, a piece that would end on the first half of a
    surrogate pair taking its second half too (so it holds `size + 1` units)."""
    units = text.encode("utf-16-le", "surrogatepass")
    count = len(units) // 2
    pieces: list[str] = []
    start = 0
    while start < count:
        end = min(start + size, count)
        if end < count and 0xD800 <= int.from_bytes(units[2 * end - 2 : 2 * end], "little") <= 0xDBFF:
            end += 1
        pieces.append(units[2 * start : 2 * end].decode("utf-16-le", "surrogatepass"))
        start = end
    return pieces


def _segments(line: str, max_chars: int, tokens: int) -> list[str]:
    if not line:
        return [""]
    segments: list[str] = []
    for segment in _slice_utf16(line, max_chars):
        if estimate_chars(segment) > max_chars:
            segments.extend(_split_keeping_pairs(segment, max(1, tokens)))
        else:
            segments.append(segment)
    return segments


def chunk_markdown(content: str, tokens: int = 400, overlap: int = 80) -> list[Chunk]:
    """Split `content` into overlapping line-based chunks (whitespace-only chunks dropped)."""
    tokens = max(1, tokens)
    overlap = max(0, min(overlap, tokens - 1))
    max_chars = max(32, tokens * 4)
    overlap_chars = max(0, overlap * 4)
    chunks: list[Chunk] = []
    current: list[tuple[str, int, int]] = []
    current_chars = 0

    def flush() -> None:
        if current:
            text = well_formed("\n".join(segment for segment, _, _ in current))
            chunks.append(Chunk(current[0][1], current[-1][1], text, hash_text(text)))

    for index, line in enumerate(content.split("\n")):
        for segment in _segments(line, max_chars, tokens):
            size = estimate_chars(segment) + 1
            if current_chars + size > max_chars and current:
                flush()
                kept: list[tuple[str, int, int]] = []
                if overlap_chars > 0:
                    accumulated = 0
                    for entry in reversed(current):
                        accumulated += entry[2]
                        kept.insert(0, entry)
                        if accumulated >= overlap_chars:
                            break
                current = kept
                current_chars = sum(entry[2] for entry in kept)
            current.append((segment, index + 1, size))
            current_chars += size
    flush()
    return [chunk for chunk in chunks if chunk.text.strip()]


def split_for_embedding(chunks: list[Chunk], max_input_tokens: int) -> list[Chunk]:
    """`enforceEmbeddingMaxInputTokens`: split chunks over min(max, 8000) UTF-8 bytes; lines are kept."""
    limit = max(1, min(max_input_tokens, EMBEDDING_BATCH_MAX_BYTES))
    result: list[Chunk] = []
    for chunk in chunks:
        if len(chunk.text.encode("utf-8", "surrogatepass")) <= limit:
            result.append(chunk)
            continue
        piece: list[str] = []
        used = 0
        for char in chunk.text:
            width = len(char.encode("utf-8", "surrogatepass"))
            if used + width > limit and piece:
                text = "".join(piece)
                result.append(Chunk(chunk.start_line, chunk.end_line, text, hash_text(text)))
                piece, used = [], 0
            piece.append(char)
            used += width
        if piece:
            text = "".join(piece)
            result.append(Chunk(chunk.start_line, chunk.end_line, text, hash_text(text)))
    return result
