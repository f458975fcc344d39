"""Issue 14 through the front ends: observe with evidence, bulk ingest, the tampered head.

The API on SQLite and PostgreSQL (one store per module and backend); the CLI on
SQLite files (its store code is the API's, tested on both backends here and in
tests/test_tracking_evidence.py). Concurrent ingests of one file run on both.
"""

from __future__ import annotations

import os
import secrets
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from sqlalchemy import text
from typer.testing import CliRunner, Result

import api.models as wire
from api.app import create_app
from engine import Classifier, Settings
from store import TrackingRules, get_profile, open_store, verify_source
from store.ingest import IngestRow, ingest
from tests.cli_support import isolate_cli
from workbench.cli import app as cli_app

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytest.register_assert_rewrite("tests.store_fixtures")
from tests.store_fixtures import BACKENDS, fresh_pg_schema  # noqa: E402

pytest_plugins = ["tests.store_fixtures"]

VERMIN = "Muslims are vermin."  # animalization, 3
KILL = "Kill all Muslims."  # direct_call_to_violence, 4
CALM = "I had a lovely walk along the river today."


@pytest.fixture(scope="module", autouse=True)
def _clean_environment() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        for name in list(os.environ):
            setting = name.startswith(("HARMWATCH_", "TRACKING_", "TEXT_ANALYTICS_"))
            if (setting and not name.startswith("HARMWATCH_TEST_")) or name == "DATABASE_URL":
                patch.delenv(name)
        yield


@pytest.fixture(scope="module", params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('ingest')}/tracking.sqlite3"
    return fresh_pg_schema(request.getfixturevalue("pg_database"))


@pytest.fixture(scope="module")
def client(classifier: Classifier, url: str) -> Iterator[TestClient]:
    app = create_app(Settings(_env_file=None, tracking_db_url=url), classifier=classifier)
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def source() -> str:
    return f"acct:{secrets.token_hex(6)}"


