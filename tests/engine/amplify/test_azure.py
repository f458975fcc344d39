"""The optional text-analytics amplifier, tested against a real local HTTP fake.

Every failure mode must end in factor 1.0 with a machine-readable reason, within
the deadline, without the key escaping anywhere.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from engine.amplify import AmplificationResult, NullAmplifier, build_amplifier
from engine.amplify.azure import AzureLanguageAmplifier, _Breaker, _Permit, _retry_after_s
from engine.rules.models import Amplification
from tests.fakes.azure_language import (
    DOC_ERROR_MARKER,
    ENTITIES,
    KEY,
    SENTIMENT,
    FakeAzureLanguage,
    refused_endpoint,
)

TAXONOMY = Path(__file__).resolve().parents[3] / "taxonomy" / "taxonomy_v1.yaml"
NEG_AND_ENTITY = 1.15  # 1.10 x 1.05 = 1.155, capped at max_factor 1.15
NEG_ONLY = 1.1
ENTITY_ONLY = 1.05


class FakeClock:
    """Monotonic time the test moves by hand, so cooldowns take no wall time."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture(scope="module")
def config() -> Amplification:
    data = yaml.safe_load(TAXONOMY.read_text(encoding="utf-8"))
    return Amplification.model_validate(data["amplification"])


@pytest.fixture
def fake() -> Iterator[FakeAzureLanguage]:
    with FakeAzureLanguage() as server:
        yield server


@pytest.fixture
def make(
    fake: FakeAzureLanguage, config: Amplification
) -> Iterator[Callable[..., AzureLanguageAmplifier]]:
    made: list[AzureLanguageAmplifier] = []

    def factory(**overrides: Any) -> AzureLanguageAmplifier:
        cfg_changes = overrides.pop("cfg", {})
        kwargs: dict[str, Any] = {
            "endpoint": fake.endpoint,
            "key": KEY,
            "config": config.model_copy(update=cfg_changes),
            "timeout_s": 1.0,
        }
        kwargs.update(overrides)
        amp = AzureLanguageAmplifier(**kwargs)
        made.append(amp)
        return amp

    yield factory
    for amp in made:
        amp.close()


def span_of(text: str, word: str) -> tuple[int, int]:
    start = text.index(word)
    return (start, start + len(word))


# --- no provider


@pytest.mark.parametrize(
    ("endpoint", "key"),
    [(None, None), ("", KEY), ("ENDPOINT", None), ("ENDPOINT", ""), ("ENDPOINT", "   ")],
)
def test_without_credentials_nothing_is_called(
    fake: FakeAzureLanguage, config: Amplification, endpoint: str | None, key: str | None
) -> None:
    endpoint = fake.endpoint if endpoint == "ENDPOINT" else endpoint
    amp = build_amplifier(endpoint, key, config)
    assert isinstance(amp, NullAmplifier)
    text = "Muslims are vermin"
    result = amp.amplify(text, "en", [span_of(text, "Muslims")])
    assert result == AmplificationResult(1.0, None, None, "not_configured")
    assert amp.amplify_many([(text, "en", [(0, 7)])] * 3) == [result] * 3
    assert amp.status() == "not_configured"
    amp.close()
    assert fake.count() == 0


def test_build_amplifier_with_credentials_uses_the_provider(
    fake: FakeAzureLanguage, config: Amplification
) -> None:
    amp = build_amplifier(fake.endpoint + "/", KEY, config, timeout_s=1.0)
    try:
        assert isinstance(amp, AzureLanguageAmplifier)
        text = "Muslims are vermin"
        assert amp.amplify(text, "en", [span_of(text, "Muslims")]).factor == NEG_AND_ENTITY
        assert amp.status() == "connected"
    finally:
        amp.close()


# --- factor rules and wire format


