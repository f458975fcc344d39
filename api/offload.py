"""Where classification runs: on the event loop when it is cheap, on the classification thread
otherwise (``Services.compute``).

Classification is CPU-bound. A thread does not make it cheaper under the GIL;
it only lets the event loop interleave other requests with long work. For a
short text the round trip to a thread costs more than the classification
itself, so ``Services.inline`` decides per text (see INLINE_MAX_CHARS there).
A language's first text always goes to a thread: it compiles the language.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from api.encoding import dumps
from api.models import BatchRequest, ClassifyRequest
from api.services import Services
from engine import Classification
from engine.languages import is_auto


async def classify(
    services: Services, text: str, context: str | None, language: str | None
) -> Classification:
    classifier = services.classifier
    # "auto": the language is known only after identification, so the text goes to
    # the thread, where the identified language may be compiled.
    code = None if is_auto(language) else classifier.resolve_language(language)[0]
    size = len(text) + (len(context) if context else 0)
    if code is not None and services.inline(size, code):
        return classifier.classify(text, context=context, language=language)
    result = await services.compute(classifier.classify, text, context=context, language=language)
    services.mark_warm(result.language)  # its first text compiled it
    return result


def batch_results(services: Services, batch: BatchRequest) -> tuple[bytes, list[Classification]]:
    """A whole batch's response body, built in one go on the classification thread:
    classify (step by step over the items, ``Classifier.classify_many``), serialize and
    encode, with no hop back to the loop between items; and the results, for the
    metrics and the request log.

    Issue 13: a batch of long texts must not starve the requests the event loop
    answers meanwhile (short texts are classified there). The GIL passes between the
    two threads every few milliseconds while Python code runs, but not during one long
    C call: so the results are encoded one by one and joined (one orjson call over
    forty results of thousands of signals held the GIL for a second), and the items
    are classified in slices of at most ``SLICE_CHARS`` characters, the thread giving
    the GIL up between slices.
    """
    classifier = services.classifier
    classified: list[Classification] = []
    encoded: list[bytes] = []
    for part in _slices(batch.items):
        found = classifier.classify_many((item.text, item.context, item.language) for item in part)
        classified.extend(found)
        encoded.extend(dumps(result.to_dict()) for result in found)
        time.sleep(0)  # let a request waiting on the event loop run now
    body = b'{"count":%d,"results":[%b]}' % (len(encoded), b",".join(encoded))
    return body, classified


# Characters (texts and contexts) classified between two turns of the event loop in a batch.
SLICE_CHARS = 32_768


def _slices(items: Sequence[ClassifyRequest]) -> Iterator[list[ClassifyRequest]]:
    """Consecutive items, as many as fit in SLICE_CHARS (at least one per slice)."""
    part: list[ClassifyRequest] = []
    size = 0
    for item in items:
        length = len(item.text) + (len(item.context) if item.context else 0)
        if part and size + length > SLICE_CHARS:
            yield part
            part, size = [], 0
        part.append(item)
        size += length
    if part:
        yield part
