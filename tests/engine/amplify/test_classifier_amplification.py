"""The classifier with the text-analytics provider, against the local fake service.

The provider may only raise the score of a signal that already survived, and a
provider that is down or slow changes nothing but the recorded skip reason.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine import Classifier, LoadedTaxonomy
from engine.amplify.azure import AzureLanguageAmplifier
from tests.fakes.azure_language import KEY, SENTIMENT, FakeAzureLanguage, refused_endpoint


@pytest.fixture
def fake() -> Iterator[FakeAzureLanguage]:
    with FakeAzureLanguage() as service:
        yield service


def _classifier(taxonomy: LoadedTaxonomy, endpoint: str, timeout_s: float = 1.0) -> Classifier:
    amplifier = AzureLanguageAmplifier(
        endpoint=endpoint, key=KEY, config=taxonomy.root.amplification, timeout_s=timeout_s
    )
    return Classifier(taxonomy, amplifier=amplifier)


def test_negative_sentiment_and_entity_raise_the_score(
    taxonomy: LoadedTaxonomy, fake: FakeAzureLanguage
) -> None:
    result = _classifier(taxonomy, fake.endpoint).classify("Muslims are vermin.")
    config = taxonomy.root.amplification
    expected = round(
        min(config.factor_negative_sentiment * config.factor_entity_overlap, config.max_factor), 3
    )
    assert result.amplification.factor == expected > 1.0
    assert result.amplification.provider == "azure_language"
    assert result.amplification.skipped_reason is None
    assert result.confidence == round(min(0.85 * expected, 1.0), 3)
    assert result.signals_matched[0].weight == 0.85
    assert result.is_harmful


def test_provider_is_not_asked_when_nothing_survived(
    taxonomy: LoadedTaxonomy, fake: FakeAzureLanguage
) -> None:
    result = _classifier(taxonomy, fake.endpoint).classify("Muslims are not vermin.")
    assert not result.is_harmful
    assert fake.count() == 0
    assert result.amplification.to_dict() == {
        "factor": 1.0,
        "provider": "azure_language",
        "model_version": None,
        "skipped_reason": "no_surviving_signal",
    }


def test_provider_never_creates_a_match(taxonomy: LoadedTaxonomy, fake: FakeAzureLanguage) -> None:
    result = _classifier(taxonomy, fake.endpoint).classify("I hate this filthy rotten weather.")
    assert not result.is_harmful and fake.count() == 0


def test_provider_down_changes_nothing_but_the_reason(taxonomy: LoadedTaxonomy) -> None:
    result = _classifier(taxonomy, refused_endpoint(), timeout_s=0.5).classify(
        "Muslims are vermin."
    )
    assert result.is_harmful and result.confidence == 0.85
    assert result.amplification.factor == 1.0
    assert result.amplification.skipped_reason == "unreachable"


def test_slow_provider_is_cut_off(taxonomy: LoadedTaxonomy, fake: FakeAzureLanguage) -> None:
    fake.fail("slow", kinds={SENTIMENT}, slow_s=1.0)
    result = _classifier(taxonomy, fake.endpoint, timeout_s=0.2).classify("Muslims are vermin.")
    assert result.is_harmful and result.confidence == 0.85
    assert result.amplification.skipped_reason == "timeout"
