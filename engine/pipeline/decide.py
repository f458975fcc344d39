"""Deciding: dedupe the signals, amplify, pick the winner, explain, build the result."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from engine.amplify.base import AmplificationResult, Amplifier, NullAmplifier
from engine.pipeline.doc import Doc, Hit
from engine.pipeline.mentions import Mention
from engine.result import (
    Classification,
    DogwhistleMatch,
    Signal,
    Suppression,
    content_hash,
    fast_timestamp,
    format_timestamp,
)
from engine.rules.models import Taxonomy
from engine.text import work

Clock = Callable[[], datetime]
NO_TARGET = "NO HARM: no identity-group target found."


def signal(doc: Doc, hit: Hit, target: Mention | None, suppressed_by: Suppression | None) -> Signal:
    """A signal whose span and text are those of the original, as submitted."""
    span, matched = doc.original(hit.start, hit.end)
    row = hit.row
    anchor = target.anchor if target else None
    # Positional, in Signal's field order (keywords cost a microsecond a signal).
    return Signal(
        row.id,  # row_id
        row.mechanism,  # harm_mechanism
        hit.weight,  # weight
        hit.weight,  # score
        matched,  # matched_text
        span,  # span
        hit.source,  # source
        hit.pattern_id,  # pattern_id
        hit.severity,  # severity
        anchor.identity_axis if anchor is not None else None,  # identity_axis
        anchor.target_type if anchor is not None else None,  # target_type
        suppressed_by,  # suppressed_by
    )


class Decider:
    """The decision policy of a classifier: threshold, amplifier, clock, versions."""

    def __init__(self, root: Taxonomy, amplifier: Amplifier, clock: Clock | None) -> None:
        self.root = root
        self.amplifier = amplifier
        self._clock = clock
        self._threshold = root.decision_threshold
        self._confidence = {code: ref.confidence for code, ref in root.languages.items()}
        # What a result records when the provider is not asked: without one,
        # "not_configured"; with one, nothing survived to amplify.
        self._amplify = not isinstance(amplifier, NullAmplifier)
        self._no_amplification = AmplificationResult(
            factor=1.0,
            provider=root.amplification.provider if self._amplify else None,
            model_version=None,
            skipped_reason="no_surviving_signal" if self._amplify else "not_configured",
        )

    def decide(
        self, doc: Doc, signals: list[Signal], coded: DogwhistleMatch | None
    ) -> Classification:
        """Dedupe, amplify, pick the winner, explain: the result of a text."""
        root = self.root
        text, code, fallback_note = doc.norm.original, doc.code, doc.fallback_note
        surviving: list[Signal] = []
        suppressed: list[Signal] = []
        if work.COUNTER is not None:
            work.COUNTER.signals += len(signals)
        if len(signals) == 1:  # most harmful texts: nothing to dedupe, sort or restore
            found = signals[0]
            (surviving if found.suppressed_by is None else suppressed).append(found)
        elif signals:
            # Two patterns of a row that read the same words are one signal. Where one
            # reading is suppressed and another is not, the unsuppressed one stands: a
            # pattern that writes a negation into the harm ("… don't understand anything
            # but the stick") must not lose to a broader one whose filler took the same
            # negation as a cue.
            unique: dict[tuple[str, tuple[int, int]], Signal] = {}
            for found in signals:
                key = (found.row_id, found.span)
                kept = unique.get(key)
                if kept is None or (kept.suppressed_by is not None and found.suppressed_by is None):
                    unique[key] = found
            ordered = sorted(unique.values(), key=lambda s: (s.span[0], s.row_id, s.span[1]))
            for found in _restore_benign_inside_matches(ordered):
                (surviving if found.suppressed_by is None else suppressed).append(found)
        amplification = self._no_amplification
        if surviving and self._amplify:
            spans = [doc.norm.to_original(m.start, m.end) for m in doc.targets()]
            if work.COUNTER is not None:
                work.COUNTER.mentions += len(spans)
            amplification = self.amplifier.amplify(text, code, spans)
        factor = amplification.factor
        if factor != 1.0:
            surviving = [_rescore(s, factor) for s in surviving]
        if len(surviving) > 1:
            winner: Signal | None = min(
                surviving, key=lambda s: (-s.score, s.severity, s.row_id, s.span[0])
            )
        else:
            winner = surviving[0] if surviving else None
        threshold = self._threshold
        harmful = winner is not None and winner.score >= threshold
        language_confidence = self._confidence[code]
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
            # The first target mention, only where the result names it: finding the
            # mentions may cost a pass over the text that a harmful result never needs.
            first_mention = None
            if doc.hits.anchors or coded is not None:
                targets = doc.targets()
                first_mention = targets[0] if targets else None
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
        # Positional, in Classification's field order, as in empty() (a
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

    def empty(self, text: str, code: str, fallback_note: str | None) -> Classification:
        """The result for a text in which the scan found nothing (most texts).

        Built positionally: nineteen keyword arguments cost a microsecond more than
        the same nineteen in order, on every such text (a tenth of its cost). The
        field order is Classification's; the contract tests check every field.
        """
        rationale = NO_TARGET + fallback_note if fallback_note else NO_TARGET
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
        if self._clock is None:
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
            if work.COUNTER is not None:
                work.COUNTER.signals += len(suppressed)
            # A dict, not a list: a test for membership in a list of the reasons so far
            # is quadratic in a long text whose cues each differ (case, spelling).
            reasons: dict[str, None] = {}
            for signal in suppressed:
                assert signal.suppressed_by is not None
                reasons.setdefault(f"{signal.suppressed_by.reason} ('{signal.suppressed_by.cue}')")
            count = len(suppressed)
            noun = "match" if count == 1 else "matches"
            return f"NO HARM: all {count} {noun} suppressed by {', '.join(reasons)}."
        if first_mention is None:
            return NO_TARGET
        return (
            f"NO HARM: no harm pattern matched for the {first_mention.anchor.identity_axis} target."
        )


def _restore_benign_inside_matches(signals: list[Signal]) -> list[Signal]:
    """A benign cue that is itself part of another harmful match is not benign.

    "Call pest control on the refugees, they are rats": the pest-control cue is the
    object of a harmful pattern here, not a literal-animals context.
    """
    benign = [s.suppressed_by for s in signals if s.suppressed_by is not None]
    if work.COUNTER is not None:
        work.COUNTER.signals += len(signals)
    if not any(cue.reason == "benign_context" for cue in benign):
        return signals
    covers = _Covers([s.span for s in signals])
    out: list[Signal] = []
    for signal in signals:
        cue = signal.suppressed_by
        if (
            cue is not None
            and cue.reason == "benign_context"
            and covers.covered(cue.cue_span, signal.span)
        ):
            signal = replace(signal, suppressed_by=None)
        out.append(signal)
    return out


class _Covers:
    """Whether some span other than a given one covers a cue, by bisection.

    Spans sorted by start, with the two widest reaches of every prefix: the
    widest other than the excluded span is one of them. Asking every span of a
    text full of benign-suppressed matches costs a logarithm each, not a pass.
    """

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        ordered = sorted(set(spans))
        if work.COUNTER is not None:
            work.COUNTER.signals += len(spans)
        self.starts = [a for a, _ in ordered]
        # best[i]: the two spans reaching furthest among ordered[: i + 1], widest first.
        self.best: list[tuple[tuple[int, int], tuple[int, int] | None]] = []
        first: tuple[int, int] | None = None
        second: tuple[int, int] | None = None
        for span in ordered:
            if first is None or span[1] > first[1]:
                first, second = span, first
            elif second is None or span[1] > second[1]:
                second = span
            self.best.append((first, second))

    def covered(self, cue: tuple[int, int], excluded: tuple[int, int]) -> bool:
        c_start, c_end = cue
        index = bisect.bisect_right(self.starts, c_start) - 1  # spans starting by the cue
        if index < 0:
            return False
        first, second = self.best[index]
        reach = first if first != excluded else second
        return reach is not None and c_end <= reach[1]


def _rescore(signal: Signal, factor: float) -> Signal:
    return replace(signal, score=round(min(signal.weight * factor, 1.0), 3))
