"""Arabizi (Latin-script Arabic) written in Arabic letters, with a map back.

People write Arabic in Latin letters with digits for the letters Latin lacks
("ana 3ayez a2tol ..."). The Arabic pack's patterns are written in Arabic
script, so rather than a second set of Latin patterns, an Arabic text whose
Latin words show evidence of Arabizi gets those words spelt in Arabic letters
and is matched by the same patterns; every Arabic character remembers the Latin
characters it came from, so reported spans point into what was written.

Latin spelling of Arabic is ambiguous in two ways, handled differently:

- a consonant letter may stand for several Arabic letters ("h" for ه or ح,
  "s" for س or ص, "2" for a hamza or a Cairene ق): such a unit is written as one
  private-use character that the pack's patterns accept for every letter of its
  class (``classes``; the pipeline widens the patterns with them), so no guess
  is made;
- a vowel inside a word is short (not written in Arabic) or long (ا و ي): each
  reading is tried, fewest long vowels first, and the first spelling the pack's
  own vocabulary knows is kept (``Vocabulary``), else the all-short one. A long
  vowel may also be left out by the writer ("sh3a" for shi3a): when no written
  reading is known, one omitted long vowel is tried between two consonants.

Everything language-specific (evidence words, letters, glued particles) comes
from the pack's ``arabizi`` section; this module knows only the procedure.
Text in another script, URLs, e-mail addresses and handles are left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import product

from engine.text.normalize import Normalized

# Does this Arabic spelling of a whole word belong to the pack's vocabulary?
Vocabulary = Callable[[str], bool]

# Code points standing for an equivalence class of Arabic letters. Private use:
# normalization drops such characters from every text (and the skeleton's marks
# are ASCII controls), so only this module can put them in a text.
CLASS_BASE = 0xE100
_LATIN = re.compile(r"[a-z]")
_TOKEN = re.compile(r"\S+")
# A run of letters, digits and apostrophes holding a letter, matched whole. Tried
# only where such a run begins, and possessive, so that a long run of digits is
# not retried from each of its characters ("[a-z0-9']*[a-z]..." is quadratic).
_WORD = re.compile(r"(?<![a-z0-9'])[0-9']*+[a-z][a-z0-9']*+")
# Tokens that are not words of a sentence: addresses, e-mail, handles.
_NOT_TEXT = re.compile(r"://|^www\.|@|\.(?:com|org|net|io)\b")
_CACHE_MAX = 4096
# A Latin letter or two standing for Arabic letters inside an Arabic word ("كlاب",
# "حشrات"): the run, with the Arabic letters on either side of it. Longer Latin
# runs glued to an Arabic article ("الfacebook") are left alone.
_MIXED = re.compile(
    r"(?<=[\u0621-\u064a])[a-z]{1,2}(?![a-z])|(?<![a-z])[a-z]{1,2}(?=[\u0621-\u064a])"
)
# A spelling and, per Arabic letter, the [start, end) of its Latin characters.
_Reading = tuple[str, tuple[tuple[int, int], ...]]


@dataclass(frozen=True, slots=True)
class ArabiziRules:
    """The pack's ``arabizi`` section as plain data (engine.rules.models.Arabizi)."""

    chat_digits: str
    digit_weight: int
    min_evidence: int
    min_share: float
    max_candidates: int
    known_word_letters: int
    function_words: frozenset[str]
    not_words: frozenset[str]
    words: Mapping[str, str]
    glue: Mapping[str, str]
    prefixes: Mapping[str, str]
    letters: Mapping[str, str]
    vowels: Mapping[str, str]
    initial_vowel: str
    endings: Mapping[str, str]
    suffixes: tuple[str, ...]
    stem_prefixes: tuple[str, ...]
    omitted_vowels: str = ""


@dataclass(frozen=True, slots=True)
class _Unit:
    """One spelling unit of a Latin word: its [start, end) in the word and its readings."""

    start: int
    end: int
    options: tuple[str, ...]


