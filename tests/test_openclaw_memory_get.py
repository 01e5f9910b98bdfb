"""`memory_get` against what the real OpenClaw 2026.4.29 returned on the same workspace
(`tests/data/openclaw-2026.4.29/memory/get.json`, and the extra-path calls of `variants.json`): the tool JSON
byte for byte; where memtui is stricter on purpose (README, "memory_get"), its refusal; where both refuse a
symlink, OpenClaw's answer with the reason memtui adds to "path required"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openclaw_memory_data import Root, agent_env, build_root, recording

from memtui.errors import ToolInputError
from memtui.jscompat import js_stringify
from memtui.mcp_server import call_memory_get
from memtui.mcp_server.calls import outside_memory
from memtui.settings.agent import AgentEnv
from memtui.tools import memory_get

GETS = [("default", case) for case in recording("get")["gets"]]
GETS += [("extra-paths", case) for case in recording("variants")["extra-paths"]["gets"]]
# memtui refuses these where OpenClaw reads the file: an absolute path, `..` inside the workspace, and a
# symlinked folder under memory/.
REFUSED = {"<WORKSPACE>/MEMORY.md", "<ROOT>/outside/single-extra.md", "memory/../MEMORY.md",
           "memory/linkdir/inside.md"}
# memtui reads `memory\\x.md` as `memory/x.md`; OpenClaw looks for a file with a backslash in its name.
BACKSLASH = "memory\\2026-04-27.md"


@pytest.fixture(scope="module")
def envs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Root, dict[str, AgentEnv]]:
    parent = tmp_path_factory.mktemp("oc-get")
    root = build_root(parent)
    return root, {name: agent_env(root, parent / name, name) for name in ("default", "extra-paths")}


def _get(env: AgentEnv, params: dict[str, Any]) -> dict[str, Any]:
    """The call as an agent makes it (MCP arguments: numbers, numeric strings, fractions)."""
    class Tools:
        citations = "auto"

        def memory_get(self, path: str, *, from_line: int | None = None, lines: int | None = None) -> dict:
            return memory_get(env.workspace_dir, path, from_line=from_line, lines=lines,
                              extra_paths=env.settings.extra_paths)

    return call_memory_get(Tools(), params)  # type: ignore[arg-type]


def _case_id(item: tuple[str, dict[str, Any]]) -> str:
    return f"{item[0]}:{json.dumps(item[1]['params'], ensure_ascii=False)}"


@pytest.mark.parametrize("item", GETS, ids=[_case_id(g) for g in GETS])
def test_memory_get_is_openclaws(envs: tuple[Root, dict[str, AgentEnv]], item: tuple[str, dict[str, Any]]) -> None:
    """`lines: 0` reads one line, the budget counts UTF-16 units (emoji), a line over the budget ends with
    OpenClaw's notice and no `nextFrom`, `./MEMORY.md` answers as `MEMORY.md`, CRLF and BOM kept."""
    root, by_variant = envs
    variant, case = item
    params = root.fill(case["params"])
    recorded = case["tool"]
    if "thrown" in recorded:
        with pytest.raises(ToolInputError, match=recorded["thrown"]["message"]):
            _get(by_variant[variant], params)
        return
    result = _get(by_variant[variant], params)
    if case["params"].get("path") in REFUSED:
        assert json.loads(recorded["text"]).get("error") is None  # OpenClaw read it
        assert result["error"].startswith("path required") and result["text"] == "" and result["disabled"] is True
        return
    if json.loads(recorded["text"]).get("error") == "path required" and result.get("error", "") != "path required":
        # OpenClaw's refusal (of a symlink, or a path outside the memory files), with the reason memtui adds
        # (README, "A refusal says why")
        path = params["path"].strip()
        assert result["error"].startswith("path required: ")
        assert "is a symlink" in result["error"] or result["error"] == f"path required: {outside_memory(path)}"
        assert {**result, "error": "path required"} == json.loads(root.fill(recorded["text"]))
        return
    if case["params"].get("path") == BACKSLASH:
        assert json.loads(recorded["text"]) == {"text": "", "path": "memory/2026-04-27.md"}
        assert result == _get(by_variant[variant], {**params, "path": "memory/2026-04-27.md"})
        return
    assert js_stringify(result, indent=2) == root.fill(recorded["text"])


def test_empty_path_is_a_tool_input_error(tmp_path: Path) -> None:
    """`path: ""` is a tool input error, not a result (the agent sees a failed call)."""
    with pytest.raises(ToolInputError, match="path required"):
        memory_get(tmp_path, "  ")
