"""Dreaming (OpenClaw §12): the short-term recall store, its signals, candidate ranking, promotion
into MEMORY.md, phase reports, the DREAMS.md diary and REM backfill.

The names below load on first use, so recording a search's recalls does not import the ranking and
promotion modules.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Candidate": "memtui.dreaming.ranking",
    "PromotionResult": "memtui.dreaming.promotion",
    "apply_promotions": "memtui.dreaming.promotion",
    "list_candidates": "memtui.dreaming.promotion",
    "record_search_hits": "memtui.dreaming.recalls",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import an exported name's module on first access."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
