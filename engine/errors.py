"""The engine's exceptions: each message names what is wrong in the caller's terms."""

from __future__ import annotations


class TaxonomyError(ValueError):
    """The taxonomy cannot be used; the message names the file, row and problem."""


class PatternError(ValueError):
    """A pattern or lexicon entry that cannot be compiled; the message says why."""


class InputError(ValueError):
    """A text, context or language the engine does not accept; names the field and limit."""
