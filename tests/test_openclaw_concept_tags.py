"""Concept tags against OpenClaw 2026.4.29's `deriveConceptTags` and `Intl.Segmenter` (recorded in Node 24)."""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest
from openclaw_context_data import recording

from memtui.dreaming.concepts import derive_concept_tags, word_segments

CASES = recording("dreaming")["conceptTags"]["cases"]


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['snippet'][:24]}" for i, c in enumerate(CASES)])
def test_concept_tags_match_openclaw(case):
    assert derive_concept_tags(case["path"], case["snippet"], case.get("limit", 8)) == case["tags"]


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c['snippet'][:24]}" for i, c in enumerate(CASES)])
def test_word_segments_match_intl_segmenter(case):
    assert word_segments(f"{PurePosixPath(case['path']).name} {case['snippet']}") == case["wordSegments"]


def test_chinese_snippet_gets_the_tags_openclaw_stores():
    tags = derive_concept_tags("memory/2026-04-26.md", "网关配置已经更新，路由器和备份都正常，故障转移测试在周五完成")
    assert len(tags) == 8
    assert tags[:4] == ["路由器", "备份", "故障转移", "网关"]
    assert "2026-04-26.md" not in tags
