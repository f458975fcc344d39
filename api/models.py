"""The wire schema of SPEC section 6: request and response models, each field described.

Requests are validated by these models. Responses are *documented* by them but
written straight from the engine's and store's ``to_dict()`` (see
``api.encoding``): validating a 19-field result on every call would cost more
than classifying the text, and the tests check that what is written matches
these models (``extra="forbid"`` makes the published schema exact).

Limits that depend on settings (text length) are checked in ``api.limits`` and
written into the published schema by ``api.openapi``; the fixed ones (1–100
batch items, 1–5,000 samples) are declared here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SkipValidation, StrictBool, StrictInt

from engine.result import SuppressionReason
from engine.rules.models import MechanismName
from store.evidence import MAX_METADATA_BYTES, MAX_METADATA_DEPTH, MAX_URL_CHARS
from store.ingest import MAX_ITEMS as MAX_INGEST_ITEMS
from store.redaction import MAX_REASON_CHARS
from store.tracking import MAX_LIMIT

# Published, not enforced by the model: store.evidence applies the full rules (a time zone,
# at most HARMWATCH_MAX_FUTURE_SKEW_S ahead; a host) and names the field and the limit.
PUBLISHED_AT_SCHEMA: dict[str, Any] = {"format": "date-time"}
URL_SCHEMA: dict[str, Any] = {
    "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+",
    "maxLength": MAX_URL_CHARS,
}

MAX_BATCH_ITEMS = 100
MAX_SAMPLES = 5000
MAX_LANGUAGE_CHARS = 64
DEFAULT_LIMIT = 100
# The largest integer every JSON client reads exactly; no listing gets near it.
MAX_OFFSET = 2**53 - 1

HARMFUL_TEXT = "I can't stand refugees. They are parasites."
HASH_EXAMPLE = "a78a43c8b99c77115a74236ae1406f6751f09cb9ade57e77bf4e15a7eb514663"
TIME_EXAMPLE = "2026-01-02T03:04:05.678901Z"

Span = Annotated[
    list[int],
    Field(
        min_length=2,
        max_length=2,
        description="[start, end) character offsets into the text as submitted.",
        examples=[[25, 43]],
    ),
]
Hash = Annotated[
    str, Field(description="SHA-256, 64 lowercase hex digits.", examples=[HASH_EXAMPLE])
]
Rate = Annotated[
    float | None,
    Field(description="A ratio from 0 to 1, 4 decimals; null when its denominator is 0."),
]


class _Request(BaseModel):
    # Unknown fields are refused: a misspelt "context" or "langauge" would otherwise be
    # ignored silently and change the decision without anyone noticing.
    model_config = ConfigDict(extra="forbid")


class _Response(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorMessage(_Response):
    """Every non-validation error: one human-readable line."""

    detail: str = Field(description="What went wrong.", examples=["unknown source 'acct:1'"])


class InternalError(_Response):
    """An unexpected failure: nothing about it but the id it was logged under."""

    detail: Literal["internal error"]
    request_id: str = Field(
        description="The id the failure was logged under; quote it when reporting.",
        examples=["5f0c1c9a4f1e4d7a9b2e8c3d1a0b9e7f"],
    )


# -- classification ------------------------------------------------------------------------------


class ClassifyRequest(_Request):
    """One text to classify."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"text": HARMFUL_TEXT},
                {"text": "They are parasites.", "context": "Refugees arrive in town."},
                {"text": "Los inmigrantes son ratas.", "language": "es"},
            ]
        },
    )

    text: str = Field(
        description="The text, 1 to HARMWATCH_MAX_TEXT_CHARS characters (default 20,000), "
        "not only whitespace.",
        examples=[HARMFUL_TEXT],
    )
    context: str | None = Field(
        default=None,
        description="Surrounding text (the post replied to, a thread title), at most "
        "HARMWATCH_MAX_TEXT_CHARS characters. Only used to resolve a pronoun in the text.",
        examples=["Refugees arrive in town."],
    )
    language: str | None = Field(
        default=None,
        max_length=MAX_LANGUAGE_CHARS,
        description="Language code: en, es, fr, ru, ar, ig, yo, ha (default en), or auto to "
        "identify it (the result's language_detected says what was found; an unsure or "
        "unsupported identification falls back to en). Another code falls back to en and the "
        "rationale says so.",
        examples=["en"],
    )


