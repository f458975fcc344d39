"""What workers report, one past-tense message per outcome (harlequin's habit).

A worker thread posts one of these to the screen that owns it; the screen's
``@on`` handler updates reactives on the event loop. Messages carry plain data
(engine and store dataclasses), never widgets. Each request that may be
superseded carries a ``generation`` so that handlers drop stale answers:
``exclusive=True`` cancels a Worker but cannot stop its thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from engine import Classification
    from store import Observation, SourceProfile, VerifyResult


# -- warm-up ----------------------------------------------------------------------------


@dataclass
class ClassifierReady(Message):
    """The taxonomy is loaded and the default language compiled."""

    taxonomy_version: str
    languages: tuple[str, ...]


@dataclass
class ClassifierFailed(Message):
    """The taxonomy could not be loaded; ``reason`` names the file, row and problem."""

    reason: str


@dataclass
class StoreOpened(Message):
    """The tracking store is open and migrated; the URL has its password masked."""

    url_redacted: str


@dataclass
class StoreUnavailable(Message):
    """The store could not be opened (or went away); ``reason`` is safe to show."""

    reason: str


# -- classify ---------------------------------------------------------------------------


@dataclass
class TextClassified(Message):
    generation: int
    text: str
    result: Classification


@dataclass
class ClassifyFailed(Message):
    """The engine refused the input (too long, bad characters): its own message."""

    generation: int
    reason: str


@dataclass
class TextObserved(Message):
    """A text was recorded as an observation; the source's profile as updated."""

    observation: Observation
    profile: SourceProfile


# -- triage -----------------------------------------------------------------------------


@dataclass
class TriageStarted(Message):
    """``total`` is None when following a growing file (lines are counted as seen).

    Every triage message carries the run's ``generation``: a run replaced by
    another may still post once before its thread notices.
    """

    path: str
    total: int | None
    generation: int = 0


@dataclass
class TriageBatchClassified(Message):
    """Rows (``triage_job.TriageRow``) classified since the last report; totals so far."""

    done: int
    rows: list[Any]
    recorded: int = 0
    generation: int = 0


@dataclass
class TriageNotice(Message):
    """Something the analyst should know mid-job (a file truncated or rotated)."""

    text: str
    generation: int = 0


@dataclass
class TriageFinished(Message):
    done: int
    recorded: int
    error: str | None = None
    generation: int = 0


@dataclass
class TriageExported(Message):
    """Results were written as JSONL (``error`` says why not); ``name`` is the file's name."""

    name: str
    count: int
    error: str | None = None


# -- sources and one source -------------------------------------------------------------


@dataclass
class SourcesCounted(Message):
    """The listing's size, with the page under the cursor already read (one trip, not two)."""

    risk: str | None
    total: int
    rows: Any = None
    """The ``RowSource`` the count was made for."""
    page: int = 0
    page_rows: Any = None


@dataclass
class ProfileLoaded(Message):
    profile: SourceProfile


@dataclass
class TimelineBinned(Message):
    source_id: str
    bins: list[int]
    averages: list[float]
    first: str | None
    last: str | None
    records: int = 0
    """How many records were binned (the strip says how many each column holds)."""


@dataclass
class SourceIdsFound(Message):
    """The source ids starting with ``prefix`` (jump to a source); empty when none does."""

    prefix: str
    source_ids: list[str]


# -- verify -----------------------------------------------------------------------------


@dataclass
class ChainVerifyProgressed(Message):
    checked: int
    total: int


@dataclass
class ChainVerified(Message):
    result: VerifyResult
    records: list[Observation]


@dataclass
class CheckpointIssued(Message):
    """A signed checkpoint of ``source_id``'s head at ``seq`` was written to ``path``."""

    source_id: str
    seq: int
    path: str


# -- benchmark --------------------------------------------------------------------------


@dataclass
class BenchmarkProgressed(Message):
    done: int
    total: int


@dataclass
class BenchmarkFinished(Message):
    """The suite's report and regressions, then the legacy gate's report.

    ``suite`` is the ``engine.benchmark.Suite`` that ran (its cases and
    baselines); ``gate`` is None when the gate could not run, and
    ``gate_error`` then says why.
    """

    report: dict[str, Any]
    regressions: list[Any]
    gate: dict[str, Any] | None = None
    suite: Any = None
    gate_error: str | None = None


# -- any job ----------------------------------------------------------------------------


@dataclass
class JobCancelled(Message):
    job: str


@dataclass
class JobFailed(Message):
    """A job stopped on an expected error (a store that went away, an unreadable file)."""

    job: str
    reason: str
