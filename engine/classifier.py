"""The classification pipeline (SPEC section 2) and its explanation.

``Classifier`` is built once from a loaded taxonomy and an amplifier and is then
safe to share between threads: all per-text state lives in a ``_Work`` object.
Every decision records which row and pattern fired, where, with what weight,
and which cue suppressed what, so that an analyst can check it by eye.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import re
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Literal

from engine.amplification import AmplificationResult, Amplifier, NullAmplifier
from engine.matcher import (
    NO_HITS,
    UNFOLDED,
    CueFinder,
    LanguageMatcher,
    Mention,
    ScanHits,
)
from engine.normalize import Normalized, lower_ascii, normalize
from engine.result import Classification, DogwhistleMatch, Signal, Suppression
from engine.skeleton import Skeleton
from engine.subject import Span, Subject
from engine.taxonomy import LoadedTaxonomy
from engine.taxonomy_models import LANGUAGES, Dogwhistle

# Sentence ends: terminal punctuation (with closing quotes/brackets) then space,
# or a line break. Fixed, simple and linear, so the stdlib engine is safe here.
# Written to begin with one character class, which the stdlib engine then looks
# for before trying a match ("[.!?]+...|\n+" tries both branches at every
# character: three times slower on a tweet). tests/test_classifier.py checks it
# against that plain form.
_SENTENCE_END = re.compile(
    r"[.!?\u061f\u3002\n](?:(?<=\n)\n*|[.!?\u061f\u3002]*[\"')\]]*(?:\s+|$))"
)
_CLAUSE_PUNCT = re.compile(r"[;:\u061b]")
_WORD = re.compile(r"\S+")

Clock = Callable[[], datetime]
_NO_TARGET = "NO HARM: no identity-group target found."
# How far a negation cue that starts before a match may run into it.
_CUE_OVERHANG = 40


def _utc_now() -> datetime:
    return datetime.now(UTC)


def format_timestamp(moment: datetime) -> str:
    """ISO-8601 UTC with microseconds and a Z, the one format used everywhere."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


_second_cache: tuple[int, str] = (-1, "")
_THREE_DIGITS = tuple(f"{n:03d}" for n in range(1000))


