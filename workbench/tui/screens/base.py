"""What every workbench screen shares: typed access to the app's services."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.screen import ModalScreen, Screen

if TYPE_CHECKING:
    from workbench.tui.app import WorkbenchApp
    from workbench.tui.services import Services


class WorkbenchScreen(Screen[Any]):
    """A mode's screen (or one pushed over it)."""

    @property
    def workbench(self) -> WorkbenchApp:
        return cast("WorkbenchApp", self.app)

    @property
    def services(self) -> Services:
        return self.workbench.services

    def cancel_job(self) -> bool:
        """Cancel this screen's running job; whether one was running. Screens override."""
        return False


class WorkbenchModal(ModalScreen[Any]):
    """A dialog over a workbench screen."""

    @property
    def workbench(self) -> WorkbenchApp:
        return cast("WorkbenchApp", self.app)

    @property
    def services(self) -> Services:
        return self.workbench.services
