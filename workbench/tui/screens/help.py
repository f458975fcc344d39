"""Keys help (f1), built from the live bindings of the screen under it.

Reading ``Screen.active_bindings`` rather than a hand-written list means the
help can never disagree with what the keys do: it shows the focused widget's
keys, the screen's and the app's, grouped by where they are defined, with the
same key names as the footer (``App.get_key_display``).
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widgets import Static

from workbench.tui.screens.base import WorkbenchModal

HINT = "ctrl+p opens the command palette (go to a screen or a source, run a job) · escape closes"


class HelpScreen(WorkbenchModal):
    """The keys that work on the screen below, and how to reach the palette."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close"),
        Binding("f1", "dismiss", "Close", show=False),
    ]

    def __init__(self, under: Screen[object]) -> None:
        super().__init__()
        self.under = under

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Static(f"Keys · {screen_title(self.under)}", id="help-title")
            with VerticalScroll(id="help-body"):
                yield Static(self.render_keys(), id="help-keys")
            yield Static(HINT, id="help-hint")

    def key_groups(self) -> list[tuple[str, list[tuple[str, str, bool]]]]:
        """``(group title, [(keys, description, enabled)])``: the screen, the app, the focus.

        One row per action: ``up`` and ``k`` bound to the same action share a row.
        """
        app = self.app
        entries = [
            (active.node, active.binding, active.enabled)
            for active in self.under.active_bindings.values()
        ]
        # The app's own bindings too, in case the screen below shadows one of them.
        listed = {(id(node), binding.action) for node, binding, _ in entries}
        entries.extend(
            (app, binding, True)
            for _key, binding in app._bindings
            if (id(app), binding.action) not in listed
        )
        nodes: dict[int, DOMNode] = {}
        rows: dict[int, dict[tuple[str, str], tuple[list[str], bool]]] = {}
        for node, binding, enabled in entries:
            description = binding.description or binding.tooltip
            if not description:
                continue
            nodes.setdefault(id(node), node)
            actions = rows.setdefault(id(node), {})
            keys, _ = actions.setdefault((binding.action, description), ([], enabled))
            display = app.get_key_display(binding)
            if display not in keys:
                keys.append(display)
        ordered = sorted(nodes.values(), key=lambda node: _rank(node, self.under))
        return [
            (
                _group_title(node, self.under),
                [
                    (" ".join(keys), description, enabled)
                    for (_action, description), (keys, enabled) in rows[id(node)].items()
                ],
            )
            for node in ordered
        ]

    def render_keys(self) -> RenderableType:
        parts: list[RenderableType] = []
        for title, rows in self.key_groups():
            if parts:
                parts.append(Text(""))
            parts.append(Text(title, style="bold"))
            table = Table.grid(padding=(0, 2))
            table.add_column(no_wrap=True, min_width=12)
            table.add_column()
            for keys, description, enabled in rows:
                style = "" if enabled else "dim"
                table.add_row(Text(keys, style=f"bold {style}"), Text(description, style=style))
            parts.append(table)
        return Group(*parts)

    def plain_text(self) -> str:
        """Everything the help lists, as plain text (for tests and copy)."""
        lines: list[str] = []
        for title, rows in self.key_groups():
            lines.append(title)
            lines.extend(f"  {keys}  {description}" for keys, description, _ in rows)
        lines.append(HINT)
        return "\n".join(lines)


def screen_title(screen: Screen[object]) -> str:
    """``BenchmarkScreen`` → ``Benchmark``."""
    name = type(screen).__name__
    return name.removesuffix("Screen") or name


def _rank(node: DOMNode, under: Screen[object]) -> int:
    """The screen's keys first, then the app's, the focused widget's (cursor keys) last."""
    if node is under:
        return 0
    return 1 if isinstance(node, App) else 2


def _group_title(node: DOMNode, under: Screen[object]) -> str:
    if isinstance(node, App):
        return "Everywhere"
    if node is under:
        return "This screen"
    return f"In the focused {type(node).__name__}"
