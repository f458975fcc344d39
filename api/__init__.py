"""harmwatch's HTTP API: ``create_app(settings)`` builds the FastAPI app (SPEC section 6).

Importing the package builds nothing: no settings are read and no database is
opened until a factory is called (``create_app`` or ``create_app_from_env``).
"""

from __future__ import annotations

from api.app import create_app, create_app_from_env

__all__ = ["create_app", "create_app_from_env"]
