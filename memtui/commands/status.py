"""`memtui status [--json] [--deep] [--fleet]`: the index's state, shaped like `openclaw memory status`
(`--fleet`: every agent's index in the PostgreSQL store)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from memtui.backend import open_manager
from memtui.commands.args import agent_from_args
from memtui.commands.output import print_json
from memtui.manager import MemoryManager
from memtui.settings.paths import resolve_extra_path


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add the `status` subcommand."""
    parser = subparsers.add_parser("status", parents=parents, help="show the index's state")
    parser.add_argument("--json", action="store_true", help="print the status object as JSON")
    parser.add_argument("--deep", action="store_true", help="probe the embedding provider with a 'ping' embed")
    parser.add_argument("--fleet", action="store_true", help="every agent's index in the PostgreSQL store")
    parser.set_defaults(func=run)


def _home(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home):] if path.startswith(home + os.sep) else path


def _files(counts: dict[str, int], shown: int = 3) -> str:
    names = [f"{path} ({count})" for path, count in list(counts.items())[:shown]]
    return ", ".join(names) + (f" and {len(counts) - shown} more" if len(counts) > shown else "")


def _direction_lines(custom: dict[str, Any]) -> list[str]:
    """Chunks the provider gives no vector with a direction (keyword-only by its answer, not an outage), and
    stored vectors without one (skipped by every search until `index --force`)."""
    lines = []
    if (mine := custom.get("noVector")) is not None:
        lines.append(f"No vector by the provider's answer: {mine['chunks']} chunk(s) in {_files(mine['files'])} — "
                     f"{'; '.join(mine['reasons'])}; they rank by keywords only and are embedded again {mine['retry']}")
    if (stored := custom.get("degenerateVectors")) is not None:
        lines.append(f"Stored vectors without a direction (all zeros or NaN): {stored['chunks']} in "
                     f"{_files(stored['files'])}; searches skip them (keyword-only for those chunks): run "
                     f"{stored['action'].replace(' embeds them again', '')} to embed them again")
    return lines


def _indexed_line(status: dict[str, Any]) -> str:
    """`Indexed: 31/31 memory files (indexed/on disk) · 3 session transcripts · 46 chunks`: each number says what it
    counts (memory files are compared with the disk, transcripts are not)."""
    by_source = {entry["source"]: entry["files"] for entry in status["sourceCounts"]}
    memory = by_source.get("memory", status["files"] - by_source.get("sessions", 0))
    on_disk = status["scan"]["memoryFiles"]
    parts = [f"{memory}/{on_disk} memory files (indexed/on disk)" if on_disk is not None else f"{memory} memory files"]
    if "sessions" in by_source:
        parts.append(f"{by_source['sessions']} session transcripts")
    return f"Indexed: {' · '.join(parts)} · {status['chunks']} chunks"


def render(status: dict[str, Any], deep: bool) -> list[str]:
    """Human lines for one agent's status."""
    lines = [f"Memory Search ({status['agentId']})"]
    lines.extend(render_openclaw(status["openclaw"]))
    lines.append(f"Provider: {status['provider']} (requested: {status['requestedProvider']})"
                 + (" · memtui's bundled model" if status["providerSource"] == "memtui-model" else ""))
    lines.append(f"Model: {status['model']}")
    if status.get("modelPath") and status["modelPath"] != status["model"]:
        lines.append(f"Model file: {_home(status['modelPath'])}")
    lines.append(f"Profile: {status['profile']} · search mode: {status['custom']['searchMode']}")
    missing = status["custom"].get("missingVectors")
    if status["custom"].get("providerUnavailableReason"):
        label = "FTS-only because" if status["custom"]["searchMode"] == "fts-only" else "Embedding provider failed"
        lines.append(f"{label}: {status['custom']['providerUnavailableReason']}")
    if missing:
        lines.append(f"Without a vector: {missing['chunks']} of {missing['of']} chunks in {missing['files']} "
                     "file(s), ranked by keywords until the next sync embeds them")
    lines.extend(_direction_lines(status["custom"]))
    lines.append(f"Sources: {', '.join(status['sources'])}")
    if status["extraPaths"]:
        lines.append(f"Extra paths: {', '.join(status['extraPaths'])}")
    lines.append(_indexed_line(status))
    reason = status["custom"].get("dirtyReason")
    lines.append(f"Dirty: {'yes' if status['dirty'] else 'no'}" + (f" ({reason})" if reason else ""))
    driver = status["custom"].get("driver") or ""
    store = driver if driver.startswith("postgres") else _home(status["dbPath"])  # the server, not a local path
    lines.append(f"Store: {store}" + (" (read-only)" if status["readOnly"] else ""))
    lines.append(f"Workspace: {_home(status['workspaceDir'])}")
    identity = status["indexIdentity"]
    if identity["reason"]:
        lines.append(f"Index identity: {identity['reason']} (it is synced for this workspace before a search)")
    if identity["changedElsewhere"]:
        lines.append("Index changed by another program since memtui wrote it: memtui's Porter table is not used "
                     "until `memtui index` repairs it")
    if deep:
        probe = status["embeddingProbe"]
        lines.append("Embeddings: ready" if probe["ok"] else f"Embeddings error: {probe['error']}")
    lines.append("By source:")
    for entry in status["sourceCounts"]:
        lines.append(f"  {entry['source']} · {entry['files']} files · {entry['chunks']} chunks")
    if status.get("fallback"):
        lines.append(f"Fallback: {status['fallback']['from']} ({status['fallback']['reason']})")
    vector = status["vector"]
    if not vector["enabled"]:
        lines.append("Vector: disabled")
    else:
        lines.append(f"Vector: {'ready' if vector['available'] else 'unavailable'}")
        if vector.get("dims"):
            lines.append(f"Vector dims: {vector['dims']}")
        if vector.get("loadError"):
            lines.append(f"Vector error: {vector['loadError']}")
    fts = status["fts"]
    lines.append(f"FTS: {'ready' if fts['available'] else 'unavailable'}")
    if fts.get("error"):
        lines.append(f"FTS error: {fts['error']}")
    cache = status["cache"]
    lines.append(f"Embedding cache: {'enabled' if cache['enabled'] else 'disabled'} ({cache['entries']} entries)")
    if cache.get("maxEntries"):
        lines.append(f"Cache cap: {cache['maxEntries']}")
    batch = status.get("batch")
    if batch:
        lines.append(f"Batch: {'enabled' if batch['enabled'] else 'disabled'} (failures {batch['failures']}/"
                     f"{batch['limit']})")
        if batch.get("lastError"):
            lines.append(f"Batch error: {batch['lastError']}")
    if status["issues"]:
        lines.append("Issues:")
        for issue in status["issues"]:
            where = f":{issue['line']}" if issue.get("line") else ""
            lines.append(f"  {issue['path']}{where}: {issue['reason']}")
    return lines


