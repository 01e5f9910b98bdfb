"""The main screen's widgets, one module per area."""

from memtui.tui.widgets.browser import BrowserEntry, FilterInput, MemoryBrowser
from memtui.tui.widgets.results import ResultsTable
from memtui.tui.widgets.status_bar import IndexStatusBar
from memtui.tui.widgets.trace import TracePanel
from memtui.tui.widgets.tuning_panel import TuningPanel
from memtui.tui.widgets.viewer import FileViewer, MemoryTextArea

__all__ = ["BrowserEntry", "FileViewer", "FilterInput", "IndexStatusBar", "MemoryBrowser", "MemoryTextArea",
           "ResultsTable", "TracePanel", "TuningPanel"]
