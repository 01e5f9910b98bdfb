"""memtui: an OpenClaw-compatible agent-memory engine and terminal app."""

__version__ = "0.1.0"
