"""Run `memtui --screenshot` on a one-note workspace in a fresh interpreter, to see what the app's process did."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def screenshot_process(tmp_path: Path, then: str, env: dict[str, str] | None = None) -> str:
    """Stdout of a new interpreter that runs `memtui --screenshot` (asserting it succeeds), then `then`; the SVG
    is written to `tmp_path / "shot.svg"`."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True, exist_ok=True)
    (workspace / "MEMORY.md").write_text("# Memory\n\n- Prefers tea.\n", encoding="utf-8")
    argv = ["--state-dir", str(tmp_path), "--workspace", str(workspace), "--provider", "none",
            "--screenshot", str(tmp_path / "shot.svg")]
    code = f"import sys, memtui.cli\nassert memtui.cli.main({argv!r}) == 0\n{then}"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120,
                          env=env).stdout.strip()
