"""Cue finders, and the one scan that says which of them can match a text at all."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from engine.rules.compiler import NEVER, NOT_WORD, PatternCompiler
from engine.rules.models import LanguagePack
from engine.rules.regex_syntax import has_assertion
from engine.text import re2x, work
from engine.text.subject import Subject


def bounded(body: str) -> str:
    """A body matched as whole words, its span in group ``m``."""
    return f"(?:^|{NOT_WORD})(?P<m>{body})(?:{NOT_WORD}|$)"


class CueFinder:
    """Finds whole-word cue phrases; used for negation, reporting, condemnation."""

    def __init__(self, compiler: PatternCompiler, cues: Sequence[str], where: str) -> None:
        self.empty = not cues
        self.body = compiler.terms(cues, typo=False, where=where) if cues else NEVER
        self._regex = re2x.Regex(bounded(self.body))
        self._group: int = self._regex.groupindex["m"]
        self.key = -1  # its place in the language's CuePresence

    def find_all(
        self, subject: Subject, start: int = 0, end: int | None = None
    ) -> Iterator[tuple[int, int]]:
        """Yield cue spans inside [start, end), matched as a window of its own."""
        if self.empty:
            return
        if work.COUNTER is not None:
            work.COUNTER.windows += 1
        for spans in subject.finditer(self._regex, self._group, start, end, window=True):
            if work.COUNTER is not None:
                work.COUNTER.cues += 1
            yield spans[self._group]

    def first(
        self, subject: Subject, start: int = 0, end: int | None = None
    ) -> tuple[int, int] | None:
        """The first cue ``find_all`` yields, with one windowed search and no generators."""
        if self.empty:
            return None
        if end is None:
            end = len(subject.text)
        if start > end:
            return None
        if work.COUNTER is not None:
            work.COUNTER.windows += 1
        spans = subject.search(self._regex, start, end, window=True)
        return None if spans is None else spans[self._group]


class CueBook:
    """The cue finders of one language pack, each compiled once however many
    suppressors declare it (negation and counter-speech share the exceptions)."""

    def __init__(self, compiler: PatternCompiler, pack: LanguagePack, where: str) -> None:
        self._compiler = compiler
        self._pack = pack
        self._where = where
        self._made: dict[str, CueFinder] = {}

    def list(self, name: str) -> CueFinder:
        """The finder of the pack's ``cues.<name>`` list."""
        found = self._made.get(name)
        if found is None:
            cues: list[str] = getattr(self._pack.cues, name)
            found = CueFinder(self._compiler, cues, f"{self._where} cues.{name}")
            self._made[name] = found
        return found

    def benign(self, benign_id: str, cues: Sequence[str]) -> CueFinder:
        """The finder of one benign-context entry."""
        return CueFinder(self._compiler, cues, f"{self._where} benign {benign_id}")


class CuePresence:
    """Which cue finders of a language can match anywhere in a text, from one DFA pass.

    Suppression searches cues in windows around each match (the clause before
    it, the sentences around it, a few words either side), a dozen windowed
    searches per signal. A finder can only match a window where its body
    matches part of the text, so one Set scan of the whole text for every body
    rules out most of those searches: most texts hold no negation, condemnation
    or benign cue at all. A body with an assertion can match a window's edge
    without matching the text, so it always counts as present.
    """

    def __init__(self, finders: Sequence[CueFinder]) -> None:
        self._keys: list[int] = []
        always: set[int] = set()
        bodies: list[str] = []
        for key, finder in enumerate(finders):
            finder.key = key
            if finder.empty:
                continue
            if has_assertion(finder.body):
                always.add(key)
            else:
                bodies.append(finder.body)
                self._keys.append(key)
        self._always = frozenset(always)
        self._match = re2x.search_set([*bodies, NEVER])  # a Set needs one entry to compile

    def present(self, subject: Subject) -> frozenset[int]:
        """The keys of the finders that may match some window of the text."""
        keys = self._keys
        if work.COUNTER is not None:
            work.COUNTER.regex(len(subject.data))
        return self._always.union(keys[hit] for hit in self._match(subject.data))