class Transliterator:
    """Spells the Latin words of an Arabizi text in Arabic letters (see module docstring)."""

    def __init__(self, rules: ArabiziRules) -> None:
        self.rules = rules
        classes = sorted({v for v in rules.letters.values() if len(v) > 1})
        self._class_char = {members: chr(CLASS_BASE + i) for i, members in enumerate(classes)}
        # Private-use character -> the Arabic letters it may stand for.
        self.classes: dict[str, str] = {ch: members for members, ch in self._class_char.items()}
        self._letters = {
            unit: self._class_char.get(out, out) for unit, out in rules.letters.items()
        }
        self._long = max((len(u) for u in self._letters), default=1)
        digits = re.escape(rules.chat_digits)
        # A chat digit next to a letter, in a word of at least two letters
        # without a run of digits ("covid19" and "5g" are not Arabizi).
        self._chat = re.compile(rf"[a-z'][{digits}]|[{digits}][a-z']")
        self._cache: dict[str, tuple[_Reading, bool]] = {}

    # -- evidence --------------------------------------------------------------
    def is_arabizi(self, words: Sequence[str], vocabulary: Vocabulary) -> bool:
        """Whether these Latin words (lowercase) read as Arabizi on the pack's evidence.

        Function words and chat digits are looked at first; only when they give
        some evidence but not enough are the longer words spelt, each one whose
        spelling the pack knows ("yahood") counting one point: a text with no
        Arabizi sign at all is never spelt.
        """
        rules = self.rules
        points = hits = 0
        plain: list[str] = []
        for word in words:
            if word in rules.function_words:
                points += 1
                hits += 1
            elif self._chat_word(word):
                points += rules.digit_weight
                hits += 1
            elif len(word) >= rules.known_word_letters:
                plain.append(word)
        if points == 0:
            return False
        for word in plain:
            if points >= rules.min_evidence and hits >= rules.min_share * len(words):
                break
            if self._spell(word, vocabulary)[1]:
                points += 1
                hits += 1
        return points >= rules.min_evidence and hits >= rules.min_share * len(words)

    def _chat_word(self, word: str) -> bool:
        if word in self.rules.not_words or sum(c.isalpha() for c in word) < 2:
            return False
        if re.search(r"\d\d", word):
            return False
        return self._chat.search(word) is not None

    # -- the text --------------------------------------------------------------
    def apply(self, norm: Normalized, vocabulary: Vocabulary) -> Normalized:
        """``norm`` with its Latin words spelt in Arabic, or ``norm`` itself when the
        text has no Latin word or no evidence of Arabizi."""
        text = norm.text
        if _LATIN.search(text) is None:
            return norm
        norm = self._mixed(norm)
        text = norm.text
        spans = list(_runs(_WORD, text))
        if not spans or not self.is_arabizi([text[s:e] for s, e in spans], vocabulary):
            return norm
        chars: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        cursor = 0
        glued = False
        for start, end in spans:
            gap = text[cursor:start]
            if not (glued and gap and set(gap) <= {" ", "-"}):
                for offset, ch in enumerate(gap, cursor):
                    chars.append(ch)
                    starts.append(offset)
                    ends.append(offset + 1)
            word = text[start:end]
            glue = self.rules.glue.get(word)
            following = end < len(text) and text[end] in " -"
            if glue is not None and following:
                spelt, pieces = glue, tuple((0, len(word)) for _ in glue)
            else:
                spelt, pieces = self.spell(word, vocabulary)
            glued = glue is not None and following
            for ch, (w_start, w_end) in zip(spelt, pieces, strict=True):
                chars.append(ch)
                starts.append(start + w_start)
                ends.append(start + w_end)
            cursor = end
        for offset, ch in enumerate(text[cursor:], cursor):
            chars.append(ch)
            starts.append(offset)
            ends.append(offset + 1)
        return _compose(norm, "".join(chars), starts, ends)

    def _mixed(self, norm: Normalized) -> Normalized:
        """``norm`` with each Latin letter inside an Arabic word read as its Arabic
        letter (or letter class), one character for one, so offsets stay as they
        are: a letter swapped for its Latin look-alike or sound-alike is evidence
        enough, whatever the rest of the text is."""
        text = norm.text
        if _MIXED.search(text) is None:
            return norm
        letters, vowels = self._letters, self.rules.vowels
        chars = list(text)
        changed = False
        for start, end in _runs(_MIXED, text):
            for index in range(start, end):
                letter = chars[index]
                spelt = vowels.get(letter) or letters.get(letter)
                if spelt is not None and len(spelt) == 1:
                    chars[index] = spelt
                    changed = True
        if not changed:
            return norm
        return Normalized("".join(chars), norm.original, norm.offsets, None, norm.ends)

    # -- one word --------------------------------------------------------------
    def spell(self, word: str, vocabulary: Vocabulary) -> _Reading:
        """A Latin word in Arabic letters, and for each letter the [start, end) of
        the Latin characters it stands for (the last letter reaches the word's end)."""
        return self._spell(word, vocabulary)[0]

    def _spell(self, word: str, vocabulary: Vocabulary) -> tuple[_Reading, bool]:
        """The spelling and whether the pack knows it (memoized per word)."""
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        fixed = self.rules.words.get(word)
        if fixed is not None:
            result = ((fixed, tuple((0, len(word)) for _ in fixed)), True)
        else:
            result = self._choose(word, vocabulary)
        if len(self._cache) >= _CACHE_MAX:
            self._cache.clear()
        self._cache[word] = result
        return result

    def _choose(self, word: str, vocabulary: Vocabulary) -> tuple[_Reading, bool]:
        # The word's units once per glued prefix: the written readings and, if none
        # is known, the readings with an omitted vowel are both built from them.
        parses = [
            (prefix_len, prefix, self._units(word, prefix_len))
            for prefix_len, prefix in self._prefix_readings(word)
        ]
        readings: list[_Reading] = []
        for prefix_len, prefix, units in parses:
            readings.extend(self._readings(units, word, prefix_len, prefix))
        known = self._known(readings, vocabulary)
        if known is None and self.rules.omitted_vowels:
            known = self._known(self._omitted(word, parses), vocabulary)
        if known is not None:
            return known, True
        return readings[0], False

    def _known(self, readings: list[_Reading], vocabulary: Vocabulary) -> _Reading | None:
        """The first reading the pack knows: whole words first, then less an affix
        (most words are settled by the first pass, and each look-up is a pass over
        the vocabulary's DFA)."""
        for reading in readings:
            if reading[0] and vocabulary(reading[0]):
                return reading
        for reading in readings:
            if reading[0] and self._inflected(reading[0], vocabulary):
                return reading
        return None

    def _omitted(self, word: str, parses: list[tuple[int, str, list[_Unit]]]) -> list[_Reading]:
        """The readings with one long vowel the writer left out between two
        consonants, gap by gap from the start ("sh3a" -> ش[ي]عه): only asked for
        when no written reading is known, so a written word is never respelt."""
        out: list[_Reading] = []
        vowels = self.rules.vowels.keys()
        for prefix_len, prefix, units in parses:
            for gap in range(1, len(units)):
                before, after = units[gap - 1], units[gap]
                if word[before.start] in vowels or word[after.start] in vowels:
                    continue
                added = _Unit(before.start, before.end, tuple(self.rules.omitted_vowels))
                widened = [*units[:gap], added, *units[gap:]]
                out.extend(self._readings(widened, word, prefix_len, prefix))
        return out

    def _inflected(self, spelt: str, vocabulary: Vocabulary) -> bool:
        """The spelling less one inflectional prefix or suffix is a word of the pack
        (the plural "-ون" of a noun the pack writes only inside a phrase)."""
        rules = self.rules
        for suffix in rules.suffixes:
            stem = spelt[: -len(suffix)]
            if spelt.endswith(suffix) and len(stem) >= 3 and vocabulary(stem):
                return True
        for prefix in rules.stem_prefixes:
            stem = spelt[len(prefix) :]
            if spelt.startswith(prefix) and len(stem) >= 3 and vocabulary(stem):
                return True
        return False

    def _prefix_readings(self, word: str) -> list[tuple[int, str]]:
        out = [(0, "")]
        for key, value in self.rules.prefixes.items():
            if word.startswith(key) and len(word) - len(key) >= 3:
                out.append((len(key), value))
        return out

    def _readings(self, units: list[_Unit], word: str, skip: int, prefix: str) -> list[_Reading]:
        choices = [u.options for u in units]
        # Inside the word, the short reading comes first; bound the number of
        # spellings by fixing the last ambiguous vowels to it.
        budget = self.rules.max_candidates
        bounded: list[tuple[str, ...]] = []
        for options in choices:
            if len(options) > 1 and budget >= len(options):
                budget //= len(options)
                bounded.append(options)
            else:
                bounded.append(options[:1])
        combos = sorted(product(*(range(len(o)) for o in bounded)), key=lambda combo: sum(combo))
        out: list[_Reading] = []
        for combo in combos:
            chars: list[str] = [prefix] if prefix else []
            pieces: list[tuple[int, int]] = [(0, skip)] * len(prefix)
            for unit, options, pick in zip(units, bounded, combo, strict=True):
                spelt = options[pick]
                chars.append(spelt)
                pieces.extend((unit.start, unit.end) for _ in spelt)
            text = "".join(chars)
            if pieces:  # the last letter stands for the rest of the word too
                pieces[-1] = (pieces[-1][0], len(word))
            out.append((text, tuple(pieces)))
        return out

    def _units(self, word: str, start: int) -> list[_Unit]:
        rules = self.rules
        units: list[_Unit] = []
        i = start
        n = len(word)
        while i < n:
            unit = None
            for size in range(min(self._long, n - i), 0, -1):
                piece = word[i : i + size]
                if piece in self._letters:
                    unit = _Unit(i, i + size, (self._letters[piece],))
                    break
                doubled = size == 2 and piece[0] == piece[1] and piece[0] not in rules.vowels
                if doubled and piece[0] in self._letters:  # a doubled consonant: one letter
                    unit = _Unit(i, i + 2, (self._letters[piece[0]],))
                    break
            if unit is None and word[i] in rules.vowels:
                unit = self._vowel(word, i, first=not units)
            if unit is None:
                unit = _Unit(i, i + 1, ("" if word[i] == "'" else word[i],))
            units.append(unit)
            i = unit.end
        if len(units) > 1:  # the end of the word: its own readings ("-a" ا or ة)
            for count in (2, 1):
                tail = units[-count:]
                ending = word[tail[0].start :]
                if count < len(units) and ending in rules.endings:
                    options = tuple(rules.endings[ending].split("|"))
                    units[-count:] = [_Unit(tail[0].start, len(word), options)]
                    break
        if units and units[0].options[0] in ("ي", "و") and word[units[0].start] in rules.vowels:
            first = units[0]  # a long vowel opening a word is carried by an alif
            units[0] = _Unit(first.start, first.end, (rules.initial_vowel + first.options[0],))
        return units

    def _vowel(self, word: str, i: int, *, first: bool) -> _Unit:
        if first:
            return _Unit(i, i + 1, (self.rules.initial_vowel,))
        return _Unit(i, i + 1, ("", self.rules.vowels[word[i]]))


def _runs(pattern: re.Pattern[str], text: str) -> Iterator[tuple[int, int]]:
    """The [start, end) in ``text`` of each match of ``pattern`` inside a token that is
    a word of a sentence (not an address, an e-mail or a handle)."""
    for token in _TOKEN.finditer(text):
        if _NOT_TEXT.search(token.group()):
            continue
        base = token.start()
        for match in pattern.finditer(token.group()):
            yield base + match.start(), base + match.end()


def _compose(norm: Normalized, text: str, starts: list[int], ends: list[int]) -> Normalized:
    """The spelt text with offsets into ``norm``'s original text."""
    if norm.offsets is None:
        return Normalized(text, norm.original, tuple(starts), None, tuple(ends))
    offsets = norm.offsets
    base_ends = norm.ends
    return Normalized(
        text,
        norm.original,
        tuple(offsets[s] for s in starts),
        None,
        tuple(base_ends[e - 1] if base_ends is not None else offsets[e - 1] + 1 for e in ends),
    )
