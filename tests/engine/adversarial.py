"""Adversarial texts built from the compiled taxonomy (issue 13: linear time, always).

Every shape is a text of a requested length made by repeating pieces the engine
reacts to: every group word (one surface form per anchor of each language), every
coded term (spaced and run together), the dispatch parts of every pattern, each
repeated in a run of its own, the matched text of the patterns that fire in the
project's case tables (a whole harmful predicate), suppressed sentences, nested
brackets around them, combining marks, mixed scripts, runs of punctuation and
digits. The pieces are taken from what the engine itself compiled (its finders,
its lexicon, its patterns' components, sampled by ``regex_sample``) and checked
against it (a group word must be found as its anchor, a coded term seen by the
scan, a pattern's text must make the pattern a candidate), so new group words,
terms and patterns are covered without editing this module.
``tests/engine/test_linearity.py`` counts the engine's work on them at two
lengths; ``tests/perf/adversarial_perf.py`` times them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import NamedTuple

import yaml

from engine import Classifier
from engine.pipeline.language import LanguagePipeline
from engine.pipeline.scan import scan
from engine.rules.compiler import CompiledPattern
from tests.engine.regex_sample import sample

DATA = Path(__file__).resolve().parents[1] / "data"
SMALL, LARGE = 2_500, 20_000
# Case texts classified per language to collect matched predicates: each classified
# text compiles its candidate patterns, so a few dozen keep the setup short.
MATCHES_PER_LANGUAGE = 12
# Scripts mixed into one text (a Latin, a Cyrillic and an Arabic group word).
MIXED_SCRIPT_WORDS = ("muslims", "мусульмане", "المسلمين", "juifs", "евреи", "اليهود")
# Latin letters with Cyrillic look-alikes swapped in (homoglyphs inside a word).
HOMOGLYPHS = str.maketrans({"a": "а", "e": "е", "o": "о", "c": "с", "p": "р", "x": "х"})
# A pattern whose source starts with its slot names the group first.
_SLOT_FIRST = re.compile(r"^(?:\(\?:|\^|\s)*\{TM?\}")


class PatternPieces(NamedTuple):
    """One pattern's dispatch parts as text, and a text that makes it a candidate."""

    pattern_id: str
    parts: tuple[str, ...]  # one sample per component, in the pattern's order
    unit: str  # a group word and the parts, in the slot's place: the pattern is proposed


@dataclass(frozen=True)
class Components:
    """What one language's texts are built from (each list without duplicates)."""

    code: str
    group_words: tuple[str, ...]  # one surface form per anchor of the pack
    anchors: tuple[str, ...]  # the anchor id of each group word
    coded_terms: tuple[str, ...]  # one piece per coded entry and form kind (English)
    coded_ids: tuple[str, ...]  # the entry of each piece ("<id>" or "<id>:ambiguous")
    matches: tuple[str, ...]  # one matched text per pattern that fires in the tables
    suppressed: tuple[str, ...]  # case texts whose every match is suppressed
    patterns: tuple[PatternPieces, ...]  # every pattern of the pack


def _cases(code: str) -> list[str]:
    path = DATA / f"cases_{code}.yaml"
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [case["text"] for case in table["cases"]]


def _found_as(lang: LanguagePipeline, text: str) -> list[str]:
    """The anchor ids of the group mentions the engine finds in ``text``."""
    doc = scan(lang, text, None, None)
    return [] if doc is None else [m.anchor.id for m in doc.mentions() if m.kind == "term"]


def _anchor_words(lang: LanguagePipeline, named: dict[str, str]) -> dict[str, str]:
    """A surface form of every anchor: the case tables' where they name it, else one
    sampled from the anchor's finder part (spaced first) that the finder reads as it."""
    finder = lang.mentions
    words: dict[str, str] = {}
    for source, (info, kind) in zip(finder._parts, finder._finder_groups, strict=True):
        if kind != "term" or info.id in words:
            continue
        if info.id in named:
            words[info.id] = named[info.id]
            continue
        for spaced in (True, False):
            word = sample(source, spaced=spaced)
            if word and _found_as(lang, word) == [info.id]:
                words[info.id] = word
                break
    return words


