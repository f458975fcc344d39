"""Paths a client may spell two ways, and what a wrong method is told.

**Trailing slashes.** Every route answers with and without a trailing slash
(``POST /classify`` as ``POST /classify/``, ``GET /health/`` as ``GET /health``).
Starlette's default instead answers the other spelling with a 307 and an empty
body, which most HTTP clients do not follow for a POST (curl needs ``-L``, and
then re-sends the body only with ``--post301``-style flags), so a first request
looked like a silent failure. The app is built with ``redirect_slashes=False``
and ``SlashTwin`` becomes the router's ``default`` — what it calls when no route
matched — so the twin is only looked for on a miss and costs nothing on the way
to a route that exists. The request is then served by the twin's route exactly
as if it had been sent there; the request log keeps the path the client sent.
The classify fast lane (``api.hotpath``) knows both spellings of its two paths.

**405.** ``allowed_methods`` asks the router which methods some route answers on
the path (or on its twin), so the ``Allow`` header of a 405 is complete even
where one path is served by two routes (``/tracking/{source_id}/verify``: GET
and POST) and correct whichever way the path was spelt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from starlette.routing import BaseRoute, Match, Mount, Router
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

# Every method the API might be asked; HEAD is answered wherever GET is (api.edge).
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
_TWIN_KEY = "harmwatch.slash_twin"


def twin_path(path: str) -> str | None:
    """The same path with the trailing slash added or removed; None for the root."""
    if path in ("", "/"):
        return None
    return path[:-1] if path.endswith("/") else path + "/"


def _probe(scope: Scope, **changes: Any) -> dict[str, Any]:
    """A copy of ``scope`` to ask routes about; nested dicts (routing state) are copied too,
    so asking never changes what the request itself carries."""
    probe = {key: dict(value) if isinstance(value, dict) else value for key, value in scope.items()}
    probe.update(changes)
    return probe


def _twin_scope(scope: Scope) -> dict[str, Any] | None:
    root: str = scope.get("root_path", "")
    path: str = scope["path"]
    inner = path[len(root) :] if root and path.startswith(root) else path
    twin = twin_path(inner)
    if twin is None:
        return None
    full = root + twin if root and path.startswith(root) else twin
    raw = scope.get("raw_path")
    changes: dict[str, Any] = {"path": full}
    if isinstance(raw, bytes):
        changes["raw_path"] = raw[:-1] if raw.endswith(b"/") else raw + b"/"
    return _probe(scope, **changes)


def _matches(routes: Sequence[BaseRoute], scope: Scope) -> bool:
    return any(route.matches(_probe(scope))[0] is not Match.NONE for route in routes)


def allowed_methods(routes: Sequence[BaseRoute], scope: Scope) -> list[str]:
    """Every method some route answers on the request's path (or, if none, on its twin).

    ``scope`` may be one a mount has already narrowed (the documentation assets):
    the question is asked again from the app's root.
    """
    scope = _probe(scope, root_path=scope.get("app_root_path", scope.get("root_path", "")))
    for candidate in (scope, _twin_scope(scope)):
        if candidate is None:
            continue
        methods: set[str] = set()
        for route in routes:
            if isinstance(route, Mount) and isinstance(route.app, StaticFiles):
                if route.matches(_probe(candidate))[0] is not Match.NONE:
                    methods |= {"GET", "HEAD"}
                continue
            for method in METHODS:
                if route.matches(_probe(candidate, method=method))[0] is Match.FULL:
                    methods.add(method)
        if "GET" in methods:
            methods.add("HEAD")
        if methods:
            return sorted(methods)
    return []


class SlashTwin:
    """The router's ``default``: serve a path that matched nothing as its twin, if that
    matches a route (for any method: a wrong method then gets its 405 and ``Allow``)."""

    def __init__(self, router: Router, fallback: ASGIApp) -> None:
        self.router = router
        self.fallback = fallback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        twin = None
        if scope["type"] == "http" and not scope.get(_TWIN_KEY):
            twin = _twin_scope(scope)
        if twin is None or not _matches(self.router.routes, twin):
            await self.fallback(scope, receive, send)
            return
        twin[_TWIN_KEY] = True
        try:
            await self.router(twin, receive, send)
        finally:
            # The request log and metrics read the route from the scope they were given.
            if "route" in twin:
                scope["route"] = twin["route"]


def install(router: Router) -> None:
    """Answer both spellings of every path of ``router`` (built with redirect_slashes=False)."""
    router.redirect_slashes = False
    router.default = SlashTwin(router, router.default)
