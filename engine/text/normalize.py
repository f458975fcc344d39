"""Text normalization with a map back to the original offsets.

Matching runs on a folded copy of the text (case, diacritics, zero-width and bidi
controls, Arabic letter variants, spaced-out letters), but analysts must see the
spans of what was actually written, so every normalized character remembers
the index of the original character it came from.

Leetspeak digits and homoglyphs are *not* folded here: patterns are widened with
character classes at compile time instead (see ``engine.rules.compiler``), which keeps
numbers intact for coded terms such as "88" and costs nothing per text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from engine.text import work
from engine.text.re2x import REGEX_MAX_MEM, Regex, options, program

# Zero-width characters, bidi embeddings/isolates/marks and the BOM: invisible
# characters used to split words past keyword filters.
_INVISIBLE = frozenset(
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180e\u200b\u200c\u200d"
    "\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067"
    "\u2068\u2069\u206a\u206b\u206c\u206d\u206e\u206f\u3164\ufe00\ufe01\ufe02\ufe03\ufe04"
    "\ufe05\ufe06\ufe07\ufe08\ufe09\ufe0a\ufe0b\ufe0c\ufe0d\ufe0e\ufe0f\ufeff\uffa0"
)

# Letter variants that people use interchangeably, folded so one pattern covers
# all spellings: Arabic hamza/alef/taa-marbuta/yaa forms and tatweel, Persian
# letters common in Arabic-script text, Hausa hooked letters, typographic
# quotes and dashes.
_EXTRA_FOLDS: dict[str, str] = {
    "أ": "ا",
    "إ": "ا",
    "آ": "ا",
    "ٱ": "ا",
    "ى": "ي",
    "ة": "ه",
    "ؤ": "و",
    "ئ": "ي",
    "ک": "ك",
    "ی": "ي",
    # Dialect letters borrowed from Persian (issue 12 class 3): Iraqi and Gulf write the
    # g-sound of qaf as گ ('نحرگ' for 'نحرق') and their ch-sound of kaf as چ ('چلاب'
    # for 'كلاب'); ڤ and پ are v and p in loanwords. Folding چ to ك is uncertain where
    # it spells a loanword's ch, which harmwatch's packs do not use.
    "گ": "ق",
    "چ": "ك",
    "ڤ": "ف",
    "پ": "ب",
    "ـ": "",
    "ɓ": "b",
    "ɗ": "d",
    "ƙ": "k",
    "ƴ": "y",
    "ʼ": "'",
    "‘": "'",
    "’": "'",
    "‛": "'",
    "`": "'",
    "´": "'",
    "“": '"',
    "”": '"',
    "„": '"',
    "«": '"',
    "»": '"',
    "‹": "'",
    "›": "'",
    "‐": "-",
    "‑": "-",
    "‒": "-",
    "–": "-",
    "—": "-",
    "―": "-",
    "−": "-",
}

# Three or more single letters joined by one separator: "k i l l", "s.c.u.m".
# Stdlib re (C, no per-call re-encoding): each repeated unit is exactly two
# characters, so there is nothing to backtrack over.
_UNIT = r"(?:[^\W_]|[@$])"
_SPACED = re.compile(rf"(?:^|(?<=[\W_]))({_UNIT}[ .\-_*](?:{_UNIT}[ .\-_*])+{_UNIT})(?=[\W_]|$)")
# The same shape as a capture-free RE2 program, run first on the bytes: its DFA
# answers "is there any spaced-out word?" in about a microsecond, and only then
# does the slower stdlib expression above locate the runs.
_SPACED_SHAPE = r"(?:^|[^\pL\pN])(?:[\pL\pN@$][ .\-_*]){2,}[\pL\pN@$](?:[^\pL\pN]|$)"
_SPACED_FILTER = program(_SPACED_SHAPE)
# The ASCII fast path asks one question with one DFA pass: is there anything to
# fold beyond case, that is a spaced-out word or a control character? The
# classifier asks it inside its own scan (engine.pipeline.scan carries this shape in its
# Set), which saves the pass; see lower_ascii.
# A letter written three or more times in a row ("kiiiill", "لاااازم"): RE2 has
# no back-references, so the shape lists each ASCII letter (the general path
# finds runs of any script with the stdlib expression _REPEAT below).
_REPEAT_SHAPE = "|".join(f"{c}{c}{c}" for c in "abcdefghijklmnopqrstuvwxyz")
ASCII_FOLD_SHAPE = _SPACED_SHAPE + r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|" + _REPEAT_SHAPE
_ASCII_FILTER = program(ASCII_FOLD_SHAPE)
_SEPARATORS = frozenset(" .-_*")

# Runs of three or more of one letter are emphasis, never spelling, in every
# script the packs cover; so is a doubled alif, which Arabic never writes twice.
# Whether the word spells the letter of a run once or twice cannot be told from
# the run: a run keeps two letters where the language's own words double that
# letter between the same neighbours (``Doubled``: "killll" -> "kill", "juuuu" ->
# "juu", "الللاجئين" -> "اللاجيين"), one elsewhere ("verrrrmin" -> "vermin",
# "ratsss" -> "rats", "نقتللللل" -> "نقتل"). A text without a run is never
# touched: a pattern's doubled letter does not read a single one ("perro" is not
# "pero").
_REPEAT = re.compile(r"([^\W\d_])\1{2,}|(ا)ا+")


class Doubled:
    """Where a language's words double a letter: each doubled letter as the letter
    with its neighbours ("il " for "kill", " لا" for "لل" at a word's start), a
    space standing for a word boundary and "*" in a word for an unknown neighbour
    (the pair is then left out). Built from a pack's words (engine.rules.doubles);
    the empty default keeps one letter of every run."""

    __slots__ = ("contexts",)

    def __init__(self, words: Iterable[str] = ()) -> None:
        contexts: set[str] = set()
        for word in words:
            padded = f" {word} "
            for i in range(1, len(padded) - 2):
                before, after = padded[i - 1], padded[i + 2]
                if (
                    padded[i] == padded[i + 1]
                    and padded[i].isalpha()
                    and "*" not in (before, after)
                ):
                    contexts.add(_side(before) + padded[i] + _side(after))
        self.contexts = frozenset(contexts)

    def keeps_two(self, before: str, letter: str, after: str) -> bool:
        """Whether a run of ``letter`` between these characters is a doubled letter."""
        return bool(self.contexts) and (_side(before) + letter + _side(after)) in self.contexts


def _side(ch: str) -> str:
    """A run's neighbour as a context character: a letter, or a space for anything else."""
    return ch if ch.isalpha() else " "


NO_DOUBLED = Doubled()


def _has_spaced(text: str) -> bool:
    data = text.encode("utf-8", "surrogatepass")
    return _SPACED_FILTER.found(data)


_runs_filter: Regex | None = None
# Ranges of mostly symbols (arrows, technical, box drawing, shapes, dingbats,
# emoji, variation selectors and their supplement): see _runs_filter_program.
_SYMBOL_RANGES = (
    (0x2070, 0x2BFF),
    (0x3000, 0x303F),
    (0xFE00, 0xFE0F),
    (0x1F000, 0x1FAFF),
    (0xE0100, 0xE01EF),
)


def _runs_filter_program() -> Regex:
    """A capture-free RE2 program that matches wherever ``_fold_runs`` may have work.

    Built at the first non-ASCII text (a few milliseconds), then kept. It matches
    a spaced-out word (``_SPACED_SHAPE``), three of one letter in a row for every
    letter of ASCII and of ``_PLAIN_BLOCKS`` (the letters ``_REPEAT`` counts,
    listed since RE2 has no back-references), a doubled alif, and any character outside those
    blocks and the letterless runs of ``_SYMBOL_RANGES`` (whose letters are not
    listed). So where it does not match, neither ``_has_spaced`` nor ``_REPEAT``
    does: one DFA pass (about a microsecond and a half on a tweet) instead of the
    stdlib ``_REPEAT.search`` (about eleven on a non-ASCII tweet, which pays a
    Unicode class test and a back-reference at every character). Where it
    matches, both exact tests run as before.
    """
    global _runs_filter
    if _runs_filter is None:
        blocks = ((0x00, 0x7F), *_PLAIN_BLOCKS)
        letter = re.compile(r"[^\W\d_]")  # _REPEAT's letter
        triples = [
            re.escape(chr(code) * 3)
            for low, high in blocks
            for code in range(low, high + 1)
            if letter.match(chr(code))
        ]
        # Symbols and emoji hold no letter: a tweet with an emoji stays on the fast
        # answer. The letterless runs of these ranges count as inside too.
        inside = [*blocks]
        for low, high in _SYMBOL_RANGES:
            run_start = -1
            for code in range(low, high + 2):
                if code <= high and not letter.match(chr(code)):
                    run_start = code if run_start < 0 else run_start
                elif run_start >= 0:
                    inside.append((run_start, code - 1))
                    run_start = -1
        outside = "[^" + "".join(f"\\x{{{low:x}}}-\\x{{{high:x}}}" for low, high in inside) + "]"
        source = "|".join((_SPACED_SHAPE, outside, *triples, "اا"))
        _runs_filter = Regex(source, options(REGEX_MAX_MEM, never_capture=True))
    return _runs_filter


def _needs_runs(folded: str, data: bytes) -> bool:
    """``_has_spaced(folded) or _REPEAT.search(folded)``, answered by one DFA pass on
    ``data`` (the UTF-8 of ``folded``) for nearly every text."""
    if not _runs_filter_program().found(data):
        return False
    return _SPACED_FILTER.found(data) or _REPEAT.search(folded) is not None


# Control characters other than tab and line breaks: dropped by the general path
# (the skeleton uses two of them as marks), so their presence leaves the fast path.
_ASCII_FOLD = tuple(
    ""
    if (code < 32 and chr(code) not in "\t\n\r") or code == 127
    else "'"
    if chr(code) == "`"
    else chr(code).lower()
    for code in range(128)
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@lru_cache(maxsize=65536)
def fold_char(ch: str) -> str:
    """Fold one character to its matching form ('' when it carries nothing)."""
    if ch in _INVISIBLE:
        return ""
    extra = _EXTRA_FOLDS.get(ch)
    if extra is not None:
        return extra
    if ch in "\t\n\r":
        return ch
    if ch.isspace():
        return " "
    category = unicodedata.category(ch)
    if category in ("Cc", "Cf", "Co", "Cs") and ch not in "\t\n\r":
        # Controls, format characters, private-use (reserved for the skeleton's
        # group marks) and lone surrogates carry nothing to match.
        return ""
    folded = unicodedata.normalize("NFKC", ch).casefold()
    decomposed = unicodedata.normalize("NFKD", folded)
    out = []
    for part in decomposed:
        if unicodedata.category(part) in ("Mn", "Me"):
            continue
        out.append(_EXTRA_FOLDS.get(part, part))
    return "".join(out)


def fold_literal(text: str) -> str:
    """Fold a pattern literal the same way texts are folded, so both sides agree."""
    return "".join(fold_char(ch) for ch in text)


@dataclass(slots=True)
class Normalized:
    """A normalized text and, where it differs in length, the offset map.

    ``offsets[i]`` is the index in the original text of normalized character
    ``i``; ``None`` means the mapping is the identity (the common ASCII case),
    which saves building a list for most texts.
    """

    text: str
    original: str
    offsets: tuple[int, ...] | None
    data: bytes | None = None  # UTF-8 of ``text`` when already computed
    # Where each normalized character's source ends in the original (exclusive),
    # when a character stands for several ("sh" written as one Arabic letter by
    # engine.text.arabizi); None: one past its offset.
    ends: tuple[int, ...] | None = None

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Map a normalized [start, end) span to the original text."""
        if self.offsets is None:
            return start, end
        if start >= len(self.offsets):
            return len(self.original), len(self.original)
        o_start = self.offsets[start]
        if end <= start:
            return o_start, o_start
        o_end = self.ends[end - 1] if self.ends is not None else self.offsets[end - 1] + 1
        return o_start, o_end


def lower_ascii(text: str) -> Normalized:
    """``normalize`` of an ASCII text in which ASCII_FOLD_SHAPE does not occur.

    For an ASCII text, normalizing is lowercasing (and folding the backtick used
    as an apostrophe, which keeps the length) unless the text holds a spaced-out
    word or a control character. The caller checks that on the result's ``data``
    (with ASCII_FOLD_SHAPE) and calls ``normalize`` instead when it does.
    """
    lowered = text.lower().replace("`", "'")
    return Normalized(lowered, text, None, lowered.encode("ascii"))


def normalize(text: str, doubled: Doubled = NO_DOUBLED) -> Normalized:
    """Fold ``text`` for matching; see the module docstring for what is folded.

    ``doubled``: where the text's language doubles letters, for runs of a letter.
    """
    if text.isascii():
        lowered = lower_ascii(text)
        data = lowered.data
        assert data is not None
        if not _ASCII_FILTER.found(data):
            return lowered
        if _CONTROL.search(text) is None:
            return _fold_runs(lowered.text, text, list(range(len(text))), doubled)
    else:
        folded = _fold_one_to_one(text)
        if folded is not None:
            data = folded.encode("utf-8", "surrogatepass")
            if _needs_runs(folded, data):
                return _fold_runs(folded, text, list(range(len(text))), doubled)
            return Normalized(folded, text, None, data)
    return _fold_each(text, doubled)


def _fold_each(text: str, doubled: Doubled = NO_DOUBLED) -> Normalized:
    """``normalize``, one character at a time: the general path (and the reference
    the one-to-one path is tested against)."""
    if work.COUNTER is not None:
        work.COUNTER.scanned(len(text))
    chars: list[str] = []
    offsets: list[int] = []
    last = len(text) - 1
    for index, ch in enumerate(text):
        code = ord(ch)
        if ch in _TATWEEL_SPLITTERS and _splits_tatweel(text, index, last):
            continue
        folded = _ASCII_FOLD[code] if code < 128 else fold_char(ch)
        if not folded:
            continue
        chars.append(folded)
        if len(folded) == 1:
            offsets.append(index)
        else:
            offsets.extend([index] * len(folded))
    joined = "".join(chars)
    data = joined.encode("utf-8", "surrogatepass")
    if _needs_runs(joined, data):
        return _fold_runs(joined, text, offsets, doubled)
    if len(joined) == len(text) and offsets[-1:] == [len(text) - 1] and _identity(offsets):
        return Normalized(joined, text, None, data)
    return Normalized(joined, text, tuple(offsets), data)


# A mark put inside an Arabic word beside a tatweel ("المسـ.ـيحيين", "يتحـ*ـرقوا") to
# split it past keyword filters (issue 12 class 5): a tatweel joins letters and is
# never written beside punctuation, so the mark is dropped with it. A tatweel before
# a mark that ends a sentence ("جميلــ. وبعدين") has no letter after the mark: kept.
_TATWEEL = "ـ"
_TATWEEL_SPLITTERS = frozenset(".-_*·•'")


def _splits_tatweel(text: str, index: int, last: int) -> bool:
    before = text[index - 1] if index > 0 else " "
    after = text[index + 1] if index < last else " "
    if before == _TATWEEL:
        return after == _TATWEEL or after.isalpha()
    return after == _TATWEEL and before.isalpha()


# What folding does to a character, when it is not ASCII lowercasing:
_PLAIN = 0  # the character's fold is its lowercase (str.lower() gives it)
_SINGLE = 1  # one other character, stable under folding and lowercasing: replaced
_OTHER = 2  # nothing, several characters, or a context-dependent lowercase
_kinds: dict[str, int] = {}
# Blocks whose plain characters are listed in _NOT_PLAIN's class, so that texts in
# these scripts find their few other characters with one C-level search.
_PLAIN_BLOCKS = (
    (0x00A0, 0x024F),  # Latin-1 Supplement, Latin Extended-A and -B
    (0x0370, 0x052F),  # Greek, Cyrillic
    (0x0590, 0x06FF),  # Hebrew, Arabic
    (0x1E00, 0x1EFF),  # Latin Extended Additional (Yoruba, Vietnamese)
    (0x2000, 0x206F),  # General Punctuation
)
_not_plain: re.Pattern[str] | None = None


def _fold_kind(ch: str) -> int:
    """How ``normalize`` treats a character (memoized; see _PLAIN, _SINGLE, _OTHER)."""
    kind = _kinds.get(ch)
    if kind is None:
        code = ord(ch)
        folded = _ASCII_FOLD[code] if code < 128 else fold_char(ch)
        if len(folded) != 1 or ch == "\u03a3":  # capital sigma lowercases by context
            kind = _OTHER
        elif folded == ch.lower():
            kind = _PLAIN
        elif folded.lower() == folded and fold_char(folded) == folded and folded != "\u03a3":
            kind = _SINGLE
        else:
            kind = _OTHER
        _kinds[ch] = kind
    return kind


def _not_plain_search() -> re.Pattern[str]:
    """Matches any character that is not known to fold to its lowercase (built at
    the first non-ASCII text from _PLAIN_BLOCKS, a few milliseconds, then kept)."""
    global _not_plain
    if _not_plain is None:
        plain = [chr(c) for c in range(128) if _fold_kind(chr(c)) == _PLAIN]
        for low, high in _PLAIN_BLOCKS:
            plain.extend(chr(c) for c in range(low, high + 1) if _fold_kind(chr(c)) == _PLAIN)
        _not_plain = re.compile("[^" + "".join(re.escape(c) for c in plain) + "]")
    return _not_plain


def _fold_one_to_one(text: str) -> str | None:
    """``text`` folded when every character folds to exactly one character, else None.

    Then the offsets are the identity and the folded text is the lowercase of the
    text with its few other characters replaced, which C does: one search finds
    the characters not known to be plain, each distinct one is replaced at once,
    and ``str.lower`` does the rest. Same result as the per-character loop in
    ``normalize`` (tests/engine/text/test_normalize.py compares them).
    """
    if work.COUNTER is not None:
        work.COUNTER.scanned(len(text))
    others = _not_plain_search().findall(text)
    for ch in set(others):
        kind = _fold_kind(ch)
        if kind == _OTHER:
            return None
        if kind == _SINGLE:
            text = text.replace(ch, fold_char(ch) if ord(ch) >= 128 else _ASCII_FOLD[ord(ch)])
    return text.lower()


def _identity(offsets: list[int]) -> bool:
    return all(i == o for i, o in enumerate(offsets))


def _fold_runs(
    folded: str, original: str, offsets: list[int], doubled: Doubled = NO_DOUBLED
) -> Normalized:
    """Join spaced-out letters ("k i i i l l"), then collapse repeated letters."""
    if _has_spaced(folded):
        joined = _join_spaced(folded, original, offsets)
        folded = joined.text
        offsets = list(joined.offsets or range(len(folded)))
    if _REPEAT.search(folded) is not None:
        folded, offsets, ends = _collapse_repeats(folded, offsets, doubled)
        return Normalized(folded, original, tuple(offsets), None, tuple(ends))
    return Normalized(folded, original, tuple(offsets))


def _collapse_repeats(
    folded: str, offsets: list[int], doubled: Doubled
) -> tuple[str, list[int], list[int]]:
    """Runs of 3+ of one letter down to two where ``doubled`` knows the letter doubled
    between the run's neighbours, else to one; a doubled alif to one; offsets follow.

    The kept letters map to the first letters of the run, and the last one's end
    to the end of the run, so a span ending in a collapsed run covers the whole
    run as written.
    """
    chars: list[str] = []
    kept: list[int] = []
    ends: list[int] = []
    cursor = 0
    for match in _REPEAT.finditer(folded):
        start, end = match.span()
        letter = match.group(1)
        before = folded[start - 1] if start > 0 else " "
        after = folded[end] if end < len(folded) else " "
        keep = 2 if letter and doubled.keeps_two(before, letter, after) else 1
        chars.append(folded[cursor : start + keep])
        kept.extend(offsets[cursor : start + keep])
        ends.extend(offset + 1 for offset in offsets[cursor : start + keep - 1])
        ends.append(offsets[end - 1] + 1)
        cursor = end
    chars.append(folded[cursor:])
    kept.extend(offsets[cursor:])
    ends.extend(offset + 1 for offset in offsets[cursor:])
    return "".join(chars), kept, ends


def _join_spaced(folded: str, original: str, offsets: list[int]) -> Normalized:
    """Remove the separators inside runs of spaced-out single letters.

    A run stops where the letter case changes after its second letter, so that
    "the next i m m i g r a n t I see" joins the word but not the pronoun.
    """
    keep_chars: list[str] = []
    keep_offsets: list[int] = []
    cursor = 0
    pos = 0
    while True:
        match = _SPACED.search(folded, pos)
        if work.COUNTER is not None:  # the stdlib engine reads up to the end of the run
            work.COUNTER.scanned((match.end(1) if match is not None else len(folded)) - pos)
        if match is None:
            break
        start, run_end = match.span(1)
        # Each case change cuts the run; the rest of the run is the next piece. It
        # is cut here, in one pass over the run: searching again from each cut
        # re-read the rest of the run each time (quadratic in the cuts).
        while True:
            end = _case_consistent_end(original, offsets, start, run_end)
            if end - start < 5:  # fewer than three letters left: leave it alone
                pos = run_end
                break
            keep_chars.append(folded[cursor:start])
            keep_offsets.extend(offsets[cursor:start])
            for i in range(start, end, 2):
                keep_chars.append(folded[i])
                keep_offsets.append(offsets[i])
            cursor = pos = end
            if run_end - (end + 1) < 5:  # the rest (after its separator) is too short
                break
            start = end + 1
    keep_chars.append(folded[cursor:])
    keep_offsets.extend(offsets[cursor:])
    return Normalized("".join(keep_chars), original, tuple(keep_offsets))


def _case_consistent_end(original: str, offsets: list[int], start: int, end: int) -> int:
    reference = original[offsets[start + 2]] if start + 2 < end else ""
    if not reference.isalpha() or reference.isupper() == reference.islower():
        return end
    upper = reference.isupper()
    for i in range(start + 4, end, 2):
        ch = original[offsets[i]]
        if ch.isalpha() and ch.isupper() != upper and ch.isupper() != ch.islower():
            return i - 1
    return end
