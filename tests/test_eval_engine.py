"""The eval engine with the local model: the model is converted into the eval's own state dir."""

from __future__ import annotations

from pathlib import Path

from memtui.embeddings.model_store import installed_model_path
from memtui.evaluation.engine import fresh_env, open_manager


def test_local_provider_eval_gets_its_own_model(tmp_path: Path, llama_cpp) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "a.md").write_text("# Cats\n\nThe cat sits on the mat.\n", encoding="utf-8")
    env = fresh_env(tmp_path / "state", workspace, "memtui", "local")
    assert installed_model_path(tmp_path / "state") is not None
    with open_manager(env) as manager:
        assert manager.provider is not None and manager.provider.id == "local"
        manager.sync()
        hits = manager.search("a kitten resting on a rug", min_score=0.0).results
        assert hits[0].path == "memory/a.md" and hits[0].vector_score > 0.3
