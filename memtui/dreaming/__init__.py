"""Dreaming (OpenClaw §12): the short-term recall store, its signals, candidate ranking, promotion
into MEMORY.md, phase reports, the DREAMS.md diary and REM backfill."""

from memtui.dreaming.promotion import PromotionResult, apply_promotions, list_candidates
from memtui.dreaming.ranking import Candidate
from memtui.dreaming.signals import record_search_hits

__all__ = ["Candidate", "PromotionResult", "apply_promotions", "list_candidates", "record_search_hits"]
