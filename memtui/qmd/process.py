"""Running qmd: the isolated per-agent environment of §11.1, every call under a timeout."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

from memtui.errors import MemtuiError


class QmdError(MemtuiError):
    """A qmd invocation failed (non-zero exit, unreadable output)."""


class QmdMissing(QmdError):
    """The qmd binary cannot be started."""


class QmdTimeout(QmdError):
    """A qmd invocation did not finish in time (it was killed with its whole process group)."""


@dataclass(frozen=True)
class QmdResult:
    """What a finished qmd call printed."""

    stdout: str
    stderr: str
    returncode: int


def qmd_home(memtui_dir: Path, agent_id: str) -> Path:
    """`<memtui's folder for the state dir>/qmd/<id>`: everything qmd writes for this agent lives below it, in
    memtui's own data dir (never in the OpenClaw state dir, whose `agents/<id>/qmd` belongs to OpenClaw's QMD)."""
    return memtui_dir / "qmd" / agent_id


def qmd_environment(memtui_dir: Path, agent_id: str, node_dir: str | None = None,
                    base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of every qmd call: XDG dirs under the agent's qmd home, NO_COLOR, node on PATH."""
    env = dict(os.environ if base is None else base)
    home = qmd_home(memtui_dir, agent_id)
    config_home = home / "xdg-config"
    env["XDG_CONFIG_HOME"] = str(config_home)
    env["QMD_CONFIG_DIR"] = str(config_home / "qmd")
    env["XDG_CACHE_HOME"] = str(home / "xdg-cache")
    env["NO_COLOR"] = "1"
    node = node_dir or (os.path.dirname(found) if (found := shutil.which("node", path=env.get("PATH"))) else None)
    if node:
        env["PATH"] = os.pathsep.join(p for p in (node, env.get("PATH", "")) if p)
    return env


def qmd_index_path(memtui_dir: Path, agent_id: str) -> Path:
    """Where qmd keeps this agent's index (`…/qmd/<id>/xdg-cache/qmd/index.sqlite`)."""
    return qmd_home(memtui_dir, agent_id) / "xdg-cache" / "qmd" / "index.sqlite"


def run_qmd(command: str, args: list[str], *, env: dict[str, str], timeout_s: float,
            cwd: Path | None = None) -> QmdResult:
    """Run `command args…`; raise QmdMissing, QmdTimeout (after killing its process group) or QmdError."""
    argv = [command, *args]
    try:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=env, cwd=cwd, start_new_session=True)
    except OSError as exc:
        raise QmdMissing(f"cannot run {command!r}: {exc.strerror or exc}",
                         hint="install QMD (npm install -g @tobilu/qmd) or set memory.qmd.command") from exc
    try:
        stdout, stderr = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        raise QmdTimeout(f"qmd {' '.join(args[:1])} timed out after {timeout_s:g} s and was killed") from None
    return QmdResult(stdout.decode("utf-8", "replace"), stderr.decode("utf-8", "replace"), process.returncode)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.communicate()


def check_result(result: QmdResult, args: list[str]) -> QmdResult:
    """Raise QmdError with qmd's own message when the call exited non-zero."""
    if result.returncode != 0:
        message = (result.stderr.strip() or result.stdout.strip()).splitlines()
        detail = message[-1] if message else "no output"
        raise QmdError(f"qmd {' '.join(args[:2])} exited with code {result.returncode}: {detail}")
    return result


def probe_qmd(command: str, env: dict[str, str], timeout_s: float = 2.0) -> str:
    """The spawn probe: `qmd --version` within 2 s; returns the version line or raises QmdError."""
    result = check_result(run_qmd(command, ["--version"], env=env, timeout_s=timeout_s), ["--version"])
    return result.stdout.strip().splitlines()[0] if result.stdout.strip() else "qmd"
