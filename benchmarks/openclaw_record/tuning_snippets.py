"""Record whether the real `openclaw config validate` (2026.9.6) accepts the tuning panel's exported snippets:
`python benchmarks/openclaw_record/tuning_snippets.py --openclaw BIN --node-bin DIR` rewrites
`tests/data/openclaw-2026.9.6/tuning_snippets.json` (the snippet texts, exit codes and validator JSON)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from memtui.settings.config import resolve_memory_search
from memtui.settings.openclaw_2026_9 import apply_fixed_knobs
from memtui.tui.tuning import Tuning

OUT = Path(__file__).resolve().parents[2] / "tests" / "data" / "openclaw-2026.9.6" / "tuning_snippets.json"


def cases() -> dict[str, tuple[Tuning, str]]:
    """name → (tuning, layout) for the recorded snippets."""
    settings = apply_fixed_knobs(resolve_memory_search({}, "main"))
    configured = Tuning.from_settings(settings, "openclaw")
    tuned = replace(configured, vector_weight=0.5, text_weight=0.5, mmr_enabled=False, min_score=0.2,
                    max_results=8)
    return {"configured-2026.9": (configured, "2026.9"), "tuned-2026.9": (tuned, "2026.9"),
            "tuned-2026.4-keys": (tuned, "2026.4")}


def main() -> None:
    """Validate each snippet in a scratch state dir and write the recording."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--openclaw", required=True, help="the openclaw binary (node_modules/.bin/openclaw)")
    parser.add_argument("--node-bin", required=True, help="the folder of Node 24's node binary")
    args = parser.parse_args()
    settings = apply_fixed_knobs(resolve_memory_search({}, "main"))
    recorded = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name, (tuning, layout) in cases().items():
            state = Path(scratch) / name
            state.mkdir()
            snippet = tuning.json5_snippet(settings, layout)
            (state / "openclaw.json").write_text(snippet, encoding="utf-8")
            env = {"PATH": f"{args.node_bin}{os.pathsep}{os.environ['PATH']}", "HOME": str(state / "home"),
                   "OPENCLAW_STATE_DIR": str(state)}
            done = subprocess.run([args.openclaw, "config", "validate", "--json"], capture_output=True, text=True,
                                  timeout=180, env=env)
            output = json.loads(done.stdout or done.stderr)
            output.pop("path", None)
            if isinstance(output.get("error"), dict):
                output["error"].pop("message", None)
            recorded[name] = {"layout": layout, "snippet": snippet, "exitCode": done.returncode, "output": output}
    OUT.write_text(json.dumps({"openclaw": "2026.9.6", "cases": recorded}, indent=2, ensure_ascii=False) + "\n",
                   encoding="utf-8")


if __name__ == "__main__":
    main()
