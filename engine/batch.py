"""Classification over a table of texts: a pandas DataFrame in, one flat result row per text out.

The same callable runs unchanged on one machine and on a cluster:

- pandas: ``FrameClassifier()(frame)``;
- Dask: ``ddf.map_partitions(fc, meta=fc.meta(ddf.dtypes))``;
- Spark: ``sdf.mapInPandas(fc.iter_frames, schema=fc.spark_schema())``.

A ``FrameClassifier`` holds column names and, optionally, ``Settings``; never
a compiled taxonomy. It pickles in a few hundred bytes, and each process that
runs it (a Dask worker, a Spark Python worker) builds its ``Classifier`` the
first time and keeps it for every later partition (``_classifier_for``), so a
taxonomy is loaded once per process, not once per partition or per task.

The result columns (``RESULT_COLUMNS``) are flat scalars, declared once with
their pandas dtype and their Spark SQL type, so that the Dask ``meta`` and the
Spark schema string come from the same table as the frames themselves. The
output keeps the input's index (join it back with ``frame.join(result)``);
``keep_columns`` carries input columns (an id) through, which Spark needs
because it has no index. docs/scaling.md has the column list and examples.

pandas is an optional dependency (the ``scale`` extra): importing ``engine``
never imports it; this module does, with an error naming the extra.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

try:
    import pandas as pd
except ImportError as exc:  # pragma: no cover - the scale extra is installed in dev
    raise ImportError(
        "engine.batch needs pandas: install harmwatch with the 'scale' extra "
        "(pip install 'harmwatch[scale]')"
    ) from exc

from engine.settings import Settings

if TYPE_CHECKING:
    from engine.classifier import Classifier
    from engine.result import Classification

__all__ = [
    "RESULT_COLUMNS",
    "FrameClassifier",
    "classify_frame",
    "flatten",
]

Errors = Literal["raise", "record"]


@dataclass(frozen=True, slots=True)
class Column:
    """One result column: its name, pandas dtype and Spark SQL type, and what it holds."""

    name: str
    dtype: str
    spark: str
    doc: str


# The flat result schema. Strings use pandas' nullable "string" dtype (missing = <NA>),
# which Arrow, parquet, Dask and Spark all map to a nullable string.
RESULT_COLUMNS: tuple[Column, ...] = (
    Column("is_harmful", "bool", "boolean", "the decision (false on an error row)"),
    Column("harm_mechanism", "string", "string", "winning mechanism, <NA> when not harmful"),
    Column("harm_category", "string", "string", "category of the mechanism, 'none' when not"),
    Column("severity", "int32", "int", "0-4 from the taxonomy, 0 when not harmful"),
    Column("confidence", "float64", "double", "decision score (NaN on an error row)"),
    Column("target_type", "string", "string", "target group type of the anchor, or <NA>"),
    Column("identity_axis", "string", "string", "identity axis of the anchor, or <NA>"),
    Column("language", "string", "string", "language code used"),
    Column("language_confidence", "string", "string", "verified or experimental"),
    Column("language_detected", "string", "string", "code identified for 'auto', else <NA>"),
    Column("language_detected_confidence", "float64", "double", "its confidence, else NaN"),
    Column("matched_pattern", "string", "string", "winning pattern id (row id + index), or <NA>"),
    Column("dogwhistle_term", "string", "string", "canonical coded term found, or <NA>"),
    Column("signals_matched", "int32", "int", "number of surviving signals"),
    Column("signals_suppressed", "int32", "int", "number of suppressed signals"),
    Column("amplification_factor", "float64", "double", "1.0 without a provider"),
    Column("decision_rationale", "string", "string", "the result's rationale sentence"),
    Column("taxonomy_version", "string", "string", "version of the taxonomy that decided"),
    Column("content_hash", "string", "string", "sha256 hex of the text as submitted"),
    Column("timestamp", "string", "string", "ISO-8601 UTC time of the classification"),
    Column("error", "string", "string", "why the row was not classified, else <NA>"),
)
_NAMES = tuple(column.name for column in RESULT_COLUMNS)
_DTYPES: dict[str, Any] = {column.name: column.dtype for column in RESULT_COLUMNS}
_STRINGS = frozenset(column.name for column in RESULT_COLUMNS if column.dtype == "string")


def flatten(result: Classification) -> dict[str, Any]:
    """One result as a flat row of ``RESULT_COLUMNS`` (nested parts reduced to scalars)."""
    dogwhistle = result.dogwhistle_matched
    # Set only for language "auto" (read by name: results built before the field existed
    # have no such attribute).
    detected = getattr(result, "language_detected", None)
    return {
        "is_harmful": result.is_harmful,
        "harm_mechanism": result.harm_mechanism,
        "harm_category": result.harm_category,
        "severity": result.severity,
        "confidence": result.confidence,
        "target_type": result.target_type,
        "identity_axis": result.identity_axis,
        "language": result.language,
        "language_confidence": result.language_confidence,
        "language_detected": detected.code if detected is not None else None,
        "language_detected_confidence": (
            detected.confidence if detected is not None else float("nan")
        ),
        "matched_pattern": result.matched_pattern,
        "dogwhistle_term": dogwhistle.canonical if dogwhistle is not None else None,
        "signals_matched": len(result.signals_matched),
        "signals_suppressed": len(result.signals_suppressed),
        "amplification_factor": result.amplification.factor,
        "decision_rationale": result.decision_rationale,
        "taxonomy_version": result.taxonomy_version,
        "content_hash": result.content_hash,
        "timestamp": result.timestamp,
        "error": None,
    }


def _error_row(message: str) -> dict[str, Any]:
    """A row that could not be classified: the error, and nothing that looks like a result."""
    row: dict[str, Any] = dict.fromkeys(_NAMES)
    row.update(
        is_harmful=False,
        severity=0,
        confidence=float("nan"),
        language_detected_confidence=float("nan"),
        signals_matched=0,
        signals_suppressed=0,
        amplification_factor=float("nan"),
        error=message,
    )
    return row


# -- one classifier per process --------------------------------------------------------------

_classifiers: dict[tuple[object, ...], Classifier] = {}
_classifiers_lock = threading.Lock()


def _settings_key(settings: Settings) -> tuple[object, ...]:
    key = settings.text_analytics_key
    return (
        str(settings.taxonomy_path) if settings.taxonomy_path else None,
        settings.max_text_chars,
        settings.text_analytics_endpoint,
        key.get_secret_value() if key is not None else None,
        settings.text_analytics_timeout_s,
    )


def _classifier_for(settings: Settings | None) -> Classifier:
    """This process's classifier for these settings, built on first use and then kept.

    ``None`` is the process-wide default classifier (``engine.classify``'s), built
    from the worker's own environment.
    """
    if settings is None:
        from engine import default_classifier

        return default_classifier()
    key = _settings_key(settings)
    found = _classifiers.get(key)
    if found is None:
        with _classifiers_lock:
            found = _classifiers.get(key)
            if found is None:
                from engine import build_classifier

                found = build_classifier(settings)
                _classifiers[key] = found
    return found


def _engine_settings(settings: Settings | None) -> Settings | None:
    """Only what classification reads: database URLs and API or signing keys never travel
    to the workers with the pickled function."""
    if settings is None:
        return None
    return Settings.model_construct(
        taxonomy_path=settings.taxonomy_path,
        max_text_chars=settings.max_text_chars,
        text_analytics_endpoint=settings.text_analytics_endpoint,
        text_analytics_key=settings.text_analytics_key,
        text_analytics_timeout_s=settings.text_analytics_timeout_s,
    )


def _optional(value: object) -> object:
    """A missing cell (None, NaN, <NA>) as None; anything else as it is."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return value


@dataclass(frozen=True)
class FrameClassifier:
    """Classifies the ``text_column`` of a DataFrame; a picklable callable for Dask and Spark.

    ``language_column`` and ``context_column`` are optional (a missing cell is
    ``None``: the default language, no context). ``errors="raise"`` (default)
    stops at the first text ``classify`` would refuse, naming the column, the
    row's index label and the limit; ``errors="record"`` classifies the rest and
    puts the message in the row's ``error`` column instead (a bulk corpus with
    an empty cell). ``settings`` selects the taxonomy, text limit and
    text-analytics provider; ``None`` uses each worker's environment, as
    ``engine.classify`` does.
    """

    text_column: str = "text"
    language_column: str | None = None
    context_column: str | None = None
    keep_columns: tuple[str, ...] = ()
    errors: Errors = "raise"
    settings: Settings | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.errors not in ("raise", "record"):
            raise ValueError(f"errors must be 'raise' or 'record', not {self.errors!r}")
        object.__setattr__(self, "keep_columns", tuple(self.keep_columns))
        clash = sorted(set(self.keep_columns) & set(_NAMES))
        if clash:
            raise ValueError(f"keep_columns {clash} would collide with result columns")
        object.__setattr__(self, "settings", _engine_settings(self.settings))

    # -- the schema ------------------------------------------------------------------------
    def meta(self, input_dtypes: Mapping[str, Any] | pd.Series[Any] | None = None) -> pd.DataFrame:
        """An empty frame with the output's columns and dtypes: Dask's ``meta``.

        ``input_dtypes`` (``ddf.dtypes``) gives the dtypes of ``keep_columns``.
        """
        columns: dict[str, pd.Series[Any]] = {}
        if self.keep_columns:
            if input_dtypes is None:
                raise ValueError("meta needs the input dtypes to describe keep_columns")
            missing = [name for name in self.keep_columns if name not in input_dtypes]
            if missing:
                raise ValueError(f"keep_columns {missing} are not in the input")
            for name in self.keep_columns:
                columns[name] = pd.Series([], dtype=input_dtypes[name])
        for column in RESULT_COLUMNS:
            columns[column.name] = pd.Series([], dtype=column.dtype)
        return pd.DataFrame(columns)

    def spark_schema(self, keep_types: Mapping[str, str] | None = None) -> str:
        """The output as a Spark DDL schema string for ``mapInPandas``.

        ``keep_types`` gives the Spark type of each of ``keep_columns`` (``{"id": "bigint"}``).
        """
        keep_types = keep_types or {}
        missing = [name for name in self.keep_columns if name not in keep_types]
        if missing:
            raise ValueError(f"spark_schema needs a Spark type for keep_columns {missing}")
        fields = [f"`{name}` {keep_types[name]}" for name in self.keep_columns]
        fields += [f"`{column.name}` {column.spark}" for column in RESULT_COLUMNS]
        return ", ".join(fields)

    # -- running ---------------------------------------------------------------------------
    def __call__(self, frame: pd.DataFrame) -> pd.DataFrame:
        """The result columns for every row of ``frame``, on ``frame``'s index."""
        self._check_columns(frame)
        classifier = _classifier_for(self.settings)
        texts = frame[self.text_column].tolist()
        count = len(texts)
        languages = self._cells(frame, self.language_column, count)
        contexts = self._cells(frame, self.context_column, count)
        check = classifier.check_input
        rows: list[dict[str, Any] | None] = [None] * count
        items: list[tuple[str, str | None, str | None]] = []
        slots: list[int] = []
        for position, (text, context, language) in enumerate(
            zip(texts, contexts, languages, strict=True)
        ):
            text = _optional(text)
            try:
                if text is None:
                    raise ValueError("text is missing (an empty cell)")
                check(text, context, language)
            except (TypeError, ValueError) as exc:
                if self.errors == "raise":
                    label = frame.index.tolist()[position]  # a plain value, not np.int64(…)
                    raise ValueError(
                        f"row {label!r} (text column {self.text_column!r}): {exc}"
                    ) from exc
                rows[position] = _error_row(str(exc))
                continue
            items.append((text, context, language))  # type: ignore[arg-type]
            slots.append(position)
        for slot, result in zip(slots, classifier.classify_many(items), strict=True):
            rows[slot] = flatten(result)
        return self._frame(frame, rows)

    def iter_frames(self, frames: Iterable[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        """Spark's ``mapInPandas`` shape: an iterator of frames in, one result frame per frame out.

        String columns are handed over as Python objects (None for missing), the
        representation every Spark version converts to a nullable string.
        """
        for frame in frames:
            result = self(frame)
            for name in _STRINGS:
                result[name] = result[name].astype(object).where(result[name].notna(), None)
            yield result.reset_index(drop=True)

    # -- helpers ---------------------------------------------------------------------------
    def _check_columns(self, frame: pd.DataFrame) -> None:
        wanted = [self.text_column, self.language_column, self.context_column, *self.keep_columns]
        missing = [name for name in wanted if name is not None and name not in frame.columns]
        if missing:
            present = ", ".join(map(str, frame.columns)) or "none"
            raise KeyError(f"column(s) {missing} not in the frame (columns: {present})")

    @staticmethod
    def _cells(frame: pd.DataFrame, column: str | None, count: int) -> Sequence[Any]:
        if column is None:
            return [None] * count
        return [_optional(value) for value in frame[column].tolist()]

    def _frame(self, frame: pd.DataFrame, rows: list[dict[str, Any] | None]) -> pd.DataFrame:
        data: dict[str, Any] = {name: frame[name].to_numpy() for name in self.keep_columns}
        for name in _NAMES:
            data[name] = [row[name] for row in rows]  # type: ignore[index]
        dtypes = {name: frame[name].dtype for name in self.keep_columns}
        dtypes.update(_DTYPES)
        return pd.DataFrame(data, index=frame.index).astype(dtypes)


def classify_frame(
    frame: pd.DataFrame,
    *,
    text_column: str = "text",
    language_column: str | None = None,
    context_column: str | None = None,
    keep_columns: Sequence[str] = (),
    errors: Errors = "raise",
    settings: Settings | None = None,
) -> pd.DataFrame:
    """``FrameClassifier(...)(frame)`` in one call, for a frame on one machine."""
    return FrameClassifier(
        text_column=text_column,
        language_column=language_column,
        context_column=context_column,
        keep_columns=tuple(keep_columns),
        errors=errors,
        settings=settings,
    )(frame)
