"""The engine never imports Textual, and the CLI's start-up pays for neither Textual nor the MCP SDK."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from app_process import screenshot_process

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


def test_keyword_only_search_loads_nothing_it_does_not_use(tmp_path: Path) -> None:
    """A one-shot `memtui search` with no embedding provider runs FTS5 only: neither the watcher, the UI, numpy,
    PyStemmer nor sqlite-vec (the accelerator and vector search are for long-lived processes and models). Nor,
    with no config file, the JSON5 parser, zoneinfo, decimal, `regex` or ICU. Nor the indexer, the context,
    model-catalog and ingestion modules, which a search of a clean index never runs (the workspace listing is: a
    stat per note tells an edit since the last sync). And it writes nothing into the workspace (a developer's
    search is not an agent's recall)."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "2026-01-02.md").write_text(
        "# Notes\n\n- The deploy key rotates on Fridays \u2014 ask Bob\u2019s team (ops.rotation-policy).\n")
    heavy = ("textual", "watchdog", "numpy", "Stemmer", "sqlite_vec", "llama_cpp", "httpx", "json5", "zoneinfo",
             "decimal", "regex", "icu4py")
    unused = ("memtui.index.indexer", "memtui.index.chunking", "memtui.settings.context",
              "memtui.settings.providers", "memtui.dreaming.signals")
    argv = ["--state-dir", str(tmp_path / "state"), "--workspace", str(workspace), "--provider", "none"]
    subprocess.run([sys.executable, "-m", "memtui", *argv, "index"], capture_output=True, check=True)
    code = ("import sys, memtui.cli\n"
            f"assert memtui.cli.main({[*argv, 'search', 'deploy key', '--json']!r}) == 0\n"
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(heavy)!r}), file=sys.stderr)\n"
            f"print(sorted(set(sys.modules) & {set(unused)!r}), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert '"path": "memory/2026-01-02.md"' in done.stdout
    assert done.stderr.strip().splitlines()[-2:] == ["[]", "[]"]
    assert sorted(str(p.relative_to(workspace)) for p in workspace.rglob("*")) == ["memory", "memory/2026-01-02.md"]


def test_app_start_up_imports_no_subcommand_and_no_markdown_renderer(tmp_path: Path) -> None:
    """Plain `memtui` parses its options without importing the subcommands' modules (dreaming, evaluation, MCP),
    and its first screen shows no rendered Markdown, so markdown-it and Pygments wait for the first file opened
    rendered or the first help screen. Nor the file watcher's inotify backend: the watcher starts after the first
    frame (and not at all for a screenshot)."""
    loaded = screenshot_process(tmp_path, "print(sorted(m for m in sys.modules if m.startswith('memtui.commands.') or "
                                          "m.split('.')[0] in ('markdown_it', 'pygments', 'mcp') or "
                                          "m == 'watchdog.observers'))")
    assert loaded == "['memtui.commands.args', 'memtui.commands.tui']"
    assert "MEMORY.md" in (tmp_path / "shot.svg").read_text(encoding="utf-8")


def test_an_openai_provider_loads_the_sdk_when_it_is_used_or_warmed_up() -> None:
    """The OpenAI SDK takes 0.4-0.6 s to import: a process with an OpenAI provider configured (the app's first
    frame, a keyword-only search) does not pay for it until it embeds, or warms the provider up (the app does, in
    a worker after its first frame)."""
    code = ("import sys\nfrom memtui.embeddings.http_retry import RemoteEndpoint\n"
            "from memtui.embeddings.openai_provider import OpenAIEmbeddingProvider\n"
            "provider = OpenAIEmbeddingProvider(RemoteEndpoint('http://127.0.0.1:9/v1', 'sk-test', {}))\n"
            "print('openai' in sys.modules)\nprovider.warm_up()\nprint('openai' in sys.modules)\nprovider.close()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]