class ObserveRequest(ClassifyRequest):
    """A text a source published, with the evidence of where and when (SPEC 5a)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"text": HARMFUL_TEXT},
                {
                    "text": HARMFUL_TEXT,
                    "published_at": "2026-01-02T03:04:05Z",
                    "url": "https://example.org/posts/123",
                    "metadata": {"platform": "forum", "thread": 77},
                },
            ]
        },
    )

    published_at: str | None = Field(
        default=None,
        description="When the source published the text: ISO-8601 with a time zone "
        "(2026-01-02T03:04:05Z, +02:00 ...), at most HARMWATCH_MAX_FUTURE_SKEW_S seconds "
        "(default 300) in the future. Default: the observation time. The profile orders "
        "observations by it; an older one than the source's latest is placed by its time.",
        examples=["2026-01-02T03:04:05Z"],
        json_schema_extra=PUBLISHED_AT_SCHEMA,
    )
    url: str | None = Field(
        default=None,
        description=f"Where it was published: an http(s) URL of at most {MAX_URL_CHARS} "
        "characters.",
        examples=["https://example.org/posts/123"],
        json_schema_extra=URL_SCHEMA,
    )
    metadata: dict[str, Any] | None = Field(
        default=None,
        description=f"A JSON object kept with the record: at most {MAX_METADATA_BYTES} bytes "
        f"as canonical JSON, nested at most {MAX_METADATA_DEPTH} deep. Numbers must have one "
        "canonical spelling (no NaN; send floats such as 1e-05 as strings).",
        examples=[{"platform": "forum", "thread": 77}],
    )


class BatchRequest(_Request):
    """1 to 100 texts, classified in order."""

    items: list[ClassifyRequest] = Field(
        min_length=1,
        max_length=MAX_BATCH_ITEMS,
        description="The texts (1 to 100), each like a POST /classify/ body.",
        examples=[[{"text": HARMFUL_TEXT}, {"text": "Lovely weather today.", "language": "en"}]],
    )


class Suppression(_Response):
    reason: SuppressionReason = Field(description="Why the signal was discarded.")
    cue: str = Field(description="The cue found in the text.", examples=["not"])
    cue_span: Span


class Signal(_Response):
    """A pattern or coded term that matched and is linked to a group."""

    row_id: str = Field(description="Taxonomy row, D2.4a-NNN.", examples=["D2.4a-001"])
    harm_mechanism: str = Field(description="The row's mechanism.", examples=["animalization"])
    weight: float = Field(description="The row's signal weight.", examples=[0.85])
    score: float = Field(description="weight × amplifier, capped at 1.0.", examples=[0.85])
    matched_text: str = Field(description="The matched part of the text.")
    span: Span
    source: Literal["pattern", "dogwhistle"]
    pattern_id: str = Field(
        description="<row>:<language>:<index>, or <row>:dw:<entry> for a coded term.",
        examples=["D2.4a-001:en:0"],
    )


class SuppressedSignal(Signal):
    """A signal that matched but was discarded, with the cue that discarded it."""

    suppressed_by: Suppression


class DogwhistleMatch(_Response):
    term: str = Field(description="The coded term as written.")
    canonical: str = Field(description="The lexicon's spelling of the term.")
    meaning: str = Field(description="What the term means in-group.")
    identity_axis: str | None = Field(description="The group the term names, if it names one.")
    row_id: str
    span: Span


class LanguageDetected(_Response):
    """What identification found for a text sent with language "auto"."""

    code: str = Field(
        description="The identified language (also one harmwatch has no pack for), or und "
        "when none was found.",
        examples=["es"],
    )
    confidence: float = Field(
        ge=0.0,
        le=1.0,
        description="0 to 1 (3 decimals); under the taxonomy's cut-off the default language "
        "is used.",
        examples=[0.99],
    )


class Amplification(_Response):
    factor: float = Field(description=">= 1.0; 1.0 when no provider contributed.", examples=[1.0])
    provider: str | None = Field(description="The provider asked, or null.")
    model_version: str | None = Field(description="The provider's model version, or null.")
    skipped_reason: str | None = Field(
        description="Why the provider did not contribute (not_configured, timeout, ...).",
        examples=["not_configured"],
    )


class Classification(_Response):
    """The full, explainable decision for one text (SPEC section 3); every field present."""

    is_harmful: bool
    harm_category: str = Field(
        description="none, narrative_distortion, dehumanization, vilification or incitement.",
        examples=["dehumanization"],
    )
    confidence: float = Field(
        description="The decision score (3 decimals); best surviving score when not harmful.",
        examples=[0.85],
    )
    target_type: str | None = Field(examples=["migrant_group"])
    identity_axis: str | None = Field(examples=["migration_status"])
    harm_mechanism: str | None = Field(
        description="The winning mechanism; null when not harmful.", examples=["animalization"]
    )
    signals_matched: list[Signal] = Field(description="Signals that survived suppression.")
    signals_suppressed: list[SuppressedSignal] = Field(description="Signals that were discarded.")
    decision_rationale: str = Field(
        description="HARM DETECTED: ... or NO HARM: ..., saying why.",
        examples=[
            "HARM DETECTED: animalization targeting migration_status. "
            "Confidence 0.850 >= threshold 0.650. Matched row D2.4a-001."
        ],
    )
    taxonomy_version: str = Field(examples=["1.0.0"])
    language: str = Field(description="The language used.", examples=["en"])
    language_confidence: Literal["verified", "experimental"]
    language_detected: LanguageDetected | None = Field(
        description='What identification found when language "auto" was asked; else null.'
    )
    dogwhistle_matched: DogwhistleMatch | None
    counter_narrative_guidance: str | None = Field(description="Guidance for the mechanism.")
    content_hash: Hash
    matched_pattern: str | None = Field(examples=["D2.4a-001:en:0"])
    amplification: Amplification
    timestamp: str = Field(description="When it was classified (UTC).", examples=[TIME_EXAMPLE])


class BatchResponse(_Response):
    count: int = Field(description="Number of results (= number of items).", examples=[2])
    results: list[Classification] = Field(description="One result per item, in request order.")


# -- tracking ------------------------------------------------------------------------------------


class ListingQuery(_Request):
    """The query of GET /tracking; an unknown parameter is refused like an unknown field."""

    risk: str | None = Field(
        default=None, description="Keep one risk level: low, watch, elevated or critical."
    )
    limit: int = Field(
        default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Page size, 1 to 1,000."
    )
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET, description="Profiles to skip.")


class ObservationsQuery(_Request):
    """The query of GET /tracking/{source_id}/observations (unknown parameters refused)."""

    order: Literal["asc", "desc"] = Field(
        default="desc", description="By seq: newest first (desc, the default) or oldest first."
    )
    limit: int = Field(
        default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Page size, 1 to 1,000."
    )
    offset: int = Field(default=0, ge=0, le=MAX_OFFSET, description="Observations to skip.")


_NOT_SHOWN = r"\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff"
# Some character that is neither a space nor a control/format character, none of those.
REASON_PATTERN = f"^[^{_NOT_SHOWN}]*[^\\s{_NOT_SHOWN}][^{_NOT_SHOWN}]*$"


class RedactRequest(_Request):
    """Why a record's text, url and metadata are removed (kept with the record)."""

    reason: str = Field(
        min_length=1,
        max_length=MAX_REASON_CHARS,
        description="Why the record is redacted (a data-protection request, a court order...): "
        f"1 to {MAX_REASON_CHARS} characters, not only spaces, no control or format characters "
        "(Unicode Cc, Cf).",
        examples=["data-protection request 2026-114"],
        # Published, not enforced here: the store applies the full rule (every Cc/Cf/Cs
        # character), naming the one it found; the pattern names what a JSON Schema regex
        # can portably, as SOURCE_ID_PATTERN does.
        json_schema_extra={"pattern": REASON_PATTERN},
    )


