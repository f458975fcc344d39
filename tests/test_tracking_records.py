"""Reading the record back, redaction and forgetting (issue 14), on SQLite and PostgreSQL.

The store functions (``store.reading``, ``store.redaction``), the routes that
serve them and the CLI commands: pages by seq with X-Total-Count, a streamed
JSONL export that re-verifies, a redacted record that still verifies and says
so in the export while tampering around it is still caught, and a deleted
source that is gone entirely.
"""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import text as sql_text
from typer.testing import CliRunner, Result

from api import create_app
from engine import Classifier, Settings
from store import (
    AlreadyRedacted,
    Store,
    TrackingRules,
    UnknownObservation,
    UnknownSource,
    append,
    get_profile,
    open_store,
    verify_jsonl,
    verify_source,
)
from store.evidence import make_evidence
from store.reading import (
    CHUNK_BYTES,
    export_file_name,
    export_lines,
    observations_page,
    published_between,
)
from store.redaction import InvalidReasonError, forget, redact
from tests.cli_support import isolate_cli
from tests.store_fixtures import at, classified
from workbench.cli import app

with warnings.catch_warnings():  # starlette asks for httpx2, which is not a dependency here
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytest_plugins = ["tests.store_fixtures"]

SOURCE = "acct:1"
NOW = datetime(2026, 3, 1, tzinfo=UTC)
# Publication days of the seven records, in append order: a backfill, out of order.
DAYS = [10, 3, 12, 5, 20, 1, 15]


def _fill(store: Store, rules: TrackingRules, source: str = SOURCE, days: list[int] = DAYS) -> None:
    with store.transaction(write=True) as session:
        for step, day in enumerate(days, start=1):
            text = f"{source} record {step}"
            append(
                source,
                classified(step % 5, text),
                text=text,
                store_text=True,
                rules=rules,
                session=session,
                observed_at=at(step),
                evidence=make_evidence(
                    published_at=f"2026-02-{day:02d}T12:00:00Z",
                    url=f"https://example.org/post/{step}",
                    metadata={"channel": "forum", "step": step},
                    now=NOW,
                ),
            )


def _execute(store: Store, statement: str) -> None:
    with store.engine.begin() as conn:
        conn.execute(sql_text(statement))


# -- store ------------------------------------------------------------------------------


def test_pages_are_seq_ranges_newest_first(store: Store, rules: TrackingRules) -> None:
    _fill(store, rules)
    with store.transaction() as session:
        total, page = observations_page(SOURCE, session=session, limit=3)
        assert (total, [o.seq for o in page]) == (7, [7, 6, 5])
        assert [
            o.seq for o in observations_page(SOURCE, session=session, limit=3, offset=5)[1]
        ] == [2, 1]
        ascending = observations_page(SOURCE, session=session, order="asc", limit=2, offset=2)[1]
        assert [o.seq for o in ascending] == [3, 4]
        assert observations_page(SOURCE, session=session, offset=7)[1] == []
        with pytest.raises(ValueError, match="limit must be 1 to 1000"):
            observations_page(SOURCE, session=session, limit=0)
        with pytest.raises(UnknownSource):
            observations_page("nobody", session=session)


def test_published_between_follows_publication_time(store: Store, rules: TrackingRules) -> None:
    _fill(store, rules)
    with store.transaction() as session:
        found = published_between(
            SOURCE,
            session=session,
            since=datetime(2026, 2, 4, tzinfo=UTC),
            until=datetime(2026, 2, 15, 12, tzinfo=UTC),
        )
        # Days 15, 12, 10, 5 (seqs 7, 3, 1, 4), newest publication first.
        assert [o.seq for o in found] == [7, 3, 1, 4]
        latest = published_between(SOURCE, session=session, limit=2)
        assert [o.published_at for o in latest] == [
            "2026-02-20T12:00:00.000000Z",
            "2026-02-15T12:00:00.000000Z",
        ]


