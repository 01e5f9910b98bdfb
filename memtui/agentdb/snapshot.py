"""A private, consistent copy of a database that another program (OpenClaw) has open in WAL mode.

SQLite's reader of a WAL database writes its `-shm` file (and creates it when missing), even with `mode=ro`, so a
read of OpenClaw's agent database while OpenClaw runs — or after a crash left a `-wal` — would change a file in
OpenClaw's state dir. Instead, the database and its `-wal` are copied into memtui's own data dir
(`<data home>/snapshots/`), the copy is checked against the source (size, mtime and inode of both files and the
WAL header, before and after: a copy during a write or a checkpoint is thrown away and taken again), the WAL is
folded into the copy, and the copy is opened `immutable=1`. A snapshot is reused while the source's files are
unchanged, by this process and by the next one.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import time
from collections.abc import Mapping
from pathlib import Path

from memtui.errors import StoreError

try:
    import sqlean as sqlite_driver
except ImportError:  # pragma: no cover - sqlean-py is a hard dependency
    import sqlite3 as sqlite_driver

COPY_ATTEMPTS = 8
_WAL_HEADER_BYTES = 32
_SWEEP_AFTER_S = 120.0  # an older snapshot of the same file, or a killed copy, is removed after this long


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return info.st_ino, info.st_size, info.st_mtime_ns


def _wal_header(wal: Path) -> bytes:
    try:
        with open(wal, "rb") as handle:
            return handle.read(_WAL_HEADER_BYTES)
    except FileNotFoundError:
        return b""


def source_state(path: Path) -> tuple[object, ...]:
    """What identifies the content of `path` and its `-wal`: inode, size and mtime of each, and the WAL header
    (its salts change whenever the WAL restarts, also when the size stays the same)."""
    wal = Path(f"{path}-wal")
    return _stat(path), _stat(wal), _wal_header(wal)


def data_home(env: Mapping[str, str] | None = None) -> Path:
    """memtui's per-user data folder: `$MEMTUI_DATA_DIR`, else `$XDG_DATA_HOME/memtui`, else
    `~/.local/share/memtui` — never inside the OpenClaw state dir, which belongs to OpenClaw."""
    env = os.environ if env is None else env
    if env.get("MEMTUI_DATA_DIR"):
        return Path(env["MEMTUI_DATA_DIR"]).expanduser().absolute()
    base = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local" / "share")
    return Path(base).expanduser().absolute() / "memtui"


def snapshot_folder(path: Path) -> Path:
    """Where the snapshots of `path` live: `<data home>/snapshots/<name>-<hash of the absolute path>`."""
    absolute = path.absolute()
    digest = hashlib.sha256(str(absolute).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", absolute.name)[:40]
    return data_home() / "snapshots" / f"{name}-{digest}"


def wal_snapshot(path: Path) -> Path:
    """A consistent single-file copy of `path` with its `-wal` folded in, under memtui's data dir (reused while
    the source is unchanged). Nothing is written beside `path`; StoreError when no steady copy could be taken."""
    folder = snapshot_folder(path)
    for attempt in range(COPY_ATTEMPTS):
        state = source_state(path)
        if state[0] is None:
            raise StoreError(f"cannot read OpenClaw's database {path}: it was removed")
        target = folder / f"{hashlib.sha256(repr(state).encode()).hexdigest()[:24]}.sqlite"
        if target.is_file():
            return target
        made = _copy(path, folder, target, state)
        if made:
            _sweep(folder, keep=target)
            return target
        time.sleep(min(0.5, 0.02 * 2 ** attempt))
    raise StoreError(f"cannot take a steady copy of OpenClaw's database {path}: it changed during each of "
                     f"{COPY_ATTEMPTS} copies (OpenClaw is writing it)", "try again in a moment")


def _copy(path: Path, folder: Path, target: Path, state: tuple[object, ...]) -> bool:
    """Copy `path` and its `-wal` into a fresh folder, check the source did not change meanwhile, fold the WAL
    in and move the result to `target`. False when the source changed (the copy is dropped)."""
    work = folder / f".tmp-{os.getpid()}-{time.monotonic_ns()}"
    try:
        work.mkdir(parents=True)
        copy = work / "snapshot.sqlite"
        shutil.copyfile(path, copy)
        wal = Path(f"{path}-wal")
        if state[1] is not None:
            shutil.copyfile(wal, f"{copy}-wal")
        if source_state(path) != state:
            return False
        conn = sqlite_driver.connect(str(copy))
        try:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.execute("PRAGMA journal_mode = DELETE")
        finally:
            conn.close()
        os.replace(copy, target)
        return True
    except FileNotFoundError:
        return False  # the -wal went away (OpenClaw closed it): the next attempt reads the file alone
    except OSError as exc:
        raise StoreError(f"cannot copy OpenClaw's database {path} into {folder}: {exc.strerror}",
                         "set MEMTUI_DATA_DIR to a writable folder") from None
    except sqlite_driver.Error as exc:
        raise StoreError(f"cannot read OpenClaw's database {path} (a copy of it with its -wal): {exc}") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _sweep(folder: Path, keep: Path) -> None:
    """Remove older snapshots of the same file and copies a killed process left, once they are a while old (a
    process that still reads one keeps its open file)."""
    cutoff = time.time() - _SWEEP_AFTER_S
    for entry in folder.iterdir():
        if entry == keep:
            continue
        try:
            if entry.lstat().st_mtime < cutoff:
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink()
        except OSError:
            continue
