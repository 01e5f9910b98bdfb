"""The QMD memory backend (OpenClaw ≤ 2026.7, §11): collections, the qmd process, output parsing, scope."""
