"""The documentation pages (/docs, /redoc) with their assets served by the app, and ``/``.

FastAPI's own pages load Swagger UI and ReDoc from a CDN, so on a machine
without internet access — an analyst's laptop on a closed network, a server
behind an egress firewall — /docs was a blank page. Here the pages load the
same assets from the app itself: the ``fastapi-offline`` package (MIT) ships
Swagger UI's bundle and stylesheet, ReDoc's standalone bundle and a favicon as
package data, and they are mounted under ``ASSETS``. ReDoc is told not to ask
for Google Fonts and Swagger UI not to call its online validator, so neither
page makes a request that leaves the server. URLs carry the ASGI ``root_path``,
so the pages also work behind a reverse proxy that serves the API under a prefix.

``GET /`` says where the documentation is: a browser (``Accept`` preferring
``text/html``) is redirected to /docs; any other client gets a small JSON index
of links (``Index``), so ``curl http://host/`` shows where to go next instead
of a 404.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from pydantic import BaseModel, ConfigDict, Field
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles

from api.encoding import json_response

DOCS = "/docs"
REDOC = "/redoc"
OAUTH2_REDIRECT = "/docs/oauth2-redirect"
OPENAPI = "/openapi.json"
ASSETS = "/docs-assets"
ASSET_FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "redoc.standalone.js", "favicon.png")
ASSETS_PACKAGE = "fastapi_offline"


class Index(BaseModel):
    """Where to go from the root: the documentation, the schema and the health probe."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(examples=["harmwatch"])
    version: str = Field(description="The app's version.", examples=["0.1.0"])
    docs: str = Field(description="Swagger UI: every route, tried in the browser.")
    redoc: str = Field(description="ReDoc: the same reference, for reading.")
    openapi: str = Field(description="The OpenAPI document.")
    health: str = Field(description="Liveness and versions (never needs the API key).")


def assets_directory() -> Path:
    """The shipped asset files; a clear error at start-up when the package lacks one."""
    directory = Path(str(files(ASSETS_PACKAGE).joinpath("static")))
    missing = [name for name in ASSET_FILES if not (directory / name).is_file()]
    if missing:
        raise RuntimeError(
            f"the documentation assets {', '.join(missing)} are missing from {directory} "
            f"(reinstall the {ASSETS_PACKAGE!r} package)"
        )
    return directory


def _root(request: Request) -> str:
    root: str = request.scope.get("root_path", "")
    return root.rstrip("/")


def prefers_html(accept: str) -> bool:
    """Whether an ``Accept`` header asks for a page before JSON (what a browser sends)."""
    accept = accept.lower()
    html = accept.find("text/html")
    if html < 0:
        return False
    json = accept.find("application/json")
    return json < 0 or html < json


def install(app: FastAPI) -> None:
    """Add the pages to an app built with ``docs_url=None, redoc_url=None``."""
    app.mount(ASSETS, StaticFiles(directory=assets_directory()), name="docs-assets")

    @app.get(DOCS, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = _root(request)
        return get_swagger_ui_html(
            openapi_url=root + OPENAPI,
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=root + OAUTH2_REDIRECT,
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
            # null: no badge that asks the online validator about the schema.
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get(OAUTH2_REDIRECT, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get(REDOC, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = _root(request)
        return get_redoc_html(
            openapi_url=root + OPENAPI,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS}/favicon.png",
            with_google_fonts=False,
        )

    # Like the pages themselves, a signpost rather than an operation of the API: left out of
    # the OpenAPI document (docs/api.md describes it).
    @app.get("/", include_in_schema=False)
    async def index(request: Request) -> Response:
        """Links to the documentation, the OpenAPI document and the health probe. A client
        whose `Accept` header prefers `text/html` (a browser) is redirected to /docs."""
        root = _root(request)
        if prefers_html(request.headers.get("accept", "")):
            return RedirectResponse(root + DOCS, status_code=307, headers={"Vary": "Accept"})
        links = Index(
            name=app.title,
            version=app.version,
            docs=root + DOCS,
            redoc=root + REDOC,
            openapi=root + OPENAPI,
            health=root + "/health",
        )
        return json_response(links.model_dump(), headers={"Vary": "Accept"})
