"""The fleet in one database: `memtui status --fleet` lists every agent's index with who wrote it, `memtui search
--fleet` searches every agent at once, each hit naming its agent and scored as that agent's own search scores it."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from postgres_server import fresh_database
from test_postgres_writers import env_for

from memtui.index.fleet import FleetReader
from memtui.index.store.postgres.fleet import file_chunks, index_files
from memtui.index.store.postgres.schema import connect
from memtui.manager import MemoryManager
from memtui.search.fleet import fleet_search
from memtui.settings.agent import AgentEnv

NOTES = {"alpha": ["The zebra ledger is reconciled every Friday.", "Deploys freeze during the audit."],
         "beta": ["The otter queue drains into the zebra ledger nightly.", "Beta owns the webhook gateway."]}


def cli(env: AgentEnv, *args: str) -> subprocess.CompletedProcess[str]:
    """`memtui <args>` for `env`."""
    return subprocess.run([sys.executable, "-m", "memtui", "--state-dir", str(env.state_dir), "--config",
                           str(env.config_path), "--agent", env.agent_id, "--workspace", str(env.workspace_dir),
                           "--provider", "none", *args], capture_output=True, text=True, timeout=120)


def fleet(tmp_path: Path) -> dict[str, AgentEnv]:
    """Agents alpha and beta, each with a workspace of its own, indexed into one database."""
    url, envs = fresh_database(), {}
    for agent, notes in NOTES.items():
        workspace = tmp_path / agent
        (workspace / "memory").mkdir(parents=True)
        (workspace / "MEMORY.md").write_text("# Memory\n\n" + "".join(f"- {n}\n" for n in notes), encoding="utf-8")
        envs[agent] = env_for(tmp_path, workspace, url, agent)
        with MemoryManager(envs[agent]) as manager:
            manager.sync()
    return envs


def as_json(run: subprocess.CompletedProcess[str]) -> Any:
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_status_fleet_lists_every_agent_with_its_writer(tmp_path: Path) -> None:
    envs = fleet(tmp_path)
    status = as_json(cli(envs["alpha"], "status", "--fleet", "--json"))
    own = as_json(cli(envs["beta"], "status", "--json"))
    assert [(e["agent"], e["workspace"]) for e in status["indexes"]] == [("alpha", str(envs["alpha"].workspace_dir)),
                                                                        ("beta", str(envs["beta"].workspace_dir))]
    beta = status["indexes"][1]
    assert (beta["files"], beta["chunks"]) == (own["files"], own["chunks"]) == (1, 1)
    assert beta["host"] == socket.gethostname() and beta["lastWrite"].endswith("Z") and not beta["rebuildPending"]
    assert (beta["provider"], beta["model"]) == (own["provider"], own["model"])
    text = cli(envs["alpha"], "status", "--fleet").stdout
    assert text.startswith("Fleet: 2 indexes in ") and "password" not in text
    assert f"  beta · {envs['beta'].workspace_dir} · 1 files · 1 chunks · generation " in text


def test_search_fleet_scores_the_fleet_as_one_corpus(tmp_path: Path) -> None:
    """Each chunk gets the score one index holding every agent's files would give it (the fleet's BM25
    statistics): here an agent whose workspace holds alpha's and beta's notes, in a database of its own."""
    envs = fleet(tmp_path)
    extra = {"alpha": ["The audit trail lives in the ledger archive.", "Friday deploys need two reviewers."],
             "beta": ["The webhook gateway retries five times."]}
    union = tmp_path / "union"
    (union / "memory").mkdir(parents=True)
    for agent, notes in extra.items():
        workspace = envs[agent].workspace_dir
        for number, note in enumerate(notes, start=1):
            (workspace / "memory" / f"2026-04-0{number}.md").write_text(f"# Day\n\n- {note}\n", encoding="utf-8")
        with MemoryManager(envs[agent]) as manager:
            manager.sync()
        for path in [workspace / "MEMORY.md", *sorted((workspace / "memory").glob("*.md"))]:
            (union / "memory" / f"{agent}-{path.name}").write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    one = env_for(tmp_path / "union", union, fresh_database(), "union")
    with MemoryManager(one) as manager:
        manager.sync()
    for query in ("zebra ledger", "webhook gateway retries", "otter", "audit deploys"):
        found = as_json(cli(envs["alpha"], "search", "--fleet", "--json", "--min-score", "0", query))["results"]
        alone = as_json(cli(one, "search", "--json", "--min-score", "0", query))["results"]
        assert [hit["score"] for hit in found] == [hit["score"] for hit in alone], query
        assert [hit["snippet"].strip() for hit in found] == [hit["snippet"].split("\n\nSource: ")[0].strip()
                                                             for hit in alone]  # that JSON cites the file
    both = as_json(cli(envs["alpha"], "search", "--fleet", "--json", "zebra ledger"))["results"]
    assert {hit["agent"] for hit in both} == {"alpha", "beta"}
    assert [hit["score"] for hit in both] == sorted((hit["score"] for hit in both), reverse=True)
    otter = as_json(cli(envs["alpha"], "search", "--fleet", "--json", "otter"))["results"]
    own = as_json(cli(envs["beta"], "search", "--json", "--min-score", "0", "otter"))["results"]
    assert otter[0]["score"] > 0.4 > 0.01 > own[0]["score"]  # rare in the fleet; in beta's 2 chunks, barely weighed
    lines = cli(envs["alpha"], "search", "--fleet", "otter").stdout.splitlines()
    assert lines[0] == "Fleet: 2 agents searched: keywords in all, no query vector (no embedding provider)"
    assert lines[2].endswith(" beta MEMORY.md:1-5")
    assert "- The otter queue drains into the zebra ledger nightly." in lines


def test_fleet_needs_the_postgres_store(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    env = env_for(tmp_path, tmp_path / "ws", None)
    run = cli(env, "status", "--fleet")
    assert run.returncode != 0 and "--fleet reads the agents of a PostgreSQL store" in run.stderr
    for options, said in ((["--exact"], "--exact goes with --fleet"), (["--fleet", "--why", "MEMORY.md:1"], "no --why"),
                          (["--fleet", "--profile", "openclaw"], "ranks with the memtui profile")):
        refused = cli(env, "search", "otter", *options)
        assert refused.returncode != 0 and said in refused.stderr


def test_an_agents_files_and_chunks_read_from_the_database(tmp_path: Path) -> None:
    envs = fleet(tmp_path)
    workspace = str(envs["beta"].workspace_dir)
    (envs["beta"].workspace_dir / "MEMORY.md").unlink()  # as if the workspace lived on another host
    with connect(envs["alpha"].settings.store.url or "")[0] as conn:
        files = index_files(conn, "beta", workspace)
        chunks = file_chunks(conn, "beta", workspace, "MEMORY.md")
        assert index_files(conn, "beta", "/elsewhere") == file_chunks(conn, "gamma", workspace, "MEMORY.md") == []
    assert [(f["path"], f["source"], f["chunks"]) for f in files] == [("MEMORY.md", "memory", 1)]
    assert files[0]["size"] > 0 and files[0]["mtime"] > 0
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 5)]
    assert "The otter queue drains into the zebra ledger nightly." in chunks[0].text
    reader = FleetReader(envs["alpha"].settings.store.url or "")
    hit = fleet_search(reader, "otter", provider=None, settings=envs["alpha"].settings).hits[0]
    reader.close()
    assert (hit.agent, hit.chunk_id, hit.text) == ("beta", chunks[0].id, chunks[0].text)


def test_read_only_reads_the_database_and_never_writes_it(tmp_path: Path) -> None:
    """`--read-only` on the postgres store needs no local index file: it reads the agent's index in the database
    (status names the server, not a path) and refuses to sync; an agent never indexed there is told so."""
    envs = fleet(tmp_path)
    found = as_json(cli(envs["alpha"], "--read-only", "search", "zebra ledger", "--json"))
    assert [hit["path"] for hit in found["results"]] == ["MEMORY.md"]
    status = cli(envs["alpha"], "--read-only", "status")
    assert status.returncode == 0 and "Store: postgres (" in status.stdout and "(read-only)" in status.stdout
    refused = cli(envs["alpha"], "--read-only", "index")
    assert refused.returncode == 2 and "read-only" in refused.stderr
    (tmp_path / "elsewhere").mkdir()
    stranger = env_for(tmp_path / "elsewhere", tmp_path / "alpha", envs["alpha"].settings.store.url, "gamma")
    missing = cli(stranger, "--read-only", "search", "zebra")
    assert missing.returncode == 2 and "holds no index of agent gamma" in missing.stderr


def test_an_agent_never_indexed_searches_the_fleet_without_joining_it(tmp_path: Path) -> None:
    """A team member's agent with no index of its own (and `--read-only`) searches the fleet; the database gains
    no index for it."""
    envs = fleet(tmp_path)
    (tmp_path / "laptop").mkdir()
    stranger = env_for(tmp_path / "laptop", tmp_path / "laptop", envs["alpha"].settings.store.url, "gamma")
    for extra in ((), ("--read-only",)):
        found = as_json(cli(stranger, *extra, "search", "--fleet", "--json", "otter"))["results"]
        assert [(hit["agent"], hit["path"]) for hit in found] == [("beta", "MEMORY.md")]
    listed = as_json(cli(envs["alpha"], "status", "--fleet", "--json"))["indexes"]
    assert [entry["agent"] for entry in listed] == ["alpha", "beta"]
