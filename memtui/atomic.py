"""Confined file access: no-follow opens beneath a root, atomic writes (temp file + rename) that refuse to
clobber a file changed on disk, and appends that never lose another writer's lines.

Every component below the root is opened with `O_NOFOLLOW` relative to its parent's descriptor, so a
symlink swapped in anywhere on the way (file or folder, before or during the call) is refused instead
of followed, and what is read or written is the file that was checked. FIFOs and devices are refused
without blocking, and so (where asked) is a file with more than one hard link. A folder swapped, removed or
replaced under a write is an EscapeError too, never a raw OSError. Messages name the path below the root
only, never the absolute location.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from memtui.errors import PathError

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_LEAF_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# `.name.<token>.tmp`: this module's temp files (12 hex digits), and `tempfile.mkstemp`'s from before.
_TEMP_NAME = re.compile(r"^\..+\.(?:[0-9a-f]{12}|[A-Za-z0-9_]{8})\.tmp$")
# A temp file younger than this may belong to a writer that has created it but not locked it yet.
STALE_TEMP_S = 1.0


class ConflictError(PathError):
    """The file changed on disk since it was read; the write was refused."""


class EscapeError(PathError):
    """The path runs through a symlink, or ends at something that is not a regular file, or changed under a
    write; nothing was opened (or written)."""


class OutsideError(EscapeError):
    """The path lies outside the folder it belongs to; nothing was opened."""


class LinkedError(EscapeError):
    """The file has more than one hard link: writing would change (or split off) a file named elsewhere too,
    and reading might return one named outside the workspace."""


def file_digest(path: Path) -> str | None:
    """SHA-256 of the file's bytes, or None when it does not exist."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def parts_below(root: Path, path: Path) -> tuple[str, ...]:
    """The components of `path` below `root` (lexically, nothing resolved); PathError when it is not below."""
    try:
        parts = Path(os.path.normpath(path)).relative_to(os.path.normpath(root)).parts
    except ValueError:
        raise OutsideError(f"{path.name} is outside the folder it belongs to; refusing to touch it") from None
    if not parts or any(part in (".", "..") for part in parts):
        raise OutsideError(f"{path.name} is outside the folder it belongs to; refusing to touch it")
    return parts


@contextlib.contextmanager
def _folder(root: Path, parts: Sequence[str], *, make: bool, follow_root: bool = True) -> Iterator[int]:
    """A descriptor of `root/parts…`, each component opened without following symlinks (created with `make`;
    `root` itself too unless `follow_root`). With `make` (a write), a component swapped, removed or replaced
    meanwhile is an EscapeError."""
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | (0 if follow_root else os.O_NOFOLLOW))
    except OSError as exc:
        if follow_root or exc.errno not in (errno.ELOOP, errno.ENOTDIR) or not os.path.islink(root):
            raise
        raise EscapeError(f"{root.name} is a symlink; refusing to write through it (pass root= the folder the "
                          "file must stay in, which may be reached through links)") from None
    try:
        for index, name in enumerate(parts):
            shown = parts[: index + 1]
            try:
                try:
                    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except FileNotFoundError:
                    if not make:
                        raise
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, 0o755, dir_fd=fd)
                    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                error = _escape(exc, shown, fd)
                if make and isinstance(error, FileNotFoundError | NotADirectoryError):
                    error = _not_a_folder(fd, shown) or _changed(shown, error)
                raise error from None
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def _not_a_folder(parent: int, shown: Sequence[str]) -> EscapeError | None:
    """A regular file where a write needs a folder."""
    with contextlib.suppress(OSError):
        if stat.S_ISREG(os.stat(shown[-1], dir_fd=parent, follow_symlinks=False).st_mode):
            return EscapeError(f"{'/'.join(shown)} is a file, not a folder; nothing was written")
    return None


def _changed(shown: Sequence[str], exc: OSError) -> EscapeError:
    """A write that found a folder on its way moved, removed or replaced by a file (a race)."""
    reason = (exc.strerror or type(exc).__name__).lower()
    return EscapeError(f"{'/'.join(shown)} changed while it was being written ({reason}: a folder on the way was "
                       "moved, removed or replaced by a file); nothing was written, try again")