def fast_timestamp() -> str:
    """``format_timestamp`` of now, formatting the date part once per second.

    Every result carries a timestamp; building a datetime for each text costs
    more than classifying most texts, and even a ``:06d`` format spec costs half
    of what the rest does, so the microseconds come from a table of digits.
    """
    global _second_cache
    seconds, nanos = divmod(time.time_ns(), 1_000_000_000)
    cached_second, prefix = _second_cache
    if seconds != cached_second:
        prefix = time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(seconds))
        _second_cache = (seconds, prefix)
    millis, micros = divmod(nanos // 1000, 1000)
    return f"{prefix}{_THREE_DIGITS[millis]}{_THREE_DIGITS[micros]}Z"


_SHA256 = hashlib.sha256()  # never updated: copied, which skips the digest lookup per text


def content_hash(text: str) -> str:
    """SHA-256 of the text as submitted (lone surrogates kept via surrogatepass)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-8", "surrogatepass")
    digest = _SHA256.copy()
    digest.update(data)
    return digest.hexdigest()


class _Work:
    """Per-text state, computed lazily because most texts never need it."""

    __slots__ = (
        "_context",
        "_cues",
        "_mentions",
        "_sentences",
        "_skeleton",
        "code",
        "fallback_note",
        "matcher",
        "norm",
        "subject",
        "text",
    )

    def __init__(
        self,
        norm: Normalized,
        subject: Subject,
        matcher: LanguageMatcher,
        context: str | None,
        code: str,
        fallback_note: str | None,
    ) -> None:
        self.code = code
        self.fallback_note = fallback_note
        self.norm = norm
        self.text = norm.text
        self.subject = subject
        self.matcher = matcher
        self._context = context
        self._sentences: list[int] | None = None
        self._mentions: list[Mention] | None = None
        self._skeleton: tuple[Skeleton, Subject] | None = None
        self._cues: frozenset[int] | None = None

    def may_find(self, finder: CueFinder) -> bool:
        """Whether the cue finder can match anywhere in the text (one scan per text)."""
        if self._cues is None:
            self._cues = self.matcher.cue_presence.present(self.subject)
        return finder.key in self._cues

    def cues(self, finder: CueFinder, start: int, end: int) -> Iterable[tuple[int, int]]:
        """The finder's cues in [start, end); no search at all when it cannot match."""
        if not self.may_find(finder):
            return ()
        return finder.find_all(self.subject, start, end)

    def skeleton(self) -> tuple[Skeleton, Subject]:
        if self._skeleton is None:
            glued, plain = self.matcher.mentions_glued_and_plain(self.subject)
            if plain is not None and self._mentions is None:
                self._mentions = plain
            skeleton = Skeleton.build(self.text, glued)
            self._skeleton = (skeleton, Subject(skeleton.text))
        return self._skeleton

    def mentions(self) -> list[Mention]:
        if self._mentions is None:
            self._mentions = self.matcher.mentions(self.subject)
        return self._mentions

    def sentence_starts(self) -> list[int]:
        if self._sentences is None:
            starts = [0]
            for match in _SENTENCE_END.finditer(self.text):
                if match.end() < len(self.text):
                    starts.append(match.end())
            self._sentences = starts
        return self._sentences

    def sentence_of(self, pos: int) -> int:
        return bisect.bisect_right(self.sentence_starts(), pos) - 1

    def sentence_range(self, first: int, last: int) -> tuple[int, int]:
        starts = self.sentence_starts()
        first = max(first, 0)
        last = min(last, len(starts) - 1)
        end = starts[last + 1] if last + 1 < len(starts) else len(self.text)
        return starts[first], end

    def context_mentions(self) -> list[Mention]:
        if not self._context:
            return []
        return self.matcher.mentions(Subject(normalize(self._context).text))


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
        self._clock = clock or _utc_now
        self._matchers: dict[str, LanguageMatcher] = {}
        self._lock = threading.Lock()
        self._threshold = self.root.decision_threshold
        self._default_language: str = self.root.default_language
        self._need_target = self.root.require_target_present
        self._confidence = {code: ref.confidence for code, ref in self.root.languages.items()}
        # What a result records when the provider is not asked: without one,
        # "not_configured"; with one, nothing survived to amplify.
        configured = not isinstance(self.amplifier, NullAmplifier)
        self._no_amplification = AmplificationResult(
            factor=1.0,
            provider=self.root.amplification.provider if configured else None,
            model_version=None,
            skipped_reason="no_surviving_signal" if configured else "not_configured",
        )

    # -- languages -------------------------------------------------------------
    def matcher(self, code: str) -> LanguageMatcher:
        """The compiled matcher for a language, built on first use."""
        found = self._matchers.get(code)
        if found is not None:
            return found
        with self._lock:
            found = self._matchers.get(code)
            if found is None:
                found = LanguageMatcher(self.taxonomy, code)
                self._matchers[code] = found
        return found

    def warm(self, languages: Iterable[str] = LANGUAGES, *, patterns: bool = False) -> None:
        """Compile the given languages now instead of on their first text.

        With ``patterns`` every full pattern is compiled too (otherwise each is
        compiled the first time it could match), for a server whose first
        requests should not pay for it.
        """
        for code in languages:
            matcher = self.matcher(code)
            if patterns:
                for info in matcher.patterns:
                    info.regex()

    def resolve_language(self, language: str | None) -> tuple[str, str | None]:
        """The language to use and, for an unknown code, the fallback note."""
        if language is None:
            return self.root.default_language, None
        code = language.strip().lower().replace("_", "-").split("-", 1)[0]
        if code in self.root.languages:
            return code, None
        fallback = self.root.default_language
        return fallback, f" Language '{language}' not recognized; fell back to {fallback}."

    # -- validation ------------------------------------------------------------
    def check_input(self, text: object, context: object, language: object) -> None:
        """Raise TypeError/ValueError naming the field and the limit."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, not {type(text).__name__}")
        if not text or text.isspace():
            raise ValueError(f"text must not be empty (1 to {self.max_text_chars} characters)")
        if len(text) > self.max_text_chars:
            raise ValueError(
                f"text is {len(text)} characters; the limit is {self.max_text_chars} "
                "(HARMWATCH_MAX_TEXT_CHARS)"
            )
        if context is not None:
            if not isinstance(context, str):
                raise TypeError(f"context must be a string or None, not {type(context).__name__}")
            if len(context) > self.max_text_chars:
                raise ValueError(
                    f"context is {len(context)} characters; the limit is {self.max_text_chars} "
                    "(HARMWATCH_MAX_TEXT_CHARS)"
                )
        if language is not None and not isinstance(language, str):
            raise TypeError(f"language must be a string or None, not {type(language).__name__}")

    # -- the pipeline ----------------------------------------------------------
    def classify(
        self, text: str, *, context: str | None = None, language: str | None = None
    ) -> Classification:
        """Classify one text; see SPEC section 2 for the steps."""
        found = self._scan(text, context, language)
        if isinstance(found, Classification):
            return found
        hits, work = found
        matches: list[tuple[int, list[Span]]] = []
        if hits.patterns:
            skeleton_data = work.skeleton()[1].data
            patterns = work.matcher.patterns
            for index in hits.patterns:
                first = patterns[index].first_match(skeleton_data)
                if first is not None:
                    matches.append((index, first))
        return self._decide(work, hits, matches)

    def classify_many(
        self, items: Iterable[tuple[str, str | None, str | None]]
    ) -> list[Classification]:
        """Classify (text, context, language) items: for each, exactly ``classify``'s result.

        Step by step over all the items rather than item by item: every scan, then
        every skeleton, then each candidate pattern over all the skeletons that
        propose it, then the decisions. A text runs through a dozen automata whose
        tables do not all fit in the processor's caches; one step at a time keeps
        each step's tables warm: about a fifth faster on 100 tweets (32 -> 26.5 µs a
        text with ``to_dict``). Results come in the order of the items.
        """
        results: list[Classification | None] = []
        pending: list[tuple[int, ScanHits, _Work]] = []
        for text, context, language in items:
            found = self._scan(text, context, language)
            if isinstance(found, Classification):
                results.append(found)
            else:
                pending.append((len(results), *found))
                results.append(None)
        proposed: dict[tuple[int, int], list[int]] = {}  # (matcher, pattern) -> pending
        for position, (_, hits, work) in enumerate(pending):
            if hits.patterns:
                work.skeleton()
                for index in hits.patterns:
                    proposed.setdefault((id(work.matcher), index), []).append(position)
        matches: list[list[tuple[int, list[Span]]]] = [[] for _ in pending]
        for (_, index), positions in proposed.items():
            for position in positions:
                work = pending[position][2]
                first = work.matcher.patterns[index].first_match(work.skeleton()[1].data)
                if first is not None:
                    matches[position].append((index, first))
        decided = {
            slot: self._decide(work, hits, sorted(matches[position]))
            for position, (slot, hits, work) in enumerate(pending)
        }
        return [found if found is not None else decided[slot] for slot, found in enumerate(results)]

    def _scan(
        self, text: str, context: str | None, language: str | None
    ) -> Classification | tuple[ScanHits, _Work]:
        """Check, normalize and scan a text: its result when nothing was found (most
        texts), else what the scan found and the text's working state."""
        self.check_input(text, context, language)
        if language is None:
            code, fallback_note = self._default_language, None
        else:
            code, fallback_note = self.resolve_language(language)
        matcher = self._matchers.get(code) or self.matcher(code)
        # No group named anywhere (and no context to name one): no pattern could
        # find a target, so the scan stops there. Most texts end here.
        norm, data, hits = _normalize_and_scan(
            matcher, text, need_target=self._need_target and not context
        )
        if hits is NO_HITS or hits.empty:
            return self._nothing_found(text, code, fallback_note)
        subject = Subject(norm.text, data)
        return hits, _Work(norm, subject, matcher, context, code, fallback_note)

    def _decide(
        self, work: _Work, hits: ScanHits, matches: list[tuple[int, list[Span]]]
    ) -> Classification:
        """The result of a text from its scan and its matching patterns (pattern order)."""
        signals: list[Signal] = []
        coded_seen: DogwhistleMatch | None = None
        for index, first in matches:
            signals.extend(self._pattern_signals(work, index, first))
        for index in hits.coded:
            found, coded = self._coded_signals(work, index)
            signals.extend(found)
            if coded_seen is None and coded is not None:
                coded_seen = coded
        if coded_seen is None:
            coded_seen = self._coded_anchor(work, signals)
        first_mention = None
        if hits.anchors or coded_seen is not None:
            first_mention = next((m for m in work.mentions() if m.kind != "modifier"), None)
        return self._result(
            work.norm.original,
            work.code,
            work.fallback_note,
            signals,
            first_mention,
            coded_seen,
            work,
        )

    # -- signals ---------------------------------------------------------------
    def _pattern_signals(self, work: _Work, index: int, first: list[Span]) -> list[Signal]:
        info = work.matcher.patterns[index]
        row = info.row
        out: list[Signal] = []
        skeleton, skeleton_subject = work.skeleton()
        for spans in work.matcher.pattern_matches(index, skeleton_subject, first):
            m_group, t_group, filler_groups = info.groups
            start, end = skeleton.to_normalized(*spans[m_group])
            sk_t_start, sk_t_end = spans[t_group]
            t_span = skeleton.to_normalized(sk_t_start, sk_t_end)
            target = skeleton.mention_in(sk_t_start, sk_t_end) or self._resolve_target(work, t_span)
            if target is None and self.root.require_target_present:
                continue
            fillers = [skeleton.to_normalized(*spans[g]) for g in filler_groups if spans[g][0] >= 0]
            suppression = self._suppression(work, row.id, start, end, [t_span, *fillers])
            out.append(
                _signal(
                    work,
                    (start, end),
                    row_id=row.id,
                    mechanism=row.mechanism,
                    weight=row.weight,
                    source="pattern",
                    pattern_id=info.pattern_id,
                    severity=info.severity,
                    target=target,
                    suppressed_by=suppression,
                )
            )
        return out

    def _coded_signals(
        self, work: _Work, index: int
    ) -> tuple[list[Signal], DogwhistleMatch | None]:
        coded = work.matcher.coded[index]
        entry = coded.entry
        row = self.taxonomy.row(entry.row)
        out: list[Signal] = []
        first: DogwhistleMatch | None = None
        for spans in work.subject.finditer(coded.regex, coded.group):
            start, end = spans[coded.group]
            if first is None:
                first = _coded_match(work, entry, start, end)
            target = self._coded_target(work, start, end, entry.names_group)
            if target is None and self.root.require_target_present:
                continue
            suppression = self._suppression(work, row.id, start, end, [])
            out.append(
                _signal(
                    work,
                    (start, end),
                    row_id=row.id,
                    mechanism=row.mechanism,
                    weight=entry.weight,
                    source="dogwhistle",
                    pattern_id=f"{row.id}:dw:{entry.id}",
                    severity=coded.severity,
                    target=target,
                    suppressed_by=suppression,
                )
            )
        return out, first

    def _coded_anchor(self, work: _Work, signals: list[Signal]) -> DogwhistleMatch | None:
        """A coded group name used as a pattern's target counts as a dogwhistle match."""
        if not work.matcher.coded:
            return None
        for mention in work.mentions():
            if mention.anchor.coded is not None:
                return _coded_match(work, mention.anchor.coded, mention.start, mention.end)
        return None

    def _coded_target(self, work: _Work, start: int, end: int, names_group: bool) -> Mention | None:
        mentions = [m for m in work.mentions() if m.kind != "modifier"]
        if names_group:
            inside = [m for m in mentions if m.start <= start and m.end >= end]
            if inside:
                return inside[0]
        ordinary = [m for m in mentions if m.anchor.coded is None]
        if not ordinary:
            return None
        return min(ordinary, key=lambda m: abs(m.start - start))

    def _resolve_target(self, work: _Work, t_span: tuple[int, int]) -> Mention | None:
        """The group a pronoun in a target slot refers to."""
        t_start, t_end = t_span
        mentions = work.mentions()
        candidates = [m for m in mentions if m.kind != "modifier"]
        windows = self.root.windows
        sentence = work.sentence_of(t_start)
        # Back: nearest mention before the slot, within the window of sentences.
        back_start, _ = work.sentence_range(sentence - windows.reference_sentences_back, sentence)
        before = [m for m in candidates if back_start <= m.start and m.end <= t_start]
        if before:
            return before[-1]
        context = [m for m in work.context_mentions() if m.kind != "modifier"]
        if context:
            return context[-1]
        # Forward: "We should shoot them. They're just X after all."
        _, fwd_end = work.sentence_range(sentence, sentence + windows.reference_sentences_forward)
        after = [m for m in candidates if t_end <= m.start and m.end <= fwd_end]
        return after[0] if after else None

    # -- suppression -----------------------------------------------------------
    def _suppression(
        self,
        work: _Work,
        row_id: str,
        start: int,
        end: int,
        inner: list[tuple[int, int]],
    ) -> Suppression | None:
        return (
            self._negation(work, start, inner)
            or self._counter_speech(work, start, end)
            or self._benign(work, row_id, start, end)
        )

    def _negation(
        self, work: _Work, start: int, inner: list[tuple[int, int]]
    ) -> Suppression | None:
        matcher = work.matcher
        if not work.may_find(matcher.negation):
            return None
        text = work.text
        sentence = work.sentence_of(start)
        sentence_start, sentence_end = work.sentence_range(sentence, sentence)
        clause_start = sentence_start
        for punct in _CLAUSE_PUNCT.finditer(text, sentence_start, start):
            clause_start = punct.end()
        for _, brk_end in work.cues(matcher.clause_breaks, clause_start, start):
            clause_start = max(clause_start, brk_end)
        window_start = self._last_words_start(
            text, clause_start, start, self.root.windows.negation_words_before
        )
        # Before the match: cues that *begin* there, even if they run into the
        # match ("stop | calling them rats", "it is a lie | that they ...").
        before = (window_start, min(sentence_end, start + _CUE_OVERHANG), start)
        regions = [before, *[(s, e, e) for s, e in inner if e > s]]
        exceptions = list(work.cues(matcher.negation_exceptions, sentence_start, sentence_end))
        for r_start, r_end, latest_start in regions:
            for cue_start, cue_end in matcher.negation.find_all(work.subject, r_start, r_end):
                if cue_start >= latest_start:
                    break
                if any(x_start < cue_end and cue_start < x_end for x_start, x_end in exceptions):
                    continue
                o_span = work.norm.to_original(cue_start, cue_end)
                return Suppression("negation", work.norm.original[o_span[0] : o_span[1]], o_span)
        return None

    @staticmethod
    def _last_words_start(text: str, lower: int, upper: int, count: int) -> int:
        if count <= 0:
            return upper
        starts = [m.start() for m in _WORD.finditer(text, lower, upper)]
        if len(starts) <= count:
            return lower
        return starts[-count]

    def _counter_speech(self, work: _Work, start: int, end: int) -> Suppression | None:
        matcher = work.matcher
        if not work.may_find(matcher.condemnation):
            return None
        sentence = work.sentence_of(start)
        reach = self.root.windows.counter_speech_sentences
        scope_start, scope_end = work.sentence_range(
            sentence - reach, work.sentence_of(end) + reach
        )
        # Rhetorical constructions ("is it really so wrong to say ...") neither
        # negate nor condemn: the negation exceptions mask condemnation cues too.
        exceptions = list(work.cues(matcher.negation_exceptions, scope_start, scope_end))
        condemnation = next(
            (
                (c_start, c_end)
                for c_start, c_end in matcher.condemnation.find_all(
                    work.subject, scope_start, scope_end
                )
                if not any(x_start < c_end and c_start < x_end for x_start, x_end in exceptions)
            ),
            None,
        )
        if condemnation is None:
            return None
        reporting = self._quoted(work.text, start, scope_start)
        if reporting is None:
            reporting = next(iter(work.cues(matcher.reporting, scope_start, scope_end)), None)
        if reporting is None:
            return None
        cue_start = min(reporting[0], condemnation[0])
        cue_end = max(reporting[1], condemnation[1])
        o_rep = work.norm.to_original(*reporting)
        o_con = work.norm.to_original(*condemnation)
        original = work.norm.original
        cue = f"{original[o_rep[0] : o_rep[1]]} … {original[o_con[0] : o_con[1]]}"
        return Suppression("counter_speech", cue, work.norm.to_original(cue_start, cue_end))

    @staticmethod
    def _quoted(text: str, start: int, scope_start: int) -> tuple[int, int] | None:
        """The opening quotation mark if the match sits inside a quotation."""
        if text.count('"', scope_start, start) % 2 == 0:
            return None
        opening = text.rfind('"', scope_start, start)
        return opening, opening + 1

    def _benign(self, work: _Work, row_id: str, start: int, end: int) -> Suppression | None:
        finders = [
            finder
            for _benign_id, rows, finder in work.matcher.benign
            if row_id in rows and work.may_find(finder)
        ]
        if not finders:
            return None
        reach = self.root.windows.benign_words
        text = work.text
        lo = self._last_words_start(text, 0, start, reach)
        hi = end
        for word in itertools.islice(_WORD.finditer(text, end), reach):
            hi = word.end()
        for finder in finders:
            found = finder.first(work.subject, lo, hi)
            if found is not None:
                o_span = work.norm.to_original(*found)
                original = work.norm.original
                return Suppression("benign_context", original[o_span[0] : o_span[1]], o_span)
        return None

    # -- decision --------------------------------------------------------------
    def _result(
        self,
        text: str,
        code: str,
        fallback_note: str | None,
        signals: list[Signal],
        first_mention: Mention | None,
        coded: DogwhistleMatch | None,
        work: _Work | None = None,
    ) -> Classification:
        root = self.root
        surviving: list[Signal] = []
        suppressed: list[Signal] = []
        if signals:
            unique: dict[tuple[str, tuple[int, int]], Signal] = {}
            for signal in signals:
                unique.setdefault((signal.row_id, signal.span), signal)
            ordered = sorted(unique.values(), key=lambda s: (s.span[0], s.row_id, s.span[1]))
            for signal in _restore_benign_inside_matches(ordered):
                (surviving if signal.suppressed_by is None else suppressed).append(signal)
        amplification = self._no_amplification
        if surviving and not isinstance(self.amplifier, NullAmplifier) and work is not None:
            spans = [
                work.norm.to_original(m.start, m.end)
                for m in work.mentions()
                if m.kind != "modifier"
            ]
            amplification = self.amplifier.amplify(text, code, spans)
        factor = amplification.factor
        if factor != 1.0:
            surviving = [_rescore(s, factor) for s in surviving]
        winner = (
            min(surviving, key=lambda s: (-s.score, s.severity, s.row_id, s.span[0]))
            if surviving
            else None
        )
        threshold = self._threshold
        harmful = winner is not None and winner.score >= threshold
        language_confidence = root.languages[code].confidence
        if winner is not None and harmful:
            mechanism = root.mechanisms[winner.harm_mechanism]  # type: ignore[index]
            rationale = (
                f"HARM DETECTED: {winner.harm_mechanism} targeting {winner.identity_axis}. "
                f"Confidence {winner.score:.3f} >= threshold {threshold:.3f}. "
                f"Matched row {winner.row_id}."
            )
            result_axis, result_type = winner.identity_axis, winner.target_type
            category, guidance = mechanism.category, mechanism.guidance
            severity = mechanism.severity
            confidence = round(winner.score, 3)
        else:
            rationale = self._no_harm_reason(winner, suppressed, first_mention, threshold)
            if winner is not None:
                result_axis, result_type = winner.identity_axis, winner.target_type
            elif first_mention is not None:
                result_axis = first_mention.anchor.identity_axis
                result_type = first_mention.anchor.target_type
            else:
                result_axis = result_type = None
            category, guidance, severity = "none", None, 0
            confidence = round(winner.score, 3) if winner is not None else 0.0
        if fallback_note:
            rationale += fallback_note
        # Positional, in Classification's field order, as in _nothing_found (a
        # microsecond per text that names a group); the contract tests check each.
        return Classification(
            harmful,  # is_harmful
            category,  # harm_category
            confidence,  # confidence
            result_type,  # target_type
            result_axis,  # identity_axis
            winner.harm_mechanism if harmful and winner else None,  # harm_mechanism
            tuple(surviving),  # signals_matched
            tuple(suppressed),  # signals_suppressed
            rationale,  # decision_rationale
            root.version,  # taxonomy_version
            code,  # language
            language_confidence,  # language_confidence
            coded,  # dogwhistle_matched
            guidance,  # counter_narrative_guidance
            content_hash(text),  # content_hash
            winner.pattern_id if harmful and winner else None,  # matched_pattern
            amplification,  # amplification
            self._timestamp(),  # timestamp
            severity,  # severity
        )

    def _nothing_found(self, text: str, code: str, fallback_note: str | None) -> Classification:
        """The result for a text in which the scan found nothing (most texts).

        Built positionally: nineteen keyword arguments cost a microsecond more than
        the same nineteen in order, on every such text (a tenth of its cost). The
        field order is Classification's; the contract tests check every field.
        """
        rationale = _NO_TARGET + fallback_note if fallback_note else _NO_TARGET
        return Classification(
            False,  # is_harmful
            "none",  # harm_category
            0.0,  # confidence
            None,  # target_type
            None,  # identity_axis
            None,  # harm_mechanism
            (),  # signals_matched
            (),  # signals_suppressed
            rationale,  # decision_rationale
            self.root.version,  # taxonomy_version
            code,  # language
            self._confidence[code],  # language_confidence
            None,  # dogwhistle_matched
            None,  # counter_narrative_guidance
            content_hash(text),  # content_hash
            None,  # matched_pattern
            self._no_amplification,  # amplification
            self._timestamp(),  # timestamp
            0,  # severity
        )

    def _timestamp(self) -> str:
        if self._clock is _utc_now:
            return fast_timestamp()
        return format_timestamp(self._clock())

    @staticmethod
    def _no_harm_reason(
        winner: Signal | None,
        suppressed: list[Signal],
        first_mention: Mention | None,
        threshold: float,
    ) -> str:
        if winner is not None:
            return f"NO HARM: Confidence {winner.score:.3f} < threshold {threshold:.3f}."
        if suppressed:
            reasons = []
            for signal in suppressed:
                assert signal.suppressed_by is not None
                reason = f"{signal.suppressed_by.reason} ('{signal.suppressed_by.cue}')"
                if reason not in reasons:
                    reasons.append(reason)
            count = len(suppressed)
            noun = "match" if count == 1 else "matches"
            return f"NO HARM: all {count} {noun} suppressed by {', '.join(reasons)}."
        if first_mention is None:
            return _NO_TARGET
        return (
            f"NO HARM: no harm pattern matched for the {first_mention.anchor.identity_axis} target."
        )


