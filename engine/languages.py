"""The language codes harmwatch knows (SPEC section 2.1), in a module that imports nothing.

Front ends list them in help texts before any part of the engine is loaded.
"""

from __future__ import annotations

LANGUAGES: tuple[str, ...] = ("en", "es", "fr", "ru", "ar", "ig", "yo", "ha")

AUTO = "auto"
"""The language value that asks for identification (SPEC section 7): ``-l auto``."""


def is_auto(language: str | None) -> bool:
    """Whether ``language`` asks for identification ("auto", any case, blanks around)."""
    return language is not None and language.strip().lower() == AUTO