class ForgetQuery(_Request):
    """The query of DELETE /tracking/{source_id}: the source_id again, as a confirmation."""

    confirm: str = Field(
        description="Must equal the source_id in the path: nothing is deleted by a mistyped URL.",
        examples=["acct:1"],
    )


class Forgotten(_Response):
    """What deleting a source removed."""

    source_id: str = Field(examples=["acct:1"])
    deleted_observations: int = Field(ge=0, examples=[12])
    deleted_checkpoints: int = Field(
        ge=0, description="Checkpoints removed from HARMWATCH_CHECKPOINT_DIR.", examples=[0]
    )


class DecisionSuppression(_Response):
    reason: SuppressionReason
    cue: str


class Decision(_Response):
    """Why the text was judged as it was: the decision evidence a version-2 record hashes."""

    harm_category: str = Field(examples=["dehumanization"])
    confidence: float = Field(ge=0.0, le=1.0, description="3 decimals.", examples=[0.95])
    matched_pattern: str | None = Field(description="The winning pattern, or null.")
    row_id: str | None = Field(description="The winning row, or null.", examples=["D2.4a-013"])
    spans: list[Span] = Field(description="Every surviving signal's span.")
    suppressions: list[DecisionSuppression] = Field(
        description="Every suppressed signal's reason and cue."
    )
    language: str = Field(examples=["en"])
    taxonomy_digest: str | None = Field(
        description="sha256 of the taxonomy files the text was classified under."
    )


