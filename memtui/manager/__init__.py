"""The memory manager: the one facade the CLI, the TUI and the MCP server use."""

from memtui.manager.facade import MemoryManager

__all__ = ["MemoryManager"]
