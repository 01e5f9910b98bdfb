"""The tuning panel's `J` export in the keys of the agent's OpenClaw generation: for 2026.9 the snippet is the
one the real `openclaw config validate` (2026.9.6) accepted when recorded
(`benchmarks/openclaw_record/tuning_snippets.py`), and it names the tuned knobs 2026.9 fixed."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

RECORDING = Path(__file__).resolve().parents[1] / "data" / "openclaw-2026.9.6" / "tuning_snippets.json"


def _recorder():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "openclaw_record" / "tuning_snippets.py"
    spec = importlib.util.spec_from_file_location("tuning_snippets", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_2026_9_snippets_are_the_ones_openclaw_accepted() -> None:
    recorder = _recorder()
    recorded = json.loads(RECORDING.read_text(encoding="utf-8"))["cases"]
    from memtui.settings.config import resolve_memory_search
    from memtui.settings.openclaw_2026_9 import apply_fixed_knobs

    settings = apply_fixed_knobs(resolve_memory_search({}, "main"))
    for name, (tuning, layout) in recorder.cases().items():
        assert tuning.json5_snippet(settings, layout) == recorded[name]["snippet"], name
    assert [recorded[n]["exitCode"] for n in ("configured-2026.9", "tuned-2026.9")] == [0, 0]
    assert recorded["tuned-2026.9"]["output"] == {"valid": True, "warnings": []}
    assert "tuned here but OpenClaw 2026.9 cannot keep: vectorWeight 0.5, textWeight 0.5, MMR off" in \
        recorded["tuned-2026.9"]["snippet"]
    assert "cannot keep" not in recorded["configured-2026.9"]["snippet"]
    # the 2026.4 keys are what 2026.9 rejects: the reason the export follows the generation
    assert recorded["tuned-2026.4-keys"]["exitCode"] == 1
    assert recorded["tuned-2026.4-keys"]["output"]["issues"] == [
        {"path": "agents.defaults", "message": 'Unrecognized key: "memorySearch"'}]
