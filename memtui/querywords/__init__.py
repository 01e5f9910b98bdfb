"""OpenClaw's query keywords (`extractKeywords` and its stop words), unchanged from 2026.4.29 to 2026.9.6: the
terms of the per-keyword fallback searches, shared by the classic engine and the 2026.9 agent-database search."""
