"""bench_faults' `full disk` class (issue 29, item 2): appends on a disk with 0–150 KB free.

Each attempt mounts a fresh 200 KB tmpfs (`mount -t tmpfs -o size=200k`), lays a workspace on it, fills it to
leave `free` KB (0, 4, 8, 16, 32, 64, 100 or 150) and then writes a note of 0.1–120 KB:
  note       the TUI's note (`append_note`) into the day's log;
  promote    `promote_lines` of a block of lines into MEMORY.md, and once the disk has room again the same
             promotion retried;
  save       the editor's atomic save (`save_memory_file`) of a longer MEMORY.md.
A failure is a torn file (anything but the bytes before, or the bytes before plus the whole addition), a write
that failed without an `OSError` naming the full disk, or a promotion retried after a failure that answers
"already promoted" (a torn block's marker left behind).

Where no tmpfs can be mounted (not root, a container without CAP_SYS_ADMIN) the full disk is simulated in the
process as tests/test_hardening_r3_appends.py does (`os.write` lands part of the bytes, then ENOSPC), and the
class says so on stderr.
"""

from __future__ import annotations

import contextlib
import errno
import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Protocol

from memtui.tui.curation import append_note, promote_lines, save_memory_file

DAY = date(2026, 11, 30)
LOG = "memory/2026-11-30.md"
FREE_KB = (0, 4, 8, 16, 32, 64, 100, 150)
DISK_KB = 200
FAILED: dict[str, int] = {}  # surface → writes the full disk made fail (the rest fitted)


class Recorder(Protocol):
    """bench_faults' Tally."""

    def record(self, ok: bool, what: str) -> None: ...


@contextlib.contextmanager
def _tmpfs(where: Path) -> Iterator[bool]:
    """A 200 KB tmpfs mounted at `where` while the block runs (False: it could not be mounted)."""
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_KB}k", "tmpfs", str(where)],
                          capture_output=True, text=True)
    try:
        yield done.returncode == 0
    finally:
        if done.returncode == 0:
            subprocess.run(["umount", str(where)], capture_output=True)


def _fill(folder: Path, free_kb: int) -> Path:
    """A filler file leaving about `free_kb` KB free on `folder`'s file system."""
    filler = folder / "filler.bin"
    with open(filler, "wb") as handle:
        while True:
            room = os.statvfs(folder)
            left = room.f_bavail * room.f_frsize - free_kb * 1024
            if left <= 0:
                break
            try:
                handle.write(b"\0" * min(left, 1 << 16))
                handle.flush()
            except OSError:
                break
    return filler


def _workspace(folder: Path) -> Path:
    workspace = folder / "ws"
    (workspace / "memory").mkdir(parents=True)
    lines = "".join(f"- Line {n}: the carrier manifests for depot {n} were reconciled.\n" for n in range(40))
    (workspace / LOG).write_text(f"# 2026-11-30\n\n{lines}", encoding="utf-8")
    (workspace / "MEMORY.md").write_text("# Long-Term Memory\n\n- Deploys happen on Mondays.\n", encoding="utf-8")
    return workspace


def _note(size: int) -> str:
    words = ("the", "pgbouncer", "pool", "was", "raised", "after", "webhook", "502s", "on", "carrier", "gateway")
    text: list[str] = []
    while sum(len(t) + 1 for t in text) < size:
        text.append(" ".join(random.choice(words) for _ in range(12)) + f" ({len(text)})")
    return "\n".join(text)


def _checked(tally: Recorder, surface: str, path: Path, action: Callable[[], object],
             whole: Callable[[bytes, bytes], bool]) -> bool:
    """Run `action` on the full disk: the file is as before (and the error names the full disk), or `whole`
    (before, after) holds. Returns whether it failed."""
    before = path.read_bytes()
    try:
        action()
    except OSError as exc:
        FAILED[surface] = FAILED.get(surface, 0) + 1
        tally.record(path.read_bytes() == before, f"{surface}: torn file after a failed write")
        tally.record(exc.errno == errno.ENOSPC, f"{surface}: the error does not name the full disk ({exc})")
        return True
    tally.record(whole(before, path.read_bytes()), f"{surface}: a write that succeeded left a torn file")
    return False


def _attempt(folder: Path, tally: Recorder, free_kb: int, size: int, *, fill: bool) -> None:
    """One note, one promotion (retried after freeing the disk when it failed) and one save on a disk with
    `free_kb` KB free."""
    workspace = _workspace(folder)
    filler = _fill(folder, free_kb) if fill else None
    log, memory = workspace / LOG, workspace / "MEMORY.md"
    note = _note(size)
    last = note.splitlines()[-1].encode()

    def appended(before: bytes, after: bytes) -> bool:
        return len(after) > len(before) and after.startswith(before) and after.rstrip(b"\n").endswith(last)

    _checked(tally, "note", log, lambda: append_note(workspace, DAY, note), appended)
    block = log.read_text(encoding="utf-8").splitlines()[2:42]
    promote = {"path": LOG, "start_line": 3, "end_line": 42, "text": "\n".join([*block, note]), "day": DAY}

    def promoted(before: bytes, after: bytes) -> bool:
        return after.startswith(before) and last in after[len(before):]

    if _checked(tally, "promote", memory, lambda: promote_lines(workspace, **promote), promoted):
        if filler is not None:
            filler.unlink()
        outcome = promote_lines(workspace, **promote)
        tally.record(outcome.appended, "promote: retried after a failure, answered 'already promoted'")
        filler = _fill(folder, free_kb) if fill else None
    new = memory.read_text(encoding="utf-8") + note + "\n"
    _checked(tally, "save", memory, lambda: save_memory_file(workspace, "MEMORY.md", new, expected_digest=False),
             lambda _before, after: after == new.encode())
    if filler is not None:
        filler.unlink()


def full_disk(root: Path, tally: Recorder, rounds: int) -> None:
    """Notes, promotions and saves on a 200 KB tmpfs left with 0–150 KB free, `rounds` times over each level."""
    simulated = 0
    for number in range(rounds):
        for free_kb in FREE_KB:
            size = random.choice((100, 2_000, 20_000, 60_000, 120_000))
            folder = root / "disk" / f"r{number}-{free_kb}"
            with _tmpfs(folder) as mounted:
                if mounted:
                    _attempt(folder, tally, free_kb, size, fill=True)
                    continue
            simulated += 1
            with _simulated_enospc(free_kb * 1024):
                _attempt(folder, tally, free_kb, size, fill=False)
    print("full disk: writes that hit the full disk: " + ", ".join(f"{surface} {count}" for surface, count in
                                                              sorted(FAILED.items())), file=sys.stderr)
    if simulated:
        print(f"full disk: no tmpfs could be mounted; {simulated} attempts simulated ENOSPC in the process",
              file=sys.stderr)


@contextlib.contextmanager
def _simulated_enospc(room: int) -> Iterator[None]:
    """`os.write` with only `room` bytes left in all: a write past it lands what fits, the next raises ENOSPC."""
    real = os.write
    left = [room]

    def write(fd: int, data: bytes) -> int:
        if left[0] <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = real(fd, bytes(data[: left[0]]))
        left[0] -= written
        return written

    os.write = write  # type: ignore[assignment]
    try:
        yield
    finally:
        os.write = real  # type: ignore[assignment]