class Redacted(_Response):
    at: str = Field(examples=[TIME_EXAMPLE])
    reason: str


class Observation(_Response):
    """One record of a source's hash chain (SPEC sections 5 and 5a)."""

    source_id: str = Field(examples=["acct:1"])
    seq: int = Field(description="1, 2, 3, ... without gaps.", examples=[1])
    observed_at: str = Field(description="YYYY-MM-DDTHH:MM:SS.ffffffZ", examples=[TIME_EXAMPLE])
    text: str | None = Field(description="The text; null with HARMWATCH_STORE_TEXT=false.")
    content_hash: Hash
    harm_mechanism: str | None = Field(description="null when the text is not harmful.")
    severity: int = Field(description="0 (not harmful) to 4.", examples=[3])
    taxonomy_version: str = Field(examples=["1.0.0"])
    prev_hash: Hash
    record_hash: Hash
    record_version: Literal[1, 2] = Field(
        description="2 for records appended since evidence was kept; 1 before (their hash "
        "covers the SPEC section 5 fields only)."
    )
    published_at: str = Field(
        description="When the source published it (the profile's order); a version-1 "
        "record's is its observed_at.",
        examples=[TIME_EXAMPLE],
    )
    url: str | None = Field(description="Where it was published; null when not given or redacted.")
    metadata: dict[str, Any] | None = Field(description="The caller's JSON object, or null.")
    attachment_hash: Hash | None = Field(
        description="sha256 of the canonical JSON {metadata, url}; null when both were null."
    )
    decision: Decision | None = Field(description="The decision evidence; null on version 1.")
    redacted: Redacted | None = Field(
        description="Set when the text, url and metadata were removed: when and why."
    )
    key_id: str | None = Field(
        default=None,
        description="Present on a record signed with HARMWATCH_SIGNING_KEY: which key signed "
        "(first 16 hex digits of sha256 of the public key, or of the HMAC secret).",
        examples=["9f86d081884c7d65"],
    )
    signature: str | None = Field(
        default=None,
        description="Present on a signed record: hex signature (Ed25519, or HMAC-SHA256) of "
        "the record_hash hex string's UTF-8 bytes. Outside the hash.",
    )


