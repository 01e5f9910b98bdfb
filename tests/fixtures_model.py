"""Shared fixtures for the local embedding model: GGUF files built once per session, and the reference.

Import them into `tests/conftest.py`: `from fixtures_model import llama_cpp, minilm_models, minilm_reference`.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from memtui.embeddings.convert import QUANTS, convert_model, package_model_dir

REFERENCE_FILE = Path(__file__).parent / "data" / "minilm_reference.json"


@pytest.fixture(scope="session")
def llama_cpp() -> Any:
    """The `llama_cpp` module; fails (never skips) when llama-cpp-python is not installed."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.fail("llama-cpp-python is not installed; install it as in .ci/run: "
                    "pip install --find-links ~/.cache/memtui/wheels llama-cpp-python==0.3.36")
    import llama_cpp

    return llama_cpp


@pytest.fixture(scope="session")
def minilm_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """all-MiniLM-L6-v2 converted from the installed gt package: {"q8_0": path, "f16": path}."""
    folder = tmp_path_factory.mktemp("minilm")
    source = package_model_dir()
    return {quant: convert_model(source, folder / f"all-MiniLM-L6-v2-{quant}.gguf", quant) for quant in QUANTS}


@pytest.fixture(scope="session")
def minilm_reference() -> dict[str, Any]:
    """sentence-transformers vectors for the same model (benchmarks/make_minilm_reference.py)."""
    return json.loads(REFERENCE_FILE.read_text(encoding="utf-8"))
