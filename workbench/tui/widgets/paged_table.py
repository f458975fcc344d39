"""A virtual table that reads its rows a page at a time (toolong's ``LogLines`` pattern).

Textual's ``DataTable`` builds every row up front (100,000 rows took 16 s on
the event loop here), so the Sources screen could not open a large store.
``PagedTable`` is a Line API ``ScrollView``: its virtual height is the row
count, ``render_line`` reads from a bounded LRU cache of pages, and a missing
page draws a dim placeholder while a worker thread fetches it from the
``RowSource``. Memory stays bounded however far the analyst scrolls.

Line 0 is the header; it stays put while the rows scroll under it.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

Cell = str | Text
Row = Sequence[Cell]

PAGE_ROWS = 200
CACHED_PAGES = 50


class RowSource(Protocol):
    """Where a ``PagedTable``'s rows come from.

    ``rows`` may block (a database read): unless ``in_memory`` is true it is
    only ever called from a worker thread.
    """

    in_memory: bool

    def count(self) -> int: ...

    def rows(self, offset: int, limit: int) -> Sequence[Row]: ...


class ListSource:
    """Rows held in a list (triage results, benchmark failures); read synchronously.

    The list may grow (a triage job appends to it); call ``PagedTable.grow``.
    """

    in_memory = True

    def __init__(self, rows: list[Row] | None = None) -> None:
        self.items: list[Row] = rows if rows is not None else []

    def count(self) -> int:
        return len(self.items)

    def rows(self, offset: int, limit: int) -> Sequence[Row]:
        return self.items[offset : offset + limit]


@dataclass(frozen=True, slots=True)
class Column:
    """A column; ``width=None`` takes the room the fixed columns leave (at least ``minimum``)."""

    label: str
    width: int | None = None
    justify: str = "left"
    minimum: int = 8


class PagedTable(ScrollView, can_focus=True):
    """Rows paged in from a ``RowSource``, with a row cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
        Binding("enter", "choose", "Open", show=True),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "paged-table--header",
        "paged-table--cursor",
        "paged-table--placeholder",
    }
    DEFAULT_CSS = """
    PagedTable { height: 1fr; background: $surface; }
    PagedTable > .paged-table--header { text-style: bold; background: $panel; }
    PagedTable > .paged-table--cursor { background: $primary 40%; }
    PagedTable:focus > .paged-table--cursor { background: $primary 70%; }
    PagedTable > .paged-table--placeholder { color: $text-muted; }
    """

    cursor_row: reactive[int] = reactive(0, always_update=True, init=False)

    class RowHighlighted(Message):
        def __init__(self, table: PagedTable, index: int, row: Row | None) -> None:
            super().__init__()
            self.table = table
            self.index = index
            self.row = row

        @property
        def control(self) -> PagedTable:
            return self.table

    class RowChosen(Message):
        def __init__(self, table: PagedTable, index: int, row: Row) -> None:
            super().__init__()
            self.table = table
            self.index = index
            self.row = row

        @property
        def control(self) -> PagedTable:
            return self.table

    class PageLoaded(Message):
        def __init__(self, generation: int, page: int, rows: Sequence[Row]) -> None:
            super().__init__()
            self.generation = generation
            self.page = page
            self.rows = rows

    class PageFailed(Message):
        def __init__(self, generation: int, reason: str) -> None:
            super().__init__()
            self.generation = generation
            self.reason = reason

    def __init__(
        self,
        columns: Sequence[Column],
        *,
        empty: str = "nothing to show",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns = tuple(columns)
        self.empty = empty
        self.source: RowSource | None = None
        self.total = 0
        self._generation = 0
        self._pages: OrderedDict[int, Sequence[Row]] = OrderedDict()
        self._pending: set[int] = set()
        self.failure: str | None = None

    # -- data ---------------------------------------------------------------------------

    def set_source(
        self,
        source: RowSource | None,
        total: int,
        *,
        cursor: int = 0,
        pages: Mapping[int, Sequence[Row]] | None = None,
    ) -> None:
        """Show another source (or another filter of one); drops every cached page.

        ``pages`` are pages already read with the count, so the first screen is
        drawn without another trip through a worker.
        """
        self._generation += 1
        self.source = source
        self.total = max(0, total)
        self._pages.clear()
        self._pending.clear()
        self._pages.update(pages or {})
        self.failure = None
        self.virtual_size = Size(self.size.width, self.total + 1)
        self.cursor_row = min(max(0, cursor), max(0, self.total - 1))
        self.scroll_to(y=0, animate=False)
        self._keep_cursor_visible()
        self.refresh()

    def grow(self, total: int) -> None:
        """More rows arrived at the end (a triage job); cached full pages stay valid."""
        last_page = self.total // PAGE_ROWS
        self.total = total
        self._pages.pop(last_page, None)
        self.virtual_size = Size(self.size.width, self.total + 1)
        self.refresh()

    def row_at(self, index: int) -> Row | None:
        """The row at ``index`` if its page is loaded (or the source is in memory)."""
        if not 0 <= index < self.total or self.source is None:
            return None
        if self.source.in_memory:
            found = self.source.rows(index, 1)
            return found[0] if found else None
        page = self._pages.get(index // PAGE_ROWS)
        if page is None:
            return None
        offset = index % PAGE_ROWS
        return page[offset] if offset < len(page) else None

    def _page(self, number: int) -> Sequence[Row] | None:
        page = self._pages.get(number)
        if page is not None:
            self._pages.move_to_end(number)
            return page
        if self.source is None:
            return None
        if self.source.in_memory:
            return self.source.rows(number * PAGE_ROWS, PAGE_ROWS)
        if number not in self._pending:
            self._pending.add(number)
            self._fetch(self.source, self._generation, number)
        return None

    @work(thread=True, group="paged-table", exit_on_error=False)
    def _fetch(self, source: RowSource, generation: int, page: int) -> None:
        if get_current_worker().is_cancelled:
            return
        try:
            rows = source.rows(page * PAGE_ROWS, PAGE_ROWS)
        except Exception as exc:  # a store error must reach the screen, not kill the app
            self.post_message(self.PageFailed(generation, _reason(exc)))
            return
        self.post_message(self.PageLoaded(generation, page, rows))

    def on_paged_table_page_loaded(self, message: PagedTable.PageLoaded) -> None:
        message.stop()
        if message.generation != self._generation:
            return
        self._pending.discard(message.page)
        self._pages[message.page] = message.rows
        while len(self._pages) > CACHED_PAGES:
            self._pages.popitem(last=False)
        self.refresh()
        if message.page == self.cursor_row // PAGE_ROWS:
            self._highlighted()

    def on_paged_table_page_failed(self, message: PagedTable.PageFailed) -> None:
        if message.generation != self._generation:
            message.stop()
            return
        self._pending.clear()
        self.failure = message.reason
        self.refresh()
        # Not stopped: the screen shows the reason in its own words.

    # -- geometry -----------------------------------------------------------------------

    def widths(self, total_width: int) -> list[int]:
        """Column widths for this width: fixed columns as asked, the flexible one takes the rest."""
        gaps = len(self.columns) - 1
        fixed = sum(column.width or 0 for column in self.columns)
        flexible = [column for column in self.columns if column.width is None]
        rest = max(0, total_width - fixed - gaps)
        share = rest // len(flexible) if flexible else 0
        return [
            column.width if column.width is not None else max(column.minimum, share)
            for column in self.columns
        ]

    def on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(event.size.width, self.total + 1)
        self._keep_cursor_visible()

    @property
    def _rows_visible(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def _keep_cursor_visible(self) -> None:
        top = int(self.scroll_offset.y)
        visible = self._rows_visible
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False)
        elif self.cursor_row >= top + visible:
            self.scroll_to(y=self.cursor_row - visible + 1, animate=False)

    # -- drawing ------------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        widths = self.widths(width)
        if y == 0:
            header = [Text(column.label) for column in self.columns]
            style = self.get_component_rich_style("paged-table--header")
            return self._strip(header, widths, width, style)
        index = int(self.scroll_offset.y) + y - 1
        if self.total == 0 or self.source is None:
            if y == 1:
                message = self.failure or self.empty
                style = self.get_component_rich_style("paged-table--placeholder")
                return Strip([Segment(message[:width].ljust(width), style)], width)
            return Strip.blank(width, self.rich_style)
        if index >= self.total:
            return Strip.blank(width, self.rich_style)
        page = self._page(index // PAGE_ROWS)
        offset = index % PAGE_ROWS
        row = page[offset] if page is not None and offset < len(page) else None
        if row is None:
            style = self.get_component_rich_style("paged-table--placeholder")
            text = "  " + (self.failure or "loading…")
            return Strip([Segment(text[:width].ljust(width), style)], width)
        base = self.rich_style
        if index == self.cursor_row:
            base = base + self.get_component_rich_style("paged-table--cursor")
        return self._strip(row, widths, width, base)

    def _strip(self, cells: Row, widths: list[int], width: int, style: Style) -> Strip:
        line = Text(no_wrap=True, overflow="ellipsis", end="")
        for number, (cell, column_width) in enumerate(zip(cells, widths, strict=False)):
            text = cell if isinstance(cell, Text) else Text(str(cell))
            text = text.copy()
            text.truncate(column_width, overflow="ellipsis")
            if self.columns[number].justify == "right":
                text.align("right", column_width)
            else:
                text.pad_right(column_width - text.cell_len)
            if number:
                line.append(" ")
            line.append_text(text)
        segments = list(line.render(self.app.console))
        strip = Strip(segments).adjust_cell_length(width)
        return strip.apply_style(style)

    # -- cursor -------------------------------------------------------------------------

    def watch_cursor_row(self) -> None:
        self._keep_cursor_visible()
        self.refresh()
        self._highlighted()

    def _highlighted(self) -> None:
        self.post_message(self.RowHighlighted(self, self.cursor_row, self.row_at(self.cursor_row)))

    def move_to(self, index: int) -> None:
        if self.total:
            self.cursor_row = min(max(0, index), self.total - 1)

    def action_cursor(self, delta: int) -> None:
        self.move_to(self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self.move_to(self.cursor_row + direction * self._rows_visible)

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        self.move_to(self.total - 1)

    def action_choose(self) -> None:
        row = self.row_at(self.cursor_row)
        if row is not None:
            self.post_message(self.RowChosen(self, self.cursor_row, row))

    def on_click(self, event: events.Click) -> None:
        if event.y < 1:
            return
        index = int(self.scroll_offset.y) + event.y - 1
        if 0 <= index < self.total:
            if index == self.cursor_row and event.chain >= 2:
                self.action_choose()
            self.move_to(index)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def cell_of(value: Any) -> Cell:
    """A plain value as a cell (None reads as a dash)."""
    return "—" if value is None else value if isinstance(value, Text) else str(value)
