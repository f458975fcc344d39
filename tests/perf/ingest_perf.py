"""`make perf` section "ingest" (issue 14): bulk ingest observations/s from one process.

Target, recorded next to each measurement: >= 5,000 observations/s into SQLite
and into PostgreSQL, end to end in one process: rows checked, classified with
``classify_many`` (280-character texts of tests/perf/corpus.py, the
moderation-queue mix), appended per source in chunks (one transaction and
one profile update per chunk), a tenth of the rows backfilled (published a year
before their source's latest). Two figures each:

- ``rows_per_s``: ``store.ingest`` over rows already read (what
  ``POST /tracking/ingest`` does with a body);
- ``file_per_s``: a JSONL file read the way ``track ingest FILE`` reads it
  (a scan of the whole file first, then the rows), classified and appended.

Also reported: the classifier alone on the same texts (``classify_many``), so
the share the store takes can be read off. An fsync per commit makes figures
depend on the disk and on whatever else the machine does: each figure is the
best of ``ROUNDS`` runs into a fresh store. PostgreSQL needs the server of
HARMWATCH_TEST_PG_URL (a scratch database is created and dropped).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from engine import Classifier, Settings, load_taxonomy
from store import Store, TrackingRules, open_store
from store.chain import format_observed_at
from store.ingest import IngestRow, ingest
from tests.perf.corpus import build_corpus
from tests.perf.store_perf import _pg_unreachable, _scratch_pg_database
from workbench.ingest_file import IngestColumns, IngestFile
from workbench.samples import SampleFormat

ROWS = 20_000
SOURCES = 200
ROUNDS = 3
TARGETS = {"ingest_per_s_min": 5000.0}
START = datetime(2025, 1, 1, tzinfo=UTC)


def _records(texts: list[str]) -> list[dict[str, Any]]:
    """Rows over SOURCES sources, a minute apart; every tenth a backfill, published a year
    earlier than the rows before it (so its source's profile replays the region it lands in)."""
    out = []
    for i in range(ROWS):
        published = START + timedelta(minutes=i) - timedelta(days=365 if i % 10 == 9 else 0)
        record: dict[str, Any] = {
            "source_id": f"feed:{i % SOURCES}",
            "text": texts[i % len(texts)],
            "published_at": format_observed_at(published),
        }
        if i % 4 == 0:
            record["url"] = f"https://example.org/posts/{i}"
            record["metadata"] = {"platform": "forum", "thread": i // 7, "lang": "en"}
        out.append(record)
    return out


def _rows(records: list[dict[str, Any]]) -> list[IngestRow]:
    return [
        IngestRow(
            position=index,
            source_id=record["source_id"],
            text=record["text"],
            published_at=record["published_at"],
            url=record.get("url"),
            metadata=record.get("metadata"),
        )
        for index, record in enumerate(records)
    ]


def _best_rate(
    open_fresh: Callable[[], Store], run: Callable[[Store], int]
) -> tuple[float, list[float]]:
    rates = []
    for _ in range(ROUNDS):
        store = open_fresh()
        try:
            start = time.perf_counter()
            appended = run(store)
            rates.append(appended / (time.perf_counter() - start))
        finally:
            store.dispose()
    return max(rates), rates


def _figures(
    open_fresh: Callable[[], Store],
    classifier: Classifier,
    rules: TrackingRules,
    records: list[dict[str, Any]],
    jsonl: Path,
) -> dict[str, Any]:
    rows = _rows(records)

    def from_rows(store: Store) -> int:
        report = ingest(
            rows,
            classifier=classifier,
            store=store,
            rules=rules,
            store_text=True,
            max_future_skew_s=300,
        )
        if report.errors or report.appended != ROWS:
            raise RuntimeError(f"the benchmark rows did not all append: {report.errors[:3]}")
        return report.appended

    def from_file(store: Store) -> int:
        reader = IngestFile(jsonl, SampleFormat.JSONL, IngestColumns(), classifier.max_text_chars)
        reader.scan()
        report = ingest(
            reader.rows(),
            classifier=classifier,
            store=store,
            rules=rules,
            store_text=True,
            max_future_skew_s=300,
        )
        return report.appended

    rows_rate, rows_rounds = _best_rate(open_fresh, from_rows)
    file_rate, file_rounds = _best_rate(open_fresh, from_file)
    target = TARGETS["ingest_per_s_min"]
    return {
        "rows": ROWS,
        "sources": SOURCES,
        "rows_per_s": round(rows_rate),
        "rows_rounds_per_s": [round(rate) for rate in rows_rounds],
        "file_per_s": round(file_rate),
        "file_rounds_per_s": [round(rate) for rate in file_rounds],
        "target_met": min(rows_rate, file_rate) >= target,
    }


def ingest_section() -> dict[str, Any]:
    """Issue 14: bulk ingest into SQLite and PostgreSQL, observations/s from one process."""
    taxonomy = load_taxonomy()
    classifier = Classifier(taxonomy)
    rules = TrackingRules.from_taxonomy(taxonomy.root, Settings(_env_file=None))
    texts = build_corpus()
    records = _records(texts)
    classifier.classify_many((text, None, None) for text in texts)  # warm the pipelines
    start = time.perf_counter()
    classifier.classify_many((record["text"], None, None) for record in records)
    classify_rate = ROWS / (time.perf_counter() - start)
    result: dict[str, Any] = {
        "targets": TARGETS,
        "classify_many_only_per_s": round(classify_rate),
    }
    with tempfile.TemporaryDirectory(prefix="harmwatch-ingest-") as tmp:
        directory = Path(tmp)
        jsonl = directory / "feed.jsonl"
        jsonl.write_bytes(b"".join(orjson.dumps(record) + b"\n" for record in records))
        counter = iter(range(1_000_000))

        def fresh_sqlite() -> Store:
            url = f"sqlite:///{directory / f'ingest-{next(counter)}.sqlite3'}"
            return open_store(Settings(_env_file=None, tracking_db_url=url))

        result["sqlite"] = _figures(fresh_sqlite, classifier, rules, records, jsonl)
        reason = _pg_unreachable()
        if reason is not None:
            result["postgresql"] = {"skipped": f"PostgreSQL unreachable: {reason}"}
            return result
        with _scratch_pg_database() as base:
            schemas = iter(range(1_000_000))

            def fresh_postgres() -> Store:
                schema = f"ingest_{next(schemas)}"
                store = open_store(Settings(_env_file=None, tracking_db_url=base), migrate=False)
                try:
                    with store.engine.begin() as conn:
                        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
                finally:
                    store.dispose()
                url = f"{base}?options=-csearch_path%3D{schema}"
                return open_store(Settings(_env_file=None, tracking_db_url=url))

            result["postgresql"] = _figures(fresh_postgres, classifier, rules, records, jsonl)
    return result


if __name__ == "__main__":  # a quick look without the whole of `make perf`
    print(orjson.dumps(ingest_section(), option=orjson.OPT_INDENT_2).decode())
