"""The language codes harmwatch knows (SPEC section 2.1), in a module that imports nothing.

Front ends list them in help texts before any part of the engine is loaded.
"""

from __future__ import annotations

LANGUAGES: tuple[str, ...] = ("en", "es", "fr", "ru", "ar", "ig", "yo", "ha")
