"""Language identification for ``language: "auto"``: Google's CLD2 through pycld2.

Why CLD2: of the maintained identifiers on PyPI it is the only one found that
knows all eight harmwatch languages (en es fr ru ar ig yo ha) and stays near the
30 µs budget for a 280-character text (docs/language-identification.md has the
comparison). It ships its tables in the wheel, so nothing is downloaded at run time.

The library is imported on the first identification, never at startup: a text sent
without a language, or with a code, never loads it.
"""

from __future__ import annotations

import importlib
import re
import threading
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from types import ModuleType
from typing import Any

LIBRARY = "pycld2"
UNDETERMINED = "und"
"""The code reported when the library names no language (BCP 47's "undetermined")."""

# Characters CLD2 refuses as "invalid UTF-8": C0 controls but tab, newline, form
# feed and carriage return; DEL and the C1 controls; lone surrogates; and the
# Unicode noncharacters. They carry no language, so they are blanked before a retry.
_REFUSED = re.compile(
    "[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufdd0-\ufdef"
    + "".join(f"{chr(plane << 16 | 0xFFFE)}{chr(plane << 16 | 0xFFFF)}" for plane in range(17))
    + "]"
)

_module: ModuleType | None = None
_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Identification:
    """What the library said about a text.

    ``confidence`` is the share of the text's letters CLD2 gives to ``code`` (its
    ``percent``, 0 to 1), halved when CLD2 itself calls the guess unreliable (a short
    text, or two languages close together), so that an unreliable guess stays under
    any cut-off above 0.5.
    """

    code: str
    confidence: float
    reliable: bool

    def to_dict(self) -> dict[str, Any]:
        """The result's ``language_detected`` object (SPEC section 3)."""
        return {"code": self.code, "confidence": self.confidence}


def _cld2() -> ModuleType:
    global _module
    if _module is None:
        with _lock:
            if _module is None:
                _module = importlib.import_module(LIBRARY)
    return _module


def identify(text: str) -> Identification:
    """The language of ``text`` as CLD2 identifies it, with its confidence."""
    cld2 = _cld2()
    try:
        reliable, _, details = cld2.detect(text, isPlainText=True)
    except (cld2.error, UnicodeEncodeError):
        reliable, _, details = cld2.detect(_REFUSED.sub(" ", text), isPlainText=True)
    _, code, percent, _ = details[0]
    if code == "un":
        return Identification(UNDETERMINED, 0.0, False)
    share = percent / 100
    return Identification(code, round(share if reliable else share / 2, 3), bool(reliable))


@cache
def library_version() -> str:
    """The installed version of the identification library, for /health and the docs."""
    try:
        return metadata.version(LIBRARY)
    except metadata.PackageNotFoundError:
        return "not installed"
