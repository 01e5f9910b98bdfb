"""One `memtui search` CLI call vs one QMD 2.8.3 `qmd search`: whole process vs whole process (issue 16).

Run: `python benchmarks/bench_cli.py [--notes 2000] [--runs 25] [--installed] [--baseline DIR]`

Both tools index the same generated notes (`notes.py`) once; then each round runs one keyword-only
`python -m memtui --provider none search Q --json` and one `qmd search Q --json -n 10` on the same query,
the order alternating between rounds. CPU = user + sys of the child process (`os.wait4`), wall = the
parent's clock around it; medians and p90 over the rounds, with the load average before and after.
memtui runs once with bytecode writing on before the rounds, so its `.pyc` files are present (this
environment sets PYTHONDONTWRITEBYTECODE=1). QMD runs with Node 24 first on PATH and its own HOME/XDG dirs
(`peers.py`). `--installed` also times a non-editable install (`pip install --no-deps .` into a scratch
venv that borrows the dependencies of the current one), so the editable finder's start-up cost shows apart.
`--baseline DIR` also times the `memtui` package found under DIR (e.g. `git archive OLD memtui | tar -x -C DIR`),
alternated with the others, for a before/after at the same load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from bench_index_search import QUERIES, percentile
from notes import generate
from peers import PeerError, QmdRunner, find_peers

REPO = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Run `cmd` to completion; (CPU seconds of the child, wall seconds). Raises on a non-zero exit."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:6])} …: exit {proc.returncode}: {stderr.strip()[-300:]}")
    return usage.ru_utime + usage.ru_stime, wall


def memtui_env(home: Path, pythonpath: str | None) -> dict[str, str]:
    """The memtui CLI's environment: isolated HOME, no OPENCLAW_*, bytecode read (and written) as usual."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("OPENCLAW_") and k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}
    env["HOME"] = str(home)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def installed_python(scratch: Path) -> Path:
    """A scratch venv with memtui installed non-editably; its dependencies come from the current venv."""
    venv = scratch / "installed-venv"
    python = venv / "bin" / "python"
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    (site / "borrowed-deps.pth").write_text(sysconfig.get_path("purelib") + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site),
                           str(REPO)], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ""})
    if done.returncode != 0:
        raise RuntimeError(f"pip install . failed: {done.stderr.strip()[-400:]}")
    shutil.rmtree(REPO / "build", ignore_errors=True)
    return python


def summary(name: str, cpu: list[float], wall: list[float]) -> str:
    """One table row: CPU and wall p50/p90 in milliseconds."""
    return (f"{name:<26} CPU p50 {statistics.median(cpu) * 1000:5.1f} ms  p90 {percentile(cpu, 0.9) * 1000:5.1f} ms   "
            f"wall p50 {statistics.median(wall) * 1000:5.1f} ms  p90 {percentile(wall, 0.9) * 1000:5.1f} ms")


def main() -> None:
    """Prepare both indexes, run the alternated rounds, print the medians, the ratio and the load."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=25, help="rounds (each runs every command once)")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp/memtui-bench-cli"))
    parser.add_argument("--installed", action="store_true", help="also time a non-editable install")
    parser.add_argument("--baseline", type=Path, help="a folder holding another memtui package to time as well")
    parser.add_argument("--no-qmd", action="store_true", help="memtui only")
    args = parser.parse_args()

    scratch = args.scratch / f"notes-{args.notes}"
    workspace = scratch / "ws"
    if not (workspace / "MEMORY.md").exists():
        generate(workspace, args.notes)
    queries = [f"incident zx{i:05d}q" for i in range(0, args.notes, max(1, args.notes // 20))][:5] + QUERIES

    state = scratch / "memtui-state"
    shutil.rmtree(state, ignore_errors=True)
    editable = memtui_env(scratch / "memtui-home", str(REPO))
    prefix = ["--state-dir", str(state), "--workspace", str(workspace), "--provider", "none"]
    commands: dict[str, tuple[list[str], dict[str, str], Path]] = {}
    subprocess.run([sys.executable, "-m", "memtui", *prefix, "index"], env=editable, check=True,
                   stdout=subprocess.DEVNULL)
    commands["memtui (editable)"] = ([sys.executable, "-m", "memtui", *prefix, "search"], editable, REPO)
    if args.baseline:
        commands["memtui (baseline)"] = ([sys.executable, "-m", "memtui", *prefix, "search"],
                                         memtui_env(scratch / "memtui-home", str(args.baseline.resolve())), scratch)
    if args.installed:
        commands["memtui (pip install .)"] = ([str(installed_python(scratch)), "-m", "memtui", *prefix, "search"],
                                              memtui_env(scratch / "memtui-home", None), scratch)
    if not args.no_qmd:
        shutil.rmtree(scratch / "qmd-home", ignore_errors=True)
        try:
            qmd = QmdRunner(find_peers(), scratch)
            qmd.index(workspace)
            commands["qmd 2.8.3"] = ([*qmd.cmd, "search"], qmd.env, workspace)
        except PeerError as exc:
            print(f"QMD skipped: {exc}", file=sys.stderr)
    for cmd, env, cwd in commands.values():  # warm-up: writes memtui's bytecode, fills the page cache
        timed([*cmd, queries[0], "--json"], env, cwd)

    load_before = os.getloadavg()
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    wall: dict[str, list[float]] = {name: [] for name in commands}
    names = list(commands)
    for round_no in range(args.runs):
        query = queries[round_no % len(queries)]
        order = names if round_no % 2 == 0 else names[::-1]
        for name in order:
            cmd, env, cwd = commands[name]
            extra = ["-n", "10"] if name.startswith("qmd") else ["--max-results", "10"]
            seconds = timed([*cmd, query, "--json", *extra], env, cwd)
            cpu[name].append(seconds[0])
            wall[name].append(seconds[1])
    load_after = os.getloadavg()

    print(f"{args.notes} notes, {args.runs} alternated rounds, {len(queries)} queries, "
          f"Python {sys.version.split()[0]}")
    for name in names:
        print(summary(name, cpu[name], wall[name]))
    if "qmd 2.8.3" in cpu:
        qmd_cpu = statistics.median(cpu["qmd 2.8.3"])
        for name in names[:-1]:
            print(f"ratio {name}: CPU {statistics.median(cpu[name]) / qmd_cpu:.2f}× QMD's, wall "
                  f"{statistics.median(wall[name]) / statistics.median(wall['qmd 2.8.3']):.2f}×")
    print(f"load (1/5/15 min) before {' '.join(f'{x:.2f}' for x in load_before)}, "
          f"after {' '.join(f'{x:.2f}' for x in load_after)}")


if __name__ == "__main__":
    main()