class SourceProfile(_Response):
    """Where a source stands, as of its latest observation (SPEC section 5)."""

    source_id: str = Field(examples=["acct:1"])
    observation_count: int = Field(examples=[12])
    current_severity: int = Field(description="Severity of the latest observation.")
    current_severity_label: str = Field(examples=["ANIMALIZATION (3)"])
    rolling_average_severity: float = Field(description="Mean severity over the window.")
    window: int = Field(description="Observations in the window (TRACKING_WINDOW).")
    trend: Literal["escalating", "stable", "de-escalating"]
    risk_level: str = Field(description="low, watch, elevated or critical.", examples=["elevated"])
    first_observed_at: str = Field(
        description="Publication time of the earliest observation.", examples=[TIME_EXAMPLE]
    )
    last_observed_at: str = Field(
        description="Publication time of the latest observation.", examples=[TIME_EXAMPLE]
    )
    head_hash: Hash
    peak_severity: int = Field(description="The highest severity ever observed.", examples=[4])
    severity_counts: dict[str, int] = Field(
        description="Observations in the window at each severity (keys 0 to 4).",
        examples=[{"0": 12, "1": 0, "2": 5, "3": 2, "4": 1}],
    )
    last_escalation_at: str | None = Field(
        description="Publication time of the latest observation at which the risk level "
        "rose; null when it never did.",
        examples=[TIME_EXAMPLE],
    )


class ObserveResponse(_Response):
    observation: Observation
    classification: Classification
    profile: SourceProfile


class IngestItem(_Request):
    """One observation of a bulk ingest; its checks are those of observe.

    The schema says what each field should be, but the model does not enforce the
    values or their JSON types (``SkipValidation``): an item with a bad value, a
    number for a url or a list for metadata included, is listed in the 200 answer's
    errors with its index (SPEC section 6), while the other items are appended, as
    ``track ingest`` does with the same row. Only the shape is the body's: an item
    that is not an object, lacks ``source_id`` or ``text``, or has an unknown field
    makes the request a 422. ``store.ingest`` checks every value, naming the field
    (the route adds the language length, which only the API limits).
    """

    source_id: SkipValidation[str] = Field(examples=["acct:1"])
    text: SkipValidation[str] = Field(examples=[HARMFUL_TEXT])
    published_at: SkipValidation[str | None] = Field(
        default=None,
        description="When the source published the text, as in observe (ISO-8601 with a "
        "time zone). Default: the observation time.",
        examples=["2026-01-02T03:04:05Z"],
        json_schema_extra=PUBLISHED_AT_SCHEMA,
    )
    url: SkipValidation[str | None] = Field(
        default=None,
        description=f"Where it was published: an http(s) URL of at most {MAX_URL_CHARS} "
        "characters.",
        examples=["https://example.org/posts/123"],
        json_schema_extra=URL_SCHEMA,
    )
    metadata: SkipValidation[dict[str, Any] | None] = Field(
        default=None,
        description=f"A JSON object kept with the record, as in observe (at most "
        f"{MAX_METADATA_BYTES} bytes, nested at most {MAX_METADATA_DEPTH} deep).",
    )
    language: SkipValidation[str | None] = Field(
        default=None, max_length=MAX_LANGUAGE_CHARS, examples=["en"]
    )


class IngestRequest(_Request):
    """1 to 1,000 observations of any sources, appended in order within each source."""

    items: list[IngestItem] = Field(
        min_length=1,
        max_length=MAX_INGEST_ITEMS,
        description=f"The observations (1 to {MAX_INGEST_ITEMS}).",
    )
    skip_existing: StrictBool = Field(
        default=False,
        description="Leave out an item whose source already has the same text (content "
        "hash) published at the same time, as track ingest --skip-existing does.",
    )


class IngestProblem(_Response):
    index: int = Field(description="The item's position in items, from 0.", examples=[3])
    detail: str = Field(examples=["published_at has no time zone: add Z or an offset"])


class IngestResponse(_Response):
    appended: int = Field(ge=0, description="Records appended.")
    skipped: int = Field(ge=0, description="Items left out as already recorded (skip_existing).")
    errors: list[IngestProblem] = Field(description="Items refused, each with why.")


