"""The classifier: a compiled pipeline per language, and the stages a text runs through.

``Classifier`` is built once from a loaded taxonomy and an amplifier and is then
safe to share between threads: all per-text state lives in a ``Doc``
(engine.pipeline.doc). Every decision records which row and pattern fired,
where, with what weight, and which cue suppressed what (SPEC section 2).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable

from engine.amplify.base import Amplifier, NullAmplifier
from engine.errors import PackCompileError
from engine.inputs import check_input, resolve_language
from engine.languages import LANGUAGES, is_auto
from engine.pipeline.coded import coded_anchor, coded_hits
from engine.pipeline.decide import Clock, Decider, signal
from engine.pipeline.doc import Doc
from engine.pipeline.language import LanguagePipeline
from engine.pipeline.match import first_matches, pattern_hits
from engine.pipeline.scan import scan
from engine.pipeline.suppress import suppress
from engine.pipeline.targets import target
from engine.result import Classification, LanguageDetection
from engine.rules.load import LoadedTaxonomy
from engine.text import langid, re2x
from engine.text.re2x import Span
from engine.text.script import dominant_script

__all__ = ["Classifier", "Clock"]

# A compiled language depends on the taxonomy alone (not on the amplifier, clock or
# text limit), and compiling all eight takes about a minute of CPU: every Classifier
# on an equal taxonomy in this process (same digest and file, e.g. the API's
# classifier with a provider beside the plain one, a workbench reload of an
# unchanged taxonomy) shares them. Held weakly: a language no classifier uses any
# more is freed with its automata.
_COMPILED: weakref.WeakValueDictionary[tuple[str, str, str], LanguagePipeline] = (
    weakref.WeakValueDictionary()
)
_COMPILING = threading.Lock()


class Classifier:
    """A taxonomy compiled for classification, plus the optional amplifier."""

    def __init__(
        self,
        taxonomy: LoadedTaxonomy,
        *,
        amplifier: Amplifier | None = None,
        max_text_chars: int | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.taxonomy = taxonomy
        self.root = taxonomy.root
        self.amplifier: Amplifier = amplifier or NullAmplifier()
        self.max_text_chars = max_text_chars or self.root.max_text_chars
        self._decider = Decider(self.root, self.amplifier, clock)
        self._pipelines: dict[str, LanguagePipeline] = {}
        self._lock = threading.Lock()
        self._default_language: str = self.root.default_language
        identification = self.root.language_identification
        self._min_confidence = identification.min_confidence
        self._non_latin_share = identification.non_latin_share

    # -- the stages ------------------------------------------------------------
    def classify(
        self, text: str, *, context: str | None = None, language: str | None = None
    ) -> Classification:
        """Classify one text; see SPEC section 2 for the steps."""
        check_input(text, context, language, self.max_text_chars)
        detected = None
        if language is None:  # inline: a call costs a tenth of the 3 µs most texts take
            code = self._default_language
            # The script check: nothing for an ASCII text, about a microsecond otherwise.
            note = None if text.isascii() else self.script_note(text)
        else:
            code, note, detected = self._resolve(language, text)
        try:
            lang = self._pipelines.get(code) or self.pipeline(code)
            doc = scan(lang, text, context, note)
            if doc is None:  # no group named, nothing coded: most texts stop here
                result = self._decider.empty(text, code, note)
            else:
                result = self._decide(doc, first_matches(doc))
        except (re2x.SetTooLargeError, re2x.RegexError) as exc:
            raise self._uncompiled(code, exc) from None
        if detected is not None:
            result.language_detected = detected
        return result

    def _decide(self, doc: Doc, firsts: list[tuple[int, list[Span]]]) -> Classification:
        """The result of a scanned text from the first match of each matching pattern."""
        hits = pattern_hits(doc, firsts)
        coded, dogwhistle = coded_hits(doc)
        hits.extend(coded)
        need_target = doc.lang.require_target
        suppressors = doc.lang.suppressors
        signals = [
            signal(doc, hit, found, suppress(doc, hit, suppressors))
            for hit in hits
            if (found := target(doc, hit)) is not None or not need_target
        ]
        return self._decider.decide(doc, signals, dogwhistle or coded_anchor(doc))

    def classify_many(
        self, items: Iterable[tuple[str, str | None, str | None]]
    ) -> list[Classification]:
        """Classify (text, context, language) items: for each, exactly ``classify``'s result.

        Stage by stage over all the items rather than item by item: every scan, then
        every skeleton, then each candidate pattern over all the skeletons that
        propose it, then the decisions. A text runs through a dozen automata whose
        tables do not all fit in the processor's caches; one stage at a time keeps
        each stage's tables warm: about a fifth faster on 100 tweets (32 -> 26.5 µs a
        text with ``to_dict``). Results come in the order of the items.
        """
        at_work = [self._default_language]  # the language of the stage, named on failure
        try:
            return self._classify_many(items, at_work)
        except (re2x.SetTooLargeError, re2x.RegexError) as exc:
            raise self._uncompiled(at_work[0], exc) from None

    def _classify_many(
        self, items: Iterable[tuple[str, str | None, str | None]], at_work: list[str]
    ) -> list[Classification]:
        results: list[Classification | None] = []
        pending: list[tuple[int, Doc]] = []
        detections: dict[int, LanguageDetection] = {}
        for text, context, language in items:
            check_input(text, context, language, self.max_text_chars)
            lang, note, detected = self._language(language, text)
            at_work[0] = lang.code
            if detected is not None:
                detections[len(results)] = detected
            doc = scan(lang, text, context, note)
            if doc is None:
                results.append(self._decider.empty(text, lang.code, note))
            else:
                pending.append((len(results), doc))
                results.append(None)
        proposed: dict[tuple[int, int], list[int]] = {}  # (pipeline, pattern) -> pending
        for position, (_, doc) in enumerate(pending):
            if doc.hits.patterns:
                at_work[0] = doc.lang.code
                doc.skeleton()
                for index in doc.hits.patterns:
                    proposed.setdefault((id(doc.lang), index), []).append(position)
        firsts: list[list[tuple[int, list[Span]]]] = [[] for _ in pending]
        for (_, index), positions in proposed.items():
            for position in positions:
                doc = pending[position][1]
                at_work[0] = doc.lang.code
                first = doc.lang.patterns[index].first_match(doc.skeleton()[1].data)
                if first is not None:
                    firsts[position].append((index, first))
        decided = {}
        for position, (slot, doc) in enumerate(pending):
            at_work[0] = doc.lang.code
            decided[slot] = self._decide(doc, sorted(firsts[position]))
        done = [found if found is not None else decided[slot] for slot, found in enumerate(results)]
        for slot, detected in detections.items():
            done[slot].language_detected = detected
        return done

    def _uncompiled(self, code: str, exc: Exception) -> PackCompileError:
        """A language whose automata cannot be built, named with its pack's file.

        Each pattern and cue compiles at load; what is left are the combined
        automata built at a language's first text (the scan Set says which rows
        weigh most itself: ``set_overflow``)."""
        where = self.taxonomy.path.parent / self.root.languages[code].file
        reason = exc if isinstance(exc, re2x.SetTooLargeError) else re2x.error_reason(exc)
        return PackCompileError(
            f"{where}: language {code!r} cannot be compiled: {reason}: shorten its longest "
            "cue, benign or group-word lists, or restrict the word classes they use",
            code,
        )

    # -- languages -------------------------------------------------------------
    def _language(
        self, language: str | None, text: str
    ) -> tuple[LanguagePipeline, str | None, LanguageDetection | None]:
        detected = None
        if language is None:
            code = self._default_language
            note = None if text.isascii() else self.script_note(text)
        else:
            code, note, detected = self._resolve(language, text)
        return self._pipelines.get(code) or self.pipeline(code), note, detected

    def _resolve(
        self, language: str, text: str
    ) -> tuple[str, str | None, LanguageDetection | None]:
        """A given language: identified for "auto", else resolved as a code."""
        if is_auto(language):
            return self.identify(text)
        code, note = self.resolve_language(language)
        return code, note, None

    def identify(self, text: str) -> tuple[str, str | None, LanguageDetection]:
        """The language to read ``text`` in, as identified, with the rationale's note.

        The identified language is used when harmwatch has a pack for it and the
        confidence reaches the taxonomy's cut-off; otherwise the default language,
        and the note says why (SPEC section 7).
        """
        found = langid.identify(text)
        detected = LanguageDetection(found.code, found.confidence)
        default = self._default_language
        if found.code == langid.UNDETERMINED:
            reason = "Language identification found no language"
        elif found.confidence < self._min_confidence:
            reason = (
                f"Language identification unsure ({found.code}, confidence "
                f"{found.confidence:.3f} < {self._min_confidence:.3f})"
            )
        elif found.code not in self.root.languages:
            reason = (
                f"Language identified as {found.code} (confidence {found.confidence:.3f}), "
                "which harmwatch has no language pack for"
            )
        else:
            return found.code, None, detected
        return default, f" {reason}; fell back to {default}.", detected

    def foreign_script(self, text: str) -> str | None:
        """The non-Latin script most of the text is in (taxonomy's share), or None."""
        return dominant_script(text, self._non_latin_share)

    def script_note(self, text: str) -> str | None:
        """For a text sent without a language: the note when it is mostly in another
        script than Latin, which the default language's pack cannot read."""
        script = dominant_script(text, self._non_latin_share)
        if script is None:
            return None
        return (
            f" The text is mostly in {script} script and no language was given, so it was "
            f"read as {self._default_language}; give language 'auto' or its code."
        )

    def pipeline(self, code: str) -> LanguagePipeline:
        """The compiled pipeline of a language, built on first use."""
        found = self._pipelines.get(code)
        if found is not None:
            return found
        key = (self.taxonomy.digest, str(self.taxonomy.path), code)
        with _COMPILING:
            found = _COMPILED.get(key)
            if found is None:
                found = _COMPILED[key] = LanguagePipeline(self.taxonomy, code)
        with self._lock:
            return self._pipelines.setdefault(code, found)

    def warm(self, languages: Iterable[str] = LANGUAGES, *, patterns: bool = False) -> None:
        """Compile the given languages now instead of on their first text.

        With ``patterns`` every full pattern is compiled too (otherwise each is
        compiled the first time it could match), for a server whose first
        requests should not pay for it.
        """
        for code in languages:
            try:
                self.pipeline(code).warm(patterns=patterns)
            except (re2x.SetTooLargeError, re2x.RegexError) as exc:
                raise self._uncompiled(code, exc) from None

    def resolve_language(self, language: str | None) -> tuple[str, str | None]:
        """The language to use and, for an unknown code, the fallback note."""
        return resolve_language(language, self.root.languages, self.root.default_language)

    def check_input(self, text: object, context: object, language: object) -> None:
        """Raise TypeError/ValueError naming the field and the limit."""
        check_input(text, context, language, self.max_text_chars)