@contextlib.contextmanager
def _raced(root: Path, shown: Sequence[str]) -> Iterator[None]:
    """Below `root` (not the root itself: it may simply be missing), a vanished folder or a file or folder in
    the way during a write (a race) is an EscapeError."""
    try:
        yield
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError) as exc:
        if exc.filename is not None and os.fspath(exc.filename) == os.fspath(root):
            raise
        raise _changed(shown, exc) from None


def _kind(mode: int) -> str:
    """What a non-regular file is, in a word or two."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "a special file"


def _escape(exc: OSError, shown: Sequence[str], parent: int) -> OSError | EscapeError:
    """A refused symlink (ELOOP from `O_NOFOLLOW`, or ENOTDIR for a link where a folder was expected), or a FIFO,
    socket or device in the way (ENXIO, …), becomes an EscapeError that says which; other errors keep their
    errno, with the relative path as their file name."""
    where = "/".join(shown)
    try:
        mode: int | None = os.stat(shown[-1], dir_fd=parent, follow_symlinks=False).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISLNK(mode) and exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return EscapeError(f"{where} is a symlink; refusing to follow it")
    if exc.errno == errno.ELOOP:  # it was a symlink when opened, and was swapped back since
        return EscapeError(f"{where} was a symlink while it was being opened; refusing to follow it")
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode) and not stat.S_ISLNK(mode):
        return EscapeError(f"{where} is not a regular file ({_kind(mode)}); refusing to open it")
    return type(exc)(exc.errno, exc.strerror, where)


def _check_regular(fd: int, shown: Sequence[str], *, refuse_linked: bool = False) -> os.stat_result:
    info = os.fstat(fd)
    if stat.S_ISDIR(info.st_mode):
        os.close(fd)
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), "/".join(shown))
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise EscapeError(f"{'/'.join(shown)} is not a regular file ({_kind(info.st_mode)}); refusing to open it")
    if refuse_linked and info.st_nlink > 1:
        os.close(fd)
        _refuse_linked(info, shown, "read")
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
    return info


def open_beneath(root: Path, parts: Sequence[str], flags: int = os.O_RDONLY, *, mode: int = 0o644,
                 make_dirs: bool = False, refuse_linked: bool = False) -> int:
    """A descriptor of the regular file `root/parts…` opened with `flags`, no symlink followed below `root`
    (with `refuse_linked`, nor a file with another hard link: LinkedError).

    Raises EscapeError (symlink, FIFO, socket, device), IsADirectoryError, FileNotFoundError or another OSError
    whose filename is the relative path."""
    with _folder(root, parts[:-1], make=make_dirs) as folder:
        try:
            fd = os.open(parts[-1], flags | _LEAF_FLAGS, mode, dir_fd=folder)
        except OSError as exc:
            raise _escape(exc, parts, folder) from None
    _check_regular(fd, parts, refuse_linked=refuse_linked)
    return fd


def open_for_read(root: Path, parts: Sequence[str], *, refuse_linked: bool = False) -> BinaryIO:
    """`root/parts…` opened for reading as a binary file object (see `open_beneath`); memory files are opened
    with `refuse_linked` (README, "Reliability": a hard link may name a file outside the workspace)."""
    return os.fdopen(open_beneath(root, parts, refuse_linked=refuse_linked), "rb")


def open_linked_for_read(root: Path, path: Path, *, refuse_linked: bool = False) -> BinaryIO:
    """`path` opened for reading where symlinks may point within `root` (as OpenClaw reads MEMORY.md and notes):
    its links are resolved, the target must lie below `root`, and it is then opened component by component
    without following links, so a link swapped in after the check is refused, not followed (EscapeError);
    with `refuse_linked`, a target with another hard link is refused too (LinkedError)."""
    real_root = Path(os.path.realpath(root))
    try:
        real = Path(os.path.realpath(path))
    except OSError as exc:  # a link replaced while it was being resolved (readlink on a file: EINVAL)
        if isinstance(exc, FileNotFoundError):
            raise
        raise EscapeError(f"{path.name} changed while it was being opened; refusing to read it") from None
    return open_for_read(real_root, parts_below(real_root, real), refuse_linked=refuse_linked)


def _digest_of(folder: int, name: str) -> str | None:
    try:
        fd = os.open(name, os.O_RDONLY | _LEAF_FLAGS, dir_fd=folder)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def remove_stale_temps(folder: int, of: Sequence[str] | None = None) -> int:
    """Delete temp files of killed writes in a folder (unlocked and older than `STALE_TEMP_S`), only those of
    the files named in `of` when given; returns how many."""
    removed = 0
    prefixes = tuple(f".{name}." for name in of) if of is not None else ("",)
    with os.scandir(folder) as entries:
        names = [e.name for e in entries if _TEMP_NAME.match(e.name) and e.name.startswith(prefixes)
                 and e.is_file(follow_symlinks=False)]
    for name in names:
        try:
            fd = os.open(name, os.O_RDONLY | _LEAF_FLAGS, dir_fd=folder)
        except OSError:
            continue
        try:
            if time.time() - os.fstat(fd).st_mtime < STALE_TEMP_S:
                continue
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.unlink(name, dir_fd=folder)
            removed += 1
        except OSError:
            continue
        finally:
            os.close(fd)
    return removed


def sweep_stale_temps_of(directory: Path, names: Sequence[str]) -> int:
    """`remove_stale_temps` of the files `names` in `directory` only (not below it, nor other programs' files)."""
    try:
        fd = os.open(directory, _DIR_FLAGS)
    except OSError:
        return 0
    try:
        return remove_stale_temps(fd, names)
    except OSError:
        return 0
    finally:
        os.close(fd)


def sweep_stale_temps(directory: Path) -> int:
    """`remove_stale_temps` in `directory` and every folder below it (symlinks not followed)."""
    removed = 0
    pending = [directory]
    while pending:
        current = pending.pop()
        try:
            fd = os.open(current, _DIR_FLAGS)
        except OSError:
            continue
        try:
            removed += remove_stale_temps(fd)
            with os.scandir(fd) as entries:
                pending.extend(current / e.name for e in entries if e.is_dir(follow_symlinks=False))
        except OSError:
            continue
        finally:
            os.close(fd)
    return removed


def atomic_write_text(path: Path, text: str, *, expected_digest: str | bool | None = False,
                      root: Path | None = None) -> str:
    """Write `text` (UTF-8) to `path` via a temp file in the same folder and a rename.

    No symlink below `root` is followed, folders are created without following any, and a symlink, a
    non-regular file or one with another hard link at `path` is refused (`LinkedError`: a write must not
    change or split off a file named elsewhere). Without `root`, the file's own folder must not be a symlink
    either (links above it are followed, as in any path): pass `root=` to keep the file inside a folder
    higher up, such as the workspace. A folder swapped, removed or replaced meanwhile is an EscapeError.
    When `expected_digest` is given (a digest, or None for "must not exist yet"), the write is refused with
    `ConflictError` if the file's current bytes differ. Returns the digest of the written bytes.
    """
    base = root if root is not None else Path(os.path.abspath(path.parent))
    parts = parts_below(base, path if root is not None else base / path.name)
    data = text.encode("utf-8")
    with _folder(base, parts[:-1], make=True, follow_root=root is not None) as folder, _raced(base, parts):
        name = parts[-1]
        try:
            current = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            current = None
        if current is not None and stat.S_ISLNK(current.st_mode):
            raise EscapeError(f"{'/'.join(parts)} is a symlink; refusing to write through it")
        if current is not None and not stat.S_ISREG(current.st_mode):
            raise EscapeError(f"{'/'.join(parts)} is not a regular file ({_kind(current.st_mode)}); refusing to "
                              "replace it")
        if current is not None:
            _refuse_linked(current, parts)
        remove_stale_temps(folder, (name,))
        # memtui's appends to the file wait until it is replaced, then append to the new one (`append_text`).
        held = _lock_current(folder, name, parts)
        temp = f".{name}.{secrets.token_hex(6)}.tmp"
        try:
            if held is not None:  # linked while this waited for the lock
                _refuse_linked(os.fstat(held), parts)
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                         dir_fd=folder)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                _write_all(fd, data)
                os.fchmod(fd, os.fstat(held).st_mode & 0o777 if held is not None else 0o644)
                os.fsync(fd)
                # Checked last, so a writer that does not lock (an agent's `>>`) has the least time to slip in.
                if expected_digest is not False and _digest_of(folder, name) != expected_digest:
                    raise ConflictError(f"{'/'.join(parts)} changed on disk since it was opened; reload or save "
                                        "elsewhere")
                os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=folder)
                raise
            finally:
                os.close(fd)
        finally:
            if held is not None:
                os.close(held)
    return hashlib.sha256(data).hexdigest()


