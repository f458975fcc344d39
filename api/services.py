"""What the routes share: settings, the classifier, the tracking store, the suite and gate.

One ``Services`` per app (so per worker process). Each part is built on first
use under a lock, and the app's lifespan asks for the classifier and the store
up front so a served app pays for them before its first request. The store is
opened lazily on purpose: a database that is down at start-up makes /health say
so and the tracking routes answer 503, while classification keeps working, and
the next request tries again.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Literal, TypeVar

from sqlalchemy.exc import SQLAlchemyError

from api.metrics import Metrics
from api.writer import GroupCommit
from engine import Classifier, LoadedTaxonomy, Settings, build_classifier
from engine.amplify import NullAmplifier
from engine.evaluation.benchmark import Gate, Suite, load_gate, load_suite
from store import Store, StoreError, TrackingRules, open_store, resolve_url
from store.trust import Trust

log = logging.getLogger(__name__)
T = TypeVar("T")

# A text this short (text + context, in characters) is classified on the event loop:
# it takes ~10 µs typically and about 1 ms at worst (adversarial, every pattern
# half-matching), less than the round trip through the threadpool (0.1–0.3 ms, plus
# GIL hand-offs under load). Anything longer goes to the threadpool.
INLINE_MAX_CHARS = 500


def app_version() -> str:
    try:
        return version("harmwatch")
    except PackageNotFoundError:  # a checkout that was never installed
        return "unknown"


def backend_name(url: str) -> str:
    """``sqlite`` or ``postgresql`` for /health, else ``unknown``: never a piece of a URL
    that did not parse (it may be a password pasted into the wrong variable)."""
    scheme, separator, _ = url.partition("://")
    name = scheme.split("+", 1)[0].lower() if separator else ""
    return name if name in ("sqlite", "postgresql") else "unknown"


class Services:
    """The long-lived collaborators of the routes, built once and shared by all threads."""

    def __init__(self, settings: Settings, classifier: Classifier | None = None) -> None:
        self.settings = settings
        self.max_text_chars = settings.max_text_chars
        self.app_version = app_version()
        self.database_backend = backend_name(resolve_url(settings))
        self._classifier = classifier
        self._owns_classifier = classifier is None
        self._store: Store | None = None
        self._rules: TrackingRules | None = None
        self._suite: Suite | None = None
        self._gate: Gate | None = None
        self._lock = threading.Lock()
        self._store_lock = threading.Lock()
        # Languages whose matcher is known to be compiled: only their texts may run
        # inline (compiling one takes up to two seconds, which must not stall the loop).
        self._warm: frozenset[str] = frozenset()
        self._appender: GroupCommit | None = None
        # Classification that does not run on the event loop runs here, one job at a time
        # (made on first use, and again after close() should the app be started anew).
        self._compute: ThreadPoolExecutor | None = None
        self.metrics = Metrics()  # this app's Prometheus instruments (api.metrics)
        # The signing key and checkpoint archive, parsed here so that a bad key stops the
        # app at start-up with a message naming the setting (never its value).
        self.trust = Trust.from_settings(settings)

    # -- engine ---------------------------------------------------------------------------
    @property
    def classifier(self) -> Classifier:
        if self._classifier is None:
            self._classifier = self._once(lambda: self._classifier, self._build_classifier)
        return self._classifier

    def _build_classifier(self) -> Classifier:
        return build_classifier(self.settings)

    def warm(self, language: str) -> None:
        """Compile a language's matcher now (up to 2 s; instant when already done)."""
        self.classifier.warm([language])
        self.mark_warm(language)

    async def compute(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Run CPU-bound engine work (a batch, a long text) off the loop, on the process's
        one classification thread.

        Two threads classifying at once do not run in parallel under the GIL; worse,
        re2 releases the GIL on every match, so they hand it back and forth thousands
        of times a second, a context switch each time. One thread with a queue does
        the same work in the same time without the thrashing: measured with two
        clients sending 100-item batches, throughput stayed level (and steadier from
        run to run) and p99 fell from 19-25 ms to 16 ms. More cores call for more
        worker processes, each with its own thread. (Validation and benchmark runs,
        rare operator calls, still use FastAPI's threadpool.)
        """
        if self._compute is None:
            self._compute = ThreadPoolExecutor(1, thread_name_prefix="harmwatch-classify")
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._compute, functools.partial(fn, *args, **kwargs))

    def mark_warm(self, language: str) -> None:
        """Record that a language's matcher is compiled (a text in it was classified)."""
        if language not in self._warm:
            self._warm = self._warm | {language}

    def inline(self, size: int, language: str) -> bool:
        """Whether classifying a text on the event loop beats sending it to a thread.

        Only without a text-analytics provider (which makes a network call), for a
        language already compiled, and for a short text (``size`` = text + context
        characters, see INLINE_MAX_CHARS).
        """
        return (
            size <= INLINE_MAX_CHARS
            and language in self._warm
            and isinstance(self.classifier.amplifier, NullAmplifier)
        )

    @property
    def rules(self) -> TrackingRules:
        if self._rules is None:
            self._rules = TrackingRules.from_taxonomy(self.classifier.root, self.settings)
        return self._rules

    @property
    def suite(self) -> Suite:
        if self._suite is None:
            self._suite = self._once(lambda: self._suite, lambda: load_suite(self.taxonomy))
        return self._suite

    @property
    def gate(self) -> Gate:
        if self._gate is None:
            self._gate = self._once(lambda: self._gate, lambda: load_gate(self.taxonomy))
        return self._gate

    @property
    def taxonomy(self) -> LoadedTaxonomy:
        return self.classifier.taxonomy

    def _once(self, current: Callable[[], T | None], build: Callable[[], T]) -> T:
        with self._lock:
            found = current()
            return found if found is not None else build()

    # -- store ----------------------------------------------------------------------------
    def store(self) -> Store:
        """The opened (and migrated) store; StoreUnavailable when it cannot be reached."""
        opened = self._store
        if opened is not None:
            return opened
        with self._store_lock:
            if self._store is None:
                self._store = open_store(self.settings)
            return self._store

    def appender(self) -> GroupCommit:
        """The process's appender (group commit, see api.writer); made on first use, on the loop."""
        if self._appender is None:
            self._appender = GroupCommit(
                self.store,
                self.rules,
                store_text=self.settings.store_text,
                on_loop=self.database_backend == "sqlite",
                metrics=self.metrics,
                trust=self.trust,
                taxonomy_digest=self.taxonomy.digest,
            )
        return self._appender

    def database_status(self) -> Literal["ok", "unreachable"]:
        """One ``SELECT 1`` on the store (opening it first if need be), for /health."""
        try:
            with self.store().transaction() as session:
                session.connection().exec_driver_sql("SELECT 1")
        except (StoreError, SQLAlchemyError) as exc:
            # A health probe reports; it never fails. StoreError messages are password-free.
            reason = exc if isinstance(exc, StoreError) else type(exc).__name__
            log.warning("health: tracking database unreachable: %s", reason)
            return "unreachable"
        return "ok"

    def close(self) -> None:
        """Stop the appender, release pooled connections and the provider's HTTP client."""
        if self._compute is not None:
            self._compute.shutdown(wait=True)
            self._compute = None
        if self._appender is not None:
            self._appender.close()
            self._appender = None
        if self._store is not None:
            self._store.dispose()
            self._store = None
        if self._owns_classifier and self._classifier is not None:
            self._classifier.amplifier.close()
