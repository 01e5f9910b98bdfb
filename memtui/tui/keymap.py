"""User key remapping from `~/.config/memtui/config.json5` (`keymap`: binding id → keys)."""

from __future__ import annotations

from pathlib import Path

import json5

from memtui.errors import ConfigError
from memtui.settings.paths import config_home, legacy_memtui_dir

CONFIG_NAME = "config.json5"


def keymap_folder(state_dir: Path) -> Path:
    """Where memtui's config is read: `$XDG_CONFIG_HOME/memtui`, or `<state>/memtui` when only an older
    memtui's config is there."""
    home, legacy = config_home(), legacy_memtui_dir(state_dir)
    return legacy if not (home / CONFIG_NAME).exists() and (legacy / CONFIG_NAME).exists() else home


def load_keymap(memtui_dir: Path) -> dict[str, str]:
    """The `keymap` object of memtui's config, e.g. `{"search.focus": "slash,ctrl+f"}`; {} when absent."""
    path = memtui_dir / CONFIG_NAME
    if not path.exists():
        return {}
    try:
        data = json5.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ConfigError(f"{path}: not valid JSON5 ({exc})") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid JSON5 (nested too deeply to read)") from None
    keymap = data.get("keymap", {}) if isinstance(data, dict) else {}
    if not isinstance(keymap, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                               for k, v in keymap.items()):
        raise ConfigError(f'{path}: "keymap" must map binding ids to key strings, e.g. {{"app.help": "f1"}}')
    return dict(keymap)
