"""Command palette providers (ctrl+p): where to go, which source to open, what to cancel.

Textual's own provider already offers themes, the keys panel and quitting;
these add the workbench's commands. As in posting's ``PostingProvider``, each
lists its commands on an empty query (``discover``) and scores them against
a typed one with ``self.matcher(query)`` (``search``). Commands depend on the
screen the palette was opened from: "Verify this source" only on a Source
screen, "Cancel ..." only while that screen's job runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.worker import WorkerState

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp

SOURCE_HITS = 10
JOBS = {"triage": "triage", "verify": "chain verification", "benchmark": "benchmark"}
"""Worker groups that are an analyst's job (cancellable), and how to name them."""


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    run: Callable[[], Any]
    help: str


class _WorkbenchProvider(Provider):
    @property
    def workbench(self) -> WorkbenchApp:
        return cast("WorkbenchApp", self.app)

    def commands(self) -> list[Command]:
        """The commands this provider offers now; subclasses override."""
        return []

    async def discover(self) -> Hits:
        for command in self.commands():
            yield DiscoveryHit(command.name, command.run, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.commands():
            score = matcher.match(command.name)
            if score > 0:
                yield Hit(score, matcher.highlight(command.name), command.run, help=command.help)


class NavigationProvider(_WorkbenchProvider):
    """Go to a mode, open a file, run the benchmark, verify this source, switch theme."""

    def commands(self) -> list[Command]:
        app = self.workbench
        found = [
            Command("Go to Classify", partial(app.switch_mode, "classify"), "f2 · one text"),
            Command("Go to Triage", partial(app.switch_mode, "triage"), "f3 · a file of texts"),
            Command("Go to Sources", partial(app.switch_mode, "sources"), "f4 · tracked sources"),
            Command("Go to Benchmark", partial(app.switch_mode, "benchmark"), "f5 · the suite"),
            Command(
                "Open a file for triage",
                partial(self._then, "triage", "action_open"),
                "Classify every line of a JSONL or CSV file",
            ),
            Command(
                "Run the benchmark",
                partial(self._then, "benchmark", "action_run"),
                "The functional suite by capability, then the legacy gate",
            ),
            Command("Toggle light/dark theme", app.action_toggle_theme, "ctrl+t"),
        ]
        verify = getattr(self.screen, "action_verify", None)
        if callable(verify):
            found.append(
                Command("Verify this source's chain", verify, "Recompute every record's hash")
            )
        return found

    def _then(self, mode: str, action: str) -> None:
        """Switch mode, then run that screen's action once it is shown (if it has it)."""
        app = self.workbench
        app.switch_mode(mode)

        def run() -> None:
            method = getattr(app.screen, action, None)
            if callable(method):
                method()

        app.call_after_refresh(run)


class SourceProvider(_WorkbenchProvider):
    """Source ids starting with what was typed, looked up in a thread; opens the Source."""

    async def search(self, query: str) -> Hits:
        app = self.workbench
        prefix = query.strip()
        if not prefix or app.store_status != "open":
            return
        try:
            ids = await asyncio.to_thread(app.services.store.source_ids, prefix, SOURCE_HITS)
        except Exception as exc:  # a store gone away is a hit that says so, not a crash
            yield Hit(0.1, Content(f"Source search failed: {exc}"), _nothing, help="Tracking store")
            return
        matcher = self.matcher(prefix)
        for number, source_id in enumerate(ids):
            # Every id starts with the prefix; keep the store's order among equal scores.
            score = max(matcher.match(source_id), 0.5) - number / 1000
            yield Hit(
                score,
                matcher.highlight(source_id),
                partial(app.open_source, source_id),
                text=source_id,
                help="Open this source's profile and chain",
            )


class JobProvider(_WorkbenchProvider):
    """ "Cancel <job>" while the screen the palette came from runs one."""

    def commands(self) -> list[Command]:
        job = running_job(self.screen, self.app.workers)
        if job is None:
            return []
        return [Command(f"Cancel {job}", self.workbench.cancel_jobs, "escape does it too")]


def running_job(screen: object, workers: Any) -> str | None:
    """The name of the job a screen is running, or None."""
    for worker in workers:
        if (
            worker.node is screen
            and worker.group in JOBS
            and worker.state in (WorkerState.PENDING, WorkerState.RUNNING)
        ):
            return JOBS[worker.group]
    return None


def _nothing() -> None:
    """The command of a hit that only informs."""