def test_a_redacted_record_still_verifies_and_says_so(store: Store, rules: TrackingRules) -> None:
    _fill(store, rules)
    with store.transaction(write=True) as session:
        redacted = redact(SOURCE, 2, "  data-protection request 114 ", session=session, at=NOW)
    assert (redacted.text, redacted.url, redacted.metadata) == (None, None, None)
    assert redacted.redacted == {
        "at": "2026-03-01T00:00:00.000000Z",
        "reason": "data-protection request 114",
    }
    assert redacted.attachment_hash is not None and redacted.content_hash

    with store.transaction() as session:
        assert verify_source(SOURCE, session=session, rules=rules).intact
        exported = b"".join(export_lines(SOURCE, session=session))
    lines = [orjson.loads(line) for line in exported.splitlines()]
    assert [line["seq"] for line in lines] == list(range(1, 8))
    assert [line["redacted"] is not None for line in lines] == [i == 2 for i in range(1, 8)]
    assert lines[1]["text"] is None and lines[1]["url"] is None
    assert lines[0]["text"] == f"{SOURCE} record 1"
    result = verify_jsonl(BytesIO(exported))
    assert (result.intact, result.checked) == (True, 7)

    with (
        store.transaction(write=True) as session,
        pytest.raises(AlreadyRedacted, match="already redacted"),
    ):
        redact(SOURCE, 2, "again", session=session)
    with store.transaction(write=True) as session, pytest.raises(UnknownObservation):
        redact(SOURCE, 99, "no such record", session=session)
    for reason, rule in (
        ("   ", "reason is required"),
        ("x" * 501, "at most 500"),
        ("a\x1bb", "control"),
    ):
        with (
            store.transaction(write=True) as session,
            pytest.raises(InvalidReasonError, match=rule),
        ):
            redact(SOURCE, 3, reason, session=session)


def test_tampering_around_a_redaction_is_still_caught(store: Store, rules: TrackingRules) -> None:
    _fill(store, rules)
    with store.transaction(write=True) as session:
        redact(SOURCE, 2, "court order", session=session)
    # The removed text put back altered: it no longer matches the kept content_hash.
    _execute(
        store, f"UPDATE observations SET text = 'edited' WHERE source_id = '{SOURCE}' AND seq = 2"
    )
    with store.transaction() as session:
        result = verify_source(SOURCE, session=session, rules=rules)
    assert (result.intact, result.first_broken_seq) == (False, 2)
    assert result.reason == "text of seq 2 does not match its content_hash"


@pytest.mark.parametrize(
    ("statement", "reason"),
    [
        ("SET text = NULL", "text of seq 3 was removed without a redaction marker"),
        (
            "SET url = NULL, metadata = NULL",
            "url and metadata of seq 3 were removed without a redaction marker",
        ),
        ("SET url = 'https://example.org/other'", "url or metadata of seq 3 does not match"),
    ],
)
def test_removal_without_the_marker_is_caught(
    store: Store, rules: TrackingRules, statement: str, reason: str
) -> None:
    _fill(store, rules)
    with store.transaction(write=True) as session:
        redact(SOURCE, 2, "court order", session=session)
    _execute(store, f"UPDATE observations {statement} WHERE source_id = '{SOURCE}' AND seq = 3")
    with store.transaction() as session:
        result = verify_source(SOURCE, session=session, rules=rules)
    assert (result.intact, result.first_broken_seq) == (False, 3), result
    assert result.reason is not None and result.reason.startswith(reason)


def test_an_exported_removal_without_the_marker_is_caught(
    store: Store, rules: TrackingRules
) -> None:
    _fill(store, rules)
    with store.transaction() as session:
        lines = [
            orjson.loads(line)
            for line in b"".join(export_lines(SOURCE, session=session)).splitlines()
        ]
    lines[3].update(url=None, metadata=None)
    result = verify_jsonl(BytesIO(b"".join(orjson.dumps(line) + b"\n" for line in lines)))
    assert (result.intact, result.first_broken_seq) == (False, 4)
    assert result.reason is not None and "without a redaction marker" in result.reason
    lines[3]["redacted"] = {"at": "2026-03-01T00:00:00.000000Z", "reason": "court order"}
    assert verify_jsonl(BytesIO(b"".join(orjson.dumps(line) + b"\n" for line in lines))).intact