def detail(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 422, response.text
    errors: list[dict[str, Any]] = response.json()["detail"]
    return errors


# -- observe over HTTP ----------------------------------------------------------------------


def test_observe_keeps_the_evidence(client: TestClient, source: str) -> None:
    body = {
        "text": VERMIN,
        "published_at": "2025-12-31T22:00:00+01:00",
        "url": "https://example.org/p/9",
        "metadata": {"platform": "forum", "ids": [1, 2]},
    }
    response = client.post(f"/tracking/{source}/observe", json=body)
    assert response.status_code == 201, response.text
    payload = response.json()
    wire.ObserveResponse.model_validate(payload)
    observation = payload["observation"]
    assert observation["published_at"] == "2025-12-31T21:00:00.000000Z"
    assert (observation["url"], observation["metadata"]) == (body["url"], body["metadata"])
    assert observation["decision"]["row_id"] is not None
    assert (
        observation["decision"]["taxonomy_digest"]
        == client.get("/health").json()["taxonomy_digest"]
    )
    profile = payload["profile"]
    assert profile["last_observed_at"] == observation["published_at"]
    assert (profile["peak_severity"], profile["last_escalation_at"]) == (
        3,
        observation["published_at"],
    )
    # An older publication is placed by its time: the current severity stays the latest's.
    older = client.post(
        f"/tracking/{source}/observe", json={"text": KILL, "published_at": "2025-01-01T00:00:00Z"}
    ).json()
    assert older["observation"]["seq"] == 2
    assert older["profile"]["current_severity"] == 3
    assert older["profile"]["peak_severity"] == 4
    assert older["profile"]["first_observed_at"] == "2025-01-01T00:00:00.000000Z"


@pytest.mark.parametrize(
    ("extra", "field", "needle"),
    [
        ({"published_at": "2099-01-01T00:00:00Z"}, "published_at", "HARMWATCH_MAX_FUTURE_SKEW_S"),
        ({"published_at": "2025-01-01T00:00:00"}, "published_at", "no time zone"),
        ({"published_at": "soon"}, "published_at", "ISO-8601"),
        ({"url": "file:///etc/passwd"}, "url", "http:// or https://"),
        ({"metadata": {"a": {"b": {"c": {"d": {"e": 1}}}}}}, "metadata", "the limit is 4"),
        ({"metadata": {"blob": "x" * 5000}}, "metadata", "the limit is 4096"),
    ],
)
def test_observe_refuses_bad_evidence_naming_the_field(
    client: TestClient, source: str, extra: dict[str, Any], field: str, needle: str
) -> None:
    errors = detail(client.post(f"/tracking/{source}/observe", json={"text": VERMIN, **extra}))
    assert errors[0]["loc"] == ["body", field]
    assert needle in errors[0]["msg"]
    assert client.get(f"/tracking/{source}").status_code == 404  # nothing was written


def test_a_tampered_head_is_a_409(client: TestClient, url: str, source: str) -> None:
    assert client.post(f"/tracking/{source}/observe", json={"text": VERMIN}).status_code == 201
    store = open_store(Settings(_env_file=None, tracking_db_url=url))
    try:
        with store.engine.begin() as conn:
            conn.execute(
                text("UPDATE observations SET severity = 0 WHERE source_id = :s"), {"s": source}
            )
    finally:
        store.dispose()
    response = client.post(f"/tracking/{source}/observe", json={"text": KILL})
    assert response.status_code == 409
    assert "no longer matches its record_hash" in response.json()["detail"]
    assert client.get(f"/tracking/{source}").json()["observation_count"] == 1


# -- POST /tracking/ingest -------------------------------------------------------------------


def test_ingest_appends_the_valid_items_and_lists_the_others(
    client: TestClient, source: str
) -> None:
    other = source + ":b"
    items = [
        {"source_id": source, "text": VERMIN, "published_at": "2025-03-01T00:00:00Z"},
        {"source_id": "bad id", "text": VERMIN},
        {"source_id": other, "text": CALM, "url": "https://example.org/x"},
        {"source_id": source, "text": "  "},
        {"source_id": source, "text": KILL, "published_at": "2025-02-01T00:00:00Z"},
        {"source_id": source, "text": CALM, "published_at": "2099-01-01T00:00:00Z"},
        {"source_id": other, "text": CALM, "metadata": {"n": 1e-05}},
    ]
    response = client.post("/tracking/ingest", json={"items": items})
    assert response.status_code == 200, response.text
    payload = response.json()
    wire.IngestResponse.model_validate(payload)
    assert (payload["appended"], payload["skipped"]) == (3, 0)
    assert [error["index"] for error in payload["errors"]] == [1, 3, 5, 6]
    assert "source_id" in payload["errors"][0]["detail"]
    assert "text must not be empty" in payload["errors"][1]["detail"]
    assert "published_at" in payload["errors"][2]["detail"]
    assert "metadata" in payload["errors"][3]["detail"]
    profile = client.get(f"/tracking/{source}").json()
    # Appended in item order (seq 1: VERMIN, seq 2: KILL); KILL was published first.
    assert profile["observation_count"] == 2
    assert profile["current_severity"] == 3
    assert profile["first_observed_at"] == "2025-02-01T00:00:00.000000Z"
    assert client.get(f"/tracking/{source}/verify").json()["intact"]
    again = client.post("/tracking/ingest", json={"items": items, "skip_existing": True}).json()
    # The dated items are there at their times; the undated one was appended undated.
    assert (again["appended"], again["skipped"]) == (0, 3)
    assert client.get(f"/tracking/{other}").json()["observation_count"] == 1


def test_a_chunk_keeps_awkward_text_url_and_metadata_exactly(
    client: TestClient, source: str
) -> None:
    """A chunk goes in as one COPY on PostgreSQL (one executemany on SQLite): tabs,
    newlines, backslashes, a literal \\N, quotes and astral characters come back
    byte for byte, and each record's text_kept says its text was stored."""
    awkward = [
        "tab\there, newline\nthere, return\r",
        "back\\slash \\N and a lone \\",
        "quotes ' \" ` and a comma, ; |",
        "astral \U0001f600 and combining e\u0301 and RTL \u05d0\u05d1",
        "\\N",
    ]
    items = [
        {
            "source_id": source,
            "text": text,
            "published_at": f"2025-04-0{index + 1}T00:00:00Z",
            "url": f"https://example.org/{index}?q=a\\b",
            "metadata": {"note": text, "n": index},
        }
        for index, text in enumerate(awkward)
    ]
    response = client.post("/tracking/ingest", json={"items": items})
    assert response.json()["appended"] == len(awkward), response.text
    page = client.get(f"/tracking/{source}/observations", params={"order": "asc"}).json()
    records = page["observations"] if isinstance(page, dict) else page
    assert [each["text"] for each in records] == awkward
    assert [each["url"] for each in records] == [item["url"] for item in items]
    assert [each["metadata"] for each in records] == [item["metadata"] for item in items]
    assert client.get(f"/tracking/{source}/verify").json()["intact"]


def test_batches_and_chunks_keep_input_order_and_all_rows(
    classifier: Classifier, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With batches of 7 rows over 3 sources and transactions of at most 2 records, every
    row lands once, in input order per source, the progress callback sees every batch,
    and each chain verifies."""
    import store.ingest

    monkeypatch.setattr(store.ingest, "BATCH", 7)
    monkeypatch.setattr(store.ingest, "CHUNK", 2)
    prefix = f"order:{secrets.token_hex(3)}"
    rows = [
        IngestRow(
            position=index,
            source_id=f"{prefix}:{index % 3}",
            text=f"{VERMIN} #{index}" if index % 2 else f"{CALM} #{index}",
            published_at=f"2025-05-01T00:{index:02d}:00Z",
        )
        for index in range(30)
    ]
    seen: list[int] = []
    store = open_store(Settings(_env_file=None, tracking_db_url=url))
    try:
        report = ingest(
            rows,
            classifier=classifier,
            store=store,
            rules=TrackingRules.from_taxonomy(classifier.root, Settings(_env_file=None)),
            store_text=True,
            max_future_skew_s=300,
            progress=seen.append,
        )
        assert (report.appended, report.skipped, report.errors) == (30, 0, [])
        assert seen == [7, 7, 7, 7, 2]
        with store.transaction() as session:
            for k in range(3):
                source_id = f"{prefix}:{k}"
                texts = (
                    session.execute(
                        text("SELECT text FROM observations WHERE source_id = :s ORDER BY seq"),
                        {"s": source_id},
                    )
                    .scalars()
                    .all()
                )
                assert texts == [row.text for row in rows if row.source_id == source_id]
                assert verify_source(source_id, session=session).intact
    finally:
        store.dispose()


def test_an_undated_ingest_rerun_appends_nothing(client: TestClient, source: str) -> None:
    """Rows without published_at are published "now" at each run: a rerun matches them by
    text against the records that were themselves appended undated, never a dated one."""
    dated = {"source_id": source, "text": KILL, "published_at": "2025-01-01T00:00:00Z"}
    assert client.post("/tracking/ingest", json={"items": [dated]}).json()["appended"] == 1
    items = [
        {"source_id": source, "text": VERMIN},
        {"source_id": source, "text": CALM, "url": "https://example.org/a"},
        {"source_id": source, "text": KILL},  # the same text as the dated record
        {"source_id": source, "text": VERMIN},  # a repeat within the request
    ]
    body = {"items": items, "skip_existing": True}
    first = client.post("/tracking/ingest", json=body).json()
    assert (first["appended"], first["skipped"], first["errors"]) == (3, 1, [])
    for _ in range(2):
        again = client.post("/tracking/ingest", json=body).json()
        assert (again["appended"], again["skipped"], again["errors"]) == (0, 4, [])
    # An undated observe of a text counts too: its record is undated like an ingested one.
    assert client.post(f"/tracking/{source}/observe", json={"text": CALM + "!"}).status_code == 201
    repeat = {"items": [{"source_id": source, "text": CALM + "!"}], "skip_existing": True}
    assert client.post("/tracking/ingest", json=repeat).json()["skipped"] == 1
    assert client.get(f"/tracking/{source}").json()["observation_count"] == 5
    assert client.get(f"/tracking/{source}/verify").json()["intact"]


@pytest.mark.parametrize(
    ("item", "needle"),
    [
        ({"metadata": ["a", "list"]}, "metadata must be a JSON object"),
        ({"metadata": "text"}, "metadata must be a JSON object"),
        ({"url": 12}, "url must be a string"),
        ({"url": {"href": "https://example.org"}}, "url must be a string"),
        ({"published_at": 1735689600}, "published_at must be a string"),
        ({"published_at": True}, "published_at must be a string"),
        ({"language": 7}, "language must be a string"),
        ({"language": "x" * 65}, "language is 65 characters; the limit is 64"),
        ({"text": 42}, "text must be a string"),
        ({"source_id": ["acct"]}, "source_id must be a string"),
    ],
)
def test_a_wrongly_typed_item_is_listed_and_the_others_appended(
    client: TestClient, source: str, item: dict[str, Any], needle: str
) -> None:
    bad = {"source_id": source, "text": VERMIN, **item}
    items = [{"source_id": source, "text": CALM}, bad, {"source_id": source, "text": KILL}]
    response = client.post("/tracking/ingest", json={"items": items})
    assert response.status_code == 200, response.text
    payload = response.json()
    wire.IngestResponse.model_validate(payload)
    assert payload["appended"] == 2
    assert [error["index"] for error in payload["errors"]] == [1]
    assert needle in payload["errors"][0]["detail"]
    assert client.get(f"/tracking/{source}").json()["observation_count"] == 2


@pytest.mark.parametrize(
    "body",
    [
        {"items": []},
        {"items": [{"source_id": "a", "text": "x"}] * 1001},
        {"items": [{"source_id": "a"}]},
        {"items": [{"source_id": "a", "text": "x", "colour": "red"}]},
        {"rows": []},
        {"items": [{"source_id": "a", "text": "x"}], "skip_existing": "yes"},
        {"items": ["a text, not an item"]},
        {"items": {"source_id": "a", "text": "x"}},
        ["not", "an", "object"],
    ],
)
def test_a_malformed_ingest_body_is_a_422(client: TestClient, body: object) -> None:
    detail(client.post("/tracking/ingest", json=body))


# -- concurrent ingests ----------------------------------------------------------------------


def test_concurrent_ingests_of_one_file_append_each_row_once(
    classifier: Classifier, rules: TrackingRules, url: str, source: str
) -> None:
    rows = [
        IngestRow(i, source, f"{CALM} {i}", published_at=f"2025-01-{1 + i % 28:02d}T00:00:00Z")
        for i in range(120)
    ]
    store = open_store(Settings(_env_file=None, tracking_db_url=url))
    reports: list[Any] = []
    barrier = threading.Barrier(3)

    def run() -> None:
        barrier.wait()
        reports.append(
            ingest(
                rows,
                classifier=classifier,
                store=store,
                rules=rules,
                store_text=True,
                max_future_skew_s=300,
                skip_existing=True,
            )
        )

    try:
        threads = [threading.Thread(target=run) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert sum(report.appended for report in reports) == 120
        assert sum(report.skipped for report in reports) == 240
        with store.transaction() as session:
            assert get_profile(source, session=session).observation_count == 120
            assert verify_source(source, session=session, rules=rules).intact
    finally:
        store.dispose()


# -- the CLI ---------------------------------------------------------------------------------


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, classifier: Classifier) -> Settings:
    isolate_cli(monkeypatch, tmp_path)
    for module in ("workbench.commands.track", "workbench.commands.track_ingest"):
        monkeypatch.setattr(f"{module}.build_classifier", lambda _s: classifier)
    return Settings(_env_file=None, tracking_db_url=f"sqlite:///{tmp_path}/cli.sqlite3")


def run(args: list[str], settings: Settings) -> Result:
    return CliRunner().invoke(cli_app, args, obj=settings)


def count(settings: Settings) -> int:
    store = open_store(settings)
    try:
        with store.engine.connect() as conn:
            return int(conn.execute(text("SELECT COUNT(*) FROM observations")).scalar_one())
    finally:
        store.dispose()


def one_error_line(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("error: ") and len(result.stderr.strip().splitlines()) == 1
    for needle in needles:
        assert needle in result.stderr


JSONL_ROWS = [
    {"source_id": "acct:1", "text": VERMIN, "published_at": "2025-05-01T00:00:00Z", "x": 1},
    {"source_id": "acct:1", "text": KILL, "published_at": "2025-04-01T00:00:00Z"},
    {"source_id": "acct:2", "text": CALM, "published_at": "2025-04-01", "url": "https://e.org"},
    {"source_id": "acct:2", "text": CALM, "published_at": "2025-04-02T00:00:00Z", "metadata": 7},
    {"source_id": "acct:2", "text": CALM, "published_at": "2025-04-03T00:00:00Z"},
]


def test_cli_ingest_appends_valid_rows_lists_the_rest_and_reruns_idempotently(
    cli: Settings, tmp_path: Path
) -> None:
    path = tmp_path / "feed.jsonl"
    lines = [orjson.dumps(row).decode() for row in JSONL_ROWS]
    path.write_text("\n".join([*lines[:2], "{broken", *lines[2:]]) + "\n", encoding="utf-8")
    first = run(["track", "ingest", str(path), "--json"], cli)
    assert first.exit_code == 1, (first.stdout, first.stderr)
    report = orjson.loads(first.stdout)
    assert (report["appended"], report["skipped"]) == (3, 0)
    assert [error["line"] for error in report["errors"]] == [3, 4, 5]
    assert "invalid JSON" in report["errors"][0]["detail"]
    assert "no time zone" in report["errors"][1]["detail"]
    assert "metadata must be a JSON object" in report["errors"][2]["detail"]
    human = run(["track", "ingest", str(path), "--skip-existing"], cli)
    assert human.exit_code == 1
    assert "appended 0 observation(s)" in human.stdout and "skipped 3" in human.stdout
    assert f"{path}:4: published_at has no time zone" in " ".join(human.stderr.split())
    assert count(cli) == 3
    shown = orjson.loads(run(["track", "show", "acct:1", "--json"], cli).stdout)
    assert shown["chain"]["intact"]
    assert shown["profile"]["current_severity"] == 3  # published last, appended first
    assert shown["profile"]["peak_severity"] == 4


def test_cli_ingest_rerun_of_undated_rows_appends_nothing(cli: Settings, tmp_path: Path) -> None:
    path = tmp_path / "undated.csv"
    path.write_text(
        f'source_id,text,published_at\nacct:u,"{VERMIN}",\nacct:u,{CALM},\n'
        f"acct:v,{CALM},\nacct:u,{KILL},2025-01-02T00:00:00Z\n",
        encoding="utf-8",
    )
    first = run(["track", "ingest", str(path), "--skip-existing", "--json"], cli)
    assert first.exit_code == 0, (first.stdout, first.stderr)
    assert orjson.loads(first.stdout) == {"appended": 4, "skipped": 0, "errors": []}
    for _ in range(2):
        again = run(["track", "ingest", str(path), "--skip-existing", "--json"], cli)
        assert again.exit_code == 0, (again.stdout, again.stderr)
        assert orjson.loads(again.stdout) == {"appended": 0, "skipped": 4, "errors": []}
    assert count(cli) == 4
    # Without --skip-existing a rerun appends every row again, as before.
    assert orjson.loads(run(["track", "ingest", str(path), "--json"], cli).stdout)["appended"] == 4


def test_cli_ingest_reads_csv_with_column_options(cli: Settings, tmp_path: Path) -> None:
    path = tmp_path / "feed.csv"
    path.write_text(
        "who,body,when,meta,ignored\n"
        f'acct:c,"{VERMIN}",2025-01-01T00:00:00Z,"{{""k"": [1, 2]}}",zzz\n'
        f"acct:c,{CALM},,,\n"
        f'acct:c,{KILL},2025-01-02T00:00:00Z,"{{not json",\n',
        encoding="utf-8",
    )
    args = ["--source-col", "who", "--text-col", "body", "--published-col", "when"]
    result = run(["track", "ingest", str(path), *args, "--metadata-col", "meta", "--json"], cli)
    assert result.exit_code == 1, (result.stdout, result.stderr)
    report = orjson.loads(result.stdout)
    assert report["appended"] == 2
    assert [(e["line"], e["detail"][:26]) for e in report["errors"]] == [
        (4, "metadata is not valid JSON")
    ]


def test_cli_ingest_file_problems_stop_before_anything_is_appended(
    cli: Settings, tmp_path: Path
) -> None:
    good = tmp_path / "feed.jsonl"
    good.write_text(orjson.dumps(JSONL_ROWS[0]).decode() + "\n", encoding="utf-8")
    one_error_line(
        run(["track", "ingest", str(good), "--url-col", "link"], cli),
        "column 'link' (--url-col) is in no line",
    )
    bad_bytes = tmp_path / "latin1.jsonl"
    bad_bytes.write_bytes(good.read_bytes() + '{"text": "caf\xe9"}\n'.encode("latin-1"))
    one_error_line(run(["track", "ingest", str(bad_bytes)], cli), "not valid UTF-8")
    header = tmp_path / "feed.csv"
    header.write_text("source_id,body\nacct:1,hello\n", encoding="utf-8")
    one_error_line(run(["track", "ingest", str(header)], cli), "no column 'text'")
    one_error_line(run(["track", "ingest", str(tmp_path / "missing.jsonl")], cli), "missing")
    assert count(cli) == 0


def test_cli_observe_takes_evidence_and_refuses_bad_values(cli: Settings) -> None:
    done = run(
        [
            "track",
            "observe",
            "acct:1",
            VERMIN,
            "--published-at",
            "2025-06-01T12:00:00Z",
            "--url",
            "https://example.org/a",
            "--metadata",
            '{"n": 1}',
            "--json",
        ],
        cli,
    )
    assert done.exit_code == 0, done.stderr
    observation = orjson.loads(done.stdout)["observation"]
    assert observation["published_at"] == "2025-06-01T12:00:00.000000Z"
    assert observation["metadata"] == {"n": 1}
    for option, value, needle in (
        ("--published-at", "2025-06-01T12:00:00", "published_at has no time zone"),
        ("--url", "gopher://x", "url must be an http:// or https:// URL"),
        ("--metadata", "[1]", "metadata must be a JSON object"),
        ("--metadata", "{", "metadata is not valid JSON"),
    ):
        one_error_line(run(["track", "observe", "acct:1", VERMIN, option, value], cli), needle)
    assert count(cli) == 1


def test_cli_observe_refuses_a_tampered_head(cli: Settings) -> None:
    assert run(["track", "observe", "acct:1", VERMIN], cli).exit_code == 0
    store = open_store(cli)
    try:
        with store.engine.begin() as conn:
            conn.execute(text("UPDATE observations SET harm_mechanism = NULL"))
    finally:
        store.dispose()
    one_error_line(
        run(["track", "observe", "acct:1", CALM], cli),
        "head record (seq 1) no longer matches its record_hash",
        "harmwatch track verify",
    )
    assert count(cli) == 1
