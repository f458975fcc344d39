"""POST /benchmark/run: the taxonomy's functional suite, reported by capability.

The suite is loaded once per process (``Services.suite``); a run takes well
under a second. An unknown capability or a language without cases is a 422
naming the field, because a typo must not "pass" with zero cases.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.exceptions import RequestValidationError
from starlette.responses import Response

from api.deps import ServicesDep
from api.encoding import json_response
from api.models import BenchmarkReport, BenchmarkRequest
from api.responses import INTERNAL, TOO_LARGE
from engine.evaluation.benchmark import Suite, run_suite, select_cases

router = APIRouter(prefix="/benchmark", tags=["benchmark"], responses={**TOO_LARGE, **INTERNAL})


@router.post("/run", response_model=BenchmarkReport, summary="Run the functional benchmark suite")
def run(services: ServicesDep, body: BenchmarkRequest | None = None) -> Response:
    """Run the suite (or the named capabilities and languages; an empty body runs all of it)
    and report pass rates by capability, with every failing case and its rationale."""
    request = body or BenchmarkRequest()
    suite = services.suite
    _check_filters(suite, request)
    report = run_suite(
        services.classifier,
        suite,
        capabilities=request.capabilities,
        languages=request.languages,
    )
    return json_response(report)


def _check_filters(suite: Suite, request: BenchmarkRequest) -> None:
    """Each filter alone, then both, so the 422 names the field at fault."""
    checks = (
        ("capabilities", {"capabilities": request.capabilities}),
        ("languages", {"languages": request.languages}),
        (None, {"capabilities": request.capabilities, "languages": request.languages}),
    )
    for field, filters in checks:
        try:
            select_cases(suite, **filters)
        except ValueError as exc:
            loc = ("body", field) if field else ("body",)
            error = {"type": "value_error", "loc": loc, "msg": str(exc)}
            raise RequestValidationError([error]) from None
