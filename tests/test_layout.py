"""The layout tells the architecture: parts in folders, arrows pointing down, no loops, rooms of human size, and the
config read once, in `memtui/settings/`."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "memtui"
MAX_TOP_LEVEL_MODULES = 12
MAX_LINES = 600
RAW_NAVIGATION = {"get_path", "agent_entry"}

# The parts from the bottom up (README.md, "Architecture"). A part may import only parts with a lower rank.
RANKS = {
    "memtui": 0, "errors": 0, "jscompat": 0, "issues": 0,
    "atomic": 1, "querywords": 1,
    "agentdb": 2,
    "settings": 3,
    "embeddings": 4, "context": 4,
    "index": 5,
    "search": 6, "dreaming": 6,
    "tools": 7,
    "manager": 8,
    "qmd": 9, "demo": 9,
    "backend": 10,
    "evaluation": 11, "mcp_server": 11,
    "tui": 12,
    "commands": 13,
    "cli": 14,
    "__main__": 15,
}


def module_name(path: Path) -> str:
    """`memtui/index/store.py` → `memtui.index.store`; a package's `__init__.py` names the package."""
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")


def part(module: str) -> str:
    """The part a module belongs to: its folder under `memtui/`, or its own name at the top."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "memtui"


def imported_modules(path: Path) -> Iterator[str]:
    """Every `memtui…` module the file imports, at module level or inside a function."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.startswith("memtui"):
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name.startswith("memtui"))


def import_graph() -> dict[str, set[str]]:
    """Module → the memtui modules it imports (only names that are modules)."""
    files = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {mod: {m for m in imported_modules(path) if m in files and m != mod} for mod, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_import_loops() -> None:
    assert cycles(import_graph()) == []


def test_cycle_finder_sees_a_loop() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_part_has_a_rank() -> None:
    assert {part(mod) for mod in import_graph()} - RANKS.keys() == set()


def test_imports_point_down_the_layers() -> None:
    upward = sorted(
        f"{mod} → {target}"
        for mod, targets in import_graph().items()
        for target in targets
        if part(target) != part(mod) and RANKS[part(target)] >= RANKS[part(mod)]
    )
    assert upward == []


def test_the_tui_never_touches_the_store() -> None:
    reaches = sorted(f"{mod} → {t}" for mod, targets in import_graph().items() if part(mod) == "tui"
                     for t in targets if t.startswith("memtui.index.store"))
    assert reaches == []


def test_at_most_twelve_modules_at_the_top() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, top


def test_no_file_over_six_hundred_lines() -> None:
    long = sorted(f"{p.relative_to(PACKAGE)}: {n}" for p in PACKAGE.rglob("*.py")
                  if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES)
    assert long == []


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
