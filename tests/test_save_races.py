"""An editor save (temp file + rename) racing memtui's appends to the same note loses no line: the append either
lands before the save's conflict check (which then refuses the save) or in the file the save put in place."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from datetime import date
from pathlib import Path

from memtui.atomic import ConflictError
from memtui.tui.curation import daily_log_path, save_memory_file

DAY = date(2026, 12, 1)
APPENDS = 300
APPENDER = """
import sys
from datetime import date
from pathlib import Path
from memtui.tui.curation import append_note
for i in range(int(sys.argv[2])):
    append_note(Path(sys.argv[1]), date(2026, 12, 1), f"appended {i}")
"""


def test_saves_racing_appends_to_the_same_note_lose_no_line(workspace: Path) -> None:
    log = daily_log_path(workspace, DAY)
    log.write_text(f"# {DAY.isoformat()}\n\n", encoding="utf-8")
    rel = log.relative_to(workspace).as_posix()
    appender = subprocess.Popen([sys.executable, "-c", APPENDER, str(workspace), str(APPENDS)],
                                env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    saved: list[int] = []
    conflicts = 0
    while appender.poll() is None:
        data = log.read_bytes()
        try:
            save_memory_file(workspace, rel, data.decode("utf-8") + f"- saved {len(saved)}\n",
                             expected_digest=hashlib.sha256(data).hexdigest())
            saved.append(len(saved))
        except ConflictError:
            conflicts += 1
    assert appender.wait() == 0
    text = log.read_text(encoding="utf-8")
    lost = [i for i in range(APPENDS) if f"- appended {i}\n" not in text]
    assert lost == [], f"{len(lost)} appended lines lost ({len(saved)} saves, {conflicts} conflicts)"
    assert [i for i in saved if f"- saved {i}\n" not in text] == []