def test_a_text_never_kept_is_not_a_removal(store: Store, rules: TrackingRules) -> None:
    with store.transaction(write=True) as session:
        append(
            SOURCE,
            classified(2, "hash only"),
            text="hash only",
            store_text=False,
            rules=rules,
            session=session,
        )
    with store.transaction() as session:
        assert verify_source(SOURCE, session=session, rules=rules).intact


def test_forget_deletes_the_source_and_nothing_else(store: Store, rules: TrackingRules) -> None:
    _fill(store, rules)
    _fill(store, rules, source="acct:2", days=[1, 2])
    with store.transaction(write=True) as session:
        forgotten = forget(SOURCE, session=session)
    assert forgotten.to_dict() == {
        "source_id": SOURCE,
        "deleted_observations": 7,
        "deleted_checkpoints": 0,
    }
    with store.transaction() as session:
        with pytest.raises(UnknownSource):
            get_profile(SOURCE, session=session)
        left = session.execute(
            sql_text("SELECT count(*) FROM observations WHERE source_id = :s"), {"s": SOURCE}
        ).scalar_one()
        assert left == 0
        assert verify_source("acct:2", session=session, rules=rules).intact
    with store.transaction(write=True) as session, pytest.raises(UnknownSource):
        forget(SOURCE, session=session)


def test_export_file_names_are_safe_and_distinct() -> None:
    names = [export_file_name(source) for source in ("acct:1", "acct_1", "..", "CON", "a\\b*c?")]
    assert len(set(names)) == len(names)
    for name in names:
        assert name.endswith(".jsonl") and not name.startswith(".")
        assert all(char.isalnum() or char in "._-" for char in name), name


# -- HTTP -------------------------------------------------------------------------------


@pytest.fixture
def client(
    settings: Settings, classifier: Classifier, rules: TrackingRules, store: Store
) -> Iterator[TestClient]:
    _fill(store, rules)
    with TestClient(create_app(settings, classifier=classifier)) as test_client:
        yield test_client


def test_observations_route_pages_with_a_total(client: TestClient) -> None:
    first = client.get(f"/tracking/{SOURCE}/observations", params={"limit": 3})
    assert first.status_code == 200, first.text
    assert first.headers["X-Total-Count"] == "7"
    assert [o["seq"] for o in first.json()] == [7, 6, 5]
    assert first.json()[0]["url"] == "https://example.org/post/7"
    oldest = client.get(f"/tracking/{SOURCE}/observations", params={"order": "asc", "offset": 5})
    assert [o["seq"] for o in oldest.json()] == [6, 7]
    for params, field in (
        ({"limit": 0}, "limit"),
        ({"limit": 1001}, "limit"),
        ({"offset": -1}, "offset"),
        ({"order": "up"}, "order"),
    ):
        refused = client.get(f"/tracking/{SOURCE}/observations", params=params)
        assert refused.status_code == 422, params
        assert refused.json()["detail"][0]["loc"] == ["query", field]
    assert client.get("/tracking/nobody/observations").status_code == 404


def test_export_route_streams_a_chain_that_reverifies(client: TestClient, tmp_path: Path) -> None:
    redacted = client.post(f"/tracking/{SOURCE}/redact/4", json={"reason": "court order"})
    assert redacted.status_code == 200, redacted.text
    assert redacted.json()["redacted"]["reason"] == "court order"
    with client.stream("GET", f"/tracking/{SOURCE}/export") as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/x-ndjson")
        assert response.headers["X-Total-Count"] == "7"
        body = b"".join(response.iter_bytes())
    lines = [orjson.loads(line) for line in body.splitlines()]
    assert [line["seq"] for line in lines] == list(range(1, 8))
    assert [bool(line["redacted"]) for line in lines] == [seq == 4 for seq in range(1, 8)]
    assert verify_jsonl(BytesIO(body)).intact
    head = lines[-1]["record_hash"]
    assert _docs_snippet_verifies(tmp_path, body) == f"intact: 7 records, head {head}"
    tampered = body.replace(b"record 5", b"record five")
    with pytest.raises(AssertionError, match="broken at seq 5"):
        _docs_snippet_verifies(tmp_path, tampered)
    assert client.get("/tracking/nobody/export").status_code == 404