def render_openclaw(view: dict[str, Any]) -> list[str]:
    """The lines about OpenClaw's own layout and index (read, never written by memtui)."""
    lines = [f"OpenClaw: {view['label']}" + (f" · {_home(view['path'])}" if view["generation"] != "none" else "")]
    if view.get("legacyPath"):
        lines.append(f"  a 2026.4 index is left beside it: {_home(view['legacyPath'])} (OpenClaw 2026.9 ignores it)")
    if view.get("retiredKeys"):
        lines.append(f"  retired in 2026.9, not read: {', '.join(view['retiredKeys'])} (OpenClaw 2026.9.6 runs no "
                     "command on this config until `openclaw doctor --fix` moves or removes them)")
    index = view.get("index")
    if view.get("error"):
        lines.append(f"  OpenClaw's index: unreadable ({view['error']})")
    elif index is not None:
        sources = ", ".join(f"{source} {count}" for source, count in index["chunksBySource"].items()) or "none"
        versions = " · ".join(part for part in (
            f"chunking v{index['chunkingVersion']}" if index.get("chunkingVersion") is not None else "",
            f"provenance v{index['provenanceVersion']}" if index.get("provenanceVersion") is not None else "",
            f"model {index['model']}" if index.get("model") else "") if part)
        lines.append(f"  OpenClaw's index: {index['chunks']} chunks in {index['files']} files ({sources})"
                     + (f" · {versions}" if versions else "")
                     + f" · {index['vectors']} vectors")
        lines.append("  memtui reads it and never writes it; the lines below are memtui's own index")
    return lines


def render_qmd(status: dict[str, Any], deep: bool) -> list[str]:
    """Human lines when `memory.backend` is qmd: which backend served, QMD's state, then the builtin's."""
    qmd = status["qmd"]
    lines = [f"Memory Search ({status['agentId']}) — backend: {status['backend']} (requested: qmd)"]
    if status.get("fallback"):
        lines.append(f"Fallback: qmd → builtin ({status['fallback'].get('reason')})")
    lines.append(f"QMD: {qmd['command']} {qmd.get('version') or '(version unknown)'} · mode {qmd['searchMode']}")
    lines.append(f"QMD index: {_home(qmd['indexPath'])}" + ("" if qmd["indexExists"] else " (missing)"))
    for collection in qmd["collections"]:
        count = qmd["documents"].get(collection["name"], 0)
        lines.append(f"  {collection['name']} · {_home(collection['path'])} ({collection['pattern']}) · {count} docs")
    if qmd.get("lastError"):
        lines.append(f"QMD error: {qmd['lastError']}")
    if status["backend"] == "builtin":
        lines.extend(render(status, deep)[1:])
    return lines


def run(args: argparse.Namespace) -> int:
    """Print the status."""
    env = agent_from_args(args)
    if args.fleet:
        from memtui.commands.fleet import print_fleet_status

        return print_fleet_status(args, env)
    if env.backend == "qmd":
        manager = open_manager(env)
        try:
            status = manager.status(deep=args.deep)
        finally:
            manager.close()
        if args.json:
            print_json(status)
        else:
            print("\n".join(render_qmd(status, args.deep)))
        return 0
    with MemoryManager(env) as manager:
        if not env.read_only and manager.store.read_meta() is not None:
            manager.dirty = False
        problems = []
        if not env.workspace_dir.is_dir():
            problems.append({"path": str(env.workspace_dir), "reason": "workspace directory missing"})
        elif not (env.workspace_dir / "memory").is_dir():
            problems.append({"path": str(env.workspace_dir / "memory"), "reason": "memory directory missing"})
        problems.extend({"path": p, "reason": "additional memory path missing"} for p in env.settings.extra_paths
                        if not resolve_extra_path(env.workspace_dir, p).exists())
        status = manager.status(deep=args.deep)
        status["issues"] = problems + status["issues"]
    if args.json:
        print_json(status)
    else:
        print("\n".join(render(status, args.deep)))
    return 0
