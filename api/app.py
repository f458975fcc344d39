"""The app factory: ``create_app(settings)``, and ``create_app_from_env`` for uvicorn.

Nothing is built at import: settings are read when a factory is called, and
the classifier and the database are opened by the app's lifespan (or, for an
app used without one, on first use). Each uvicorn worker calls the factory in
its own process, so no engine or connection pool is ever shared across a fork.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.concurrency import run_in_threadpool
from starlette.middleware import Middleware

from api import errors, pages, routing
from api.edge import RequestEdge
from api.hotpath import ClassifyLane, FastLane
from api.middleware import ApiKey, BodyLimit
from api.openapi import build_openapi
from api.routers import ROUTERS
from api.services import Services, app_version
from engine import Classifier, Settings
from store import StoreMisconfigured, StoreUnavailable

log = logging.getLogger(__name__)

TAGS = [
    {"name": "classify", "description": "Classify texts and explain each decision."},
    {"name": "tracking", "description": "Named sources over time, in tamper-evident chains."},
    {"name": "benchmark", "description": "The taxonomy's functional benchmark suite."},
    {"name": "validate", "description": "Score the classifier against labelled samples."},
    {"name": "health", "description": "Service and dependency status."},
]


class HarmwatchAPI(FastAPI):
    """FastAPI, with plain classify requests answered before routing by its innermost
    middleware (api.hotpath); ``lane = None`` sends every request to the routes."""

    lane: ClassifyLane | None = None


def create_app(
    settings: Settings | None = None, *, classifier: Classifier | None = None
) -> FastAPI:
    """The harmwatch HTTP API for these settings (read from the environment when omitted).

    ``classifier`` lets tests and embedders share one already compiled classifier
    (compiling all languages takes seconds); it must have been built for the same
    taxonomy the settings name. Without one, the app builds its own at start-up.
    """
    settings = settings if settings is not None else Settings()
    services = Services(settings, classifier)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(_start, services, served=classifier is None)
        try:
            yield
        finally:
            await run_in_threadpool(services.close)

    api_key = settings.api_key.get_secret_value().encode() if settings.api_key is not None else None
    # Every request passes each of these once, outermost first, whoever answers it: the
    # edge (request id, body deadline, last-resort 500, request log, metrics), the key,
    # the body limit, then the classify fast lane; then FastAPI's routing.
    edge = Middleware(
        RequestEdge,
        metrics=services.metrics,
        body_timeout_s=settings.body_timeout_s,
        log_text=settings.log_text,
    )
    middleware = [edge]
    if api_key is not None:
        middleware.append(Middleware(ApiKey, key=api_key))
    middleware.append(Middleware(BodyLimit))
    app = HarmwatchAPI(
        title="harmwatch",
        version=app_version(),
        openapi_tags=TAGS,
        lifespan=lifespan,
        middleware=middleware,
        # JSON is read when the Content-Type says JSON or says nothing, as api.body does.
        strict_content_type=False,
        # /docs and /redoc come from api.pages, with assets served by the app itself.
        docs_url=None,
        redoc_url=None,
        # Both spellings of every path are answered (api.routing), never a bare 307.
        redirect_slashes=False,
    )
    app.state.services = services
    app.lane = ClassifyLane(services)
    app.user_middleware.append(Middleware(FastLane, owner=app))
    errors.install(app)
    for router in ROUTERS:
        app.include_router(router)
    pages.install(app)
    routing.install(app.router)
    app.openapi = lambda: build_openapi(app, services)  # type: ignore[method-assign]
    return app


def create_app_from_env() -> FastAPI:
    """What ``harmwatch serve`` hands uvicorn (``factory=True``): settings from the env."""
    return create_app(Settings())


def _start(services: Services, *, served: bool) -> None:
    """Build the classifier and open the store before the first request.

    A store that cannot be reached is not fatal: /health reports it, the tracking
    routes answer 503 and retry. One that cannot be used as configured
    (StoreMisconfigured: not a database, an unknown schema) is fatal, as is a
    taxonomy that cannot be loaded. The
    default language is compiled now; each other language compiles with its first
    text (0.1–2 s, in the threadpool). A served app then freezes what it loaded
    out of the garbage collector's sight: the taxonomy lives as long as the process,
    and no full collection should ever walk it (tens of milliseconds each).
    """
    services.warm(services.classifier.root.default_language)
    try:
        services.store()
    except StoreMisconfigured:
        raise
    except StoreUnavailable as exc:
        log.warning("%s; tracking routes answer 503 until it is reachable", exc)
    if served:
        gc.freeze()