class VerifyReport(_Response):
    """Re-hashing a source's whole chain against its profile."""

    source_id: str | None = Field(examples=["acct:1"])
    intact: bool
    checked: int = Field(description="Records that verified: the chain holds up to this seq.")
    head_hash: Hash
    first_broken_seq: int | None = Field(description="checked + 1 when broken, else null.")
    reason: str | None = Field(description="What was found where the chain breaks.")


class Checkpoint(_Response):
    """A signed statement of a source's head (SPEC section 5a)."""

    source_id: str = Field(examples=["acct:1"])
    seq: int = Field(description="The head's seq (= observation_count).", examples=[12])
    head_hash: Hash
    issued_at: str = Field(description="When the checkpoint was signed.", examples=[TIME_EXAMPLE])
    key_id: str = Field(
        description="Which key signed: first 16 hex digits of sha256 of the raw Ed25519 "
        "public key, or of the HMAC secret.",
        examples=["9f86d081884c7d65"],
    )
    algorithm: Literal["ed25519", "hmac-sha256"] = Field(
        description="The signature's algorithm. A checkpoint without this field was issued "
        "before it existed and is hmac-sha256 over the other five fields."
    )
    signature: str = Field(
        description="hex signature of the canonical JSON of every other field (keys sorted, "
        "separators ',' ':', UTF-8).",
        examples=[HASH_EXAMPLE],
    )


class CheckpointIn(_Request):
    """A checkpoint as issued; one from before ``algorithm`` existed omits that field."""

    source_id: str = Field(examples=["acct:1"])
    seq: StrictInt = Field(ge=1, examples=[12])
    head_hash: str = Field(pattern="^[0-9a-f]{64}$", examples=[HASH_EXAMPLE])
    issued_at: str = Field(
        pattern="^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{6}Z$",
        examples=[TIME_EXAMPLE],
    )
    key_id: str = Field(pattern="^[0-9a-f]{16}$", examples=["9f86d081884c7d65"])
    algorithm: Literal["ed25519", "hmac-sha256"] = Field(
        default="hmac-sha256", description="Absent on a checkpoint issued before it existed."
    )
    signature: str = Field(pattern="^([0-9a-f]{2})+$", examples=[HASH_EXAMPLE])


class VerifyRequest(_Request):
    """What to verify a chain against, beyond its own hashes and its profile."""

    checkpoint: CheckpointIn | None = Field(
        default=None,
        description="A checkpoint from GET /tracking/{source_id}/checkpoint (or `track "
        "checkpoint`): the chain must still hold the record it attests. Default: the latest "
        "saved in HARMWATCH_CHECKPOINT_DIR, if any.",
    )


class SigningHealth(_Response):
    algorithm: Literal["ed25519", "hmac-sha256"]
    key_id: str = Field(examples=["9f86d081884c7d65"])


# -- benchmark and validation --------------------------------------------------------------------


class BenchmarkRequest(_Request):
    """Which part of the functional suite to run (all of it when empty)."""

    capabilities: list[str] | None = Field(
        default=None,
        max_length=MAX_BATCH_ITEMS,
        description="Capability names (e.g. negation); an unknown name is a 422.",
        examples=[["negation"]],
    )
    languages: list[str] | None = Field(
        default=None,
        max_length=MAX_BATCH_ITEMS,
        description="Language codes; one without cases is a 422.",
        examples=[["en", "es"]],
    )


class Verdict(_Response):
    is_harmful: bool
    harm_mechanism: str | None


class SuiteFailure(_Response):
    case: str = Field(examples=["negation-01/3"])
    text: str
    language: str
    expected: Verdict
    got: Verdict
    rationale: str


class CapabilityResult(_Response):
    name: str = Field(examples=["negation"])
    total: int
    passed: int
    pass_rate: Rate
    failures: list[SuiteFailure]


class BenchmarkReport(_Response):
    suite_version: str
    taxonomy_version: str
    total: int
    passed: int
    failed: int
    pass_rate: Rate
    duration_ms: float = Field(description="Time spent classifying.")
    capabilities: list[CapabilityResult]


