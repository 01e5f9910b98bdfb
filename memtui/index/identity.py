"""Which workspace an index belongs to, so one workspace is never answered from another's index.

memtui records the workspace in its own meta row (`memtui_workspace_v1`) after every sync. On opening:

* recorded, same folder → the index is this workspace's;
* recorded, another folder → it is another workspace's: a writable open syncs it for this workspace before
  anything is searched (files of the other workspace are dropped); a read-only open refuses;
* not recorded and empty, or OpenClaw's own index at its own path for the workspace its config names
  (OpenClaw keeps one index per agent) → this workspace's;
* not recorded, with chunks (an index of an older memtui, or a copy) → unknown: treated like another
  workspace's.

Separately, `--workspace DIR` for a folder other than the agent's gets a store of its own
(`settings.paths.memtui_store_path`), so switching folders does not make one index chase two workspaces.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memtui.index.store import Store
from memtui.settings.paths import same_folder

WORKSPACE_KEY = "memtui_workspace_v1"


@dataclass(frozen=True)
class WorkspaceCheck:
    """What the index says about its workspace: the recorded folder, and why it may not answer for this one."""

    recorded: str | None
    foreign: str | None = None

    def to_json(self) -> dict[str, str | bool | None]:
        """For `status --json`."""
        return {"recorded": self.recorded, "matches": self.foreign is None, "reason": self.foreign}


def check_workspace(store: Store, workspace: Path, *, openclaw_own: bool) -> WorkspaceCheck:
    """Whether `store` may answer for `workspace`; `openclaw_own`: the store is OpenClaw's own index of the
    agent and `workspace` is the one its config names."""
    recorded = store.meta_value(WORKSPACE_KEY)
    if recorded is not None:
        if same_folder(recorded, workspace):
            return WorkspaceCheck(recorded)
        return WorkspaceCheck(recorded, f"index {store.path} was built for workspace {recorded}, not {workspace}")
    if openclaw_own or store.chunk_count() == 0:
        return WorkspaceCheck(None)
    return WorkspaceCheck(None, f"index {store.path} does not record which workspace it was built for")
