"""The `/new` startup prelude and the flush prompts against OpenClaw 2026.4.29's
`buildSessionStartupContextPrelude` and `buildMemoryFlushPlan`, recorded in
`tests/data/openclaw-2026.4.29/context/prompts.json` and compared byte for byte."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from openclaw_context_data import case_ids, make_placeholders, recording, write_tree

from memtui.context.flush_prompts import build_flush_prompts
from memtui.context.startup import startup_context
from memtui.settings.agent import resolve_agent

DATA = recording("prompts")
STARTUP = DATA["startup"]["cases"]
PLANS = DATA["flushPlan"]["cases"]


def _env(tmp_path: Path, config: dict):
    state = tmp_path / "state"
    ws = tmp_path / "workspace"
    state.mkdir()
    ws.mkdir(exist_ok=True)
    defaults = {**config.get("agents", {}).get("defaults", {}), "workspace": str(ws)}
    (state / "openclaw.json").write_text(json.dumps({"agents": {"defaults": defaults}}))
    return resolve_agent(state_dir=str(state), env={}), ws


@pytest.mark.parametrize("case", STARTUP, ids=case_ids(STARTUP))
def test_startup_prelude_matches_openclaw(tmp_path: Path, case: dict) -> None:
    env, ws = _env(tmp_path, case["config"])
    outside = write_tree(ws, case["tree"])
    if case["name"] == "symlink-outside":
        (outside / "today.md").write_text("# outside\n")
    context = startup_context(env, now=datetime.fromtimestamp(case["nowMs"] / 1000, UTC))
    got = make_placeholders(context.text, {"<ws>": str(ws)}) if context.text is not None else None
    assert got == case["result"]


@pytest.mark.parametrize("case", PLANS, ids=case_ids(PLANS))
def test_flush_prompts_match_openclaw(tmp_path: Path, case: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")  # the recording's host zone, used when no userTimezone is set
    env, _ = _env(tmp_path, case["config"])
    plan = case["result"]
    if plan is None:
        assert not env.context.flush.enabled
        return
    prompts = build_flush_prompts(env.context, now=datetime.fromtimestamp(case["nowMs"] / 1000, UTC))
    assert (prompts.prompt, prompts.system_prompt, prompts.relative_path) == (
        plan["prompt"], plan["systemPrompt"], plan["relativePath"])
    flush = env.context.flush
    assert (flush.soft_threshold_tokens, flush.force_flush_transcript_bytes, flush.reserve_tokens_floor,
            flush.model) == (plan["softThresholdTokens"], plan["forceFlushTranscriptBytes"],
                             plan["reserveTokensFloor"], plan.get("model"))
