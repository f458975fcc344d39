"""Start-up faults: `serve` and the CLI stop with one `error:` line and exit code 2, except for
a database that is merely unreachable, which `serve` survives (its tracking routes answer 503).

Most cases run `serve` through CliRunner with ``uvicorn.run`` patched (the checks all
happen before it would be called); two run the real command as a process, since the
issue's traceback-and-exit-3 came from there. Every fault is real: a file of notes as
the database, a schema from the future or missing a table, a port another socket
holds, a directory as the taxonomy, a PostgreSQL database that does not exist.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from typer.testing import CliRunner, Result

from engine import LoadedTaxonomy, Settings
from store import open_store
from tests.cli_support import isolate_cli
from tests.store_fixtures import pg_test_url
from workbench.cli import app as cli
from workbench.commands import serve as serve_command

ROOT = Path(__file__).resolve().parents[1]
HARMWATCH = Path(sys.executable).with_name("harmwatch")


@pytest.fixture(autouse=True)
def clean_env(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, taxonomy: LoadedTaxonomy
) -> Iterator[None]:
    isolate_cli(monkeypatch, tmp_path)
    shipped = serve_command.configured_taxonomy

    def load(settings: Settings) -> LoadedTaxonomy:
        return taxonomy if settings.taxonomy_path is None else shipped(settings)

    monkeypatch.setattr(serve_command, "configured_taxonomy", load)
    yield


@pytest.fixture
def uvicorn_calls(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    import uvicorn

    calls: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: calls.append((a, k)))
    return calls


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def invoke(args: list[str], env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, args, env=env)


def assert_one_error_line(result: Result, *needles: str) -> None:
    output = result.output
    assert result.exit_code == 2, output
    assert output.startswith("error: "), output
    assert output.count("\n") == 1, output
    assert "Traceback" not in output
    for needle in needles:
        assert needle in output, output


# -- the faults -------------------------------------------------------------------------


def not_a_database(tmp: Path) -> dict[str, str]:
    path = tmp / "notes.db"
    path.write_bytes(b"plain notes, not SQLite\n" * 100)
    return {"TRACKING_DB_URL": f"sqlite:///{path}"}


def schema_from_the_future(tmp: Path) -> dict[str, str]:
    url = f"sqlite:///{tmp}/future.sqlite3"
    store = open_store(Settings(_env_file=None, tracking_db_url=url))
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    store.dispose()
    return {"TRACKING_DB_URL": url}


def schema_missing_a_table(tmp: Path) -> dict[str, str]:
    url = f"sqlite:///{tmp}/mutilated.sqlite3"
    store = open_store(Settings(_env_file=None, tracking_db_url=url))
    with store.engine.begin() as conn:
        conn.execute(text("DROP TABLE observations"))
    store.dispose()
    return {"TRACKING_DB_URL": url}


def another_applications_tables(tmp: Path) -> dict[str, str]:
    url = f"sqlite:///{tmp}/other.sqlite3"
    import sqlite3

    with sqlite3.connect(tmp / "other.sqlite3") as conn:
        conn.execute("CREATE TABLE source_profiles (id INTEGER PRIMARY KEY, name TEXT)")
    return {"TRACKING_DB_URL": url}


def missing_directory(tmp: Path) -> dict[str, str]:
    return {"TRACKING_DB_URL": f"sqlite:///{tmp}/no/such/dir/tracking.sqlite3"}


def malformed_url(_tmp: Path) -> dict[str, str]:
    return {"TRACKING_DB_URL": "postgresql+psycopg//user:hunter2@127.0.0.1/db"}


def unsupported_backend(_tmp: Path) -> dict[str, str]:
    return {"TRACKING_DB_URL": "mysql://user:hunter2@127.0.0.1/db"}


def unknown_pg_database(_tmp: Path) -> dict[str, str]:
    from sqlalchemy.engine import make_url

    url = make_url(pg_test_url()).set(database="harmwatch_no_such_database")
    return {"TRACKING_DB_URL": url.render_as_string(hide_password=False)}


def bad_endpoint(tmp: Path) -> dict[str, str]:
    return {
        "TRACKING_DB_URL": f"sqlite:///{tmp}/t.sqlite3",
        "TEXT_ANALYTICS_ENDPOINT": "ftp://language.example",
        "TEXT_ANALYTICS_KEY": "k" * 32,
    }


def unreadable_taxonomy(tmp: Path) -> dict[str, str]:
    return {"TRACKING_DB_URL": f"sqlite:///{tmp}/t.sqlite3", "HARMWATCH_TAXONOMY": str(tmp)}


def missing_taxonomy(tmp: Path) -> dict[str, str]:
    return {
        "TRACKING_DB_URL": f"sqlite:///{tmp}/t.sqlite3",
        "HARMWATCH_TAXONOMY": str(tmp / "nope.yaml"),
    }


def bad_setting(tmp: Path) -> dict[str, str]:
    return {"TRACKING_DB_URL": f"sqlite:///{tmp}/t.sqlite3", "HARMWATCH_BODY_TIMEOUT_S": "-1"}


Fault = Callable[[Path], dict[str, str]]
FAULTS: list[Any] = [
    pytest.param(not_a_database, "file is not a database", id="not-a-database"),
    pytest.param(schema_from_the_future, "revision '9999'", id="schema-from-the-future"),
    pytest.param(schema_missing_a_table, "no table 'observations'", id="schema-missing-a-table"),
    pytest.param(another_applications_tables, "cannot be used", id="another-apps-tables"),
    pytest.param(missing_directory, "unable to open database file", id="missing-directory"),
    pytest.param(malformed_url, "not a database URL", id="malformed-url"),
    pytest.param(unsupported_backend, "unsupported database", id="unsupported-backend"),
    pytest.param(
        unknown_pg_database, "does not exist", id="unknown-pg-database", marks=pytest.mark.postgres
    ),
    pytest.param(bad_endpoint, "TEXT_ANALYTICS_ENDPOINT", id="bad-endpoint"),
    pytest.param(unreadable_taxonomy, "", id="taxonomy-is-a-directory"),
    pytest.param(missing_taxonomy, "nope.yaml", id="taxonomy-missing"),
    pytest.param(bad_setting, "HARMWATCH_BODY_TIMEOUT_S", id="bad-setting"),
]
STORE_FAULTS = FAULTS[:8]


@pytest.mark.parametrize(("fault", "needle"), FAULTS)
def test_serve_stops_on_a_startup_fault_in_one_line(
    fault: Fault, needle: str, tmp_path: Path, uvicorn_calls: list[Any]
) -> None:
    result = invoke(["serve", "--port", str(free_port())], env=fault(tmp_path))
    assert_one_error_line(result, needle)
    assert "hunter2" not in result.output
    assert uvicorn_calls == []


def test_serve_stops_when_the_port_is_taken(tmp_path: Path, uvicorn_calls: list[Any]) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        env = {"TRACKING_DB_URL": f"sqlite:///{tmp_path}/t.sqlite3"}
        result = invoke(["serve", "--port", str(port)], env=env)
    assert_one_error_line(result, f"cannot listen on 127.0.0.1:{port}", "in use")
    assert uvicorn_calls == []


def test_serve_stops_on_a_host_it_cannot_listen_on(
    tmp_path: Path, uvicorn_calls: list[Any]
) -> None:
    env = {"TRACKING_DB_URL": f"sqlite:///{tmp_path}/t.sqlite3"}
    result = invoke(["serve", "--host", "192.0.2.1", "--port", str(free_port())], env=env)
    assert_one_error_line(result, "cannot listen on 192.0.2.1")
    assert uvicorn_calls == []


def test_serve_starts_with_an_unreachable_database(uvicorn_calls: list[Any]) -> None:
    """Nothing listens on the port: the server starts anyway and says why tracking is down."""
    env = {"TRACKING_DB_URL": f"postgresql+psycopg://harmwatch:hunter2@127.0.0.1:{free_port()}/x"}
    result = invoke(["serve", "--port", str(free_port())], env=env)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("warning: tracking database ")
    assert "503" in result.output
    assert "hunter2" not in result.output
    assert len(uvicorn_calls) == 1


@pytest.mark.parametrize(("fault", "needle"), STORE_FAULTS)
@pytest.mark.parametrize(
    "command",
    [
        ["track", "list"],
        ["track", "show", "acct"],
        ["track", "verify", "acct"],
        ["track", "verify", "--all"],
        ["track", "observe", "acct", "hello"],
        ["db", "upgrade"],
    ],
    ids=lambda args: "-".join(args),
)
def test_every_store_command_stops_in_one_line(
    command: list[str], fault: Fault, needle: str, tmp_path: Path
) -> None:
    result = invoke(command, env=fault(tmp_path))
    assert_one_error_line(result, needle)  # exit 2 also for verify (1 means "broken chain")
    assert "hunter2" not in result.output


# -- the real command, as a process ------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("fault", [not_a_database, bad_endpoint], ids=["not-a-db", "endpoint"])
def test_the_real_serve_stops_in_one_line(fault: Fault, tmp_path: Path) -> None:
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_"))
        and name != "DATABASE_URL"
    }
    env.update(fault(tmp_path))
    done = subprocess.run(
        [str(HARMWATCH), "serve", "--port", str(free_port())],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1, done.stderr
