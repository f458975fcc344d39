"""One router per resource (classify, tracking, benchmark, validate, health, metrics)."""

from __future__ import annotations

from fastapi import APIRouter

from api.routers import benchmark, classify, health, metrics, tracking, validate

ROUTERS: tuple[APIRouter, ...] = (
    classify.router,
    tracking.router,
    benchmark.router,
    validate.router,
    health.router,
    metrics.router,
)
