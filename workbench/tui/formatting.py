"""Pure renderings of a classification as rich ``Text`` (no app, no engine calls).

The Classify screen's widgets draw what these functions return, so that what
the analyst sees is unit-tested without running Textual. Colours come in as a
``Palette`` (theme variable name -> colour, read from the running theme), so a
theme switch is one more call, not new code.

Offsets: the engine's spans are code-point offsets into the text as
submitted, which is also rich's unit. ``highlight`` styles those exact ranges
and never reorders or normalizes the text: right-to-left scripts stay in
logical order (the terminal lays them out) and combining marks stay on their
base characters, with rich measuring cell widths.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.color import Color, ColorParseError
from rich.style import Style
from rich.text import Text

from workbench.tui.themes import VARIABLE_DEFAULTS

if TYPE_CHECKING:
    from engine import Classification, DogwhistleMatch, Signal

Palette = Mapping[str, str]
"""Theme variable name (``sev-0`` .. ``sev-4``, ``suppressed``, ``cue``, ``coded``) -> colour."""

PALETTE_KEYS: tuple[str, ...] = tuple(VARIABLE_DEFAULTS)

REASON_LABELS: dict[str, str] = {
    "negation": "negation",
    "counter_speech": "counter-speech",
    "benign_context": "benign context",
}
"""How a suppression reason reads on screen (the engine's names are snake_case)."""

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")

HASH_CHARS = 12
"""Leading hex digits of a content hash shown on screen; f9 copies the full one."""


def palette_from(variables: Mapping[str, str]) -> dict[str, str]:
    """The span colours out of a theme's variables, falling back to harmwatch's defaults."""
    return {key: variables.get(key, default) for key, default in VARIABLE_DEFAULTS.items()}


def superscript(number: int) -> str:
    """``1`` -> ``¹``, ``12`` -> ``¹²``: the markers tying a struck span to its cue."""
    return str(number).translate(_SUPERSCRIPT)


def severity_key(severity: int) -> str:
    """The palette key of a severity, clamped to the five levels the themes define."""
    return f"sev-{min(max(severity, 0), 4)}"


def contrast_colour(colour: str) -> str:
    """Black or white, whichever reads better on ``colour`` (for text on a highlight)."""
    try:
        red, green, blue = Color.parse(colour).get_truecolor()
    except ColorParseError:
        return "white"
    luminance = 0.2126 * red + 0.7152 * green + 0.0722 * blue
    return "black" if luminance > 140 else "white"


def score_vs_threshold(score: float, threshold: float) -> str:
    """``0.850 ≥ 0.650`` or ``0.450 < 0.650``: the number the decision turned on."""
    sign = "≥" if score >= threshold else "<"
    return f"{score:.3f} {sign} {threshold:.3f}"


def short_hash(content_hash: str) -> str:
    return content_hash[:HASH_CHARS] + "…" if len(content_hash) > HASH_CHARS else content_hash


# -- suppression cues and their markers ---------------------------------------------------

CueKey = tuple[str, tuple[int, int]]
"""``(reason, cue_span)``: one marker per distinct cue, however many matches it suppressed."""


@dataclass(frozen=True, slots=True)
class CueMarker:
    number: int
    reason: str
    cue: str
    cue_span: tuple[int, int]

    @property
    def marker(self) -> str:
        return superscript(self.number)

    @property
    def legend(self) -> str:
        """``¹ negation: "not"``."""
        return f'{self.marker} {REASON_LABELS.get(self.reason, self.reason)}: "{self.cue}"'


def cue_markers(result: Classification) -> dict[CueKey, CueMarker]:
    """Number the suppression cues in text order (``¹`` is the first cue in the text)."""
    cues: dict[CueKey, tuple[str, str, tuple[int, int]]] = {}
    for signal in result.signals_suppressed:
        why = signal.suppressed_by
        if why is not None:
            cues.setdefault((why.reason, why.cue_span), (why.reason, why.cue, why.cue_span))
    ordered = sorted(cues.items(), key=lambda item: (item[0][1], item[0][0]))
    return {
        key: CueMarker(number, reason, cue, span)
        for number, (key, (reason, cue, span)) in enumerate(ordered, start=1)
    }


def suppression_reason(signal: Signal) -> str:
    """``negation: "not"`` for a suppressed signal, ``""`` for a surviving one."""
    why = signal.suppressed_by
    if why is None:
        return ""
    return f'{REASON_LABELS.get(why.reason, why.reason)}: "{why.cue}"'


# -- the text with its spans --------------------------------------------------------------


def span_styles(palette: Palette) -> dict[str, Callable[[int], Style]]:
    """The four span looks, as functions of a severity (only ``matched`` uses it)."""
    suppressed = Style(strike=True, color=palette["suppressed"])
    cue = Style(underline=True, color=palette["cue"])
    coded = Style(italic=True, color=palette["coded"])

    def matched(severity: int) -> Style:
        background = palette[severity_key(severity)]
        return Style(bold=True, bgcolor=background, color=contrast_colour(background))

    return {
        "suppressed": lambda _severity: suppressed,
        "cue": lambda _severity: cue,
        "coded": lambda _severity: coded,
        "matched": matched,
    }


def _clamp(span: tuple[int, int], length: int) -> tuple[int, int]:
    start, end = span
    return max(0, min(start, length)), max(0, min(end, length))


def highlight(result: Classification, text: str, palette: Palette) -> Text:
    """The text with its spans styled; offsets are those of ``text`` exactly.

    Layered so that the decision reads on top: suppressed spans (struck), then
    their cues (underlined), then coded terms (italic), then surviving pattern
    matches (bold on their severity colour).
    """
    styles = span_styles(palette)
    out = Text(text, no_wrap=False)
    length = len(text)
    for signal in result.signals_suppressed:
        out.stylize(styles["suppressed"](signal.severity), *_clamp(signal.span, length))
    for signal in result.signals_suppressed:
        if signal.suppressed_by is not None:
            cue_span = _clamp(signal.suppressed_by.cue_span, length)
            out.stylize(styles["cue"](0), *cue_span)
    coded_spans = {s.span for s in result.signals_matched if s.source == "dogwhistle"}
    if result.dogwhistle_matched is not None:
        coded_spans.add(result.dogwhistle_matched.span)
    for span in sorted(coded_spans):
        out.stylize(styles["coded"](0), *_clamp(span, length))
    for signal in result.signals_matched:
        if signal.source == "pattern":
            out.stylize(styles["matched"](signal.severity), *_clamp(signal.span, length))
    return out


def coded_term_line(match: DogwhistleMatch, palette: Palette) -> Text:
    """What a coded term stands for, and which group it points at."""
    line = Text()
    line.append("coded term ", style="bold")
    line.append(f'"{match.term}"', style=Style(italic=True, color=palette["coded"]))
    if match.canonical.casefold() != match.term.casefold():
        line.append(f" ({match.canonical})")
    line.append(f": {match.meaning}")
    line.append(f" — names {match.identity_axis or 'no identity axis'}", style="dim")
    return line


def render_spans(result: Classification, text: str, palette: Palette) -> Text:
    """The highlighted text, a marker after each suppression cue, then one legend line each.

    Markers are inserted into a copy; ``highlight`` keeps the engine's offsets
    for anything that needs them.
    """
    body = highlight(result, text, palette)
    markers = sorted(cue_markers(result).values(), key=lambda m: (m.cue_span[1], m.number))
    out = Text(no_wrap=False)
    position = 0
    cue_style = Style(bold=True, color=palette["cue"])
    for marker in markers:
        end = min(max(marker.cue_span[1], position), len(text))
        out.append_text(body[position:end])
        out.append(marker.marker, style=cue_style)
        position = end
    out.append_text(body[position:])
    for marker in sorted(markers, key=lambda m: m.number):
        out.append("\n")
        out.append(marker.marker, style=cue_style)
        out.append(marker.legend[len(marker.marker) :], style=Style(color=palette["suppressed"]))
    if result.dogwhistle_matched is not None:
        out.append("\n")
        out.append_text(coded_term_line(result.dogwhistle_matched, palette))
    return out


# -- the verdict --------------------------------------------------------------------------


def verdict_headline(
    result: Classification, threshold: float, severity_label: str, palette: Palette
) -> Text:
    """``HARMFUL  0.850 ≥ 0.650  animalization  ANIMALIZATION (3)``."""
    colour = palette[severity_key(result.severity)]
    line = Text()
    word = " HARMFUL " if result.is_harmful else " NOT HARMFUL "
    line.append(word, style=Style(bold=True, bgcolor=colour, color=contrast_colour(colour)))
    line.append("  ")
    line.append(score_vs_threshold(result.confidence, threshold), style="bold")
    line.append("  ")
    line.append(result.harm_mechanism or "no mechanism")
    line.append("  ")
    line.append(severity_label, style=Style(bold=True, color=colour))
    return line


def verdict_facts(result: Classification) -> Text:
    """Target, identity axis and language: what the decision was about."""
    line = Text()
    line.append("target ", style="dim")
    line.append(result.target_type or "none")
    line.append(" · axis ", style="dim")
    line.append(result.identity_axis or "none")
    line.append(" · language ", style="dim")
    line.append(f"{result.language} ({result.language_confidence})")
    detected = result.language_detected
    if detected is not None:  # language "auto": what identification found
        line.append(" · identified ", style="dim")
        line.append(f"{detected.code} {detected.confidence:.2f}")
    return line


def verdict_details(result: Classification) -> Text:
    """The f8 lines: guidance, short content hash and taxonomy version."""
    out = Text()
    out.append("guidance ", style="dim")
    out.append(result.counter_narrative_guidance or "none (not harmful)")
    out.append("\n")
    out.append("content hash ", style="dim")
    out.append(short_hash(result.content_hash))
    out.append(" · taxonomy ", style="dim")
    out.append(result.taxonomy_version)
    out.append(" · f9 copies the full result", style="dim")
    return out


# -- the signals --------------------------------------------------------------------------


def signal_line(
    signal: Signal, palette: Palette, marker: str = "", *, max_matched: int = 40
) -> Text:
    """One signal: row, pattern, mechanism, weight, score, matched text, and why suppressed."""
    suppressed = signal.suppressed_by is not None
    colour = palette["suppressed"] if suppressed else palette[severity_key(signal.severity)]
    matched = signal.matched_text
    if len(matched) > max_matched:
        matched = matched[: max_matched - 1] + "…"
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append("✗ " if suppressed else "✓ ", style=Style(bold=True, color=colour))
    line.append(signal.row_id, style="bold")
    # A pattern id extends its row id (``D2.4a-001:en:0``): show the rest right after it.
    pattern = signal.pattern_id
    if pattern.startswith(signal.row_id):
        line.append(pattern[len(signal.row_id) :], style="dim")
    else:
        line.append(f" {pattern}", style="dim")
    line.append(f" {signal.harm_mechanism}", style=Style(color=colour))
    line.append(f"  w {signal.weight:.2f}  s {signal.score:.3f}  ")
    line.append(
        f'"{matched}"', style=Style(strike=suppressed, italic=signal.source == "dogwhistle")
    )
    if suppressed:
        line.append(f"  {marker} " if marker else "  ", style=Style(color=palette["cue"]))
        line.append(suppression_reason(signal), style=Style(color=palette["cue"]))
    return line


def signal_lines(result: Classification, palette: Palette) -> list[Text]:
    """Surviving signals first, then suppressed ones with their cue markers."""
    markers = cue_markers(result)
    lines = [signal_line(signal, palette) for signal in result.signals_matched]
    for signal in result.signals_suppressed:
        why = signal.suppressed_by
        found = markers.get((why.reason, why.cue_span)) if why is not None else None
        lines.append(signal_line(signal, palette, found.marker if found else ""))
    return lines
