"""What the workbench asks of the engine and the store, behind two small facades.

Screens call these from worker threads only; nothing here imports textual, so
the facades are unit-tested without an app and the app module stays cheap to
import (the first frame is drawn before the engine or the store is loaded).
Engine and store are imported inside the methods for the same reason.

Thread safety: a ``Classifier`` is safe to share between threads. Each store
call opens its own transaction inside the calling thread; sessions never
cross threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from engine import Classification, Classifier, Settings
    from engine.benchmark import Regression, Suite
    from store import Evidence, Observation, SourceProfile, Store, TrackingRules, VerifyResult
    from store.trust import Trust

ClassifyItem = tuple[str, str | None, str | None]
"""``(text, context, language)``, as ``Classifier.classify_many`` takes them."""


@dataclass(frozen=True, slots=True)
class Clock:
    """Wall-clock and monotonic time, injected so that snapshots never show today's date.

    ``now`` dates relative times ("3 min ago"); ``monotonic`` times rates and
    ETAs. Tests pass fixed functions; the app uses the real ones.
    """

    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    monotonic: Callable[[], float] = time.monotonic


class EngineService:
    """One classifier for the app, built once in the warm-up worker.

    ``load`` is idempotent and thread-safe, so tests can share one loaded
    service across many app runs (building a classifier takes seconds).
    """

    def __init__(self, settings: Settings, classifier: Classifier | None = None) -> None:
        self.settings = settings
        self._classifier: Classifier | None = classifier
        self._labels: dict[str, str] | None = None
        self._lock = threading.Lock()

    @property
    def ready(self) -> bool:
        return self._classifier is not None

    @property
    def classifier(self) -> Classifier:
        if self._classifier is None:
            raise RuntimeError("the classifier is still loading")
        return self._classifier

    def load(self) -> Classifier:
        """Build the classifier and compile the default language (blocking: call in a worker)."""
        with self._lock:
            if self._classifier is None:
                from engine import build_classifier

                classifier = build_classifier(self.settings)
                classifier.warm([classifier.root.default_language])
                self._classifier = classifier
        return self._classifier

    @property
    def languages(self) -> tuple[str, ...]:
        """The taxonomy's language codes, default first."""
        root = self.classifier.root
        others = sorted(code for code in root.languages if code != root.default_language)
        return (root.default_language, *others)

    @property
    def taxonomy_version(self) -> str:
        return str(self.classifier.root.version)

    @property
    def threshold(self) -> float:
        return float(self.classifier.root.decision_threshold)

    @property
    def max_text_chars(self) -> int:
        return int(self.classifier.max_text_chars)

    def severity_label(self, mechanism: str | None) -> str:
        """``NAME (n)`` for a mechanism (``NONE (0)`` for none), from the taxonomy."""
        from workbench.output import severity_label, severity_labels

        if self._labels is None:
            self._labels = severity_labels(self.classifier.root)
        return severity_label(mechanism, self._labels)

    def classify(
        self, text: str, *, context: str | None = None, language: str | None = None
    ) -> Classification:
        """One text; raises ``ValueError`` with the engine's own message for bad input."""
        return self.classifier.classify(text, context=context, language=language)

    def classify_many(self, items: Sequence[ClassifyItem]) -> list[Classification]:
        return list(self.classifier.classify_many(items))

    def tracking_rules(self) -> TrackingRules:
        from store import TrackingRules

        return TrackingRules.from_taxonomy(self.classifier.root, self.settings)

    # -- benchmark ----------------------------------------------------------------------

    @property
    def baseline_tag(self) -> str:
        """The suite result the loaded taxonomy was released with (``suite-1.0.0@194/194``)."""
        return str(self.classifier.root.baseline_tag)

    def benchmark_suite(self, path: str | Path | None = None) -> Suite:
        """The suite file given, else the taxonomy's; raises ``TaxonomyError`` naming the file."""
        from engine.benchmark import load_suite

        if path is not None:
            return load_suite(path=path)
        return load_suite(self.classifier.taxonomy)

    def warm_language(self, language: str) -> None:
        """Compile one case language now (the first run compiles each in turn)."""
        self.classifier.warm([self.classifier.resolve_language(language)[0]])

    def run_benchmark(
        self, suite: Suite, progress: Callable[[int], None] | None = None
    ) -> tuple[dict[str, Any], list[Regression]]:
        """The suite's report (``harmwatch benchmark run --json``) and its regressions.

        ``progress(done)`` is called after each case; raising from it stops the run.
        """
        from engine.benchmark import regressions, run_suite

        report = run_suite(self.classifier, suite, progress=progress)
        return report, regressions(report, suite)

    def run_legacy_gate(self) -> dict[str, Any]:
        """The legacy gate's report (``harmwatch validate dehumanization --json``)."""
        from engine.benchmark import load_gate, run_gate

        return run_gate(self.classifier, load_gate(self.classifier.taxonomy))

    @staticmethod
    def result_tag(report: dict[str, Any]) -> str:
        """A run's result as a ``baseline_tag`` would name it."""
        from engine.benchmark import result_tag

        return result_tag(report)

    @staticmethod
    def visible(text: str) -> str:
        """The text with invisible characters shown as escapes (zero-width obfuscation)."""
        from workbench.output import visible

        return visible(text)


