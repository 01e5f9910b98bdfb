"""The config is read once, in `memtui/settings/`; the settings depend on no part of the engine above them."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "memtui"
RAW_NAVIGATION = {"get_path", "agent_entry"}
ABOVE_SETTINGS = ("index", "search", "context", "embeddings", "dreaming", "qmd", "evaluation", "tui", "commands",
                  "demo", "manager", "backend", "tools", "cli", "mcp_server")


def _modules(inside_settings: bool) -> list[tuple[str, ast.Module]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if (relative.parts[0] == "settings") == inside_settings:
            found.append((str(relative), ast.parse(path.read_text(encoding="utf-8"))))
    return found


def raw_config_readers(modules: list[tuple[str, ast.Module]]) -> list[str]:
    """`where: what` for every read of the raw config dict: `.raw`, `get_path`/`agent_entry`, `settings.raw`."""
    offenders = []
    for name, tree in modules:
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "raw":
                offenders.append(f"{name}:{node.lineno}: .raw")
            elif isinstance(node, ast.ImportFrom) and node.module == "memtui.settings.raw":
                offenders += [f"{name}:{node.lineno}: {a.name}" for a in node.names if a.name in RAW_NAVIGATION]
            elif isinstance(node, ast.ImportFrom) and node.module == "memtui.settings":
                offenders += [f"{name}:{node.lineno}: settings.raw" for a in node.names if a.name == "raw"]
            elif isinstance(node, ast.Import):
                offenders += [f"{name}:{node.lineno}: {a.name}" for a in node.names if a.name == "memtui.settings.raw"]
    return offenders


def test_only_settings_reads_the_raw_config() -> None:
    assert raw_config_readers(_modules(inside_settings=False)) == []


def test_the_check_sees_each_way_of_reading_the_raw_config() -> None:
    source = ("from memtui.settings.raw import get_path, normalize_agent_id\n"
              "from memtui.settings import raw\n"
              "import memtui.settings.raw\n"
              "limit = get_path(env.raw, 'agents')\n")
    found = raw_config_readers([("probe.py", ast.parse(source))])
    assert found == ["probe.py:1: get_path", "probe.py:2: settings.raw", "probe.py:3: memtui.settings.raw",
                     "probe.py:4: .raw"]


def test_settings_import_nothing_from_the_parts_that_use_them() -> None:
    offenders = []
    for name, tree in _modules(inside_settings=True):
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.ImportFrom) and node.module:
                targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            offenders += [f"{name}:{node.lineno}: {t}" for t in targets
                          if t.startswith("memtui.") and t.split(".")[1] in ABOVE_SETTINGS]
    assert offenders == []
