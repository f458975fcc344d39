"""``harmwatch serve``: the HTTP API under uvicorn.

uvicorn gets the import string of a factory (``api.app:create_app_from_env``)
rather than an app object, so that each worker process builds its own app,
classifier and connection pool from the environment (nothing crosses a fork),
and so that ``--reload`` can re-import the code. uvicorn picks uvloop and
httptools when they are installed (``loop``/``http`` "auto").

Everything that would stop the server is checked here first (``preflight``): a bad
setting, the taxonomy, the text-analytics endpoint, the port, and a database
that cannot be used as configured (not a database, a schema this version does
not know, a URL that does not parse). Each is one ``error:`` line and exit code
2, not a traceback from every worker. A database that is merely unreachable is
not among them: the server starts, says so, and its tracking routes answer 503
until the database is back.
Several workers share one database safely: SQLite runs in WAL mode with a busy
timeout and appends take the write lock up front; PostgreSQL serializes appends
per source with a row lock (see docs/tracking.md).
"""

from __future__ import annotations

import copy
import errno
import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from engine import Settings, configured_taxonomy
from workbench.errors import EXIT_ERROR, report
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
            help="Log one JSON line per request on stdout (method, path, status, duration, "
            "request id, content hash); off behind a proxy that logs requests itself.",
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
    preflight(settings, host, port)
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
    with shared_metrics(workers):
        uvicorn.run(
            FACTORY,
            factory=True,
            host=host,
            port=port,
            log_config=log_config(access_log=access_log),
            access_log=False,  # harmwatch's own request log (api.edge) replaces uvicorn's
            **options,
        )


def preflight(settings: Settings, host: str, port: int) -> None:
    """Fail now, once, in one line, on what would stop every worker at start-up."""
    from engine.amplify import build_amplifier
    from store import StoreMisconfigured, StoreUnavailable, open_store

    taxonomy = configured_taxonomy(settings)  # a broken file: the file and row at fault
    key = settings.text_analytics_key
    build_amplifier(  # ValueError naming the setting (never its value)
        settings.text_analytics_endpoint,
        key.get_secret_value() if key is not None else None,
        taxonomy.root.amplification,
        settings.text_analytics_timeout_s,
    ).close()
    check_port(host, port)
    try:
        open_store(settings).dispose()  # migrates once here rather than in every worker
    except StoreMisconfigured as exc:
        report(exc)
        raise typer.Exit(EXIT_ERROR) from None
    except StoreUnavailable as exc:
        typer.echo(
            f"warning: {exc}; serving anyway, the tracking routes answer 503 until it is back",
            err=True,
        )


def check_port(host: str, port: int) -> None:
    """OSError (one line: the address and why) when the server could not listen there.

    Bound the way uvicorn binds (SO_REUSEADDR) and released at once; should another
    process take the port in between, uvicorn itself reports it.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise OSError(errno.EADDRNOTAVAIL, f"cannot listen on {host}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(address)
        except OSError as exc:
            raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror}") from None


@contextmanager
def shared_metrics(workers: int) -> Iterator[None]:
    """With several workers, a directory where each writes its metrics, so that /metrics
    (answered by any one of them) adds up all of theirs; removed when the server stops.
    An operator's own PROMETHEUS_MULTIPROC_DIR is kept as it is."""
    from api.metrics import MULTIPROC_ENV

    if workers < 2 or os.environ.get(MULTIPROC_ENV):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="harmwatch-metrics-") as directory:
        os.environ[MULTIPROC_ENV] = directory
        try:
            yield
        finally:
            del os.environ[MULTIPROC_ENV]


def log_config(*, access_log: bool = True) -> dict[str, Any]:
    """uvicorn's logging, plus harmwatch's own loggers in the same format (an error with its
    request id, an unreachable database, the text-analytics circuit opening), and the
    request log: bare JSON lines on stdout (``api.access``), or nothing with
    ``--no-access-log``."""
    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    for name in ("api", "engine", "store"):
        config["loggers"][name] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    config["formatters"]["json_lines"] = {"format": "%(message)s"}
    config["handlers"]["requests"] = {
        "class": "logging.StreamHandler",
        "formatter": "json_lines",
        "stream": "ext://sys.stdout",
    }
    config["loggers"]["api.access"] = {
        "handlers": ["requests"],
        "level": "INFO" if access_log else "WARNING",
        "propagate": False,
    }
    return config
