"""The source_id rule of SPEC section 5, in one place for the API, the CLI and the store.

1–200 characters, no whitespace, no ``/`` (it is a path segment in the HTTP
API), no control characters. "Control characters" follows the SPEC's own
vocabulary (section 2 calls zero-width and bidi marks "controls"): Unicode
categories Cc (C0, DEL, C1) and Cf (zero-width, bidi and other format
controls), because those make two ids that look identical on screen. Lone
surrogates (Cs) are refused too: they have no UTF-8 form, so neither the
database nor the record hash could hold them.
"""

from __future__ import annotations

import unicodedata

from store.errors import InvalidSourceId

MAX_SOURCE_ID_CHARS = 200
RULE = "1–200 characters, no whitespace, no '/', no control characters"
_REFUSED_CATEGORIES = {"Cc": "control characters", "Cf": "control characters", "Cs": "surrogates"}


def validate_source_id(source_id: object) -> str:
    """Return the id unchanged, or raise InvalidSourceId naming the broken rule.

    The message never repeats a refused character itself (it could be a
    terminal escape); it gives the code point and the position instead.
    """
    if not isinstance(source_id, str):
        raise InvalidSourceId(f"must be a string ({RULE})")
    length = len(source_id)
    if not 1 <= length <= MAX_SOURCE_ID_CHARS:
        raise InvalidSourceId(f"must be 1–{MAX_SOURCE_ID_CHARS} characters, not {length} ({RULE})")
    if source_id.isprintable() and " " not in source_id and "/" not in source_id:
        return source_id  # the common case, in one C-level pass
    for position, char in enumerate(source_id, start=1):
        where = f"U+{ord(char):04X} at character {position}"
        if char == "/":
            raise InvalidSourceId(f"must not contain '/' (character {position}; {RULE})")
        if char.isspace():
            raise InvalidSourceId(f"must not contain whitespace ({where}; {RULE})")
        kind = _REFUSED_CATEGORIES.get(unicodedata.category(char))
        if kind is not None:
            raise InvalidSourceId(f"must not contain {kind} ({where}; {RULE})")
    return source_id
