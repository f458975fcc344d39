"""POST /validate/dehumanization (the legacy gate) and POST /validate/custom (your samples).

Both classify in one threadpool call. Custom samples stream through
``ValidationRun`` one at a time, as the CLI's file runs do.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from api.deps import ServicesDep
from api.encoding import json_response
from api.limits import check_texts
from api.models import CustomValidationRequest, GateReport, ValidationReport
from api.responses import INTERNAL, TOO_LARGE
from engine.evaluation.benchmark import run_gate
from engine.evaluation.validation import Sample, ValidationRun

router = APIRouter(prefix="/validate", tags=["validate"], responses={**TOO_LARGE, **INTERNAL})


@router.post(
    "/dehumanization",
    response_model=GateReport,
    summary="Run the legacy phase-1 dehumanization gate",
)
def dehumanization(services: ServicesDep) -> Response:
    """The fixed, balanced 18-sample set and its required accuracy. Takes no body (one sent
    is ignored); `passed` says whether the accuracy reached the requirement."""
    return json_response(run_gate(services.classifier, services.gate))


@router.post(
    "/custom",
    response_model=ValidationReport,
    summary="Score the classifier against your labelled samples",
)
def custom(body: CustomValidationRequest, services: ServicesDep) -> Response:
    """Accuracy, precision, recall, F1 and the confusion matrix, broken down by `group` and
    language, with the first 200 failures. A sample whose `expected_harmful` is null is
    classified and counted (`not_scored`, `not_scored_flag_rate`) but not scored."""
    samples = body.samples
    check_texts(
        ((sample.text, None) for sample in samples),
        services.max_text_chars,
        ("body", "samples"),
        indexed=True,
    )
    run = ValidationRun(services.classifier, name=body.name or "custom")
    for sample in samples:
        run.add(
            Sample(
                text=sample.text,
                expected_harmful=sample.expected_harmful,
                id=sample.id,
                language=sample.language,
                expected_mechanism=sample.expected_mechanism,
                group=sample.group,
            )
        )
    return json_response(run.report())
