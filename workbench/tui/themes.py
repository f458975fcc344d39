"""The workbench's two themes, as data (posting's habit), with its own colour variables.

Severity colours ``$sev-0`` .. ``$sev-4``, the suppression colour and the cue
colour are theme variables so that the stylesheet and the span renderer read
one definition, and so that Textual's built-in themes still parse the
stylesheet (the defaults below fill in what they lack).
"""

from __future__ import annotations

from textual.theme import Theme

DARK = "harmwatch-dark"
LIGHT = "harmwatch-light"

VARIABLE_DEFAULTS: dict[str, str] = {
    "sev-0": "#7f8c8d",
    "sev-1": "#d4b106",
    "sev-2": "#e67e22",
    "sev-3": "#e74c3c",
    "sev-4": "#ff2d55",
    "suppressed": "#8e8e8e",
    "cue": "#3498db",
    "coded": "#b36bff",
}

THEMES: tuple[Theme, ...] = (
    Theme(
        name=DARK,
        primary="#4f9dde",
        secondary="#2c5d8a",
        accent="#b36bff",
        warning="#e6a23c",
        error="#ff4d4f",
        success="#52c41a",
        foreground="#dcdfe4",
        background="#15171c",
        surface="#1d2027",
        panel="#262a33",
        dark=True,
        variables={**VARIABLE_DEFAULTS, "footer-key-foreground": "#4f9dde"},
    ),
    Theme(
        name=LIGHT,
        primary="#1f5f99",
        secondary="#5b8ec2",
        accent="#7a3ccf",
        warning="#b26b00",
        error="#c0262d",
        success="#2e7d32",
        foreground="#1b1d22",
        background="#f7f7f5",
        surface="#ecece8",
        panel="#dedfdb",
        dark=False,
        variables={
            "sev-0": "#5f6b6d",
            "sev-1": "#8a6d00",
            "sev-2": "#b35400",
            "sev-3": "#c0262d",
            "sev-4": "#9b0037",
            "suppressed": "#6b6b6b",
            "cue": "#1f5f99",
            "coded": "#7a3ccf",
            "footer-key-foreground": "#1f5f99",
        },
    ),
)

RISK_CLASSES: dict[str, str] = {
    "low": "sev-0",
    "watch": "sev-2",
    "elevated": "sev-3",
    "critical": "sev-4",
}
"""Risk level -> the severity colour variable that draws it."""

TREND_ARROWS: dict[str, str] = {"escalating": "↑", "de-escalating": "↓", "stable": "→"}
