"""Command palette providers (placeholder until built)."""

from __future__ import annotations

from textual.command import Hits, Provider


class NavigationProvider(Provider):
    async def search(self, query: str) -> Hits:
        return
        yield


class SourceProvider(Provider):
    async def search(self, query: str) -> Hits:
        return
        yield


class JobProvider(Provider):
    async def search(self, query: str) -> Hits:
        return
        yield
