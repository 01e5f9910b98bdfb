"""Project Context injection against OpenClaw 2026.4.29's `resolveBootstrapContextForRun`, run in Node over the
same workspaces (`tests/data/openclaw-2026.4.29/context/bootstrap.json`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from openclaw_context_data import case_ids, fill_placeholders, make_placeholders, recording, sha256_utf16, write_tree

from memtui.context.bootstrap import bootstrap_report, utf16_len
from memtui.settings.agent import resolve_agent

CASES = recording("bootstrap")["cases"]
_LONE = re.compile(r"[\ud800-\udfff]")


def _report(tmp_path: Path, case: dict):
    ws = tmp_path / "workspace"
    state = tmp_path / "state"
    ws.mkdir()
    state.mkdir()
    write_tree(ws, case["tree"])
    for name, text in case.get("outside", {}).items():
        outside = tmp_path / "workspace-outside"
        outside.mkdir(exist_ok=True)
        (outside / name).write_text(text)
    (state / "openclaw.json").write_text(json.dumps(fill_placeholders(case["config"], {"<ws>": str(ws)})))
    env = resolve_agent(state_dir=str(state), env={})
    return bootstrap_report(env, session_key=case["sessionKey"]), {"<ws>": str(ws)}


def _injected(report, mapping: dict) -> list[tuple[str, str]]:
    return [(make_placeholders(f.path, mapping), make_placeholders(f.text, mapping)) for f in report.files if f.text]


@pytest.mark.parametrize("case", CASES, ids=case_ids(CASES))
def test_injected_files_match_openclaw(tmp_path: Path, case: dict) -> None:
    """Byte for byte, except where OpenClaw's plain slice leaves a lone surrogate: memtui keeps the emoji whole,
    so its text is OpenClaw's without those units."""
    report, mapping = _report(tmp_path, case)
    injected = _injected(report, mapping)
    expected = case["result"]["contextFiles"]
    assert [p for p, _ in injected] == [f["path"] for f in expected]
    for (_, text), want in zip(injected, expected, strict=True):
        lone = want.get("loneSurrogates", 0)
        if "content" in want:
            assert text == _LONE.sub("", want["content"])
        else:
            assert utf16_len(text) + lone == want["contentLength"]
            if not lone:
                assert sha256_utf16(text) == want["contentSha256Utf16"]
    assert report.warnings == case["result"]["warnings"]


SURROGATE_CASES = [c for c in CASES if any(f.get("loneSurrogates") for f in c["result"]["contextFiles"])]


@pytest.mark.parametrize("case", SURROGATE_CASES, ids=case_ids(SURROGATE_CASES))
def test_surrogate_safe_cut_reports_the_difference(tmp_path: Path, case: dict) -> None:
    """The report says, per file, how many UTF-16 units memtui kept fewer than OpenClaw (the budget left for
    the next files differs by as much)."""
    report, mapping = _report(tmp_path, case)
    want = {f["path"]: f.get("loneSurrogates", 0) for f in case["result"]["contextFiles"]}
    got = {make_placeholders(f.path, mapping): f.surrogate_units_dropped for f in report.files if f.text}
    assert got == want
    assert all("surrogateUnitsDropped" in f for f in report.to_json()["files"])
