"""User key remapping from `~/.config/memtui/config.json5` (`keymap`: binding id → keys)."""

from __future__ import annotations

from pathlib import Path

from memtui.errors import ConfigError
from memtui.settings.memtui_config import CONFIG_NAME, read_config


def load_keymap(memtui_dir: Path) -> dict[str, str]:
    """The `keymap` object of memtui's config, e.g. `{"search.focus": "slash,ctrl+f"}`; {} when absent."""
    path = memtui_dir / CONFIG_NAME
    data = read_config(memtui_dir)
    keymap = data.get("keymap", {})
    if not isinstance(keymap, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                               for k, v in keymap.items()):
        raise ConfigError(f'{path}: "keymap" must map binding ids to key strings, e.g. {{"app.help": "f1"}}')
    return dict(keymap)
