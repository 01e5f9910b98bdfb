"""`memtui context` and `memtui sessions` on a 2026.9 agent use 2026.9.6's rules: its bootstrap files (AGENTS.md,
SOUL.md, IDENTITY.md, USER.md, BOOTSTRAP.md, MEMORY.md), 20000 per file, USER.md at most 4000, 60000 in all,
AGENTS.md cut around a digest of its policy lines; checked against what 2026.9.6's own
`buildBootstrapContextFiles` (`bootstrap-*.mjs`) returned for the same files under Node (sha256 of each text
below), and against the recorded agent's own `systemPromptReport`. The before-turn flush is named where it runs:
at the compaction threshold."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from openclaw_2026_9_data import RECORDING, build_agent

from memtui.agentdb.sessions import list_sessions
from memtui.cli import main as cli_main
from memtui.context.bootstrap import BootstrapSource, build_bootstrap

ORDER = ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md", "MEMORY.md")
# 2026.9.6 `buildBootstrapContextFiles(files, {maxChars, totalMaxChars})` on `_files()`: (length, sha256) per file
OPENCLAW = {
    (20000, 60000): [(19178, "666d32cbf08468d0543136faffdd423f561bb510aab2d1c56fbad97bd99cd436"),
                     (50, "0b73d16f2b069c12b986ac3c3a7afca55eb743c438e6a0ca2fa620959917e8fe"),
                     (38, "7c3c1ca354bc368e5bd56e5620cd9d1c7985a8fadf8bb3576eb1781bf68d0cae"),
                     (3999, "c8ce90d2b9a70dff315736c73726cdb7bf9df3dd18254b81d6d519802765c2f1"),
                     (39, "0aae602b756f55546b4c872fba9c9e5284d0b98b01b0d12fc635b58436feec74"),
                     (1908, "f57f3beb777edaf3970e29b3796347c43b2cdfa8d093de669195e4a302e7eb58")],
    (3000, 9000): [(3000, "02a826f6e82d4170ccfe7b6cd54129471f0e02f4e81b7e92cbad8823c2c37cac"),
                   (50, "0b73d16f2b069c12b986ac3c3a7afca55eb743c438e6a0ca2fa620959917e8fe"),
                   (38, "7c3c1ca354bc368e5bd56e5620cd9d1c7985a8fadf8bb3576eb1781bf68d0cae"),
                   (2999, "628e7f9b0ab13cd5994739478a9cc87ff8f4fa53d4b559951fa22833b689a22a"),
                   (39, "0aae602b756f55546b4c872fba9c9e5284d0b98b01b0d12fc635b58436feec74"),
                   (1908, "f57f3beb777edaf3970e29b3796347c43b2cdfa8d093de669195e4a302e7eb58")],
}


def _files() -> dict[str, str]:
    """A 26,601-unit AGENTS.md of policy lines (some high-priority, with emoji) and prose, a 6,378-unit USER.md of
    emoji lines, a small SOUL.md and MEMORY.md; IDENTITY.md and BOOTSTRAP.md missing."""
    lines = ["# AGENTS.md", ""]
    for i in range(400):
        if i % 7 == 0:
            lines.append(f"- Never push to main without review, rule {i}. 🔴")
        elif i % 11 == 0:
            lines.append(f"## Section {i}")
        elif i % 5 == 0:
            lines.append(f"Security: secrets stay in the vault ({i}).")
        else:
            lines.append(f"Plain prose line number {i} about how the team works, nothing binding here at all.")
    return {"AGENTS.md": "\n".join(lines) + "\n", "SOUL.md": "# Soul\n\nBe kind. " * 3,
            "USER.md": "# USER\n\n" + "".join(f"- The user likes 🍵 tea number {i} and short answers.\n"
                                              for i in range(120)),
            "MEMORY.md": "# Memory\n\n" + "".join(f"- Fact {i}: the payments API burst limit is {i * 10}.\n"
                                                  for i in range(40))}


@pytest.mark.parametrize("budgets", sorted(OPENCLAW))
def test_the_2026_9_budgets_cut_as_openclaw_2026_9_6_cuts(budgets: tuple[int, int]) -> None:
    files = _files()
    sources = [BootstrapSource(name, f"/ws/{name}", files.get(name), name not in files) for name in ORDER]
    results, _ = build_bootstrap(sources, max_chars=budgets[0], total_max_chars=budgets[1], variant="2026.9")
    assert [(f.injected_chars, hashlib.sha256(f.text.encode()).hexdigest()) for f in results] == OPENCLAW[budgets]
    assert "[Policy digest from AGENTS.md]" in results[0].text and not any(f.surrogate_units_dropped for f in results)


def test_memtui_context_on_a_2026_9_agent_uses_its_rules(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    agent = build_agent(tmp_path / "install")
    shutil.copyfile(RECORDING / "sessions" / "agent.sqlite", agent.agent_db)
    (agent.workspace / "TOOLS.md").write_text("# Tools\n", encoding="utf-8")  # not a 2026.9 bootstrap file
    common = ["--state-dir", str(agent.state), "--provider", "none"]
    assert cli_main(["context", *common]) == 0
    out = capsys.readouterr().out
    assert "bootstrap (2026.9): per file 20000 (USER.md 4000), total 60000" in out and "TOOLS.md" not in out
    assert cli_main(["context", "--json", *common]) == 0
    report = json.loads(capsys.readouterr().out)["bootstrap"]
    assert (report["variant"], report["maxChars"], report["totalMaxChars"]) == ("2026.9", 20000, 60000)
    assert [f["name"] for f in report["files"]] == list(ORDER)
    # what the recorded agent's own run reported for the files this workspace shares with it
    recorded = {f["name"]: f for f in list_sessions(agent.agent_db)[0].prompt_report["injectedWorkspaceFiles"]}
    mine = {f["name"]: f for f in report["files"]}
    for name in ("USER.md", "MEMORY.md"):
        assert (mine[name]["rawChars"], mine[name]["injectedChars"], mine[name]["truncated"]) == \
            (recorded[name]["rawChars"], recorded[name]["injectedChars"], recorded[name]["truncated"]), name
    assert cli_main(["context", "--variant", "2026.4", *common]) == 0
    assert "bootstrap (2026.4): per file 12000, total 60000" in capsys.readouterr().out


def test_a_per_agent_budget_and_the_user_md_cap(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_DATA_DIR", str(tmp_path / "data"))
    agent = build_agent(tmp_path / "install")
    config_path = agent.state / "openclaw.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["agents"]["entries"]["main"]["bootstrapMaxChars"] = 3000
    config["agents"]["defaults"] = {"bootstrapMaxChars": 100, "bootstrapTotalMaxChars": 9000}
    config_path.write_text(json.dumps(config), encoding="utf-8")
    (agent.workspace / "USER.md").write_text(_files()["USER.md"], encoding="utf-8")
    assert cli_main(["context", "--json", "--state-dir", str(agent.state), "--provider", "none"]) == 0
    report = json.loads(capsys.readouterr().out)["bootstrap"]
    assert (report["maxChars"], report["totalMaxChars"]) == (3000, 9000)
    user = next(f for f in report["files"] if f["name"] == "USER.md")
    assert (user["injectedChars"], user["truncated"]) == (2999, True)


def test_sessions_names_the_before_turn_flush_at_the_compaction_threshold(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture) -> None:
    agent = build_agent(tmp_path)
    shutil.copyfile(RECORDING / "sessions" / "agent.sqlite", agent.agent_db)
    assert cli_main(["sessions", "--state-dir", str(agent.state), "--provider", "none"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.startswith("KEY"))
    row = next(line for line in lines if line.startswith("agent:main:incident"))
    turn, maint = header.index("TURN FLUSH AT"), header.index("MAINT FLUSH AT")
    assert row[turn:].split()[0] == "180000" and row[maint:].split()[0] == "176000"
    assert any("before a turn the flush runs as the first step of compaction" in line for line in lines)
