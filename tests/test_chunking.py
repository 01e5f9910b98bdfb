"""The chunker against §3: sizes as chars/4 with CJK ×4, long-line cuts, whole-line overlap, ranges."""

from __future__ import annotations

import hashlib

from memtui.index.chunking import chunk_markdown


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _spans(chunks) -> list[tuple[int, int, str]]:
    return [(c.start_line, c.end_line, c.text) for c in chunks]


def test_hand_worked_example_tokens_10_overlap_2() -> None:
    # maxChars = max(32, 40) = 40, overlapChars = 8; each line costs len + 1.
    # L1 17 + L2 14 = 31; + L3 20 = 51 > 40 → flush L1-L2; carry L2 (14 ≥ 8).
    # L2 14 + L3 20 + L4 6 = 40 (not > 40); + L5 1 = 41 → flush L2-L4; carry L4 (6) + L3 (20) = 26 ≥ 8.
    # L3 + L4 + L5 + L6 10 = 37 → final flush L3-L6.
    content = "alpha beta gamma\ndelta epsilon\nzeta eta theta iota\nkappa\n\nlambda mu"
    chunks = chunk_markdown(content, tokens=10, overlap=2)
    assert _spans(chunks) == [
        (1, 2, "alpha beta gamma\ndelta epsilon"),
        (2, 4, "delta epsilon\nzeta eta theta iota\nkappa"),
        (3, 6, "zeta eta theta iota\nkappa\n\nlambda mu"),
    ]
    for chunk in chunks:
        assert chunk.hash == _sha(chunk.text)


def test_overlap_zero_carries_nothing() -> None:
    content = "alpha beta gamma\ndelta epsilon\nzeta eta theta iota\nkappa\n\nlambda mu"
    chunks = chunk_markdown(content, tokens=10, overlap=0)
    # L1+L2 = 31; L3 → flush; L3 20 + L4 6 + L5 1 + L6 10 = 37.
    assert _spans(chunks) == [
        (1, 2, "alpha beta gamma\ndelta epsilon"),
        (3, 6, "zeta eta theta iota\nkappa\n\nlambda mu"),
    ]


def test_default_sizes_small_file_is_one_chunk_with_inclusive_range() -> None:
    content = "# Notes\n\n- bought milk\n- fixed the router\n"
    chunks = chunk_markdown(content)
    assert _spans(chunks) == [(1, 5, content)]
    assert chunks[0].hash == _sha(content)


def test_line_longer_than_1600_chars_is_cut_into_segments_of_the_same_line() -> None:
    a, b, c = "a" * 1600, "b" * 1600, "c" * 800
    content = a + b + c + "\ntail"
    chunks = chunk_markdown(content, tokens=400, overlap=80)
    # Segments a, b, c of line 1 each cost len+1; each later one overflows 1600 and flushes;
    # the overlap (320 chars) is always met by the single last segment.
    assert _spans(chunks) == [
        (1, 1, a),
        (1, 1, a + "\n" + b),
        (1, 1, b + "\n" + c),
        (1, 2, c + "\ntail"),
    ]


def test_minimum_max_chars_is_32() -> None:
    # tokens=1 → maxChars = max(32, 4) = 32; overlap is clamped to tokens-1 = 0.
    chunks = chunk_markdown("x" * 40, tokens=1, overlap=5)
    assert _spans(chunks) == [(1, 1, "x" * 32), (1, 1, "x" * 8)]


def test_cjk_characters_count_four() -> None:
    # "一二三" is estimated at 12 chars, cost 13: three lines fit 40 (39), the fourth does not.
    # With a plain length measure (cost 4) all six lines would fit in one chunk.
    line = "一二三"
    content = "\n".join([line] * 6)
    chunks = chunk_markdown(content, tokens=10, overlap=0)
    assert _spans(chunks) == [(1, 3, "\n".join([line] * 3)), (4, 6, "\n".join([line] * 3))]


def test_hangul_counts_four() -> None:
    line = "한국어"
    chunks = chunk_markdown("\n".join([line] * 4), tokens=10, overlap=0)
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 3), (4, 4)]


def test_cjk_segment_over_budget_is_resplit_into_token_sized_pieces() -> None:
    # 15 CJK chars: one 40-unit slice, estimated 60 > 40 → pieces of tokens=10 code units.
    content = "汉" * 15
    chunks = chunk_markdown(content, tokens=10, overlap=0)
    assert _spans(chunks) == [(1, 1, "汉" * 10), (1, 1, "汉" * 5)]


def test_extension_b_surrogate_pair_counts_once_times_four() -> None:
    # 9 × U+20000 = 18 UTF-16 units, estimated 36 (not 72), cost 37; "a" (2) fits, "b" does not.
    content = "\U00020000" * 9 + "\na\nb"
    chunks = chunk_markdown(content, tokens=10, overlap=0)
    assert _spans(chunks) == [(1, 2, "\U00020000" * 9 + "\na"), (3, 3, "b")]


def test_extension_b_resplit_never_splits_a_surrogate_pair() -> None:
    # 25 × U+20000 = 50 units: slice 40 units (20 chars, est 80 > 40) → re-split into
    # 10-unit pieces = 5 chars each; the 10-unit rest (est 20) stays whole.
    content = "\U00020000" * 25
    chunks = chunk_markdown(content, tokens=10, overlap=0)
    assert _spans(chunks) == [(1, 1, "\U00020000" * 5)] * 5
    for chunk in chunks:
        assert chunk.hash == _sha(chunk.text)


def test_astral_non_cjk_characters_count_two_utf16_units() -> None:
    # 20 emoji = 40 UTF-16 units (est 40, cost 41): the next one-char line must start a new chunk.
    emoji = "\U0001F600" * 20
    chunks = chunk_markdown(emoji + "\nz", tokens=10, overlap=0)
    assert _spans(chunks) == [(1, 1, emoji), (2, 2, "z")]


def test_overlap_keeps_whole_trailing_lines_until_budget_met() -> None:
    # tokens=12 → maxChars 48, overlap=3 → overlapChars 12. Lines cost 6 each ("abcde").
    lines = [f"line{i}" for i in range(1, 11)]
    chunks = chunk_markdown("\n".join(lines), tokens=12, overlap=3)
    # 8 lines fill 48; the 9th flushes; carry walks back 6 + 6 = 12 ≥ 12 → two whole lines.
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 8), (7, 10)]
    assert chunks[1].text == "\n".join(lines[6:10])


def test_whitespace_only_chunks_are_dropped() -> None:
    content = "x" * 39 + "\n" + " " * 39 + "\n" + "\t" * 10 + "\ny"
    chunks = chunk_markdown(content, tokens=10, overlap=0)
    # L1 costs 40 (a chunk alone); L2 costs 40 (whitespace only → dropped); L3 11 + L4 2 fit.
    assert _spans(chunks) == [(1, 1, "x" * 39), (3, 4, "\t" * 10 + "\ny")]


def test_empty_and_blank_files_have_no_chunks() -> None:
    assert chunk_markdown("") == []
    assert chunk_markdown("\n\n   \n") == []


def test_crlf_lines_keep_their_carriage_returns() -> None:
    content = "first\r\nsecond\r\n"
    chunks = chunk_markdown(content)
    assert _spans(chunks) == [(1, 3, content)]
    assert chunks[0].hash == _sha(content)


def test_blank_lines_are_kept_and_numbered() -> None:
    content = "\n\nthird\n\nfifth"
    chunks = chunk_markdown(content)
    assert _spans(chunks) == [(1, 5, content)]
