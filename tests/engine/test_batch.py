"""engine.batch without a cluster: the frame function, its schema, its errors, the Spark shape.

The Dask run on real worker processes is tests/scale/test_dask_cluster.py; here
the same callable is driven the way Spark's ``mapInPandas`` drives it (an
iterator of frames in, an iterator out) and checked against ``classify``.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Iterator

import pandas as pd
import pytest
from pydantic import SecretStr

from engine import Settings, classify
from engine.batch import RESULT_COLUMNS, FrameClassifier, classify_frame

RESULT_NAMES = [column.name for column in RESULT_COLUMNS]


def frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "post": [101, 102, 103, 104],
            "body": [
                "Immigrants are rats and should be exterminated.",
                "The rats in the barn ate the grain.",
                "Los gitanos son criminales.",
                "They are vermin.",
            ],
            "lang": ["en", None, "es", None],
            "thread": [None, None, None, "I can't stand Muslims."],
        },
        index=pd.Index([7, 8, 9, 10], name="n"),
    )


def test_each_row_is_classify_of_its_text_on_the_input_index() -> None:
    texts = frame()
    result = classify_frame(
        texts, text_column="body", language_column="lang", context_column="thread"
    )
    assert list(result.columns) == RESULT_NAMES
    assert result.index.equals(texts.index)
    for label in texts.index.tolist():
        row = texts.loc[label]
        language = None if pd.isna(row["lang"]) else row["lang"]
        context = None if pd.isna(row["thread"]) else row["thread"]
        want = classify(row["body"], context=context, language=language)
        got = {name: None if value is pd.NA else value for name, value in result.loc[label].items()}
        assert bool(got["is_harmful"]) == want.is_harmful
        assert got["harm_mechanism"] == want.harm_mechanism
        assert got["matched_pattern"] == want.matched_pattern
        assert got["identity_axis"] == want.identity_axis
        assert got["content_hash"] == want.content_hash
        assert got["decision_rationale"] == want.decision_rationale
        assert got["severity"] == want.severity
        assert got["confidence"] == want.confidence
    assert result["is_harmful"].tolist() == [True, False, True, True]
    assert result.loc[10, "identity_axis"] == "religion"  # the context named the group


def test_the_declared_schema_is_the_output_schema() -> None:
    classifier = FrameClassifier(text_column="body", keep_columns=("post",))
    texts = frame()
    result = classifier(texts)
    meta = classifier.meta(texts.dtypes)
    assert meta.empty
    assert result.dtypes.to_dict() == meta.dtypes.to_dict()
    schema = classifier.spark_schema({"post": "bigint"})
    names = re.findall(r"`([^`]+)`", schema)
    assert names == list(result.columns) == ["post", *RESULT_NAMES]
    assert schema.startswith("`post` bigint, `is_harmful` boolean, ")
    with pytest.raises(ValueError, match=r"Spark type for keep_columns \['post'\]"):
        classifier.spark_schema()
    with pytest.raises(ValueError, match="input dtypes"):
        classifier.meta()


def test_the_spark_adapter_takes_and_gives_an_iterator_of_frames() -> None:
    classifier = FrameClassifier(text_column="body", keep_columns=("post",))
    texts = frame()
    batches = iter([texts.iloc[:3], texts.iloc[3:]])
    out = classifier.iter_frames(batches)
    assert isinstance(out, Iterator)
    first, second = list(out)
    assert (len(first), len(second)) == (3, 1)
    assert first["post"].tolist() == [101, 102, 103]
    assert first.index.tolist() == [0, 1, 2]  # Spark has no index: a plain range
    # Strings as Python objects with None for missing: what every Spark converts.
    assert first["harm_mechanism"].tolist()[:2] == ["direct_call_to_violence", None]
    assert first["harm_mechanism"].dtype == object
    whole = classifier(texts)
    assert first["content_hash"].tolist() == whole["content_hash"].tolist()[:3]
    assert list(classifier.iter_frames(iter([]))) == []


def test_a_refused_text_names_its_row_or_is_recorded() -> None:
    texts = pd.DataFrame({"text": ["Immigrants are vermin.", "", None, "x" * 30]})
    settings = Settings(_env_file=None, max_text_chars=25)
    with pytest.raises(ValueError, match=r"row 1 \(text column 'text'\): text must not be empty"):
        classify_frame(texts.iloc[:2], settings=settings)
    with pytest.raises(ValueError, match=r"row 2 .*text is missing"):
        classify_frame(texts.iloc[2:3], settings=settings)
    recorded = classify_frame(texts, errors="record", settings=settings)
    assert recorded["error"].isna().tolist() == [True, False, False, False]
    assert recorded["error"].tolist()[1:] == [
        "text must not be empty (1 to 25 characters)",
        "text is missing (an empty cell)",
        "text is 30 characters; the limit is 25 (HARMWATCH_MAX_TEXT_CHARS)",
    ]
    assert recorded.loc[0, "error"] is pd.NA
    assert bool(recorded.loc[0, "is_harmful"]) is True
    assert recorded.loc[1:, "confidence"].isna().all()
    assert recorded.loc[1:, "content_hash"].isna().all()


def test_missing_columns_and_bad_options_are_named() -> None:
    with pytest.raises(KeyError, match=r"\['body', 'lang'\] not in the frame"):
        FrameClassifier(text_column="body", language_column="lang")(pd.DataFrame({"t": ["a"]}))
    with pytest.raises(ValueError, match="errors must be 'raise' or 'record'"):
        FrameClassifier(errors="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="collide"):
        FrameClassifier(keep_columns=("severity",))


def test_it_pickles_small_and_without_secrets() -> None:
    settings = Settings(
        _env_file=None,
        tracking_db_url="postgresql+psycopg://u:db-password-123@h/db",
        api_key=SecretStr("api-key-secret-456"),
        signing_key=SecretStr("signing-secret-" + "7" * 32),
        max_text_chars=25,  # the refused-text test's settings: one classifier for both
    )
    classifier = FrameClassifier(settings=settings)
    data = pickle.dumps(classifier)
    assert len(data) < 2000  # settings travel, never a compiled taxonomy
    for secret in (b"db-password-123", b"api-key-secret-456", b"signing-secret-"):
        assert secret not in data
    copy = pickle.loads(data)
    assert copy.settings is not None and copy.settings.max_text_chars == 25
    result = copy(pd.DataFrame({"text": ["Immigrants are vermin."]}))
    assert bool(result.loc[0, "is_harmful"])


def test_an_empty_frame_gives_an_empty_result_of_the_same_schema() -> None:
    classifier = FrameClassifier()
    empty = pd.DataFrame({"text": pd.Series([], dtype="string")})
    result = classifier(empty)
    assert result.empty
    assert result.dtypes.to_dict() == classifier.meta().dtypes.to_dict()
