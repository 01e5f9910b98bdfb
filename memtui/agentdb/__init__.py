"""OpenClaw's own files, read as they are and never written: which generation of its layout a state dir holds
(2026.4 classic, 2026.9 per-agent database) and what that generation's memory index contains."""