def _normalize_and_scan(
    matcher: LanguageMatcher, text: str, *, need_target: bool
) -> tuple[Normalized, bytes, ScanHits]:
    """The normalized text, its bytes and its scan, in one Set pass for nearly every text.

    An ASCII text is lowercased and scanned at once; the scan also says whether it
    holds what only the full ``normalize`` folds (a spaced-out word, a control
    character), and only then is it normalized and scanned again.
    """
    if text.isascii():
        norm = lower_ascii(text)
        data = norm.data
        assert data is not None
        hits = matcher.scan(data, need_target=need_target, lowered=True)
        if hits is not UNFOLDED:
            return norm, data, hits
    norm = normalize(text)
    data = norm.data if norm.data is not None else norm.text.encode("utf-8", "surrogatepass")
    return norm, data, matcher.scan(data, need_target=need_target)


def _signal(
    work: _Work,
    span: tuple[int, int],
    *,
    row_id: str,
    mechanism: str,
    weight: float,
    source: Literal["pattern", "dogwhistle"],
    pattern_id: str,
    severity: int,
    target: Mention | None,
    suppressed_by: Suppression | None,
) -> Signal:
    """A signal whose span and text are those of the original, as submitted."""
    o_start, o_end = work.norm.to_original(*span)
    return Signal(
        row_id=row_id,
        harm_mechanism=mechanism,
        weight=weight,
        score=weight,
        matched_text=work.norm.original[o_start:o_end],
        span=(o_start, o_end),
        source=source,
        pattern_id=pattern_id,
        severity=severity,
        identity_axis=target.anchor.identity_axis if target else None,
        target_type=target.anchor.target_type if target else None,
        suppressed_by=suppressed_by,
    )


def _coded_match(work: _Work, entry: Dogwhistle, start: int, end: int) -> DogwhistleMatch:
    o_start, o_end = work.norm.to_original(start, end)
    return DogwhistleMatch(
        term=work.norm.original[o_start:o_end],
        canonical=entry.canonical,
        meaning=entry.meaning,
        identity_axis=entry.identity_axis,
        row_id=entry.row,
        span=(o_start, o_end),
    )


def _restore_benign_inside_matches(signals: list[Signal]) -> list[Signal]:
    """A benign cue that is itself part of another harmful match is not benign.

    "Call pest control on the refugees, they are rats": the pest-control cue is the
    object of a harmful pattern here, not a literal-animals context.
    """
    spans = [s.span for s in signals]
    out: list[Signal] = []
    for signal in signals:
        cue = signal.suppressed_by
        if cue is not None and cue.reason == "benign_context":
            c_start, c_end = cue.cue_span
            if any(a <= c_start and c_end <= b for a, b in spans if (a, b) != signal.span):
                signal = replace(signal, suppressed_by=None)
        out.append(signal)
    return out


def _rescore(signal: Signal, factor: float) -> Signal:
    return replace(signal, score=round(min(signal.weight * factor, 1.0), 3))