def _docs_snippet_verifies(tmp_path: Path, body: bytes) -> str:
    """Run docs/tracking.md's stdlib verifier on ``body``; its output line."""
    docs = Path(__file__).resolve().parents[1] / "docs" / "tracking.md"
    found = re.search(r"<!-- verify-snippet -->\n```python\n(.*?)```", docs.read_text(), re.S)
    assert found, "docs/tracking.md lost its verify snippet"
    script, chain = tmp_path / "verify_chain.py", tmp_path / "chain.jsonl"
    script.write_text(found.group(1), encoding="utf-8")
    chain.write_bytes(body)
    done = subprocess.run(
        [sys.executable, "-I", str(script), str(chain)],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_redact_route_errors(client: TestClient) -> None:
    assert client.post(f"/tracking/{SOURCE}/redact/2", json={"reason": "ok"}).status_code == 200
    again = client.post(f"/tracking/{SOURCE}/redact/2", json={"reason": "again"})
    assert again.status_code == 409 and "already redacted" in again.json()["detail"]
    for body in ({"reason": ""}, {"reason": "x" * 501}, {}, {"reason": "a\u202eb"}):
        refused = client.post(f"/tracking/{SOURCE}/redact/3", json=body)
        assert refused.status_code == 422, body
        assert refused.json()["detail"][0]["loc"] == ["body", "reason"]
    assert client.post(f"/tracking/{SOURCE}/redact/99", json={"reason": "x"}).status_code == 404
    assert client.post(f"/tracking/{SOURCE}/redact/0", json={"reason": "x"}).status_code == 422
    assert client.post("/tracking/nobody/redact/1", json={"reason": "x"}).status_code == 404


def test_delete_route_needs_the_id_confirmed(client: TestClient) -> None:
    for params in ({}, {"confirm": "acct:2"}):
        refused = client.delete(f"/tracking/{SOURCE}", params=params)
        assert refused.status_code == 422, params
        assert refused.json()["detail"][0]["loc"] == ["query", "confirm"]
    assert client.get(f"/tracking/{SOURCE}").status_code == 200
    deleted = client.delete(f"/tracking/{SOURCE}", params={"confirm": SOURCE})
    assert deleted.status_code == 200, deleted.text
    assert deleted.json() == {
        "source_id": SOURCE,
        "deleted_observations": 7,
        "deleted_checkpoints": 0,
    }
    assert client.get(f"/tracking/{SOURCE}").status_code == 404
    assert client.delete(f"/tracking/{SOURCE}", params={"confirm": SOURCE}).status_code == 404


# -- CLI --------------------------------------------------------------------------------


@pytest.fixture
def cli_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, rules: TrackingRules) -> Settings:
    isolate_cli(monkeypatch, tmp_path)
    # The shipped taxonomy's rules, loaded once (each command would load the taxonomy again).
    monkeypatch.setattr("workbench.commands.track._rules", lambda _s: rules)
    settings = Settings(_env_file=None, tracking_db_url=f"sqlite:///{tmp_path}/cli.sqlite3")
    opened = open_store(settings)
    try:
        _fill(opened, rules)
        _fill(opened, rules, source="acct_1", days=[1])
        _fill(opened, rules, source="..", days=[2])
    finally:
        opened.dispose()
    return settings


def run(args: list[str], settings: Settings, **kwargs: Any) -> Result:
    return CliRunner().invoke(app, args, obj=settings, **kwargs)


