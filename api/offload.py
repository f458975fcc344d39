"""Where classification runs: on the event loop when it is cheap, on the classification thread
otherwise (``Services.compute``).

Classification is CPU-bound. A thread does not make it cheaper under the GIL;
it only lets the event loop interleave other requests with long work. For a
short text the round trip to a thread costs more than the classification
itself, so ``Services.inline`` decides per text (see INLINE_MAX_CHARS there).
A language's first text always goes to a thread: it compiles the language.
"""

from __future__ import annotations

from api.encoding import dumps
from api.models import BatchRequest
from api.services import Services
from engine import Classification


async def classify(
    services: Services, text: str, context: str | None, language: str | None
) -> Classification:
    classifier = services.classifier
    code = classifier.resolve_language(language)[0]
    size = len(text) + (len(context) if context else 0)
    if services.inline(size, code):
        return classifier.classify(text, context=context, language=language)
    result = await services.compute(classifier.classify, text, context=context, language=language)
    services.mark_warm(code)  # its first text compiled it
    return result


def batch_results(services: Services, batch: BatchRequest) -> tuple[bytes, list[Classification]]:
    """A whole batch's response body, built in one go on the classification thread:
    classify (step by step over the items, ``Classifier.classify_many``), serialize and
    encode, with no hop back to the loop between items; and the results, for the
    metrics and the request log."""
    classified = list(
        services.classifier.classify_many(
            (item.text, item.context, item.language) for item in batch.items
        )
    )
    results = [result.to_dict() for result in classified]
    return dumps({"count": len(results), "results": results}), classified
