"""Adversarial texts built from the compiled taxonomy (issue 13: linear time, always).

Every shape is a text of a requested length made by repeating pieces the engine
reacts to: each language's group words, the coded terms, the matched text of
each pattern (a whole harmful predicate, its components in order), suppressed
sentences, nested brackets around them, combining marks, mixed scripts, runs of
punctuation and digits. The pieces are taken from what the engine itself finds
in the project's case tables (tests/data/cases_*.yaml) and from the coded-term
lexicon, so new group words, terms and patterns are covered without editing
this module. ``tests/engine/test_linearity.py`` counts the engine's work on them
at two lengths; ``tests/perf/adversarial_perf.py`` times them.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from engine import Classifier

with warnings.catch_warnings():  # the stdlib's regex parser, to sample coded-term forms
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants
    import sre_parse
from engine.pipeline.scan import scan

DATA = Path(__file__).resolve().parents[1] / "data"
SMALL, LARGE = 2_500, 20_000
# Case texts classified per language to collect matched predicates: each classified
# text compiles its candidate patterns, so a few dozen keep the setup short.
MATCHES_PER_LANGUAGE = 12
# Scripts mixed into one text (a Latin, a Cyrillic and an Arabic group word).
MIXED_SCRIPT_WORDS = ("muslims", "мусульмане", "المسلمين", "juifs", "евреи", "اليهود")
# Latin letters with Cyrillic look-alikes swapped in (homoglyphs inside a word).
HOMOGLYPHS = str.maketrans({"a": "а", "e": "е", "o": "о", "c": "с", "p": "р", "x": "х"})


@dataclass(frozen=True)
class Components:
    """What one language's texts are built from (each list without duplicates)."""

    code: str
    group_words: tuple[str, ...]  # one surface form per anchor the case tables name
    coded_terms: tuple[str, ...]  # one surface form per coded-term entry (English)
    matches: tuple[str, ...]  # one matched text per pattern that fires in the tables
    suppressed: tuple[str, ...]  # case texts whose every match is suppressed


def _cases(code: str) -> list[str]:
    path = DATA / f"cases_{code}.yaml"
    table = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [case["text"] for case in table["cases"]]


def sample(source: str) -> str | None:
    """The shortest string a (Python-compatible) regex source matches, or None.

    Coded-term forms are plain words with optional letters and alternatives; a
    form the stdlib parser cannot read (RE2-only syntax) is skipped.
    """
    try:
        parsed = sre_parse.parse(source)
    except (sre_constants.error, ValueError, OverflowError):
        return None
    out: list[str] = []

    def walk(items: Any) -> bool:
        for op, arg in items:
            if op is sre_constants.LITERAL:
                out.append(chr(arg))
            elif op is sre_constants.IN:
                literal = [a for o, a in arg if o is sre_constants.LITERAL]
                if not literal:
                    return False
                out.append(chr(literal[0]))
            elif op is sre_constants.BRANCH:
                if not walk(arg[1][0]):
                    return False
            elif op is sre_constants.SUBPATTERN:
                if not walk(arg[-1]):
                    return False
            elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
                low, _, body = arg
                for _ in range(low):
                    if not walk(body):
                        return False
            elif op is sre_constants.AT:
                continue
            else:
                return False
        return True

    return "".join(out) if walk(parsed) and out else None


@cache
def components(classifier: Classifier, code: str) -> Components:
    """The pieces of ``code``'s adversarial texts, found by the engine itself."""
    lang = classifier.pipeline(code)
    groups: dict[str, str] = {}
    matches: dict[str, str] = {}
    suppressed: list[str] = []
    for text in _cases(code):
        doc = scan(lang, text, None, None)
        if doc is not None:
            for mention in doc.mentions():
                (o_start, o_end), surface = doc.original(mention.start, mention.end)
                if mention.kind == "term" and o_end > o_start:
                    groups.setdefault(mention.anchor.id, surface)
        if len(matches) >= MATCHES_PER_LANGUAGE and len(suppressed) >= 4:
            continue
        if doc is None or not doc.hits.patterns:
            continue
        result = classifier.classify(text, language=code)
        for found in result.signals_matched:
            matches.setdefault(found.pattern_id, found.matched_text)
        if result.signals_suppressed and not result.signals_matched and len(suppressed) < 4:
            suppressed.append(text)
    coded: dict[str, str] = {}
    for info in lang.coded:
        for form in info.entry.surface:
            term = sample(form)
            if term is not None and info.regex.found(term.lower().encode("utf-8")):
                coded.setdefault(info.entry.id, term)
                break
    return Components(
        code=code,
        group_words=tuple(groups.values()),
        coded_terms=tuple(coded.values()),
        matches=tuple(dict.fromkeys(matches.values())),
        suppressed=tuple(suppressed),
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


def combining(piece: str, length: int, mark: str = "\u0301") -> str:
    """Every letter of ``piece`` followed by a combining mark, repeated."""
    marked = "".join(ch + mark if ch.isalpha() else ch for ch in piece)
    return repeat(marked, length)


Shape = Callable[[Components, int], Iterator[tuple[str, str]]]


def shapes(parts: Components, length: int) -> Iterator[tuple[str, str]]:
    """Every adversarial text of one language at one length, as (name, text)."""
    first_match = parts.matches[0] if parts.matches else parts.group_words[0]
    for word in parts.group_words:
        yield f"group:{word}", repeat(word, length)
    for term in parts.coded_terms:
        yield f"coded:{term}", repeat(term, length)
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