def _coded_pieces(lang: LanguagePipeline) -> dict[str, str]:
    """A piece per coded entry and form kind: its first form the scan sees, spaced and
    run together ("happy merchant happymerchant") when the two differ."""
    pieces: dict[str, str] = {}
    for index, info in enumerate(lang.coded):
        key = info.entry.id + (":ambiguous" if info.gate is not None else "")
        forms = info.entry.ambiguous if info.gate is not None else info.entry.surface
        for form in forms:
            seen = []
            for spaced in (True, False):
                term = sample(form, spaced=spaced)
                doc = scan(lang, term, None, None) if term else None
                if term and term not in seen and doc is not None and index in doc.hits.coded:
                    seen.append(term)
            if seen:
                pieces[key] = " ".join(seen)
                break
    return pieces


def _compiled(lang: LanguagePipeline, source: str) -> CompiledPattern:
    """A pattern's compiled form (components in the source's order), from the memo
    the language was built with."""
    found: CompiledPattern = lang._memo[("compile", source)]
    return found


def _pattern_pieces(lang: LanguagePipeline, group: str) -> list[PatternPieces]:
    """For every pattern, its components sampled and a unit that makes it a candidate:
    the group word before the parts when the slot leads, else after (then the other
    order, the parts run together, and the last alternative of every choice, when
    the scan does not propose the pattern)."""
    samples: dict[tuple[str, bool], str] = {}
    out: list[PatternPieces] = []
    for index, info in enumerate(lang.patterns):
        compiled = _compiled(lang, info.source)
        sources = compiled.components or (compiled.dispatch,)
        found: PatternPieces | None = None
        for last in (False, True):
            parts: list[str] = []
            for source in sources:
                if (source, last) not in samples:
                    text = sample(source, spaced=True, last=last) or sample(source, last=last)
                    samples[source, last] = (text or "").strip()
                if samples[source, last]:
                    parts.append(samples[source, last])
            spaced, glued = " ".join(parts), "".join(parts)
            tries = [f"{group} {spaced}", f"{spaced} {group}", f"{group} {glued}"]
            if not _SLOT_FIRST.match(info.source):
                tries[:2] = tries[1::-1]
            unit = next((t for t in tries if _proposes(lang, t, index)), None)
            if found is None or unit is not None:
                found = PatternPieces(info.pattern_id, tuple(parts), unit or tries[0])
            if unit is not None:
                break
        assert found is not None
        out.append(found)
    return out


def _proposes(lang: LanguagePipeline, text: str, index: int) -> bool:
    doc = scan(lang, text, None, None)
    return doc is not None and index in doc.hits.patterns


@cache
def components(classifier: Classifier, code: str) -> Components:
    """The pieces of ``code``'s adversarial texts, found by the engine itself."""
    lang = classifier.pipeline(code)
    named: dict[str, str] = {}
    matches: dict[str, str] = {}
    suppressed: list[str] = []
    for text in _cases(code):
        doc = scan(lang, text, None, None)
        if doc is not None:
            for mention in doc.mentions():
                (o_start, o_end), surface = doc.original(mention.start, mention.end)
                if mention.kind == "term" and o_end > o_start:
                    named.setdefault(mention.anchor.id, surface)
        if len(matches) >= MATCHES_PER_LANGUAGE and len(suppressed) >= 4:
            continue
        if doc is None or not doc.hits.patterns:
            continue
        result = classifier.classify(text, language=code)
        for found in result.signals_matched:
            matches.setdefault(found.pattern_id, found.matched_text)
        if result.signals_suppressed and not result.signals_matched and len(suppressed) < 4:
            suppressed.append(text)
    words = _anchor_words(lang, named)
    coded = _coded_pieces(lang)
    return Components(
        code=code,
        group_words=tuple(words.values()),
        anchors=tuple(words),
        coded_terms=tuple(coded.values()),
        coded_ids=tuple(coded),
        matches=tuple(dict.fromkeys(matches.values())),
        suppressed=tuple(suppressed),
        patterns=tuple(_pattern_pieces(lang, next(iter(words.values())))),
    )


