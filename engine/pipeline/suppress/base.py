"""The suppressor protocol: what a kind of suppression declares and does.

A suppressor is built once per language from the pack's cue lists. It declares
its cue finders (``finders``), so the one cue-presence scan per text covers it,
and its reason name (``reason``), which results, the API schema and the tests
read from the registry in ``engine.pipeline.suppress``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from engine.pipeline.cues import CueBook, CueFinder
    from engine.pipeline.doc import Doc, Hit
    from engine.result import Suppression, SuppressionReason
    from engine.rules.models import LanguagePack, Windows


class Suppressor(Protocol):
    @property
    def reason(self) -> SuppressionReason: ...

    @property
    def finders(self) -> tuple[CueFinder, ...]:
        """Every cue finder ``check`` may search: the cue-presence scan covers them."""
        ...

    def check(self, doc: Doc, hit: Hit) -> Suppression | None:
        """Why the hit is not harm, with the cue and its span in the original, or None."""
        ...


class SuppressorKind(Protocol):
    """A suppressor class: its reason and how it is built for one language."""

    @property
    def reason(self) -> SuppressionReason: ...

    def __call__(self, cues: CueBook, pack: LanguagePack, windows: Windows) -> Suppressor: ...
