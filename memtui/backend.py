"""Choose the memory backend for an agent: the builtin index or QMD (`memory.backend`, §11)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memtui.manager import MemoryManager
from memtui.settings.agent import AgentEnv

if TYPE_CHECKING:
    from memtui.qmd.manager import QmdMemoryManager


def open_manager(env: AgentEnv) -> MemoryManager | QmdMemoryManager:
    """`QmdMemoryManager` when `memory.backend` is "qmd" (it falls back to the builtin one on its own),
    else the builtin `MemoryManager`."""
    if env.backend == "qmd":
        from memtui.qmd.manager import QmdMemoryManager

        return QmdMemoryManager(env)
    return MemoryManager(env)
