"""The SQLite index (being split into schema, reads, writes and swap)."""

from memtui.index.store.reads import *  # noqa: F403
