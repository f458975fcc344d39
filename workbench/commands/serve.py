"""``harmwatch serve``: the HTTP API under uvicorn.

uvicorn gets the import string of a factory (``api.app:create_app_from_env``)
rather than an app object, so that each worker process builds its own app,
classifier and connection pool from the environment (nothing crosses a fork),
and so that ``--reload`` can re-import the code. uvicorn picks uvloop and
httptools when they are installed (``loop``/``http`` "auto").

Settings and the taxonomy are checked here first, so a bad setting or taxonomy
file is one ``error:`` line and exit code 2, not a traceback from every worker.
Several workers share one database safely: SQLite runs in WAL mode with a busy
timeout and appends take the write lock up front; PostgreSQL serializes appends
per source with a row lock (see docs/tracking.md).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Annotated, Any

import typer

from engine import load_taxonomy
from workbench.options import settings_of

FACTORY = "api.app:create_app_from_env"
ROOT = Path(__file__).resolve().parents[2]
RELOAD_DIRS = ("api", "engine", "store", "taxonomy")


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)


def serve(
    ctx: typer.Context,
    host: Annotated[
        str, typer.Option("--host", help="Interface to listen on (0.0.0.0 for all).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="TCP port.")] = 8000,
    workers: Annotated[int, typer.Option("--workers", min=1, max=64, help="Worker processes.")] = 1,
    reload: Annotated[
        bool, typer.Option("--reload", help="Restart on code or taxonomy changes (development).")
    ] = False,
    access_log: Annotated[
        bool,
        typer.Option(
            "--access-log/--no-access-log",
            help="Log one line per request (off behind a proxy that logs them: it costs "
            "a tenth of a short request).",
        ),
    ] = True,
) -> None:
    """Serve the HTTP API (docs at /docs, schema at /openapi.json).

    Settings come from the environment and .env, read by each worker: TRACKING_DB_URL,
    HARMWATCH_API_KEY, HARMWATCH_SIGNING_KEY, HARMWATCH_MAX_TEXT_CHARS, ...
    """
    if reload and workers > 1:
        raise typer.BadParameter("--reload runs one process; drop --workers", param_hint="--reload")
    settings = settings_of(ctx)
    load_taxonomy(settings.taxonomy_path)  # fails here, once, with the file and row at fault
    import uvicorn

    options: dict[str, Any] = {}
    if reload:
        options.update(
            reload=True,
            reload_dirs=[str(ROOT / name) for name in RELOAD_DIRS if (ROOT / name).is_dir()],
            reload_includes=["*.py", "*.yaml"],
        )
    else:
        options["workers"] = workers
    uvicorn.run(
        FACTORY,
        factory=True,
        host=host,
        port=port,
        log_config=log_config(),
        access_log=access_log,
        **options,
    )


def log_config() -> dict[str, Any]:
    """uvicorn's logging, plus harmwatch's own loggers in the same format (an error with its
    request id, an unreachable database, the text-analytics circuit opening)."""
    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    for name in ("api", "engine", "store"):
        config["loggers"][name] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config
