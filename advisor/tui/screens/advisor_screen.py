"""The base of advisor's screens: the app, typed, so screens reach the engine it holds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar, cast

from textual.screen import Screen

if TYPE_CHECKING:
    from advisor.tui.app import AdvisorApp

ResultType = TypeVar("ResultType")


class AdvisorScreen(Screen[ResultType], Generic[ResultType]):
    """A screen of `AdvisorApp`: `advisor` is the app with its index, tree and language."""

    @property
    def advisor(self) -> AdvisorApp:
        return cast("AdvisorApp", self.app)