def ok_json(args: list[str], settings: Settings, **kwargs: Any) -> Any:
    result = run([*args, "--json"], settings, **kwargs)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return orjson.loads(result.stdout)


def one_line_error(result: Result, needle: str) -> None:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("error: ") and needle in result.stderr, result.stderr


def test_show_since_until_on_publication_time(cli_store: Settings) -> None:
    shown = ok_json(
        ["track", "show", SOURCE, "--since", "2026-02-04", "--until", "2026-02-15"], cli_store
    )
    assert [o["seq"] for o in shown["observations"]] == [7, 3, 1, 4]
    exact = ok_json(["track", "show", SOURCE, "--since", "2026-02-12T13:00:00+01:00"], cli_store)
    assert [o["seq"] for o in exact["observations"]] == [5, 7, 3]
    one_line_error(
        run(["track", "show", SOURCE, "--since", "yesterday"], cli_store),
        "--since must be an ISO-8601",
    )
    one_line_error(
        run(["track", "show", SOURCE, "--until", "2026-02-01T00:00:00"], cli_store), "no time zone"
    )
    one_line_error(
        run(["track", "show", SOURCE, "--since", "2026-02-10", "--until", "2026-02-01"], cli_store),
        "is after --until",
    )


def test_export_all_writes_one_safe_file_per_source(cli_store: Settings, tmp_path: Path) -> None:
    out = tmp_path / "exports"
    summary = ok_json(["track", "export", "--all", "--output", str(out)], cli_store)
    assert summary["sources"] == 3
    written = sorted(path.name for path in out.iterdir())
    assert written == sorted(export_file_name(name) for name in (SOURCE, "acct_1", ".."))
    for each in summary["files"]:
        with Path(each["output"]).open("rb") as stream:
            result = verify_jsonl(stream)
        assert (result.intact, result.source_id, result.checked) == (
            True,
            each["source_id"],
            each["records"],
        )
    one_line_error(run(["track", "export", "--all"], cli_store), "--all needs --output DIR")
    one_line_error(
        run(["track", "export", SOURCE, "--all", "-o", str(out)], cli_store),
        "exactly one of SOURCE or --all",
    )


def test_redact_then_export_marks_it(cli_store: Settings) -> None:
    record = ok_json(
        ["track", "redact", SOURCE, "3", "--reason", "data-protection request"], cli_store
    )
    assert record["redacted"]["reason"] == "data-protection request" and record["text"] is None
    one_line_error(
        run(["track", "redact", SOURCE, "3", "--reason", "again"], cli_store), "already redacted"
    )
    one_line_error(
        run(["track", "redact", SOURCE, "4", "--reason", " "], cli_store), "reason is required"
    )
    lines = [
        orjson.loads(line)
        for line in run(["track", "export", SOURCE], cli_store).stdout.splitlines()
    ]
    assert [line["seq"] for line in lines if line["redacted"]] == [3]
    assert ok_json(["track", "verify", SOURCE], cli_store)["intact"]
    human = run(["track", "show", SOURCE, "-n", "7"], cli_store).stdout
    assert "[redacted: data" in " ".join(human.replace("│", " ").split())


