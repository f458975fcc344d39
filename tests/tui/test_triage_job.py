"""The triage run without the UI: reading, column errors, following a growing file, export."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import orjson
import pytest

from engine import Classifier
from workbench.tui.triage_job import (
    Follower,
    JobStopped,
    TriageJob,
    TriageOptions,
    TriageOutcome,
    TriageRow,
    check_file,
    expected_rows,
    export_jsonl,
    recorder,
)

HARMFUL = "Those refugees are cockroaches infesting our cities"
BENIGN = "The train was late again this morning"
NEGATED = "It is not true that immigrants are vermin"


def jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def job(
    classifier: Classifier,
    options: TriageOptions,
    *,
    stop: Callable[[], bool] = lambda: False,
    sleep: Callable[[float], None] | None = None,
    record: Callable[[list[TriageRow]], int] | None = None,
) -> tuple[TriageJob, list[TriageRow], list[str]]:
    rows: list[TriageRow] = []
    notices: list[str] = []
    triage = TriageJob(
        options,
        classify_many=lambda items: list(classifier.classify_many(items)),
        check=lambda text, language: classifier.check_input(text, None, language),
        max_text_chars=classifier.max_text_chars,
        emit=lambda done, batch, recorded: rows.extend(batch),
        should_stop=stop,
        record=record,
        notice=notices.append,
        sleep=sleep or (lambda seconds: None),
        poll=0.01,
        batch=3,
    )
    return triage, rows, notices


# -- reading ----------------------------------------------------------------------------


def test_reads_and_classifies_every_row_in_order(classifier: Classifier, tmp_path: Path) -> None:
    path = jsonl(
        tmp_path / "feed.jsonl",
        [{"text": HARMFUL, "id": "a"}, {"text": BENIGN}, {"text": NEGATED}, {"text": HARMFUL}],
    )
    triage, rows, _ = job(classifier, TriageOptions(path))
    outcome = triage.run()
    assert outcome == TriageOutcome(done=4)
    assert [row.line for row in rows] == [1, 2, 3, 4]
    assert [row.result.is_harmful for row in rows] == [True, False, False, True]
    assert rows[0].item_id == "a"
    assert rows[2].result.signals_suppressed
    assert expected_rows(path, check_file(path)) == 4


def test_csv_with_named_columns(classifier: Classifier, tmp_path: Path) -> None:
    path = tmp_path / "posts.csv"
    path.write_text(f"who,body,lang\nu1,{HARMFUL},en\nu2,{BENIGN},\n", encoding="utf-8")
    options = TriageOptions(path, text_col="body", language_col="lang", source_col="who")
    triage, rows, _ = job(classifier, options)
    assert triage.run().error is None
    assert [(row.line, row.source, row.language) for row in rows] == [
        (2, "u1", "en"),
        (3, "u2", None),
    ]
    assert expected_rows(path, check_file(path)) == 2


@pytest.mark.parametrize(
    ("content", "options", "expected"),
    [
        (b'{"text": "fine"}\n{"text": \n', {}, "feed.jsonl:2: invalid JSON"),
        (b'{"body": "fine"}\n', {}, "feed.jsonl:1: no column 'text' (text column)"),
        (b'{"text": "fine"}\n', {"language_col": "lang"}, "column 'lang' (language column)"),
        (b'{"text": "caf\xe9"}\n', {}, "feed.jsonl:1: not valid UTF-8"),
        (b"", {}, "feed.jsonl: the file has no samples"),
        (b'{"text": ""}\n', {}, "feed.jsonl:1: text must not be empty"),
    ],
)
def test_file_errors_name_the_file_and_line(
    classifier: Classifier,
    tmp_path: Path,
    content: bytes,
    options: dict[str, str],
    expected: str,
) -> None:
    path = tmp_path / "feed.jsonl"
    path.write_bytes(content)
    triage, _, _ = job(classifier, TriageOptions(path, **options))
    error = triage.run().error
    assert error is not None
    assert error.startswith(expected) or expected in error
    assert str(tmp_path) not in error


def test_rows_before_a_bad_line_are_kept(classifier: Classifier, tmp_path: Path) -> None:
    path = tmp_path / "feed.jsonl"
    path.write_bytes(b'{"text": "one"}\n{"text": "two"}\n[1]\n{"text": "four"}\n')
    triage, rows, _ = job(classifier, TriageOptions(path))
    outcome = triage.run()
    assert outcome.error == "feed.jsonl:3: a line must be a JSON object, not an array"
    assert [row.text for row in rows] == ["one", "two"]


def test_missing_and_unknown_files(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no such file"):
        check_file(tmp_path / "absent.jsonl")
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown format"):
        check_file(tmp_path / "notes.txt")


def test_stops_between_batches(classifier: Classifier, tmp_path: Path) -> None:
    path = jsonl(tmp_path / "feed.jsonl", [{"text": BENIGN}] * 20)
    calls = iter(range(100))
    triage, rows, _ = job(classifier, TriageOptions(path), stop=lambda: next(calls) >= 1)
    outcome = triage.run()
    assert outcome.cancelled
    assert outcome.done == len(rows) == 6  # two batches of three, then it stopped


# -- recording --------------------------------------------------------------------------


def test_recorder_refuses_rows_without_a_valid_source(
    classifier: Classifier, tmp_path: Path
) -> None:
    path = tmp_path / "posts.csv"
    path.write_text(
        f"who,text\nu1,{HARMFUL}\n,{BENIGN}\nbad id!,{BENIGN}\nu1,{BENIGN}\n", encoding="utf-8"
    )
    observed: list[str] = []

    def observe_many(items: list[tuple[str, str, object]]) -> list[str | None]:
        outcomes: list[str | None] = []
        for source, _, _ in items:
            if " " in source:
                outcomes.append("invalid source id")
            else:
                observed.append(source)
                outcomes.append(None)
        return outcomes

    triage, rows, _ = job(
        classifier,
        TriageOptions(path, source_col="who", record=True),
        record=recorder(observe_many),
    )
    outcome = triage.run()
    assert (outcome.done, outcome.recorded, outcome.not_recorded) == (4, 2, 2)
    assert observed == ["u1", "u1"]
    assert [row.not_recorded for row in rows] == [
        None,
        "no source id (the source column is empty)",
        "invalid source id",
        None,
    ]


def test_a_store_failure_stops_the_job(classifier: Classifier, tmp_path: Path) -> None:
    path = jsonl(tmp_path / "feed.jsonl", [{"text": BENIGN, "src": "a"}] * 5)

    def broken(rows: list[TriageRow]) -> int:
        raise JobStopped("the tracking store went away")

    triage, _, _ = job(classifier, TriageOptions(path, source_col="src"), record=broken)
    assert triage.run().error == "the tracking store went away"


# -- following --------------------------------------------------------------------------


def scripted(*steps: Callable[[], None]) -> tuple[Callable[[float], None], Callable[[], bool]]:
    """A sleep that runs the next step each time it is called, and a stop once they are done."""
    pending: Iterator[Callable[[], None]] = iter(steps)
    done = [False]

    def sleep(seconds: float) -> None:
        step = next(pending, None)
        if step is None:
            done[0] = True
        else:
            step()

    return sleep, lambda: done[0]


def append_to(path: Path, data: bytes) -> Callable[[], None]:
    def step() -> None:
        with path.open("ab") as out:
            out.write(data)

    return step


def truncate(path: Path, data: bytes) -> Callable[[], None]:
    def step() -> None:
        path.write_bytes(data)  # opens with O_TRUNC: same inode, shorter

    return step


def rotate(path: Path, rest: bytes, data: bytes) -> Callable[[], None]:
    def step() -> None:
        with path.open("ab") as out:
            out.write(rest)  # written just before the rotation: still read from the old file
        path.replace(path.with_suffix(".1"))
        path.write_bytes(data)

    return step


def test_follower_yields_each_new_line_once(tmp_path: Path) -> None:
    path = tmp_path / "feed.log"
    path.write_bytes(b"a1\na2\n")
    sleep, stop = scripted(
        append_to(path, b"a3\n"),
        append_to(path, b"a4 par"),  # a partial line waits for its newline
        lambda: None,
        append_to(path, b"tial\na5\n"),
        truncate(path, b"b1\n"),
        append_to(path, b"b2\n"),
        rotate(path, b"b3\nb4 unfinished", b"c1\n"),
        append_to(path, b"c2\n"),
    )
    notices: list[str] = []
    idles: list[int] = []
    follower = Follower(
        path,
        cap=1000,
        should_stop=stop,
        on_idle=lambda: idles.append(1),
        on_notice=notices.append,
        poll=0.01,
        sleep=sleep,
    )
    got = [[line for line in segment] for segment in follower.segments()]
    assert got == [
        [b"a1\n", b"a2\n", b"a3\n", b"a4 partial\n", b"a5\n"],
        [b"b1\n", b"b2\n", b"b3\n", b"b4 unfinished"],
        [b"c1\n", b"c2\n"],
    ]
    assert notices == [
        "feed.log was truncated; reading it again from its start",
        "feed.log was replaced; reading the new file from its start",
    ]
    assert follower.reopened == 2
    assert idles


def test_follower_waits_for_a_rotated_file_to_reappear(tmp_path: Path) -> None:
    path = tmp_path / "feed.log"
    path.write_bytes(b"a1\n")
    moved = tmp_path / "feed.log.1"
    sleep, stop = scripted(
        lambda: path.replace(moved),
        lambda: None,
        lambda: path.write_bytes(b"b1\n"),
        lambda: None,
    )
    follower = Follower(path, cap=1000, should_stop=stop, poll=0.01, sleep=sleep)
    assert [list(segment) for segment in follower.segments()] == [[b"a1\n"], [b"b1\n"]]


def test_followed_triage_classifies_every_new_line_once(
    classifier: Classifier, tmp_path: Path
) -> None:
    path = tmp_path / "feed.jsonl"

    def line(text: str) -> bytes:
        return orjson.dumps({"text": text}) + b"\n"

    path.write_bytes(line("one") + line(HARMFUL))
    half = line("four")
    sleep, stop = scripted(
        append_to(path, line("three")),
        append_to(path, half[:5]),
        append_to(path, half[5:]),
        truncate(path, line("five")),
        rotate(path, line("six"), line("seven") + line(HARMFUL)),
        append_to(path, line("nine")),
    )
    triage, rows, notices = job(
        classifier, TriageOptions(path, follow=True), stop=stop, sleep=sleep
    )
    outcome = triage.run()
    assert outcome.cancelled and outcome.error is None
    texts = [row.text for row in rows]
    assert texts == ["one", HARMFUL, "three", "four", "five", "six", "seven", HARMFUL, "nine"]
    assert [row.line for row in rows] == [1, 2, 3, 4, 1, 2, 1, 2, 3]
    assert outcome.done == 9
    assert len(notices) == 2


def test_a_bad_line_in_a_followed_file_stops_with_its_line(
    classifier: Classifier, tmp_path: Path
) -> None:
    path = tmp_path / "feed.jsonl"
    path.write_bytes(b'{"text": "one"}\n')
    sleep, stop = scripted(append_to(path, b"oops\n"))
    triage, rows, _ = job(classifier, TriageOptions(path, follow=True), stop=stop, sleep=sleep)
    outcome = triage.run()
    assert outcome.error is not None and outcome.error.startswith("feed.jsonl:2: invalid JSON")
    assert [row.text for row in rows] == ["one"]


# -- export -----------------------------------------------------------------------------


def test_export_writes_the_classify_output_format(classifier: Classifier, tmp_path: Path) -> None:
    path = jsonl(tmp_path / "feed.jsonl", [{"text": HARMFUL, "id": "x7"}, {"text": BENIGN}])
    triage, rows, _ = job(classifier, TriageOptions(path))
    triage.run()
    target = tmp_path / "out.jsonl"
    assert export_jsonl(rows, target, path) == 2
    lines = [json.loads(text) for text in target.read_text(encoding="utf-8").splitlines()]
    expected = classifier.classify(HARMFUL).to_dict()
    assert lines[0] == {"id": "x7", "line": 1, **expected}
    assert lines[1]["id"] == 2 and lines[1]["line"] == 2 and lines[1]["is_harmful"] is False
    assert list(lines[0])[:3] == ["id", "line", "is_harmful"]
    with pytest.raises(ValueError, match="being triaged"):
        export_jsonl(rows, path, path)
