"""The main screen's widgets, one module per area."""

from memtui.tui.widgets.browser import FilterInput, Group, MemoryBrowser
from memtui.tui.widgets.footer import HotKeysFooter
from memtui.tui.widgets.results import ResultsTable
from memtui.tui.widgets.search_bar import SearchInfo, SearchInput
from memtui.tui.widgets.status_bar import IndexStatusBar
from memtui.tui.widgets.trace import TracePanel
from memtui.tui.widgets.tuning_panel import TuningPanel
from memtui.tui.widgets.viewer import FileViewer, MemoryTextArea

__all__ = ["FileViewer", "FilterInput", "Group", "HotKeysFooter", "IndexStatusBar", "MemoryBrowser", "MemoryTextArea",
           "ResultsTable", "SearchInfo", "SearchInput", "TracePanel", "TuningPanel"]
