"""Dependencies: the app's services, a database session per request, a valid source_id.

The request owns the transaction: ``SessionDep`` opens a read transaction
around the route and ends it when the route returns (rolls back when it
raises), *before* the response is sent (``scope="function"``). Store functions
take ``session=`` and never commit. Observations are written by the group
commit of ``api.writer`` instead, which commits before the 201 is sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, cast

from fastapi import Depends, Path, Request
from pydantic import AfterValidator
from pydantic_core import PydanticCustomError
from sqlalchemy.orm import Session

from api.services import Services
from store import InvalidSourceId, validate_source_id


def services_of(request: Request) -> Services:
    """The app's services, for the hot routes that skip dependency injection (api.body)."""
    return cast(Services, request.app.state.services)


async def get_services(request: Request) -> Services:
    # async: a plain attribute read must not cost a trip through the threadpool.
    return services_of(request)


ServicesDep = Annotated[Services, Depends(get_services)]


def get_session(services: ServicesDep) -> Iterator[Session]:
    with services.store().transaction() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session, scope="function")]


def _source_id(value: str) -> str:
    try:
        return validate_source_id(value)
    except InvalidSourceId as exc:
        raise PydanticCustomError("source_id", str(exc)) from None


# The published pattern excludes what a JSON Schema regex can name portably (whitespace,
# '/', C0 and C1 controls, the common zero-width and bidi marks); the server applies
# the full rule of SPEC section 5 (every Unicode Cc/Cf/Cs character).
SOURCE_ID_PATTERN = (
    r"^[^\s/\u0000-\u001f\u007f-\u009f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]+$"
)

SourceId = Annotated[
    str,
    AfterValidator(_source_id),
    Path(
        description="The source's id: 1–200 characters, no whitespace, no '/', no control "
        "or format characters (Unicode Cc, Cf) and no lone surrogates.",
        examples=["acct:1"],
        json_schema_extra={"minLength": 1, "maxLength": 200, "pattern": SOURCE_ID_PATTERN},
    ),
]
