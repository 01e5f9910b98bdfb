"""memtui's own config, `$XDG_CONFIG_HOME/memtui/config.json5` (never openclaw.json, whose `config validate`
rejects keys it does not know): the TUI's `keymap` and the memtui profile's `ranking` knobs.

    {
      ranking: {
        monthBoost: 0.5,                      // added to a daily log dated in a month the query names; 0 = off
        weights: {vector: 0.35, text: 0.65},  // the memtui profile's hybrid weights when openclaw.json sets none
      },
      keymap: {"search.focus": "slash,ctrl+f"},
    }
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memtui.errors import ConfigError
from memtui.settings.paths import config_home, legacy_memtui_dir

CONFIG_NAME = "config.json5"
# Measured with `memtui eval` on SciFact train and LoCoMo dev with the local MiniLM model
# (benchmarks/BENCHMARKS.md has the before/after numbers).
MONTH_BOOST = 0.5
MEMTUI_WEIGHTS = (0.35, 0.65)
MAX_MONTH_BOOST = 2.0


@dataclass(frozen=True)
class MemtuiRanking:
    """The memtui profile's own knobs (OpenClaw has none of them)."""

    month_boost: float = MONTH_BOOST
    weights: tuple[float, float] = MEMTUI_WEIGHTS


def config_folder(state_dir: Path, env: Mapping[str, str] | None = None) -> Path:
    """Where memtui's config is read: `$XDG_CONFIG_HOME/memtui`, or `<state>/memtui` when only an older memtui's
    config is there."""
    home, legacy = config_home(env), legacy_memtui_dir(state_dir)
    return legacy if not (home / CONFIG_NAME).exists() and (legacy / CONFIG_NAME).exists() else home


def read_config(folder: Path) -> dict[str, Any]:
    """The parsed config of `folder` ({} when there is none); ConfigError naming the file when it is not JSON5."""
    path = folder / CONFIG_NAME
    if not path.exists():
        return {}
    import json5  # only when there is a config to parse (a one-shot search usually has none)

    try:
        data = json5.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ConfigError(f"{path}: not valid JSON5 ({exc})") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid JSON5 (nested too deeply to read)") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: must be an object, e.g. {{ranking: {{monthBoost: 0.5}}}}")
    return data


def _number(value: Any, where: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
            or not low <= value <= high:
        raise ConfigError(f"{where} must be a number from {low:g} to {high:g}, not {value!r}")
    return float(value)


def ranking(folder: Path) -> MemtuiRanking:
    """The `ranking` block of memtui's config in `folder` (the defaults where it says nothing)."""
    block = read_config(folder).get("ranking")
    if block is None:
        return MemtuiRanking()
    where = f"{folder / CONFIG_NAME}: ranking"
    if not isinstance(block, dict):
        raise ConfigError(f"{where} must be an object, e.g. {{monthBoost: 0.5}}")
    unknown = set(block) - {"monthBoost", "weights"}
    if unknown:
        raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r}; known: monthBoost, weights")
    boost = MONTH_BOOST if "monthBoost" not in block else _number(block["monthBoost"], f"{where}.monthBoost", 0,
                                                                   MAX_MONTH_BOOST)
    weights = MEMTUI_WEIGHTS
    if "weights" in block:
        raw = block["weights"]
        if not isinstance(raw, dict) or set(raw) != {"vector", "text"}:
            raise ConfigError(f"{where}.weights must be {{vector: 0.35, text: 0.65}}")
        vector = _number(raw["vector"], f"{where}.weights.vector", 0, 1)
        text = _number(raw["text"], f"{where}.weights.text", 0, 1)
        if vector + text <= 0:
            raise ConfigError(f"{where}.weights: vector and text cannot both be 0")
        weights = (vector / (vector + text), text / (vector + text))
    return MemtuiRanking(month_boost=boost, weights=weights)