class StoreService:
    """The tracking store for the app: opened in the warm-up worker, read in worker threads."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._store: Store | None = None
        self._trust: Trust | None = None
        self._lock = threading.Lock()
        # The digest of the taxonomy texts are classified under, recorded in each record's
        # decision evidence (SPEC 5a); ``Services`` wires it to the engine's classifier.
        self.taxonomy_digest: Callable[[], str | None] = lambda: None

    @property
    def store(self) -> Store:
        if self._store is None:
            raise RuntimeError("the store is not open")
        return self._store

    @property
    def is_open(self) -> bool:
        return self._store is not None

    def open(self) -> str:
        """Open (and migrate) the store; the URL with any password masked.

        Raises ``store.StoreError`` with a message fit to show (no secret in it).
        """
        with self._lock:
            if self._store is None:
                from store import StoreError, open_store
                from store.trust import Trust

                try:  # parsed here, in the warm-up worker: cryptography loads after the frame
                    self._trust = Trust.from_settings(self.settings)
                except ValueError as exc:
                    raise StoreError(str(exc)) from None
                self._store = open_store(self.settings)
            return self._store.url

    @property
    def trust(self) -> Trust:
        """The signing key and checkpoint archive (known once the store is open)."""
        if self._trust is None:
            raise RuntimeError("the store is not open")
        return self._trust

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.dispose()
                self._store = None

    # -- sources ------------------------------------------------------------------------

    def count_sources(self, risk: str | None = None) -> int:
        from store import count_profiles

        with self.store.transaction() as session:
            return count_profiles(session=session, risk=risk)

    def sources_page(
        self, offset: int, limit: int, risk: str | None = None, total: int | None = None
    ) -> list[SourceProfile]:
        """A page of the listing; with the listing's ``total``, read from the nearer end."""
        from store import list_profiles, list_profiles_near

        with self.store.transaction() as session:
            if total is None:
                return list_profiles(session=session, risk=risk, limit=limit, offset=offset)
            return list_profiles_near(
                session=session, total=total, risk=risk, limit=limit, offset=offset
            )

    def source_ids(self, prefix: str, limit: int = 20) -> list[str]:
        from store import source_ids_with_prefix

        with self.store.transaction() as session:
            return source_ids_with_prefix(prefix, session=session, limit=limit)

    def check_source_id(self, source_id: str) -> str | None:
        """Why ``source_id`` breaks the store's rule, or None if it is fine (no database call)."""
        from store import InvalidSourceId, validate_source_id

        try:
            validate_source_id(source_id)
        except InvalidSourceId as exc:
            return str(exc)
        return None

    def check_evidence(self, published_at: str, url: str, now: datetime) -> Evidence | str:
        """The observe dialog's optional publication time and url, checked as every observe
        checks them (a blank field gives no value): the evidence, or why not, naming the
        field and the limit (no database call)."""
        from store import InvalidEvidenceError, make_evidence

        try:
            return make_evidence(
                published_at=published_at.strip() or None,
                url=url.strip() or None,
                now=now,
                max_future_skew_s=self.settings.max_future_skew_s,
            )
        except InvalidEvidenceError as exc:
            return str(exc)

    def suggest_source_id(self, prefix: str) -> str | None:
        """The first known source id starting with ``prefix``; None if none or no store.

        For completion as you type, so a store that is closed or failing gives
        no suggestion rather than an error.
        """
        from store import StoreError

        if not prefix or self._store is None:
            return None
        try:
            found = self.source_ids(prefix, 1)
        except StoreError:
            return None
        return found[0] if found else None

    def profile(self, source_id: str) -> SourceProfile:
        """Raises ``store.UnknownSource`` / ``store.InvalidSourceId``."""
        from store import get_profile

        with self.store.transaction() as session:
            return get_profile(source_id, session=session)

    # -- one source ---------------------------------------------------------------------

    def observations_page(self, source_id: str, offset: int, limit: int) -> list[Observation]:
        """Newest first: row ``offset`` is seq ``count - offset`` (seqs are dense from 1)."""
        from store import get_profile, observations_between

        with self.store.transaction() as session:
            count = get_profile(source_id, session=session).observation_count
            last = count - offset
            first = max(1, last - limit + 1)
            if last < 1:
                return []
            rows = observations_between(source_id, first, last, session=session)
        rows.reverse()
        return rows

    def observations_between(self, source_id: str, first: int, last: int) -> list[Observation]:
        from store import observations_between

        with self.store.transaction() as session:
            return observations_between(source_id, max(1, first), last, session=session)

    def severity_series(self, source_id: str) -> Iterator[tuple[int, str, int]]:
        """Streamed ``(seq, published_at, severity)`` in publication order, as the profile
        reads them (a backfill lands where it was published, not where it was appended);
        the transaction lasts while it is read."""
        from store import publication_series

        with self.store.transaction() as session:
            yield from publication_series(source_id, session=session)

    def verify(
        self,
        source_id: str,
        progress: Callable[[int, int], None] | None = None,
        *,
        rules: TrackingRules | None = None,
        checkpoint_file: Path | None = None,
    ) -> VerifyResult:
        """Walk the chain; ``progress`` may raise to cancel (the cursor is closed).

        As ``track verify``: signatures with the configured key, every profile field
        (with ``rules``), and the checkpoints of ``checkpoint_file`` or else the latest
        saved one. A checkpoint that cannot be used raises ``CheckpointError``.
        """
        return self._walk(source_id, progress, rules=rules, checkpoint_file=checkpoint_file)

    def chain_status(
        self,
        source_id: str,
        progress: Callable[[int, int], None] | None = None,
        *,
        rules: TrackingRules | None = None,
    ) -> VerifyResult:
        """The Source screen's background check behind its card: the walk ``verify``
        does (keys, the latest saved checkpoint, every profile field), with no dialog."""
        return self._walk(source_id, progress, rules=rules, checkpoint_file=None)

    def _walk(
        self,
        source_id: str,
        progress: Callable[[int, int], None] | None,
        *,
        rules: TrackingRules | None,
        checkpoint_file: Path | None,
    ) -> VerifyResult:
        from store import verify_source
        from store.checkpoints import read_file

        trust = self.trust
        keys = trust.keys()
        given = read_file(checkpoint_file) if checkpoint_file is not None else None
        checkpoints = trust.checkpoints_for(source_id, keys, given, origin=str(checkpoint_file))
        with self.store.transaction() as session:
            return verify_source(
                source_id,
                session=session,
                progress=progress,
                rules=rules,
                keys=keys,
                checkpoints=checkpoints,
            )

    def issue_checkpoint(self, source_id: str, output: Path | None = None) -> tuple[int, Path]:
        """Sign a checkpoint of the source's head into ``output`` or the archive; (seq, path)."""
        from store import get_profile
        from store.checkpoints import CheckpointError, write_file

        trust = self.trust
        with self.store.transaction() as session:
            checkpoint = trust.issue(get_profile(source_id, session=session))
        if output is not None:
            write_file(output, [checkpoint])
            return checkpoint.seq, output
        if trust.archive is None:
            raise CheckpointError("no HARMWATCH_CHECKPOINT_DIR: choose a file")
        return checkpoint.seq, trust.archive.save(checkpoint)

    def observe(
        self,
        source_id: str,
        text: str,
        result: Classification,
        rules: TrackingRules,
        evidence: Evidence | None = None,
    ) -> tuple[Observation, SourceProfile]:
        """Append one classified text in its own write transaction (all or nothing), with
        the evidence ``check_evidence`` gave (none: published "now", no url)."""
        from store import append
        from store.evidence import NO_EVIDENCE

        with self.store.transaction(write=True) as session:
            appended = append(
                source_id,
                result,
                text=text,
                store_text=self.settings.store_text,
                rules=rules,
                session=session,
                signer=self.trust.signer,
                taxonomy_digest=self.taxonomy_digest(),
                evidence=evidence or NO_EVIDENCE,
            )
        self.trust.after_commit([appended[0]])
        return appended

    def observe_many(
        self, items: Sequence[tuple[str, str, Classification]], rules: TrackingRules
    ) -> list[str | None]:
        """Append many classified texts, each in its own write transaction, over one connection.

        Per item, None once recorded, else why the store refused it (an invalid
        source id, a text it cannot keep): that item is rolled back whole and the
        rest go on (a source whose head no longer matches its hash is refused the
        same way). ``StoreUnavailable`` (the database went away) is raised.
        """
        from store import InvalidSourceId, InvalidTextError, TamperedHeadError, append

        outcomes: list[str | None] = []
        trust = self.trust
        digest = self.taxonomy_digest()
        with self.store.writer() as writer:
            for source_id, text, result in items:
                try:
                    with writer.transaction() as conn:
                        observation, _ = append(
                            source_id,
                            result,
                            text=text,
                            store_text=self.settings.store_text,
                            rules=rules,
                            session=conn,
                            signer=trust.signer,
                            taxonomy_digest=digest,
                        )
                except (InvalidSourceId, InvalidTextError, TamperedHeadError) as exc:
                    outcomes.append(str(exc))
                else:
                    trust.after_commit([observation])
                    outcomes.append(None)
        return outcomes


@dataclass(slots=True)
class Services:
    """Everything the app touches outside itself, passed into ``create_app``."""

    engine: EngineService
    store: StoreService
    clock: Clock = field(default_factory=Clock)

    def __post_init__(self) -> None:
        engine = self.engine
        self.store.taxonomy_digest = lambda: engine.classifier.taxonomy.digest

    @classmethod
    def from_settings(cls, settings: Settings, *, clock: Clock | None = None) -> Services:
        return cls(EngineService(settings), StoreService(settings), clock or Clock())
