"""State dir, config file, agent id, workspace, sessions dir and store path, resolved as OpenClaw does."""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memtui.agentdb.snapshot import data_home
from memtui.errors import ConfigError
from memtui.jscompat import js_path_resolve
from memtui.settings.raw import DEFAULT_AGENT_ID, agent_entry, get_path, normalize_agent_id, roster

CONFIG_FILENAME = "openclaw.json"
LEGACY_CONFIG_FILENAMES = ("clawdbot.json",)
STATE_DIRNAME = ".openclaw"
LEGACY_STATE_DIRNAMES = (".clawdbot",)


def home_dir(env: Mapping[str, str] | None = None) -> Path:
    """The home dir, honouring `OPENCLAW_HOME`."""
    env = os.environ if env is None else env
    return Path(env.get("OPENCLAW_HOME") or env.get("HOME") or Path.home()).expanduser()


def expand_user(path: str, env: Mapping[str, str] | None = None) -> Path:
    """Expand a leading `~` against the OpenClaw home dir."""
    if path == "~" or path.startswith("~/"):
        return home_dir(env) / path[2:]
    return Path(path).expanduser()


def resolve_state_dir(override: str | None = None, env: Mapping[str, str] | None = None) -> Path:
    """`--state-dir`, else `OPENCLAW_STATE_DIR`, else `~/.openclaw` (legacy `~/.clawdbot` if only it exists)."""
    env = os.environ if env is None else env
    if override:
        return expand_user(override, env).resolve()
    if env.get("OPENCLAW_STATE_DIR"):
        return expand_user(env["OPENCLAW_STATE_DIR"], env).resolve()
    home = home_dir(env)
    primary = home / STATE_DIRNAME
    if not primary.exists():
        for legacy in LEGACY_STATE_DIRNAMES:
            if (home / legacy).is_dir():
                return home / legacy
    return primary


def resolve_config_path(state_dir: Path, override: str | None = None, env: Mapping[str, str] | None = None) -> Path:
    """`--config`, else `OPENCLAW_CONFIG_PATH`, else `<state>/openclaw.json` (legacy `clawdbot.json`)."""
    env = os.environ if env is None else env
    if override:
        return expand_user(override, env).resolve()
    if env.get("OPENCLAW_CONFIG_PATH"):
        return expand_user(env["OPENCLAW_CONFIG_PATH"], env).resolve()
    primary = state_dir / CONFIG_FILENAME
    if not primary.exists():
        for legacy in LEGACY_CONFIG_FILENAMES:
            if (state_dir / legacy).is_file():
                return state_dir / legacy
    return primary



def default_agent_id(raw: dict[str, Any], *, strict: bool = False) -> str | None:
    """The default agent. 2026.9's `agents.entries`: the one entry marked `default: true`, else the sole entry,
    else none (`strict`: a ConfigError naming the agents, as OpenClaw asks for `--agent` then). 2026.4's
    `agents.list`: the entry with `default: true`, else the first. No roster: `main`."""
    keyed = roster(raw)
    if keyed:
        marked = [agent_id for agent_id, entry in keyed.items() if entry.get("default") is True]
        if len(marked) == 1:
            return marked[0]
        if len(keyed) == 1:
            return next(iter(keyed))
        if strict:
            raise ConfigError(f"several agents are configured ({', '.join(keyed)}) and none is the default",
                              "pass --agent ID")
        return None
    entries = get_path(raw, "agents", "list")
    if isinstance(entries, list):
        dicts = [e for e in entries if isinstance(e, dict)]
        for entry in dicts:
            if entry.get("default") is True:
                return normalize_agent_id(entry.get("id"))
        if dicts:
            return normalize_agent_id(dicts[0].get("id"))
    return DEFAULT_AGENT_ID


def workspace_path(value: str, env: Mapping[str, str] | None = None) -> Path:
    """A workspace path as OpenClaw's `resolveUserPath` makes it: `~` expanded, then `path.resolve` — lexical,
    so a symlinked workspace keeps its name (extra paths and the meta's scopeHash are built from it)."""
    return js_path_resolve(os.getcwd(), str(expand_user(value, env)))


def resolve_workspace_dir(raw: dict[str, Any], agent_id: str, state_dir: Path,
                          env: Mapping[str, str] | None = None) -> Path:
    """`agents.entries.<id>.workspace` (2026.9) or `agents.list[].workspace`, else the defaults workspace
    (per-agent subdir for non-default agents), else `$OPENCLAW_WORKSPACE_DIR` (2026.9) or `<state>/workspace`."""
    env = os.environ if env is None else env
    entry = agent_entry(raw, agent_id)
    if entry and isinstance(entry.get("workspace"), str) and entry["workspace"].strip():
        return workspace_path(entry["workspace"].strip(), env)
    configured = get_path(raw, "agents", "defaults", "workspace")
    configured = configured.strip() if isinstance(configured, str) else ""
    if agent_id == default_agent_id(raw):
        if configured:
            return workspace_path(configured, env)
        if (env.get("OPENCLAW_WORKSPACE_DIR") or "").strip():
            return workspace_path(env["OPENCLAW_WORKSPACE_DIR"].strip(), env)
        profile = (env.get("OPENCLAW_PROFILE") or "").strip()
        if profile and profile.lower() != "default":
            return state_dir / f"workspace-{profile}"
        return state_dir / "workspace"
    if configured:
        return workspace_path(configured, env) / agent_id
    return state_dir / f"workspace-{agent_id}"