def test_forget_asks_or_needs_yes(cli_store: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    one_line_error(run(["track", "forget", SOURCE], cli_store), "pass --yes")
    monkeypatch.setattr("workbench.commands.track._interactive", lambda: True)
    declined = run(["track", "forget", SOURCE], cli_store, input="n\n")
    assert declined.exit_code == 1 and "nothing was deleted" in declined.stderr
    assert ok_json(["track", "show", SOURCE], cli_store)["profile"]["observation_count"] == 7
    asked = run(["track", "forget", SOURCE], cli_store, input="y\n")
    assert asked.exit_code == 0, asked.stderr
    assert "Delete source acct:1 and its 7 observations?" in asked.stderr
    assert "deleted source acct:1: 7 observations" in asked.stdout
    one_line_error(run(["track", "show", SOURCE], cli_store), "unknown source")
    assert ok_json(["track", "forget", "acct_1", "--yes"], cli_store) == {
        "source_id": "acct_1",
        "deleted_observations": 1,
        "deleted_checkpoints": 0,
    }
    assert ok_json(["track", "list"], cli_store)["total"] == 1


def test_the_source_screen_shows_the_reason_of_a_redacted_record(
    store: Store, rules: TrackingRules
) -> None:
    from workbench.tui.screens.source import observation_row

    _fill(store, rules, days=[1, 2])
    with store.transaction(write=True) as session:
        redacted = redact(SOURCE, 1, "court order 7", session=session)
    with store.transaction() as session:
        kept = observations_page(SOURCE, session=session, limit=1)[1][0]
    cell = observation_row(redacted, {})[-1]
    assert str(cell) == "[redacted: court order 7]"
    assert observation_row(kept, {})[-1] == f"{SOURCE} record 2"


def test_the_export_stream_comes_in_bounded_pieces(store: Store, rules: TrackingRules) -> None:
    with store.transaction(write=True) as session:
        for step in range(1, 301):
            text = f"{step:04d} " + "x" * 600
            append(
                SOURCE,
                classified(step % 5, text),
                text=text,
                store_text=True,
                rules=rules,
                session=session,
                observed_at=at(step),
            )
    with store.transaction() as session:
        pieces = list(export_lines(SOURCE, session=session))
    assert len(pieces) > 2
    longest_line = max(len(line) for piece in pieces for line in piece.splitlines(keepends=True))
    assert all(len(piece) < CHUNK_BYTES + longest_line for piece in pieces)
    assert verify_jsonl(BytesIO(b"".join(pieces))).checked == 300


def test_migration_0004_marks_the_texts_already_kept(store: Store, rules: TrackingRules) -> None:
    """A store at revision 0003 (records hold texts, none has text_kept) upgrades to one
    where removing such a text is caught, and a text never kept is not."""
    from alembic import command

    from store import migrations

    _fill(store, rules, days=[1, 2])
    with store.transaction(write=True) as session:
        append(
            "acct:2",
            classified(1, "never kept"),
            text="never kept",
            store_text=False,
            rules=rules,
            session=session,
        )
    with store.engine.begin() as conn:
        command.downgrade(migrations.config(conn), "0003")
    assert store.revision() == "0003"
    assert store.upgrade().changed
    with store.engine.connect() as conn:
        kept = conn.execute(
            sql_text("SELECT source_id, seq, text_kept FROM observations ORDER BY source_id, seq")
        ).all()
    assert [tuple(row) for row in kept] == [(SOURCE, 1, 1), (SOURCE, 2, 1), ("acct:2", 1, 0)]
    _execute(store, f"UPDATE observations SET text = NULL WHERE source_id = '{SOURCE}' AND seq = 1")
    with store.transaction() as session:
        assert verify_source(SOURCE, session=session, rules=rules).first_broken_seq == 1
        assert verify_source("acct:2", session=session, rules=rules).intact


def test_the_export_stream_writes_what_export_chain_writes(
    store: Store, rules: TrackingRules
) -> None:
    """Signed and unsigned, redacted and not, v2 evidence and none: byte for byte."""
    from store import export_chain
    from store.trust import Trust

    signer = Trust.from_settings(
        Settings(_env_file=None, signing_key="export-hmac-secret-" + "5" * 24)
    ).signer
    _fill(store, rules, days=[3, 1])
    with store.transaction(write=True) as session:
        append(
            SOURCE,
            classified(4, "signed"),
            text="signed",
            store_text=True,
            rules=rules,
            session=session,
            signer=signer,
        )
        redact(SOURCE, 1, "court order", session=session)
    with store.transaction() as session:
        streamed = b"".join(export_lines(SOURCE, session=session))
        written = BytesIO()
        assert export_chain(SOURCE, written, session=session) == 3
    assert streamed == written.getvalue()
    assert b'"signature":' in streamed.splitlines()[2]