class GateResult(_Response):
    id: str
    text: str
    language: str
    expected_harmful: bool
    expected_mechanism: str | None
    got_harmful: bool
    got_mechanism: str | None
    correct: bool


class GateReport(_Response):
    """The legacy phase-1 gate over its fixed 18 samples."""

    gate: str
    samples: int
    correct: int
    accuracy: Rate
    precision: Rate
    recall: Rate
    f1: Rate
    required_accuracy: float
    passed: bool
    results: list[GateResult]


class Sample(_Request):
    """One labelled text."""

    id: str | None = Field(default=None, max_length=200, examples=["s1"])
    text: str = Field(description="As in POST /classify/ (same length limit).")
    language: str | None = Field(default=None, max_length=MAX_LANGUAGE_CHARS, examples=["en"])
    expected_harmful: StrictBool | None = Field(
        description="The expected decision; null reports the sample without scoring it."
    )
    expected_mechanism: MechanismName | None = Field(
        default=None, description="Also scored when the sample is expected harmful."
    )
    group: str | None = Field(
        default=None, max_length=200, description="Any label to break the metrics down by."
    )


class CustomValidationRequest(_Request):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "name": "smoke",
                    "samples": [
                        {"text": HARMFUL_TEXT, "expected_harmful": True},
                        {"text": "Refugees are welcome here.", "expected_harmful": False},
                    ],
                }
            ]
        },
    )

    name: str | None = Field(default=None, max_length=200, description="Name of the run.")
    samples: list[Sample] = Field(min_length=1, max_length=MAX_SAMPLES, description="1 to 5,000.")


class Confusion(_Response):
    tp: int
    fp: int
    tn: int
    fn: int


class Metrics(_Response):
    total: int
    scored: int
    accuracy: Rate
    precision: Rate
    recall: Rate
    true_negative_rate: Rate
    f1: Rate
    confusion: Confusion
    positives: int
    negatives: int
    not_scored: int
    not_scored_flag_rate: Rate


class ValidationFailure(_Response):
    id: str | None
    text: str
    language: str
    group: str | None
    expected_harmful: bool | None
    expected_mechanism: str | None
    got_harmful: bool
    got_mechanism: str | None
    rationale: str


class ValidationReport(_Response):
    """SPEC's fields, plus not-scored counts, the failure count and the run time."""

    name: str
    total: int
    accuracy: Rate
    precision: Rate
    recall: Rate
    f1: Rate
    true_negative_rate: Rate
    confusion: Confusion
    not_scored: int
    not_scored_flag_rate: Rate
    mechanism_accuracy: Rate
    by_group: dict[str, Metrics]
    by_language: dict[str, Metrics]
    failures: list[ValidationFailure] = Field(description="The first 200 failures.")
    failure_count: int
    duration_ms: float


# -- health --------------------------------------------------------------------------------------


class TextAnalyticsHealth(_Response):
    provider: str | None = Field(description="null when not configured.")
    status: Literal["not_configured", "connected", "unreachable"]


class DatabaseHealth(_Response):
    backend: str = Field(examples=["sqlite"])
    status: Literal["ok", "unreachable"]


class LanguageIdentificationHealth(_Response):
    """What language "auto" runs: the library, its version and the taxonomy's cut-off."""

    library: str = Field(examples=["pycld2"])
    version: str = Field(examples=["0.42"])
    min_confidence: float = Field(
        description="Under it, an identification falls back to the default language.",
        examples=[0.7],
    )


class Health(_Response):
    status: Literal["ok", "degraded"] = Field(
        description="degraded when the database or a configured provider is unreachable."
    )
    app_version: str = Field(examples=["0.1.0"])
    taxonomy_version: str = Field(examples=["1.0.0"])
    taxonomy_digest: Hash
    baseline_tag: str
    text_analytics: TextAnalyticsHealth
    database: DatabaseHealth
    signing: SigningHealth | None = Field(
        description="The signing key's algorithm and key_id; null without HARMWATCH_SIGNING_KEY."
    )
    language_identification: LanguageIdentificationHealth
