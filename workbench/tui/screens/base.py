"""What every workbench screen shares: typed access to the app's services."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.screen import ModalScreen, Screen

if TYPE_CHECKING:
    from textual.app import App

    from workbench.tui.app import WorkbenchApp
    from workbench.tui.services import Services


class _OnWorkbench:
    """The app as the workbench it is, for screens and dialogs alike."""

    if TYPE_CHECKING:
        app: App[Any]

    @property
    def workbench(self) -> WorkbenchApp:
        return cast("WorkbenchApp", self.app)

    @property
    def services(self) -> Services:
        return self.workbench.services


class WorkbenchScreen(_OnWorkbench, Screen[Any]):
    """A mode's screen (or one pushed over it)."""

    def cancel_job(self) -> bool:
        """Cancel this screen's running job; whether one was running. Screens override."""
        return False


class WorkbenchModal(_OnWorkbench, ModalScreen[Any]):
    """A dialog over a workbench screen."""
