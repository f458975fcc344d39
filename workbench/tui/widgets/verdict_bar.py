"""The verdict of the Classify screen: harmful or not, why, and about whom.

A dumb widget: the screen hands it either a message (loading, failed, an
error from the engine) or a result with the numbers it needs (threshold,
severity label, palette), all computed elsewhere. The severity shows as a
class (``-sev-N``) that the stylesheet colours, so a theme switch recolours
the bar without a new render.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from workbench.tui.formatting import Palette, verdict_details, verdict_facts, verdict_headline

if TYPE_CHECKING:
    from engine import Classification

SEVERITY_CLASSES = tuple(f"-sev-{level}" for level in range(5))


class VerdictBar(Static):
    """Headline, facts and rationale; ``details`` adds guidance, hash and taxonomy version."""

    DEFAULT_CSS = """
    VerdictBar { height: auto; }
    """

    def show_message(self, message: str, *, kind: str = "info") -> None:
        """A state with no result: ``info`` (loading, empty), ``error`` (refused, failed)."""
        self.remove_class(*SEVERITY_CLASSES)
        self.set_class(kind == "error", "-error")
        self.update(Text(message))

    def show_result(
        self,
        result: Classification,
        *,
        threshold: float,
        severity_label: str,
        palette: Palette,
        details: bool,
    ) -> None:
        self.remove_class("-error", *SEVERITY_CLASSES)
        self.add_class(f"-sev-{min(max(result.severity, 0), 4)}")
        out = verdict_headline(result, threshold, severity_label, palette)
        out.append("\n")
        out.append_text(verdict_facts(result))
        out.append("\n")
        out.append(result.decision_rationale, style="dim")
        if details:
            out.append("\n")
            out.append_text(verdict_details(result))
        self.update(out)
