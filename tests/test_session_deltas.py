"""Session delta tracking: thresholds, subtraction, shrink reset, 64 KiB block counting (§6.4)."""

from __future__ import annotations

import threading
from pathlib import Path

from memtui.index.session_deltas import READ_BLOCK_BYTES, SessionDeltaTracker, count_newlines


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as handle:
        handle.write(data)


def test_defaults_match_openclaw() -> None:
    tracker = SessionDeltaTracker()
    assert (tracker.delta_bytes, tracker.delta_messages) == (100_000, 50)


def test_below_both_thresholds_stays_clean(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":2}\n')  # 16 bytes, 2 newlines
    tracker = SessionDeltaTracker(delta_bytes=1000, delta_messages=10)
    result = tracker.observe(path)
    assert (result.counted_bytes, result.counted_messages) == (16, 2)
    assert (result.pending_bytes, result.pending_messages, result.dirty) == (16, 2, False)
    assert tracker.dirty_files() == set()


def test_messages_threshold(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    tracker = SessionDeltaTracker(delta_bytes=10**9, delta_messages=5)
    append(path, b"x\n" * 4)
    assert tracker.observe(path).dirty is False
    append(path, b"y\n")
    result = tracker.observe(path)
    assert result.counted_messages == 1
    assert result.dirty is True
    assert result.pending_messages == 0  # 5 - 5
    assert result.pending_bytes == 0  # both counters give up their threshold, floored at 0
    assert tracker.take_dirty() == {path}
    assert tracker.dirty_files() == set()


def test_bytes_threshold_subtracts_and_keeps_remainder(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"a" * 999)
    tracker = SessionDeltaTracker(delta_bytes=1000, delta_messages=50)
    first = tracker.observe(path)
    assert (first.pending_bytes, first.dirty) == (999, False)
    append(path, b"b")
    second = tracker.observe(path)
    assert (second.counted_bytes, second.pending_bytes, second.dirty) == (1, 0, True)
    tracker.take_dirty()
    append(path, b"c" * 1500)
    third = tracker.observe(path)
    assert (third.counted_bytes, third.pending_bytes, third.dirty) == (1500, 500, True)
    assert tracker.dirty_files() == {path}


def test_unchanged_file_is_not_counted_twice(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"line\n" * 3)
    tracker = SessionDeltaTracker(delta_bytes=1000, delta_messages=50)
    tracker.observe(path)
    again = tracker.observe(path)
    assert (again.counted_bytes, again.counted_messages, again.pending_bytes, again.pending_messages) == (
        0,
        0,
        15,
        3,
    )


def test_zero_threshold_means_any_change(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    tracker = SessionDeltaTracker(delta_bytes=0, delta_messages=0)
    assert tracker.observe(path).dirty is False
    append(path, b"z")
    result = tracker.observe(path)
    assert (result.dirty, result.pending_bytes, result.pending_messages) == (True, 0, 0)
    assert tracker.observe(path).dirty is False


def test_negative_message_threshold_with_bytes_threshold(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"")
    tracker = SessionDeltaTracker(delta_bytes=10**6, delta_messages=-1)
    append(path, b"no newline yet")
    assert tracker.observe(path).dirty is False
    append(path, b"\n")
    assert tracker.observe(path).dirty is True


def test_shrinking_file_resets_and_counts_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"0123456789\n" * 100)  # 1100 bytes
    tracker = SessionDeltaTracker(delta_bytes=10**6, delta_messages=10**6)
    tracker.observe(path)
    path.write_bytes(b"ab\ncd\nef\n")  # rewritten smaller: 9 bytes, 3 newlines
    result = tracker.observe(path)
    assert result.shrank is True
    assert (result.size, result.counted_bytes, result.counted_messages) == (9, 9, 3)
    assert (result.pending_bytes, result.pending_messages) == (1100 + 9, 100 + 3)
    append(path, b"gh\n")
    after = tracker.observe(path)
    assert (after.shrank, after.counted_bytes, after.counted_messages) == (False, 3, 1)


def test_newlines_counted_across_64k_blocks(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    record = b'{"type":"message","pad":"' + b"p" * 1000 + b'"}\n'  # 1027 bytes
    count = 3 * READ_BLOCK_BYTES // len(record) + 7
    path.write_bytes(record * count)
    assert count_newlines(path, 0, len(record) * count) == count
    start = len(record) * 10 + 5  # inside record 11 → its newline and all later ones
    assert count_newlines(path, start, len(record) * count) == count - 10
    tracker = SessionDeltaTracker(delta_bytes=10**9, delta_messages=count)
    result = tracker.observe(path)
    assert (result.counted_messages, result.dirty) == (count, True)


def test_missing_file(tmp_path: Path) -> None:
    tracker = SessionDeltaTracker()
    result = tracker.observe(tmp_path / "gone.jsonl")
    assert (result.missing, result.dirty, result.size) == (True, False, 0)


def test_baseline_counts_only_later_appends(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"x\n" * 60)
    tracker = SessionDeltaTracker(delta_bytes=10**6, delta_messages=50)
    tracker.baseline(path, path.stat().st_size)
    append(path, b"y\n")
    result = tracker.observe(path)
    assert (result.counted_bytes, result.counted_messages, result.dirty) == (2, 1, False)


def test_forget_clears_dirty(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"x\n")
    tracker = SessionDeltaTracker(delta_bytes=0, delta_messages=0)
    assert tracker.observe(path).dirty is True
    tracker.forget(path)
    assert tracker.dirty_files() == set()


def test_concurrent_observers_count_each_byte_once(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"m\n" * 50_000)
    tracker = SessionDeltaTracker(delta_bytes=10**9, delta_messages=10**9)
    results = []
    barrier = threading.Barrier(8)

    def worker() -> None:
        barrier.wait()
        results.append(tracker.observe(path))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(r.counted_bytes for r in results) == 100_000
    assert sum(r.counted_messages for r in results) == 50_000