def same_folder(a: str | Path, b: str | Path) -> bool:
    """The same path, or two paths of one existing folder."""
    if str(a) == str(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def sessions_dir(state_dir: Path, agent_id: str) -> Path:
    """`<state>/agents/<agentId>/sessions`."""
    return state_dir / "agents" / agent_id / "sessions"


def openclaw_store_path(template: str, state_dir: Path, agent_id: str, env: Mapping[str, str] | None = None) -> Path:
    """OpenClaw's own index path from `store.path` (`{agentId}` substituted, `~` expanded)."""
    default = "~/.openclaw/memory/{agentId}.sqlite"
    if template == default:
        return state_dir / "memory" / f"{agent_id}.sqlite"
    return expand_user(template.replace("{agentId}", agent_id), env).resolve()


def config_home(env: Mapping[str, str] | None = None) -> Path:
    """memtui's per-user config folder: `$XDG_CONFIG_HOME/memtui`, else `~/.config/memtui`."""
    env = os.environ if env is None else env
    base = env.get("XDG_CONFIG_HOME") or str(Path(env.get("HOME") or Path.home()) / ".config")
    return Path(base).expanduser().absolute() / "memtui"


def _key(path: Path) -> str:
    """A file-name-safe key for a folder: its name and a hash of its whole path."""
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", path.name)[:40] or "workspace"
    return f"{name}-{digest}"


def memtui_dir(state_dir: Path, env: Mapping[str, str] | None = None) -> Path:
    """memtui's own folder for one OpenClaw state dir (indexes, query history): `<data home>/<state key>`."""
    return data_home(env) / "state" / _key(state_dir)


def legacy_memtui_dir(state_dir: Path) -> Path:
    """Where memtui before 2026.12 kept its indexes: `<state>/memtui` (still read, never created)."""
    return state_dir / "memtui"


def memtui_store_path(state_dir: Path, agent_id: str, workspace: Path | None = None,
                      env: Mapping[str, str] | None = None) -> Path:
    """memtui's own index: `<memtui dir>/<agentId>.sqlite`; for a `workspace` other than the agent's,
    `<agentId>-<folder key>.sqlite`. An index an older memtui left under `<state>/memtui/` is used while it
    exists; nothing new is made there."""
    name = f"{agent_id}.sqlite" if workspace is None else f"{agent_id}-{_key(workspace)}.sqlite"
    legacy = legacy_memtui_dir(state_dir) / name
    if legacy.is_file():
        return legacy
    return memtui_dir(state_dir, env) / name


def resolve_extra_path(workspace_dir: Path, raw: str) -> Path:
    """An `extraPaths` entry as OpenClaw's `normalizeExtraMemoryPaths` reads it: absolute or relative to the
    workspace, by plain `path.resolve` — a leading `~` is a folder named `~` in the workspace, not HOME."""
    return js_path_resolve(workspace_dir, raw.strip())


def refused_extra_paths(workspace_dir: Path, extra_paths: tuple[str, ...], state_dir: Path,
                        env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The `extraPaths` entries memtui leaves out, each with the warning to show: the filesystem root, the home
    folder, the OpenClaw state dir (config, credentials, transcripts) or a folder holding one of them (README,
    "Reliability"). Compared as written and with links resolved."""
    env = os.environ if env is None else env
    homes = {home_dir(env), *([Path(env["HOME"])] if env.get("HOME") else [])}
    guarded = [(Path(os.path.abspath(h)), "the home folder") for h in homes]
    guarded.append((Path(os.path.abspath(state_dir)), "the OpenClaw state dir"))
    guarded += [(Path(os.path.realpath(place)), what) for place, what in guarded]
    refused: dict[str, str] = {}
    for raw in extra_paths:
        target = resolve_extra_path(workspace_dir, raw)
        for seen in (target, Path(os.path.realpath(target))):
            if seen == Path(seen.anchor):
                exact, holds = ["is the filesystem root"], []
            else:
                exact = [f"is {what}" for place, what in guarded if place == seen]
                holds = [f"holds {what}" for place, what in guarded if place.is_relative_to(seen)]
            if exact or holds:
                refused[raw] = (f"memorySearch.extraPaths entry {raw!r} {(exact or holds)[0]}; memtui leaves it out "
                                "(it would index every Markdown file there and let memory_get read any of them): "
                                "name the folder your notes are in instead")
                break
    return refused