def _refuse_linked(info: os.stat_result, shown: Sequence[str], verb: str = "write to") -> None:
    if info.st_nlink > 1:
        raise LinkedError(f"{'/'.join(shown)} has {info.st_nlink} hard links; refusing to {verb} it (the other "
                          "links may lie outside the workspace; copy it to a file of its own first)")


def _is_current(fd: int, folder: int, name: str) -> bool:
    """Whether `fd` is still the file named `name` in `folder` (not replaced by a rename, nor deleted)."""
    try:
        named = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return False
    opened = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


def _lock_current(folder: int, name: str, shown: Sequence[str]) -> int | None:
    """A descriptor of the regular file now named `name`, exclusively locked (None: there is no such file)."""
    while True:
        try:
            fd = os.open(name, os.O_RDONLY | _LEAF_FLAGS, dir_fd=folder)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _escape(exc, shown, folder) from None
        _check_regular(fd, shown)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            current = _is_current(fd, folder, name)
        except BaseException:
            os.close(fd)
            raise
        if current:
            return fd
        os.close(fd)


def append_text(path: Path, addition: Callable[[str], str | None], *, root: Path) -> str | None:
    """Append to `path` (created when missing) what `addition(current text)` returns, all of it or nothing.

    Other writers' appends are never overwritten (there is no rewrite), memtui writers are serialised by
    a lock on the file, nothing below `root` is followed, and a file with another hard link is refused
    (`LinkedError`). A failed write (a full disk) leaves the file as it was (`_append_whole`). Returns the
    appended text (None: nothing)."""
    parts = parts_below(root, path)
    with _raced(root, parts):
        fd = _open_locked_for_append(root, parts)
    try:
        chunks = []
        offset = 0
        while block := os.pread(fd, 1 << 20, offset):
            chunks.append(block)
            offset += len(block)
        text = addition(b"".join(chunks).decode("utf-8", errors="replace"))
        if text:
            _append_whole(fd, text.encode("utf-8"), parts)
        return text or None
    finally:
        os.close(fd)