def repeat(piece: str, length: int, separator: str = " ") -> str:
    """``piece`` and ``separator`` repeated, cut to ``length`` characters."""
    unit = piece + separator
    return (unit * (length // len(unit) + 1))[:length]


def nested(piece: str, length: int, opening: str = "(", closing: str = ")") -> str:
    """``piece`` inside as many nested brackets as fit in ``length``."""
    depth = max((length - len(piece)) // (len(opening) + len(closing)), 0)
    return (opening * depth + piece + closing * depth)[:length]


def nested_words(words: list[str], length: int) -> str:
    """Words each opening a bracket: "(w1 (w2 (w3 ... )))", brackets closed at the end."""
    pieces: list[str] = []
    used = 0
    index = 0
    while used < length // 2:
        word = "(" + words[index % len(words)] + " "
        pieces.append(word)
        used += len(word) + 1
        index += 1
    return ("".join(pieces) + ")" * len(pieces))[:length]


def runs(head: str, pieces: Sequence[str], length: int) -> str:
    """``head``, then each piece repeated in a run of its own (the runs share the rest
    of ``length`` equally): every component of a pattern repeated, one after another.

    Only whole pieces: a piece cut short could spell another dispatch part at one
    length and not at the other, and each extra candidate pattern is a pass over
    the whole text, which would make the two lengths different texts.
    """
    share = max((length - len(head) - 1) // max(len(pieces), 1), 0)
    return head + " " + "".join((piece + " ") * (share // (len(piece) + 1)) for piece in pieces)


def combining(piece: str, length: int, mark: str = "\u0301") -> str:
    """Every letter of ``piece`` followed by a combining mark, repeated."""
    marked = "".join(ch + mark if ch.isalpha() else ch for ch in piece)
    return repeat(marked, length)


Shape = Callable[[Components, int], Iterator[tuple[str, str]]]


def shapes(parts: Components, length: int) -> Iterator[tuple[str, str]]:
    """Every adversarial text of one language at one length, as (name, text)."""
    first_match = parts.matches[0] if parts.matches else parts.group_words[0]
    for anchor, word in zip(parts.anchors, parts.group_words, strict=True):
        yield f"group:{anchor}", repeat(word, length)
    for entry, term in zip(parts.coded_ids, parts.coded_terms, strict=True):
        yield f"coded:{entry}", repeat(term, length)
    for index, match in enumerate(parts.matches):
        yield f"match:{index}", repeat(match, length)
    yield "matches_no_break", repeat(" ".join(parts.matches), length)
    yield "matches_commas", repeat(", ".join(parts.matches), length, ", ")
    for index, text in enumerate(parts.suppressed):
        yield f"suppressed:{index}", repeat(text.rstrip(".!?"), length, ", ")
    yield "nested_brackets", nested(first_match, length)
    yield "nested_mixed_brackets", nested(first_match, length, "([{«", "»}])")
    yield "nested_group_words", nested_words(list(parts.group_words), length)
    yield "nested_match_words", nested_words(first_match.split(), length)
    yield "brackets_only", nested("", length)
    yield "combining_marks", combining(first_match, length)
    yield "marks_only", first_match + " " + "\u0301" * (length - len(first_match) - 1)
    yield "mixed_scripts", repeat(" ".join((*MIXED_SCRIPT_WORDS, first_match)), length)
    yield "homoglyphs", repeat(first_match.translate(HOMOGLYPHS), length)
    yield "pronouns", (parts.group_words[0] + ". " + repeat(first_match, length))[:length]
    yield "dots", first_match + " " + "." * (length - len(first_match) - 4) + "x y"
    yield "digits", first_match + " " + "1" * (length - len(first_match) - 1)
    yield "spaced_letters", repeat(" ".join(first_match.replace(" ", "")), length)
    yield "repeated_letter", first_match + " " + "a" * (length - len(first_match) - 1)
    yield "quotes", repeat(f'"{first_match}"', length)


def pattern_shapes(parts: Components, length: int) -> Iterator[tuple[str, str]]:
    """For every pattern of the language: its unit, then each of its dispatch parts
    repeated in a run of its own, as (name, text)."""
    for pattern in parts.patterns:
        yield f"parts:{pattern.pattern_id}", runs(pattern.unit, pattern.parts or ("",), length)
