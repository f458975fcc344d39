"""The engine's exceptions: each message names what is wrong in the caller's terms."""

from __future__ import annotations


class TaxonomyError(ValueError):
    """The taxonomy cannot be used; the message names the file, row and problem."""


class PackCompileError(TaxonomyError):
    """A language's pack loaded but its combined matcher cannot be built (RE2's memory
    budget): raised when the language is first compiled, naming the file, the rows and
    the reason. ``language`` lets a server answer for that language alone."""

    def __init__(self, message: str, language: str) -> None:
        super().__init__(message)
        self.language = language


class PatternError(ValueError):
    """A pattern or lexicon entry that cannot be compiled; the message says why."""


class InputError(ValueError):
    """A text, context or language the engine does not accept; names the field and limit."""
