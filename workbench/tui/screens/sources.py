"""The Sources mode: every tracked source, riskiest first, paged from the store.

The list is the store's own listing order (risk, current severity, rolling
average, last seen; ``store.list_profiles``): the TUI never re-ranks. Rows are
read 200 at a time by ``PagedTable`` from a worker thread, so a store of
100,000 sources opens as fast as one of ten. The total comes from a count
query in a worker too (``SourcesCounted``). Nothing is read until the
warm-up worker has opened the store; a store that could not be opened is
named here, with its reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.widgets import Footer, Header, Input, Static

from workbench.tui.messages import JobFailed, SourceIdsFound, SourcesCounted
from workbench.tui.screens.base import WorkbenchScreen
from workbench.tui.screens.verify import VerifyScreen
from workbench.tui.themes import RISK_CLASSES, TREND_ARROWS
from workbench.tui.timeline import relative_time
from workbench.tui.widgets.paged_table import PAGE_ROWS, Cell, Column, PagedTable
from workbench.tui.widgets.profile_card import risk_style, severity_style

if TYPE_CHECKING:
    from store import SourceProfile
    from workbench.tui.services import StoreService

RISK_CYCLE: tuple[str | None, ...] = (None, *reversed(tuple(RISK_CLASSES)))
"""``r`` steps through: all, critical, elevated, watch, low."""

EMPTY_STORE = "no sources yet: record one from Classify (f10) or harmwatch track observe"

COLUMNS = (
    Column("risk", 8),
    Column("↕", 1),
    Column("severity", 24),
    Column("avg", 4, justify="right"),
    Column("obs", 6, justify="right"),
    Column("last seen", 9, justify="right"),
    Column("source", None, minimum=8),
)


class ProfileRow(tuple[Cell, ...]):
    """A table row that keeps the profile it was drawn from (its id, its count)."""

    profile: SourceProfile


def profile_row(profile: SourceProfile, variables: Mapping[str, str], now: datetime) -> ProfileRow:
    """The cells of one source; colours resolved beforehand (rows are built in a thread)."""
    row = ProfileRow(
        (
            Text(profile.risk_level, risk_style(variables, profile.risk_level)),
            TREND_ARROWS.get(profile.trend, "?"),
            Text(
                profile.current_severity_label,
                severity_style(variables, profile.current_severity),
            ),
            f"{profile.rolling_average_severity:.2f}",
            f"{profile.observation_count:,}",
            relative_time(profile.last_observed_at, now),
            profile.source_id,
        )
    )
    row.profile = profile
    return row


class StoreSourceRows:
    """The listing as a ``RowSource``: pages of ``list_profiles`` for one risk filter."""

    in_memory = False

    def __init__(
        self,
        store: StoreService,
        risk: str | None,
        variables: Mapping[str, str],
        now: datetime,
        total: int | None = None,
    ) -> None:
        self.store = store
        self.risk = risk
        self.variables = dict(variables)
        self.now = now
        self.total = total
        """The count the table shows: pages past the middle are then read from the end."""

    def count(self) -> int:
        return self.store.count_sources(self.risk)

    def rows(self, offset: int, limit: int) -> Sequence[ProfileRow]:
        page = self.store.sources_page(offset, limit, self.risk, self.total)
        return [profile_row(profile, self.variables, self.now) for profile in page]


class SourcesScreen(WorkbenchScreen):
    """Ranked sources; ``enter`` opens one, ``r`` filters by risk, ``/`` jumps by id."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "cycle_risk", "Risk filter"),
        Binding("slash", "jump", "Jump to id"),
        Binding("v", "verify", "Verify"),
        Binding("ctrl+r", "refresh", "Refresh"),
        Binding("escape", "close_jump", "Close", show=False),
    ]

    risk: reactive[str | None] = reactive(None, init=False)
    total: reactive[int | None] = reactive(None, init=False)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="sources-header")
        yield PagedTable(COLUMNS, empty="loading sources…", id="sources-table")
        jump = Input(placeholder="source id or its beginning, enter opens it", id="sources-jump")
        jump.cursor_blink = self.workbench.cursor_blink
        yield jump
        yield Footer()

    def on_mount(self) -> None:
        self._suspended = False
        self.watch(self.workbench, "store_status", self._store_status_changed, init=True)
        # The signal comes after the new theme's variables are in place (a watch on
        # ``theme`` would run before them).
        self.app.theme_changed_signal.subscribe(self, self._recolour)

    def _recolour(self, _theme: object = None) -> None:
        """Rows carry their colours (they are built in a thread): rebuild them for a new theme."""
        table = self.table
        if isinstance(table.source, StoreSourceRows):
            source = StoreSourceRows(
                self.services.store,
                table.source.risk,
                self.app.theme_variables,
                table.source.now,
                table.total,
            )
            table.set_source(source, table.total, cursor=table.cursor_row)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # escape closes the jump box only while it is open; otherwise it is the app's.
        if action == "close_jump":
            return self.query_one("#sources-jump", Input).has_class("-open")
        return True

    def on_screen_suspend(self) -> None:
        self._suspended = True

    def on_screen_resume(self) -> None:
        # Back from a source or another mode: the store may have grown meanwhile.
        if self._suspended and self.workbench.store_status == "open":
            self._suspended = False
            self.load(keep_cursor=True)

    @property
    def table(self) -> PagedTable:
        return self.query_one("#sources-table", PagedTable)

    # -- loading ------------------------------------------------------------------------

    def _store_status_changed(self, status: str) -> None:
        if status == "open":
            self.load()
        elif status == "unavailable":
            reason = self.workbench.store_reason or "the tracking store could not be opened"
            # The reason names the database and can be long: the header wraps, a row cannot.
            self.table.empty = "no sources to show: the tracking store is unavailable"
            self.table.set_source(None, 0)
            self._header(f"tracking store unavailable: {reason}", error=True)
        else:
            self.table.empty = "opening the tracking store…"
            self.table.set_source(None, 0)
            self._header("opening the tracking store…")

    def load(self, *, keep_cursor: bool = False) -> None:
        """Count the sources of the current filter; the table follows (``SourcesCounted``)."""
        if self.workbench.store_status != "open":
            return
        self._keep_cursor = keep_cursor
        cursor = self.table.cursor_row if keep_cursor else 0
        source = StoreSourceRows(
            self.services.store, self.risk, self.app.theme_variables, self.services.clock.now()
        )
        self._count(source, cursor // PAGE_ROWS)

    @work(thread=True, exclusive=True, group="sources", exit_on_error=False)
    def _count(self, source: StoreSourceRows, page: int) -> None:
        """Count, then read the page the cursor will be on, so the table opens drawn."""
        from store import StoreError

        try:
            source.total = total = source.count()
            rows = source.rows(page * PAGE_ROWS, PAGE_ROWS) if total else []
        except StoreError as exc:
            self.post_message(JobFailed("sources", _first_line(exc)))
            return
        self.post_message(SourcesCounted(source.risk, total, source, page, rows))

    @on(SourcesCounted)
    def _counted(self, message: SourcesCounted) -> None:
        if message.risk != self.risk:
            return  # an answer for a filter the analyst has already left
        table = self.table
        cursor = table.cursor_row if getattr(self, "_keep_cursor", False) else 0
        if message.total == 0:
            table.empty = EMPTY_STORE if self.risk is None else f"no {self.risk} sources"
        table.set_source(
            message.rows,
            message.total,
            cursor=cursor,
            pages={message.page: message.page_rows} if message.page_rows else None,
        )
        self.total = message.total

    @on(JobFailed)
    def _failed(self, message: JobFailed) -> None:
        if message.job == "sources":
            self.table.empty = "no sources to show: the tracking store could not be read"
            self.table.set_source(None, 0)
            self._header(f"cannot read the sources: {message.reason}", error=True)
        elif message.job == "sources-jump":
            self.notify(message.reason, title="Jump to source", severity="error")

    @on(PagedTable.PageFailed)
    def _page_failed(self, message: PagedTable.PageFailed) -> None:
        self.notify(message.reason, title="Sources", severity="error")

    def watch_total(self, total: int | None) -> None:
        self._render_header()

    def watch_risk(self, risk: str | None) -> None:
        self._render_header()
        self.load()

    def _render_header(self) -> None:
        scope = "all sources" if self.risk is None else f"risk {self.risk}"
        if self.total is None:
            self._header(f"{scope} · counting…")
        else:
            noun = "source" if self.total == 1 else "sources"
            self._header(f"{scope} · {self.total:,} {noun}")

    def _header(self, text: str, *, error: bool = False) -> None:
        header = self.query_one("#sources-header", Static)
        header.set_class(error, "-error")
        line = Text(text, style="bold")
        if not error:
            line.append("   r risk · / jump · enter open · v verify", style="dim not bold")
        header.update(line)

    # -- actions ------------------------------------------------------------------------

    def action_cycle_risk(self) -> None:
        position = RISK_CYCLE.index(self.risk) if self.risk in RISK_CYCLE else 0
        self.total = None
        self.risk = RISK_CYCLE[(position + 1) % len(RISK_CYCLE)]

    def action_refresh(self) -> None:
        if self.workbench.store_status == "open":
            self.load(keep_cursor=True)
        elif self.workbench.store_status == "unavailable":
            self.notify(self.workbench.store_reason, title="Tracking store", severity="error")

    def action_jump(self) -> None:
        if self.workbench.store_status != "open":
            self.notify("the tracking store is not open", title="Jump to source")
            return
        jump = self.query_one("#sources-jump", Input)
        jump.value = ""
        jump.add_class("-open")
        jump.focus()

    def action_close_jump(self) -> None:
        jump = self.query_one("#sources-jump", Input)
        if jump.has_class("-open"):
            jump.remove_class("-open")
            self.table.focus()

    @on(Input.Submitted, "#sources-jump")
    def _jump_submitted(self, event: Input.Submitted) -> None:
        prefix = event.value.strip()
        if prefix:
            self._find(prefix)
        else:
            self.action_close_jump()

    @work(thread=True, exclusive=True, group="sources-jump", exit_on_error=False)
    def _find(self, prefix: str) -> None:
        from store import StoreError

        try:
            found = self.services.store.source_ids(prefix, limit=1)
        except StoreError as exc:
            self.post_message(JobFailed("sources-jump", _first_line(exc)))
            return
        self.post_message(SourceIdsFound(prefix, found))

    @on(SourceIdsFound)
    def _found(self, message: SourceIdsFound) -> None:
        if not message.source_ids:
            self.notify(f"no source id starts with {message.prefix!r}", title="Jump to source")
            return
        self.action_close_jump()
        self.workbench.open_source(message.source_ids[0])

    @on(PagedTable.RowChosen, "#sources-table")
    def _chosen(self, event: PagedTable.RowChosen) -> None:
        if isinstance(event.row, ProfileRow):
            self.workbench.open_source(event.row.profile.source_id)

    def action_verify(self) -> None:
        table = self.table
        row = table.row_at(table.cursor_row)
        if isinstance(row, ProfileRow):
            profile = row.profile
            self.app.push_screen(VerifyScreen(profile.source_id, profile.observation_count))
        else:
            self.notify("no source is highlighted", title="Verify")


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
