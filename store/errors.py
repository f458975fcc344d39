"""The store's expected failures, each worded so a front end can show it as is.

Front ends map them by class: ``InvalidSourceId`` is bad input (HTTP 422),
``UnknownSource`` a missing resource (404), ``StoreUnavailable`` a database
that cannot be reached or opened (503; exit 2 on the CLI). Every message that
names a database shows its URL with the password replaced, because these
lines end up in terminals, logs and HTTP responses.
"""

from __future__ import annotations


class StoreError(Exception):
    """Base of every failure the store reports on purpose."""


class StoreUnavailable(StoreError):  # noqa: N818 - the name front ends map (issue 3)
    """The database cannot be reached, opened or migrated; the URL is already redacted."""

    def __init__(self, redacted_url: str, reason: str) -> None:
        super().__init__(f"tracking database {redacted_url} is unavailable: {reason}")
        self.url = redacted_url
        self.reason = reason


class StoreMisconfigured(StoreUnavailable):
    """The database named cannot be used as configured, and waiting will not change that.

    A URL that is not a database URL (or names an unsupported backend), a file
    that is not a database, a schema this version does not know or that lacks
    its tables, a server that refuses the role or knows no such database. A
    server stops at start-up on these (one ``error:`` line, exit 2) instead of
    answering 503 forever; a database that is merely unreachable is a plain
    ``StoreUnavailable`` and the server keeps retrying. Being a
    ``StoreUnavailable``, every handler of that one (503, exit 2) covers it.
    """

    def __init__(self, redacted_url: str, reason: str) -> None:
        super().__init__(redacted_url, reason)
        self.args = (f"tracking database {redacted_url} cannot be used: {reason}",)


class UnknownSource(StoreError, LookupError):  # noqa: N818 - as above
    """No observation was ever recorded for this source_id."""

    def __init__(self, source_id: str) -> None:
        super().__init__(f"unknown source {source_id!r}")
        self.source_id = source_id


class InvalidSourceId(StoreError, ValueError):  # noqa: N818 - as above
    """A source_id that breaks a rule of SPEC section 5; the message names the rule."""

    def __init__(self, rule: str) -> None:
        super().__init__(f"source_id {rule}")
        self.rule = rule


class InvalidTextError(StoreError, ValueError):
    """A text the store cannot keep byte for byte (lone surrogates have no UTF-8 form)."""


class StoreReadOnly(StoreMisconfigured):
    """A write to a database that is open read-only (a file nobody may write, a read-only
    mount, a reading command's connection), refused before anything is attempted.

    A StoreMisconfigured: retrying will not make the file writable. The CLI
    reports it as one line (exit 2), the API as a 503 that says so.
    """

    def __init__(self, redacted_url: str, reason: str) -> None:
        super().__init__(redacted_url, reason)
        self.args = (f"tracking database {redacted_url} is read-only: {reason}",)


class AlreadyRedacted(StoreError):  # noqa: N818 - named like the other front-end errors
    """A redaction of a record that is already redacted (HTTP 409, exit 2)."""

    def __init__(self, source_id: str, seq: int, at: str) -> None:
        super().__init__(f"seq {seq} of source {source_id!r} is already redacted (at {at})")
        self.source_id = source_id
        self.seq = seq


class UnknownObservation(StoreError, LookupError):  # noqa: N818 - as above
    """The source exists but has no record at this seq (HTTP 404)."""

    def __init__(self, source_id: str, seq: int) -> None:
        super().__init__(f"source {source_id!r} has no observation at seq {seq}")
        self.source_id = source_id
        self.seq = seq
