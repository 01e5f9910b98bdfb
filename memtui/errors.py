"""Errors a user can act on: every message names what failed and what to do."""

from __future__ import annotations


class MemtuiError(Exception):
    """Base class for errors shown to the user as one line (plus an optional hint)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} ({self.hint})"


class ConfigError(MemtuiError):
    """The OpenClaw or memtui configuration cannot be read or is invalid."""


class PathError(MemtuiError):
    """A path given by the user or an agent is not allowed or does not exist."""


class StoreError(MemtuiError):
    """The SQLite index cannot be opened, read or written."""


class ProviderError(MemtuiError):
    """An embedding provider could not be created or failed to embed (`retry_after`: seconds the provider
    asked to wait before trying again, from a `Retry-After` header)."""

    def __init__(self, message: str, hint: str | None = None, *, retry_after: float | None = None) -> None:
        super().__init__(message, hint)
        self.retry_after = retry_after


class ReadOnlyError(StoreError):
    """A write was attempted on an index opened read-only."""


class ToolInputError(MemtuiError):
    """A tool call lacks a required argument or has one of the wrong type (OpenClaw's `ToolInputError`)."""


# SQLite errors that are not damage, and what to do about each: rebuilding would not help.
_SQLITE_HINTS = (
    ("disk is full", "the index could not be written ({}) (free disk space where the index lives, then run the "
                     "command again; the index is unchanged)"),
    ("readonly database", "the index could not be written ({}) (it is not writable by this user: fix its "
                          "permissions, use --store FILE on a writable disk, or --read-only)"),
    ("database is locked", "the index is busy ({}) (another program holds a write lock on it; try again when it "
                           "is done)"),
)


def unexpected_message(exc: BaseException) -> str:
    """One line for an exception no memtui code anticipated; an SQLite error also says how to recover."""
    if type(exc).__module__.startswith(("sqlean", "sqlite3")):
        text = str(exc)
        for words, message in _SQLITE_HINTS:
            if words in text.lower():
                return message.format(text)
        return (f"the index cannot be read ({text}) (run `memtui index --force`: a damaged index is moved aside "
                "and rebuilt)")
    return f"{type(exc).__name__}: {exc}"