def test_negative_sentiment_and_entity_overlap_multiply_and_cap(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    text = "Muslims are vermin"
    result = make().amplify(text, "en", [span_of(text, "Muslims")])
    assert result == AmplificationResult(
        NEG_AND_ENTITY, "azure_language", "sentiment=2022-11-01;entities=2021-06-01", None
    )
    assert result.to_dict() == {
        "factor": NEG_AND_ENTITY,
        "provider": "azure_language",
        "model_version": "sentiment=2022-11-01;entities=2021-06-01",
        "skipped_reason": None,
    }
    assert fake.count(SENTIMENT) == 1
    assert fake.count(ENTITIES) == 1
    for body, headers in zip(fake.bodies, fake.headers, strict=True):
        assert headers["ocp-apim-subscription-key"] == KEY
        assert body["parameters"]["stringIndexType"] == "UnicodeCodePoint"
        assert body["parameters"]["modelVersion"] == "latest"
        assert body["analysisInput"]["documents"] == [{"id": "1", "language": "en", "text": text}]
    assert [b["kind"] for b in fake.bodies] == [SENTIMENT, ENTITIES]


@pytest.mark.parametrize(
    ("text", "anchor", "factor"),
    [
        ("Mexicans are vermin", "Mexicans", NEG_AND_ENTITY),
        ("those people are vermin", "people", NEG_ONLY),  # entity list has no "people"
        ("Mexicans live in Texas", "Mexicans", ENTITY_ONLY),
        ("those people live in Texas", "people", 1.0),
        ("Mexicans are annoying", "Mexicans", ENTITY_ONLY),  # negative 0.55 < 0.60
        ("those people are rotten", "people", NEG_ONLY),  # negative 0.60 == minimum counts
    ],
)
def test_factor_rules(
    make: Callable[..., AzureLanguageAmplifier], text: str, anchor: str, factor: float
) -> None:
    result = make().amplify(text, "en", [span_of(text, anchor)])
    assert result.factor == factor
    assert result.skipped_reason is None


def test_entity_elsewhere_than_the_anchor_does_not_count(
    make: Callable[..., AzureLanguageAmplifier],
) -> None:
    text = "people in London are vermin"
    assert make().amplify(text, "en", [span_of(text, "people")]).factor == NEG_ONLY
    assert make().amplify(text, "en", []).factor == NEG_ONLY


def test_uncapped_product_is_rounded_to_three_decimals(
    make: Callable[..., AzureLanguageAmplifier],
) -> None:
    amp = make(cfg={"max_factor": 2.0})
    text = "Muslims are vermin"
    assert amp.amplify(text, "en", [span_of(text, "Muslims")]).factor == 1.155


def test_single_model_version_when_both_kinds_agree(config: Amplification) -> None:
    same = {SENTIMENT: "2023-04-01", ENTITIES: "2023-04-01"}
    with FakeAzureLanguage(model_versions=same) as server:
        amp = AzureLanguageAmplifier(endpoint=server.endpoint, key=KEY, config=config)
        try:
            assert amp.amplify("Jews are vermin", "en", [(0, 4)]).model_version == "2023-04-01"
        finally:
            amp.close()


def test_offsets_are_code_points_even_after_emoji(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    # Eight astral emoji shift UTF-16 offsets by 8: were the client to ask for (or
    # the service to default to) UTF-16 units, the entity would land on [17, 21)
    # and miss the anchor at code points [9, 13).
    text = "🔥" * 8 + " Jews are vermin"
    anchor = span_of(text, "Jews")
    assert anchor == (9, 13)
    assert make().amplify(text, "en", [anchor]).factor == NEG_AND_ENTITY
    assert fake.bodies[-1]["parameters"]["stringIndexType"] == "UnicodeCodePoint"


# --- languages


@pytest.mark.parametrize("language", ["ig", "yo"])
def test_unsupported_languages_make_no_request(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier], language: str
) -> None:
    result = make().amplify("Muslims are vermin", language, [(0, 7)])
    assert result == AmplificationResult(1.0, "azure_language", None, "language_unsupported")
    assert fake.count() == 0


def test_hausa_gets_sentiment_only(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    text = "Muslims are vermin"
    result = make().amplify(text, "ha", [span_of(text, "Muslims")])
    assert result == AmplificationResult(NEG_ONLY, "azure_language", "2022-11-01", None)
    assert fake.count(SENTIMENT) == 1
    assert fake.count(ENTITIES) == 0
    assert fake.bodies[0]["analysisInput"]["documents"][0]["language"] == "ha"


def test_language_is_always_sent(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    make().amplify("Los inmigrantes son alimañas", "es", [(4, 15)])
    assert {d["language"] for b in fake.bodies for d in b["analysisInput"]["documents"]} == {"es"}


# --- batches and id mapping


def test_results_are_mapped_by_id_not_position(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    texts = ["Muslims are vermin", "Muslims live here", "those people are vermin", "hello"]
    items = [(t, "en", [(0, 7)]) for t in texts]
    results = make().amplify_many(items)
    assert [r.factor for r in results] == [NEG_AND_ENTITY, ENTITY_ONLY, NEG_ONLY, 1.0]
    sent_ids = [d["id"] for d in fake.bodies[0]["analysisInput"]["documents"]]
    assert sent_ids == ["1", "2", "3", "4"]  # and the fake answers in reverse order


def test_amplify_many_chunks_within_the_service_limits(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    items: list[tuple[str, str, list[tuple[int, int]]]] = []
    for n in range(23):
        language = "yo" if n in (3, 17) else "en"
        text = f"Mexicans number {n} are vermin" if n % 2 else f"people number {n} are fine"
        items.append((text, language, [(0, 8)]))
    results = make().amplify_many(items)
    assert len(results) == 23
    for n, result in enumerate(results):
        if n in (3, 17):
            assert result.skipped_reason == "language_unsupported"
        else:
            assert result.skipped_reason is None
            assert result.factor == (NEG_AND_ENTITY if n % 2 else 1.0)
    # 21 sendable documents: sentiment in 10 + 10 + 1, entities in 5 + 5 | 5 + 5 | 1.
    assert fake.count(SENTIMENT) == 3
    assert fake.count(ENTITIES) == 5
    sizes = {
        kind: [len(b["analysisInput"]["documents"]) for b in fake.bodies if b["kind"] == kind]
        for kind in (SENTIMENT, ENTITIES)
    }
    assert sizes == {SENTIMENT: [10, 10, 1], ENTITIES: [5, 5, 5, 5, 1]}


def test_mixed_languages_in_one_batch(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    items = [
        ("Muslims are vermin", "ha", [(0, 7)]),
        ("Muslims are vermin", "en", [(0, 7)]),
        ("Muslims are vermin", "ig", [(0, 7)]),
    ]
    results = make().amplify_many(items)
    assert results == [
        AmplificationResult(NEG_ONLY, "azure_language", "2022-11-01", None),
        AmplificationResult(
            NEG_AND_ENTITY, "azure_language", "sentiment=2022-11-01;entities=2021-06-01", None
        ),
        AmplificationResult(1.0, "azure_language", None, "language_unsupported"),
    ]
    entity_docs = [
        d for b in fake.bodies if b["kind"] == ENTITIES for d in b["analysisInput"]["documents"]
    ]
    assert [d["language"] for d in entity_docs] == ["en"]


def test_empty_batch_makes_no_request(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    assert make().amplify_many([]) == []
    assert fake.count() == 0


# --- per-document errors


def test_document_error_inside_a_200_degrades_only_that_document(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    items = [
        ("Muslims are vermin", "en", [(0, 7)]),
        (f"Muslims are vermin {DOC_ERROR_MARKER}", "en", [(0, 7)]),
        ("   ", "en", []),
    ]
    amp = make()
    results = amp.amplify_many(items)
    assert results[0].factor == NEG_AND_ENTITY
    # Documents the sentiment call rejected are not sent to the entity call.
    entity_bodies = [b for b in fake.bodies if b["kind"] == ENTITIES]
    assert [d["id"] for d in entity_bodies[0]["analysisInput"]["documents"]] == ["1"]
    for result in results[1:]:
        assert result.factor == 1.0
        assert result.skipped_reason == "document_error:InvalidDocument"
        assert result.provider == "azure_language"
    assert amp.status() == "connected"


# --- call failures


def test_rate_limit_is_retried_after_the_capped_retry_after(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    fake.fail("rate_limited", times=1, retry_after="30")
    amp = make(cfg={"retry_after_cap_s": 0.05})
    started = time.monotonic()
    result = amp.amplify("Muslims are vermin", "en", [(0, 7)])
    elapsed = time.monotonic() - started
    assert result.factor == NEG_AND_ENTITY
    assert result.skipped_reason is None
    assert fake.count(SENTIMENT) == 2
    assert 0.05 <= elapsed < 0.5


def test_persistent_rate_limit_stops_after_max_attempts(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    fake.fail("rate_limited", retry_after="0")
    result = make().amplify("Muslims are vermin", "en", [(0, 7)])
    assert result == AmplificationResult(1.0, "azure_language", None, "rate_limited")
    assert fake.count(SENTIMENT) == 2  # max_attempts = 2: one retry
    assert fake.count(ENTITIES) == 0
    make(cfg={"max_attempts": 3}).amplify("Muslims are vermin", "en", [(0, 7)])
    assert fake.count(SENTIMENT) == 5


def test_rate_limit_wait_beyond_the_deadline_gives_up_at_once(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    fake.fail("rate_limited", retry_after="1")  # capped at 1.0 s > timeout 0.2 s
    started = time.monotonic()
    result = make(timeout_s=0.2).amplify("Muslims are vermin", "en", [(0, 7)])
    assert result.skipped_reason == "rate_limited"
    assert time.monotonic() - started < 0.5  # no 1 s wait
    assert fake.count(SENTIMENT) == 1


def test_rate_limit_on_the_entity_call_is_retried_too(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    fake.fail("rate_limited", kinds={ENTITIES}, times=1, retry_after="0")
    assert make().amplify("Muslims are vermin", "en", [(0, 7)]).factor == NEG_AND_ENTITY
    assert (fake.count(SENTIMENT), fake.count(ENTITIES)) == (1, 2)


@pytest.mark.parametrize(
    ("value", "headers", "expected"),
    [
        ("missing", {}, 0.7),
        ("seconds", {"Retry-After": "2"}, 2.0),
        ("fraction", {"Retry-After": "0.25"}, 0.25),
        ("negative", {"Retry-After": "-3"}, 0.0),
        ("garbage", {"Retry-After": "soon"}, 0.7),
        ("past date", {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),
        ("ms wins", {"Retry-After": "9", "retry-after-ms": "150"}, 0.15),
        ("x-ms", {"x-ms-retry-after-ms": "500"}, 0.5),
        ("nan", {"Retry-After": "nan"}, 0.7),
    ],
)
def test_retry_after_parsing(value: str, headers: dict[str, str], expected: float) -> None:
    assert _retry_after_s(httpx.Headers(headers), 0.7) == pytest.approx(expected)


def test_quota_exceeded_is_not_retried(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    fake.fail("quota")
    result = make().amplify("Muslims are vermin", "en", [(0, 7)])
    assert result == AmplificationResult(1.0, "azure_language", None, "quota_exceeded")
    assert fake.count() == 1


@pytest.mark.parametrize(
    ("mode", "kinds", "reason"),
    [
        ("server_error", None, "http_500"),
        ("server_error", {ENTITIES}, "http_500"),
        ("malformed", None, "bad_response"),
        ("bad_shape", None, "bad_response"),
        ("missing_document", None, "bad_response"),
        ("missing_document", {ENTITIES}, "bad_response"),
    ],
)
def test_call_failures_degrade_to_factor_one(
    fake: FakeAzureLanguage,
    make: Callable[..., AzureLanguageAmplifier],
    mode: str,
    kinds: set[str] | None,
    reason: str,
) -> None:
    fake.fail(mode, kinds=kinds)
    result = make().amplify("Muslims are vermin", "en", [(0, 7)])
    # All or nothing: a half-answered call never yields a partial factor.
    assert result == AmplificationResult(1.0, "azure_language", None, reason)


def test_wrong_key_is_http_401(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    result = make(key="not-the-key").amplify("Muslims are vermin", "en", [(0, 7)])
    assert result.skipped_reason == "http_401"
    assert fake.count("unauthorized") == 1


def test_slow_provider_times_out_within_the_deadline(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    fake.fail("slow", slow_s=2.0)
    started = time.monotonic()
    result = make(timeout_s=0.2).amplify("Muslims are vermin", "en", [(0, 7)])
    assert result == AmplificationResult(1.0, "azure_language", None, "timeout")
    assert time.monotonic() - started < 0.6


def test_deadline_covers_both_requests(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    # Each request alone fits in the deadline; the two together do not.
    fake.fail("slow", slow_s=0.15)
    started = time.monotonic()
    result = make(timeout_s=0.25).amplify("Muslims are vermin", "en", [(0, 7)])
    assert result.skipped_reason == "timeout"
    assert time.monotonic() - started < 0.5


def test_default_timeout_comes_from_the_taxonomy(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    fake.fail("slow", slow_s=2.0)
    amp = make(timeout_s=None, cfg={"default_timeout_s": 0.15})
    started = time.monotonic()
    assert amp.amplify("Muslims are vermin", "en", [(0, 7)]).skipped_reason == "timeout"
    assert time.monotonic() - started < 0.5


def test_connection_refused_is_unreachable(config: Amplification) -> None:
    amp = AzureLanguageAmplifier(endpoint=refused_endpoint(), key=KEY, config=config)
    try:
        result = amp.amplify("Muslims are vermin", "en", [(0, 7)])
        assert result == AmplificationResult(1.0, "azure_language", None, "unreachable")
        assert amp.status() == "unreachable"
    finally:
        amp.close()


def test_closed_amplifier_degrades_instead_of_raising(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    amp = make()
    amp.close()
    assert amp.amplify("Muslims are vermin", "en", [(0, 7)]).skipped_reason == "unreachable"
    assert amp.status() == "unreachable"
    assert fake.count() == 0


def test_custom_transport_is_used(config: Amplification) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(503, json={"error": {"code": "ServiceUnavailable", "message": "x"}})

    amp = AzureLanguageAmplifier(
        endpoint="https://example.cognitiveservices.azure.com/",
        key=KEY,
        config=config,
        transport=httpx.MockTransport(handler),
    )
    try:
        assert amp.amplify("a", "en", []).skipped_reason == "http_503"
    finally:
        amp.close()
    assert str(seen[0].url) == (
        "https://example.cognitiveservices.azure.com/language/:analyze-text?api-version=2023-04-01"
    )


# --- circuit breaker


def test_breaker_opens_after_consecutive_failures_and_half_opens_after_cooldown(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    clock = FakeClock()
    amp = make(clock=clock)  # breaker_failures 3, cooldown 30 s from the taxonomy
    fake.fail("server_error")
    for _ in range(3):
        assert amp.amplify("Muslims are vermin", "en", [(0, 7)]).skipped_reason == "http_500"
    assert fake.count() == 3
    assert amp.amplify("Muslims are vermin", "en", [(0, 7)]).skipped_reason == "circuit_open"
    assert (
        amp.amplify_many([("x", "en", [])] * 12)
        == [AmplificationResult(1.0, "azure_language", None, "circuit_open")] * 12
    )
    assert fake.count() == 3
    assert amp.status() == "unreachable"

    clock.advance(29.9)
    assert amp.amplify("Muslims are vermin", "en", [(0, 7)]).skipped_reason == "circuit_open"
    assert fake.count() == 3

    clock.advance(0.2)  # half-open: one trial; it fails, so the breaker reopens at once
    assert amp.amplify("Muslims are vermin", "en", [(0, 7)]).skipped_reason == "http_500"
    assert amp.amplify("Muslims are vermin", "en", [(0, 7)]).skipped_reason == "circuit_open"
    assert fake.count() == 4

    clock.advance(30.0)
    fake.fail("ok")
    assert amp.amplify("Muslims are vermin", "en", [(0, 7)]).factor == NEG_AND_ENTITY
    assert amp.status() == "connected"
    assert amp.amplify("Muslims are vermin", "en", [(0, 7)]).skipped_reason is None


def test_breaker_counts_only_consecutive_failures(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    amp = make(clock=FakeClock())
    for _ in range(3):
        fake.fail("server_error", times=2)
        amp.amplify("a", "en", [])
        amp.amplify("a", "en", [])
        assert amp.amplify("a", "en", []).skipped_reason is None  # success resets the count
    assert fake.count(SENTIMENT) == 9


def test_document_errors_and_unsupported_languages_do_not_trip_the_breaker(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    amp = make(clock=FakeClock())
    for _ in range(5):
        reason = amp.amplify(DOC_ERROR_MARKER, "en", []).skipped_reason
        assert reason == "document_error:InvalidDocument"
        assert amp.amplify("a", "yo", []).skipped_reason == "language_unsupported"
    assert amp.amplify("Muslims are vermin", "en", [(0, 7)]).skipped_reason is None


def test_half_open_admits_a_single_trial() -> None:
    clock = FakeClock()
    breaker = _Breaker(threshold=1, cooldown_s=10.0, clock=clock)
    assert breaker.acquire() is _Permit.NORMAL
    breaker.record(_Permit.NORMAL, ok=False)
    assert breaker.acquire() is None
    clock.advance(10.0)
    assert breaker.acquire() is _Permit.TRIAL
    assert breaker.acquire() is None  # a concurrent caller while the trial is in flight
    breaker.record(_Permit.TRIAL, ok=True)
    assert breaker.acquire() is _Permit.NORMAL
    assert breaker.healthy()


# --- concurrency and secrecy


def test_concurrent_callers_share_one_amplifier(
    fake: FakeAzureLanguage, make: Callable[..., AzureLanguageAmplifier]
) -> None:
    amp = make()
    texts = ["Muslims are vermin", "Muslims live here", "those people are vermin", "hello"]
    expected = [NEG_AND_ENTITY, ENTITY_ONLY, NEG_ONLY, 1.0]
    errors: list[str] = []

    def worker(offset: int) -> None:
        for n in range(4):
            i = (offset + n) % 4
            factor = amp.amplify(texts[i], "en", [(0, 7)]).factor
            if factor != expected[i]:
                errors.append(f"{texts[i]!r}: {factor} != {expected[i]}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert errors == []
    assert fake.count(SENTIMENT) == 32


def test_key_never_leaks(
    fake: FakeAzureLanguage,
    make: Callable[..., AzureLanguageAmplifier],
    config: Amplification,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    amp = make(clock=FakeClock())
    seen: list[str] = [repr(amp), str(amp)]
    for mode in ("server_error", "quota", "malformed", "rate_limited"):
        fake.fail(mode, retry_after="0")
        result = amp.amplify("Muslims are vermin", "en", [(0, 7)])
        seen += [repr(result), str(result.to_dict())]
    seen.append(repr(amp))  # breaker open now
    wrong = make(key="not-the-key")
    seen += [repr(wrong), repr(wrong.amplify("a", "en", []))]
    refused = AzureLanguageAmplifier(endpoint=refused_endpoint(), key=KEY, config=config)
    seen += [repr(refused.amplify("a", "en", [])), repr(refused)]
    refused.close()
    with pytest.raises(ValueError) as bad_endpoint:
        AzureLanguageAmplifier(endpoint=f"ftp://{KEY}@host", key=KEY, config=config)
    seen.append(str(bad_endpoint.value))
    seen.append(caplog.text)
    assert "circuit opened" in caplog.text
    for text in seen:
        assert KEY not in text
        assert "not-the-key" not in text


def test_repr_hides_userinfo_in_the_endpoint(config: Amplification) -> None:
    amp = AzureLanguageAmplifier(
        endpoint="https://user:secret@example.cognitiveservices.azure.com",
        key=KEY,
        config=config,
    )
    try:
        assert "secret" not in repr(amp)
        assert "example.cognitiveservices.azure.com" in repr(amp)
    finally:
        amp.close()


@pytest.mark.parametrize(
    ("kwargs", "setting"),
    [
        ({"endpoint": "not a url"}, "TEXT_ANALYTICS_ENDPOINT"),
        ({"endpoint": "ftp://example.com"}, "TEXT_ANALYTICS_ENDPOINT"),
        ({"key": ""}, "TEXT_ANALYTICS_KEY"),
        ({"timeout_s": 0.0}, "TEXT_ANALYTICS_TIMEOUT_S"),
        ({"timeout_s": float("inf")}, "TEXT_ANALYTICS_TIMEOUT_S"),
    ],
)
def test_bad_settings_fail_at_construction(
    config: Amplification, kwargs: dict[str, Any], setting: str
) -> None:
    arguments: dict[str, Any] = {"endpoint": "https://example.com", "key": KEY, "config": config}
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=setting):
        AzureLanguageAmplifier(**arguments)
