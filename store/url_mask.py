"""Masking the secrets of a database URL, whatever shape the URL is in.

A database URL reaches errors, logs and /health, and it is exactly the value a
user gets wrong: a missing colon (``postgresql+psycopg//user:pw@host/db``), no
scheme at all (``user:pw@host/db``), a password with an unencoded ``@``
(``user:p@ss@host/db``), a libpq keyword string (``host=h password=pw``), or a
password pasted into the wrong variable. A URL parser fails on most of these or
splits them in the wrong place (SQLAlchemy takes ``p`` as the password of
``user:p@ss@host`` and ``ss@host`` as the host), so the mask works on the text
itself and errs on the side of hiding:

- everything between the scheme's ``//`` (or the start) and the *last* ``@`` is
  the credentials part; only what comes before its first ``:`` (the user name)
  is kept, and nothing of it when it holds an ``@`` of its own;
- a query or keyword parameter whose name suggests a secret (``password``,
  ``sslpassword``, ``token``, ...) has its value replaced;
- a value that has neither a scheme (``name:/``) nor an ``@`` nor keyword
  parameters is not recognisably a URL at all, and is hidden whole.
"""

from __future__ import annotations

import re

from sqlalchemy.engine import URL

MASK = "***"

# A URL scheme followed by at least one slash: "sqlite:/", "postgresql+psycopg://".
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:/")
# name=value where the name suggests a secret, in a query string or a libpq keyword string.
_SECRET_PARAM = re.compile(
    r"(?i)(?P<name>\b[\w.\-]*(?:pass|pwd|secret|token|credential)[\w.\-]*\s*=\s*)"
    r"(?P<value>'(?:[^'\\]|\\.)*'?|[^&;\s]*)"
)
_KEYWORD = re.compile(r"\b\w+\s*=")


def redact_url(url: str | URL) -> str:
    """The URL with every secret it may hold shown as ``***``: safe for errors, logs, /health."""
    if isinstance(url, URL):
        return _mask_params(url.render_as_string(hide_password=True))
    text = str(url)
    at = text.rfind("@")
    if at >= 0:
        head, tail = text[:at], text[at:]
        start = head.find("//") + 2 if "//" in head else 0
        prefix, credentials = head[:start], head[start:]
        user, colon, _password = credentials.partition(":")
        if "@" in user:
            credentials = MASK
        elif colon:
            credentials = f"{user}:{MASK}"
        return _mask_params(prefix + credentials) + _mask_params(tail)
    if _SCHEME.match(text) or _KEYWORD.search(text):
        return _mask_params(text)
    return MASK if text else text


def url_secrets(url: URL) -> list[str]:
    """The secret values of a parsed URL (its password, secret-named query values), so that
    a driver message that happens to echo one can be scrubbed."""
    found = [url.password] if isinstance(url.password, str) and url.password else []
    for name, value in url.query.items():
        if _SECRET_PARAM.fullmatch(f"{name}="):
            values = (value,) if isinstance(value, str) else tuple(value)
            found.extend(item for item in values if item)
    return found


def _mask_params(text: str) -> str:
    return _SECRET_PARAM.sub(lambda m: m["name"] + MASK, text)
