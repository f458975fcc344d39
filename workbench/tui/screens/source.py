"""One source: its profile, its severity over time, and its observations, newest first.

Pushed over Sources (``app.open_source``), so ``escape`` goes back to the
list where it was. Three workers read the store: the profile
(``ProfileLoaded``), the timeline (the severity series streamed in
publication order, as the profile reads it, and binned to the strip's width
in O(width) memory, ``TimelineBinned``), and the observation pages
(``PagedTable``, by seq range, never a deep OFFSET). The table stays in chain
order and shows each record's publication time: a backfilled record shows
its old date among newer ones, which is what it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Footer, Header
from textual.worker import get_current_worker

from workbench.output import visible
from workbench.tui.messages import CheckpointIssued, JobFailed, ProfileLoaded, TimelineBinned
from workbench.tui.screens.base import WorkbenchScreen
from workbench.tui.screens.open_file import ExportDialog
from workbench.tui.screens.verify import VerifyScreen
from workbench.tui.timeline import TimelineBinner, short_time
from workbench.tui.widgets.paged_table import Cell, Column, PagedTable
from workbench.tui.widgets.profile_card import ProfileCard, severity_style
from workbench.tui.widgets.severity_timeline import SeverityTimeline

if TYPE_CHECKING:
    from pathlib import Path

    from store import Observation, SourceProfile
    from workbench.tui.services import StoreService

COLUMNS = (
    Column("published", 16),
    Column("mechanism", 17),
    Column("sev", 3, justify="right"),
    Column("record", 8),
    Column("text", None, minimum=8),
)
CANCEL_CHECK_EVERY = 2000
"""Records between two cancel checks of the timeline worker."""


class _Cancelled(Exception):  # noqa: N818 - raised inside verify's progress callback
    """The screen went away while its chain was being checked."""


@dataclass
class ChainChecked(Message):
    """The background verify of the shown source is done (the card's chain status)."""

    source_id: str
    intact: bool
    summary: str


class ObservationRow(tuple[Cell, ...]):
    """A table row that keeps its record (the full text goes to Classify)."""

    observation: Observation


def observation_row(observation: Observation, variables: Mapping[str, str]) -> ObservationRow:
    text = observation.text
    shown: Cell
    if observation.redacted is not None:
        # The reason, never the text (it is gone); visible() keeps it from rewriting the row.
        reason = visible(" ".join(str(observation.redacted.get("reason", "")).split()))
        shown = Text(f"[redacted: {reason}]", style="dim")
    elif text is not None:
        shown = " ".join(text.split())
    else:
        shown = Text("text not stored", style="dim")
    row = ObservationRow(
        (
            short_time(observation.published_at or observation.observed_at),
            observation.harm_mechanism or "—",
            Text(str(observation.severity), severity_style(variables, observation.severity)),
            observation.record_hash[:8],
            shown,
        )
    )
    row.observation = observation
    return row


class StoreObservationRows:
    """A chain as a ``RowSource``, newest first, read by seq range."""

    in_memory = False

    def __init__(self, store: StoreService, source_id: str, variables: Mapping[str, str]) -> None:
        self.store = store
        self.source_id = source_id
        self.variables = dict(variables)

    def count(self) -> int:
        return self.store.profile(self.source_id).observation_count

    def rows(self, offset: int, limit: int) -> Sequence[ObservationRow]:
        page = self.store.observations_page(self.source_id, offset, limit)
        return [observation_row(observation, self.variables) for observation in page]


class SourceScreen(WorkbenchScreen):
    """A source's profile card, timeline and observations."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("v", "verify", "Verify"),
        Binding("c", "checkpoint", "Checkpoint"),
        Binding("V", "verify_against", "Verify vs file"),
        Binding("ctrl+r", "refresh", "Refresh"),
        Binding("escape", "back", "Back"),
    ]

    profile: reactive[SourceProfile | None] = reactive(None, init=False)

    def __init__(self, source_id: str) -> None:
        super().__init__()
        self.source_id = source_id
        self._timeline_width = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield ProfileCard(id="source-card")
        yield SeverityTimeline(id="source-timeline")
        yield PagedTable(COLUMNS, empty="loading observations…", id="source-observations")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = self.source_id
        self.query_one(PagedTable).focus()
        self.watch(self.workbench, "store_status", self._store_status_changed, init=True)
        # The signal comes after the new theme's variables are in place (a watch on
        # ``theme`` would run before them).
        self.app.theme_changed_signal.subscribe(self, self._recolour)

    def _recolour(self, _theme: object = None) -> None:
        """Rows carry their colours (they are built in a thread): rebuild them for a new theme."""
        table = self.query_one(PagedTable)
        if isinstance(table.source, StoreObservationRows):
            rows = StoreObservationRows(
                self.services.store, self.source_id, self.app.theme_variables
            )
            table.set_source(rows, table.total, cursor=table.cursor_row)

    def _store_status_changed(self, status: str) -> None:
        if status == "open":
            self._load_profile(self.source_id)
        elif status == "unavailable":
            reason = self.workbench.store_reason or "the tracking store could not be opened"
            self.query_one(ProfileCard).show_note(f"tracking store unavailable: {reason}")
            self.query_one(SeverityTimeline).show_failure("")

    # -- profile ------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="source", exit_on_error=False)
    def _load_profile(self, source_id: str) -> None:
        from store import StoreError

        try:
            profile = self.services.store.profile(source_id)
        except StoreError as exc:
            self.post_message(JobFailed("source", _first_line(exc)))
            return
        self.post_message(ProfileLoaded(profile))

    @on(ProfileLoaded)
    def _profile_loaded(self, message: ProfileLoaded) -> None:
        if message.profile.source_id == self.source_id:
            self.profile = message.profile
            self._check_chain(self.source_id)

    # -- chain status ---------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="source-chain", exit_on_error=False)
    def _check_chain(self, source_id: str) -> None:
        """Verify the chain behind the card (as ``v`` does, without the dialog), streamed
        in the background: the card says "checking…" until it is done."""
        from store import StoreError
        from store.checkpoints import CheckpointError

        worker = get_current_worker()

        def cancelled(_checked: int, _total: int) -> None:
            if worker.is_cancelled:
                raise _Cancelled

        try:
            rules = self.services.engine.tracking_rules()
            result = self.services.store.chain_status(source_id, cancelled, rules=rules)
        except _Cancelled:
            return
        except (StoreError, CheckpointError) as exc:
            self.post_message(ChainChecked(source_id, False, _first_line(exc)))
            return
        summary = "✓ intact" if result.intact else f"✗ broken at seq {result.first_broken_seq}"
        self.post_message(ChainChecked(source_id, result.intact, summary))

    @on(ChainChecked)
    def _chain_checked(self, message: ChainChecked) -> None:
        if message.source_id == self.source_id:
            self.query_one(ProfileCard).show_chain(message.intact, message.summary)

    def watch_profile(self, profile: SourceProfile | None) -> None:
        if profile is None:
            return
        self.query_one(ProfileCard).show(profile, self.services.clock.now())
        table = self.query_one(PagedTable)
        table.empty = "no observations"
        rows = StoreObservationRows(self.services.store, self.source_id, self.app.theme_variables)
        table.set_source(rows, profile.observation_count, cursor=table.cursor_row)
        self._bin_timeline()

    @on(JobFailed)
    def _failed(self, message: JobFailed) -> None:
        if message.job == "source":
            self.query_one(ProfileCard).show_note(message.reason)
            self.query_one(SeverityTimeline).show_failure("")
            table = self.query_one(PagedTable)
            table.empty = message.reason
            table.set_source(None, 0)
        elif message.job == "timeline":
            self.query_one(SeverityTimeline).show_failure(message.reason)
        elif message.job == "checkpoint":
            self.notify(message.reason, title="Checkpoint", severity="error", timeout=8)

    @on(PagedTable.PageFailed)
    def _page_failed(self, message: PagedTable.PageFailed) -> None:
        self.notify(message.reason, title="Observations", severity="error")

    # -- timeline -----------------------------------------------------------------------

    def _bin_timeline(self) -> None:
        profile = self.profile
        if profile is None:
            return
        width = self.query_one(SeverityTimeline).content_region.width or 60
        self._timeline_width = width
        self._bin(self.source_id, width, profile.observation_count, profile.window)

    def on_resize(self, event: events.Resize) -> None:
        width = self.query_one(SeverityTimeline).content_region.width
        if self.profile is not None and width and width != self._timeline_width:
            self._bin_timeline()

    @work(thread=True, exclusive=True, group="timeline", exit_on_error=False)
    def _bin(self, source_id: str, width: int, total: int, window: int) -> None:
        from store import StoreError

        worker = get_current_worker()
        binner = TimelineBinner(width, total, window)
        series = self.services.store.severity_series(source_id)
        try:
            for _seq, published_at, severity in series:
                binner.add(published_at, severity)
                if binner.records % CANCEL_CHECK_EVERY == 0 and worker.is_cancelled:
                    return
        except StoreError as exc:
            self.post_message(JobFailed("timeline", _first_line(exc)))
            return
        finally:
            close = getattr(series, "close", None)
            if close is not None:  # ends the read transaction at once when stopped early
                close()
        timeline = binner.result()
        self.post_message(
            TimelineBinned(
                source_id,
                timeline.bins,
                timeline.averages,
                timeline.first,
                timeline.last,
                timeline.records,
            )
        )

    @on(TimelineBinned)
    def _binned(self, message: TimelineBinned) -> None:
        if message.source_id == self.source_id:
            self.query_one(SeverityTimeline).show(
                message.bins, message.averages, message.first, message.last, message.records
            )

    # -- actions ------------------------------------------------------------------------

    @on(PagedTable.RowChosen, "#source-observations")
    def _chosen(self, event: PagedTable.RowChosen) -> None:
        if not isinstance(event.row, ObservationRow):
            return
        observation = event.row.observation
        if observation.redacted is not None:
            self.notify(
                f"seq {observation.seq} was redacted: "
                f"{visible(str(observation.redacted.get('reason', '')))}",
                title="Open in Classify",
            )
            return
        if observation.text is None:
            self.notify(
                f"seq {observation.seq}: the text was not stored (HARMWATCH_STORE_TEXT)",
                title="Open in Classify",
            )
            return
        self.workbench.open_in_classify(observation.text)

    def action_verify(self) -> None:
        total = self.profile.observation_count if self.profile is not None else None
        self.app.push_screen(VerifyScreen(self.source_id, total))

    # -- checkpoints ----------------------------------------------------------------------

    def action_checkpoint(self) -> None:
        """Sign a checkpoint of the head: into HARMWATCH_CHECKPOINT_DIR, else a chosen file."""
        if self.workbench.store_status != "open" or self.profile is None:
            return
        trust = self.services.store.trust
        if trust.signer is None:
            self.notify(
                "checkpoints need HARMWATCH_SIGNING_KEY (harmwatch keys generate makes one)",
                title="Checkpoint",
                severity="error",
            )
            return
        if trust.archive is not None:
            self._issue(self.source_id, None)
            return
        count = self.profile.observation_count
        suggested = f"checkpoint-{_file_safe(self.source_id)}-{count}.json"
        dialog = ExportDialog(suggested, 1, title="Write a signed checkpoint of this source's head")

        def chosen(path: Path | None) -> None:
            if path is not None:
                self._issue(self.source_id, path)

        self.app.push_screen(dialog, chosen)

    @work(thread=True, exclusive=True, group="checkpoint", exit_on_error=False)
    def _issue(self, source_id: str, output: Path | None) -> None:
        from store import StoreError

        try:
            seq, path = self.services.store.issue_checkpoint(source_id, output)
        except (StoreError, ValueError) as exc:
            self.post_message(JobFailed("checkpoint", _first_line(exc)))
            return
        except OSError as exc:
            self.post_message(JobFailed("checkpoint", f"{exc.filename}: {exc.strerror}"))
            return
        self.post_message(CheckpointIssued(source_id, seq, str(path)))

    @on(CheckpointIssued)
    def _issued(self, message: CheckpointIssued) -> None:
        message.stop()
        self.notify(f"seq {message.seq} signed into {message.path}", title="Checkpoint", timeout=8)

    def action_verify_against(self) -> None:
        """Verify against a checkpoint file the analyst chooses (``v`` uses the latest saved)."""
        if self.workbench.store_status != "open":
            return
        total = self.profile.observation_count if self.profile is not None else None
        dialog = ExportDialog("", 1, title="Verify against the checkpoints in file", verb="Verify")

        def chosen(path: Path | None) -> None:
            if path is not None:
                self.app.push_screen(VerifyScreen(self.source_id, total, checkpoint_file=path))

        self.app.push_screen(dialog, chosen)

    def action_refresh(self) -> None:
        if self.workbench.store_status == "open":
            self._load_profile(self.source_id)

    def action_back(self) -> None:
        # Back always leaves: the timeline worker is cancelled with the screen.
        self.app.pop_screen()

    def cancel_job(self) -> bool:
        """The timeline of a very long chain is the one job here that may still run."""
        running = [
            worker
            for worker in self.workers
            if worker.node is self and worker.group == "timeline" and worker.is_running
        ]
        for worker in running:
            worker.cancel()
        return bool(running)


def _file_safe(source_id: str) -> str:
    """A source id as part of a suggested file name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in source_id)[:60]


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
