"""The engine never imports Textual, and the CLI's start-up pays for neither Textual nor the MCP SDK."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "memtui"


def test_nothing_outside_tui_imports_textual() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "tui" in path.relative_to(PACKAGE).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.relative_to(PACKAGE)}: {n}" for n in names if n.split(".")[0] == "textual"]
    assert offenders == []


def test_cli_start_up_imports_neither_textual_nor_mcp() -> None:
    """Nor the HTTP stack or the model runtime: a keyword-only `memtui search` pays for none of them."""
    heavy = ("textual", "mcp", "llama_cpp", "httpx", "openai")
    code = ("import sys, memtui.cli; memtui.cli.build_parser(); "
            f"print(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