def _append_whole(fd: int, data: bytes, shown: Sequence[str]) -> None:
    """`O_APPEND`-write and fsync `data`; when that fails after part of it landed (a full disk), the file is cut
    back to where the part began, so no torn line is left (unless another writer that takes no lock appended
    behind the part meanwhile: then both stay, and the error says so). Errors name the relative path."""
    start = end = None
    view = memoryview(data)
    try:
        while view:
            written = os.write(fd, view)
            end = os.lseek(fd, 0, os.SEEK_CUR)
            start = end - written if start is None else start
            view = view[written:]
        os.fsync(fd)
    except OSError as exc:
        undone = start is None
        if start is not None and end is not None and end - start == len(data) - len(view) \
                and os.fstat(fd).st_size == end:
            os.ftruncate(fd, start)
            os.fsync(fd)
            undone = True
        outcome = "nothing was appended" if undone else "part of it stays, behind lines another writer appended"
        raise type(exc)(exc.errno, f"{exc.strerror}; {outcome}", "/".join(shown)) from None


def _open_locked_for_append(root: Path, parts: Sequence[str]) -> int:
    """`root/parts…` opened for appending (created when missing) and exclusively locked, reopened when a save
    replaced it while this waited for the lock (an append to the replaced file would be lost)."""
    while True:
        fd = open_beneath(root, parts, os.O_RDWR | os.O_APPEND | os.O_CREAT, make_dirs=True)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            _refuse_linked(os.fstat(fd), parts)
            with _folder(root, parts[:-1], make=False) as folder:
                current = _is_current(fd, folder, parts[-1])
        except BaseException:
            os.close(fd)
            raise
        if current:
            return fd
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
