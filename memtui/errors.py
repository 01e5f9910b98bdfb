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
    """An embedding provider could not be created or failed to embed."""


class ReadOnlyError(StoreError):
    """A write was attempted on an index opened read-only."""


class ToolInputError(MemtuiError):
    """A tool call lacks a required argument or has one of the wrong type (OpenClaw's `ToolInputError`)."""
