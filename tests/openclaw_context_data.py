"""The OpenClaw 2026.4.29 session-context and dreaming recording (`tests/data/openclaw-2026.4.29/context/`):
loading it and rebuilding its inputs on disk exactly as `benchmarks/openclaw_record/sessions.common.mjs` did."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

RECORDING = Path(__file__).parent / "data" / "openclaw-2026.4.29" / "context"


def recording(section: str) -> dict[str, Any]:
    """One recorded section (`flush`, `bootstrap`, `prompts`, `dreaming`, `sweep`)."""
    return json.loads((RECORDING / f"{section}.json").read_text(encoding="utf-8"))


def case_ids(cases: list[dict[str, Any]]) -> list[str]:
    """pytest ids: the recorded case names."""
    return [case["name"] for case in cases]


def spec_text(spec: Any) -> str:
    """A string, `{"repeat", "count"}` or `{"parts": [...]}`, expanded like the driver's `specText`."""
    if isinstance(spec, str):
        return spec
    if "parts" in spec:
        return "".join(spec_text(part) for part in spec["parts"])
    return spec["repeat"] * spec["count"]


def write_tree(root: Path, tree: dict[str, Any]) -> Path:
    """Write `{relative path: spec}` under `root` like the driver's `writeTree`; returns the outside folder."""
    outside = root.parent / f"{root.name}-outside"
    for rel, spec in tree.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, dict) and "symlink" in spec:
            link = spec["symlink"]
            if link.startswith("@outside/"):
                outside.mkdir(parents=True, exist_ok=True)
                link = str(outside / link.removeprefix("@outside/"))
            os.symlink(link, target)
            continue
        if isinstance(spec, dict) and spec.get("dir"):
            target.mkdir(parents=True, exist_ok=True)
            continue
        if isinstance(spec, dict) and "rawHex" in spec:
            target.write_bytes(bytes.fromhex(spec["rawHex"]))
        elif isinstance(spec, dict) and "bytes" in spec:
            target.write_bytes(spec.get("fill", "x").encode() * spec["bytes"])
        else:
            text = spec_text(spec["text"] if isinstance(spec, dict) and "text" in spec else spec)
            target.write_bytes(text.encode("utf-8", "surrogatepass"))
        if isinstance(spec, dict) and "mtimeMs" in spec:
            seconds = spec["mtimeMs"] / 1000
            os.utime(target, (seconds, seconds))
    return outside


def js_json(value: Any) -> str:
    """`JSON.stringify(value)` for plain data (no spaces, non-ASCII kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def transcript_bytes(spec: dict[str, Any]) -> bytes:
    """A transcript from records, with the pad record first when `padTo` is set (the driver's rule)."""
    body = "".join(js_json(record) + "\n" for record in spec["records"]).encode()
    if "padTo" not in spec:
        return body
    empty = (js_json({"type": "custom", "customType": "memtui-pad", "data": ""}) + "\n").encode()
    fill = spec["padTo"] - len(body) - len(empty)
    pad = (js_json({"type": "custom", "customType": "memtui-pad", "data": "x" * fill}) + "\n").encode()
    return pad + body


def sha256_utf16(text: str) -> str:
    """sha256 of the UTF-16LE code units (the driver's content hash; lone surrogates included)."""
    return hashlib.sha256(text.encode("utf-16-le", "surrogatepass")).hexdigest()


def fill_placeholders(value: Any, mapping: dict[str, str]) -> Any:
    """Replace `<ws>`-style placeholders (deep) by real paths."""
    if isinstance(value, str):
        for label, real in mapping.items():
            value = value.replace(label, real)
        return value
    if isinstance(value, list):
        return [fill_placeholders(v, mapping) for v in value]
    if isinstance(value, dict):
        return {fill_placeholders(k, mapping): fill_placeholders(v, mapping) for k, v in value.items()}
    return value


def make_placeholders(value: Any, mapping: dict[str, str]) -> Any:
    """The inverse of `fill_placeholders`: real paths back to their labels."""
    return fill_placeholders(value, {real: label for label, real in mapping.items()})
