"""Group mentions, and the skeleton of a text in which each is one mark.

Mentions are found in two steps, both on RE2's DFA alone: a capture-free finder
(longest match, so "muslim people" is one mention) over the text padded with a
space at each end, so that every match starts and ends with one boundary
character; then a full-match Set over the short mention says which anchor and
kind it is. A finder with a capture group per anchor would force the much
slower NFA on a huge program.

Full patterns run on the skeleton, where ``{T}`` only has to match a marker
(plus determiners, a pronoun or a tail) instead of hundreds of group terms.
That keeps every compiled pattern small and fast to build, and it makes the
link between a pattern and the group it targets explicit: the marker inside the
slot *is* the mention.
"""

from __future__ import annotations

import bisect
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from engine.rules.compiler import GROUP_MARK, MODIFIER_MARK, NEVER, NOT_WORD
from engine.rules.models import Dogwhistle
from engine.rules.regex_syntax import ascii_only
from engine.text import re2x, work
from engine.text.re2x import UNANCHORED
from engine.text.subject import Subject

if TYPE_CHECKING:
    from engine.pipeline.scan import ScanHits


@dataclass(frozen=True, slots=True)
class AnchorInfo:
    """The identity group a mention names."""

    id: str
    identity_axis: str
    target_type: str
    coded: Dogwhistle | None = None


class Mention(NamedTuple):
    """A place in the normalized text that names an identity group.

    A named tuple: a text naming groups builds one per mention, and a frozen
    dataclass costs twice as much to build.
    """

    start: int
    end: int
    anchor: AnchorInfo
    kind: str  # "term", "modifier" or "coded"


_IDENTIFIED_MAX = 4096
_GLUED_MIN_CHARS = 5
# How far past a glued match a bounded group word that overlaps it is looked for: a
# group word is a few dozen bytes at most, so the look stays bounded (linear time).
_BOUNDED_REACH = 96
# Arabic: a group word with the article (after و ف ب ك ل at most), of five letters
# or more with it, run into a next word of three letters or more that is not
# made of the suffixes an Arabic noun or adjective takes. A word such as
# "السودانيين" (Sudanese) begins with a group word ("السود") but goes on with
# suffixes; "العربات" (carts) or "الهندسه" leave fewer than three letters.
_ARABIC_GLUED = re.compile(r"[وف]?[بكل]?ال[\u0621-\u064a]{3,}")
_ARABIC_REST_MIN = 3
_ARABIC_SUFFIXES = re.compile(
    r"(?:ان|اني|اوي|ست|ستان)?(?:ي|يه|يين|يون|ين|ون|ات|يات|ه|ها|هم|هن|كم|نا|ا|و|وا){0,3}"
)
_ARABIC_LETTERS = re.compile(r"[\u0621-\u064a]*")
_ARTICLE = "ال".encode()


# The letters a glued name runs into, in UTF-8 bytes (any non-ASCII byte counts as one).
_WORD_REST = re.compile(rb"(?:[0-9A-Za-z]|[\x80-\xff])*")


_ASCII_LETTER = re.compile(rb"[A-Za-z]")


def _has_letter(word: bytes) -> bool:
    """Whether a matched group word holds a letter: the leetspeak classes let digits
    stand in for letters, and a word made only of stand-ins is a number ("180").
    Runs on every mention, so an ASCII word is answered without decoding it."""
    if word.isascii():
        return _ASCII_LETTER.search(word) is not None
    return any(ch.isalpha() for ch in word.decode("utf-8", "replace"))


def _gluable(
    subject: Subject,
    b_start: int,
    b_end: int,
    padded: bytes,
    end: int,
    excluded: frozenset[bytes] = frozenset(),
) -> bool:
    """Whether a name run into the next word may still count as a mention.

    Latin-script names of five letters or more: deleting a space to dodge a
    filter ("muslimvermin") is a Latin-script trick, while for short names a group
    word at the start of a longer word is nearly always an unrelated word
    ("matasa"). In Arabic script, only a group word with the article, long and
    distinctive, run into a word of its own (see _ARABIC_GLUED): never Cyrillic,
    whose group words start too many unrelated words. A glued mention only marks
    the skeleton: a pattern must still read the rest of the word as its
    predicate ("اليهودحشرات"). Never in a word of the pack's ``glue_exclude``
    ("ratonnade"), read whole.
    """
    piece = subject.data[b_start:b_end]
    if excluded:
        run = _WORD_REST.match(subject.data, b_end)
        if run is not None and piece + run.group() in excluded:
            return False
    if piece.isascii():
        return len(piece) >= _GLUED_MIN_CHARS
    word = piece.decode("utf-8", "replace")
    if _ARABIC_GLUED.fullmatch(word) is None:
        return False
    following = padded[end : end + 96].decode("utf-8", "ignore")
    rest = _ARABIC_LETTERS.match(following)
    letters = rest.group() if rest is not None else ""
    return len(letters) >= _ARABIC_REST_MIN and _ARABIC_SUFFIXES.fullmatch(letters) is None


def _arabic_lead(data: bytes, start: int) -> bool:
    """Whether the byte at ``start`` begins an Arabic letter (U+0600-06FF: D8-DB)."""
    return start < len(data) and 0xD8 <= data[start] <= 0xDB


def _char_at(padded: bytes, end: int) -> str:
    """The character whose UTF-8 encoding starts at byte ``end`` ('' past the end).

    The finder works on bytes, but a boundary character may take two to four of
    them (Arabic "؟" "،" "؛", « », CJK punctuation): deciding on the first byte
    alone would call every non-ASCII punctuation mark a letter.
    """
    if end >= len(padded):
        return ""
    return padded[end : end + _width(padded[end])].decode("utf-8", "replace")[:1]


def _width(lead: int) -> int:
    """The length of the UTF-8 sequence that begins with byte ``lead``."""
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def _last_char_start(padded: bytes, end: int) -> int:
    """Where the UTF-8 character that ends at byte ``end`` begins.

    The finder's trailing boundary (``[^\\pL\\pN]``) is one character, not one
    byte: a mention followed by "؟" must end before both of its bytes.
    """
    start = end - 1
    while start > 0 and 0x80 <= padded[start] < 0xC0:
        start -= 1
    return start


def _boundary_at(padded: bytes, end: int) -> bool:
    """Whether the character after a match is certainly a boundary (not a letter or digit)."""
    ch = _char_at(padded, end)
    return ch != "" and not ch.isalnum()


def _word_follows(padded: bytes, end: int) -> bool:
    """Whether the character after a match (in padded coordinates) is a letter or digit."""
    return _char_at(padded, end).isalnum()


class _Finders(NamedTuple):
    """The finders for some of a language's group words, in one spelling (ASCII or not)."""

    plain: re2x.Regex
    glued: re2x.Regex
    identify: re2x.SetMatch
    lead: re2x.SetMatch | None
    parts: tuple[int, ...]  # finder group of each identify index


class NounUseSource(NamedTuple):
    """The RE2 sources of a pack's NOUN_MODIFIERS, NOUN_NEXT, NOUN_BEFORE and NOUN_END
    (the last two optional, and used together)."""

    modifiers: str
    following: str
    before: str | None
    end: str | None


# How many bytes before a word a NOUN_BEFORE determiner or a CODED_PREDICATE_LEAD is
# looked for.
_NOUN_BEFORE_BYTES = 48


class _NounUse(NamedTuple):
    """Whether a modifier stands as a bare plural noun where it is (see NounUseSource)."""

    modifiers: re2x.SetMatch
    following: re2x.Regex
    # NOUN_BEFORE and NOUN_END, or None when the pack lacks either
    closing: tuple[re2x.Regex, re2x.Regex] | None

    @classmethod
    def compile(cls, source: NounUseSource) -> _NounUse:
        closing = None
        if source.before is not None and source.end is not None:
            closing = (
                re2x.Regex(f"(?:^|{NOT_WORD})(?:{source.before})\\s+$"),
                re2x.Regex(f"\\s*(?:{source.end})"),
            )
        return cls(
            re2x.full_match_set([source.modifiers]),
            re2x.Regex(f"\\s*(?:{source.following})(?:{NOT_WORD}|$)"),
            closing,
        )

    def is_noun(self, piece: bytes, padded: bytes, start: int, stop: int) -> bool:
        if not self.modifiers(piece):
            return False
        if self.following.match(re2x.ANCHOR_START, padded, stop, len(padded))[0][0] >= 0:
            return True
        if self.closing is None:
            return False
        before, end = self.closing
        if end.match(re2x.ANCHOR_START, padded, stop, len(padded))[0][0] < 0:
            return False
        return _preceded_by(before, padded, start)


def _preceded_by(lead: re2x.Regex, padded: bytes, start: int) -> bool:
    """Whether ``lead`` (anchored at its end) matches in the bytes just before ``start``."""
    window = padded[max(0, start - _NOUN_BEFORE_BYTES) : start]
    return lead.match(re2x.UNANCHORED, window, 0, len(window))[0][0] >= 0


# Subsets compiled before a process switches to the finder of every group word:
# a command-line call compiles only what its text names, a server (whose texts
# name every group sooner or later) soon compiles the whole finder once.
_SUBSETS_MAX = 8


# The finders of every group word in full spelling.
_EVERY_WORD: tuple[None, bool] = (None, False)


class MentionFinder:
    """Finds the group mentions of one language; shared by threads.

    The finders are compiled lazily, for the group words a text can hold (the
    scan says which anchors are present) and in the spelling its bytes need:
    ``regex_syntax.ascii_only`` for an ASCII text. Both choices give the same
    mentions as the finder of every word: an anchor absent from the scan cannot
    match, and on ASCII bytes the two spellings are the same expression.
    """

    def __init__(
        self,
        parts: Sequence[str],
        groups: Sequence[tuple[AnchorInfo, str]],
        leads: str | None = None,
        *,
        anchor_parts: Sequence[int] = (),
        coded_parts: Sequence[int] = (),
        ascii_spelling: tuple[Sequence[str], str | None],
        noun_use: NounUseSource | None = None,
        glue_exclude: Sequence[str] = (),
        predicate: tuple[str, Sequence[int]] | None = None,
    ) -> None:
        self._parts = tuple(parts)
        # Whole ordinary words (normalized, UTF-8) that begin with a group word: the
        # group word run into the rest of one of them is not a mention.
        self._glue_exclude = frozenset(word.encode() for word in glue_exclude)
        self._leads = leads
        # ``ascii_only`` of the parts and of the leads (the compile memo keeps them).
        ascii_parts, ascii_leads = ascii_spelling
        self._ascii_parts = tuple(ascii_parts)
        self._ascii_leads = ascii_leads
        # Scan anchor entry -> finder group (-1: the lead entry, any group may follow).
        self._anchor_parts = tuple(anchor_parts)
        # Scan coded entry -> finder group (-1: a coded term that names no group).
        self._coded_parts = tuple(coded_parts)
        # A coded term run into the next word has no scan hit (its entry is bounded),
        # so glued finders always carry every coded group word.
        self._all_coded = tuple(sorted(p for p in coded_parts if p >= 0))
        self._made: dict[tuple[tuple[int, ...] | None, bool], _Finders] = {}
        self._made_lock = threading.Lock()
        self._subsets = 0
        self._identified: dict[bytes, int] = {}
        self._finder_groups = list(groups)
        # A modifier used as a bare plural noun ("trans are ...", "the retarded should
        # ...", "kill all trans."): the pack's NOUN_MODIFIERS name the group as its
        # term does when a NOUN_NEXT verb follows, or after a NOUN_BEFORE determiner
        # when a NOUN_END closes the clause. The term group of each modifier group:
        # the finder lists an anchor's terms, then its modifiers.
        self._noun_use: _NounUse | None = None
        self._term_of: dict[int, int] = {}
        if noun_use is not None:
            self._noun_use = _NounUse.compile(noun_use)
            for index, (info, kind) in enumerate(self._finder_groups):
                if kind == "modifier" and index > 0:
                    before, before_kind = self._finder_groups[index - 1]
                    if before is info and before_kind == "term":
                        self._term_of[index] = index - 1

        # Coded forms whose ordinary sense is a kind of person ("thugs"): after a copula
        # ("X are thugs") the word is the predicate said of the group, not a name for
        # it, so it is left as text for the patterns to read. The pack's
        # CODED_PREDICATE_LEAD and the finder groups it applies to.
        self._predicate: tuple[re2x.Regex, frozenset[int]] | None = None
        if predicate is not None:
            lead, predicate_groups = predicate
            self._predicate = (
                re2x.Regex(f"(?:^|{NOT_WORD})(?:{lead})\\s+$"),
                frozenset(predicate_groups),
            )

    def warm(self) -> None:
        """Compile the finders of every group word, in full spelling, now: they serve
        every text (a server compiles no subset and no ASCII spelling after this)."""
        with self._made_lock:
            if (None, False) not in self._made:
                self._made[(None, False)] = self._compile(None, False)

    def _present(self, hits: ScanHits | None, glued: bool) -> tuple[int, ...] | None:
        """The finder groups a text can hold, or None for all of them."""
        if hits is None or self._subsets >= _SUBSETS_MAX:
            return None
        anchor_parts, coded_parts = self._anchor_parts, self._coded_parts
        present = set(self._all_coded) if glued else set()
        for entry in hits.anchors:
            part = anchor_parts[entry]
            if part < 0:
                return None
            present.add(part)
        for entry in hits.coded:
            part = coded_parts[entry]
            if part >= 0:
                present.add(part)
        return tuple(sorted(present))

    def _finders(self, subject: Subject, hits: ScanHits | None, glued: bool) -> _Finders:
        made = self._made.get(_EVERY_WORD)
        if made is not None:  # warmed, or past the subsets: serves every text
            return made
        key = (self._present(hits, glued), subject.data.isascii())
        made = self._made.get(key)
        if made is None:
            with self._made_lock:
                made = self._made.get(key)
                if made is None:
                    made = self._made[key] = self._compile(*key)
                    if key[0] is not None:
                        self._subsets += 1
        return made

    def _compile(self, subset: tuple[int, ...] | None, ascii: bool) -> _Finders:
        chosen = tuple(range(len(self._parts))) if subset is None else subset
        spelt = self._ascii_parts if ascii else self._parts
        parts = [spelt[i] for i in chosen]
        leads = self._ascii_leads if ascii else self._leads
        alternatives = "|".join(parts) or NEVER
        # A pack's GLUE_LEAD words may run into a group word that follows them
        # ("cesmusulmans", "verminejuive"): the mention starts after the lead.
        lead = f"(?:{leads})?" if leads else ""
        not_word = ascii_only(NOT_WORD) if ascii else NOT_WORD
        # The finders are the largest expressions of a language (every inflected
        # group word): with the default budget RE2's DFA cache thrashes on them and
        # a Russian text took a hundred times longer. The budget is an upper bound;
        # the DFA grows only with the states a language's texts reach.
        longest = re2x.options(re2x.SET_MAX_MEM, longest=True, never_capture=True)
        return _Finders(
            plain=re2x.Regex(f"{not_word}{lead}(?:{alternatives}){not_word}", longest),
            # Without the trailing boundary: also finds a group word run into the
            # next word ("muslimvermin"), to mark the skeleton for full patterns.
            glued=re2x.Regex(f"{not_word}{lead}(?:{alternatives})", longest),
            identify=re2x.full_match_set(parts or [NEVER]),
            lead=re2x.full_match_set([leads]) if leads else None,
            parts=chosen,
        )

    def find(
        self, subject: Subject, *, glued: bool = False, hits: ScanHits | None = None
    ) -> list[Mention]:
        """Every group mention in the text, in order, without overlaps.

        ``glued`` also finds group words run into the following word; those are
        used to mark the skeleton, never to report a target on their own.
        """
        return self._find_mentions(subject, glued, hits)[0]

    def find_glued_and_plain(
        self, subject: Subject, hits: ScanHits | None = None
    ) -> tuple[list[Mention], list[Mention] | None]:
        """The glued mentions, and the plain ones when they are the same list (else None).

        When every match of the glued finder ends before a boundary, the plain
        finder (the same alternatives plus a trailing boundary, leftmost-longest)
        would make exactly the same matches: its matches are glued matches too, so
        it cannot start earlier, and the longest glued match already ends at a
        boundary, so it cannot be longer. One pass over the text then serves both.
        """
        return self._find_mentions(subject, True, hits)

    def _find_mentions(
        self, subject: Subject, glued: bool, hits: ScanHits | None
    ) -> tuple[list[Mention], list[Mention] | None]:
        finders = self._finders(subject, hits, glued)
        finder = finders.plain.match if not glued else finders.glued.match
        data = b" " + subject.data + b" "
        groups = self._finder_groups
        out: list[Mention] = []
        bounded = True
        position = 0
        limit = len(data)
        counter = work.COUNTER
        while position < limit:
            start, end = finder(UNANCHORED, data, position, limit)[0]
            if counter is not None:
                counter.regex((end if start >= 0 else limit) - position)
                counter.mentions += 1
            if start < 0:
                break
            bounded_here = not glued
            at_boundary = _boundary_at(data, end)
            if glued and not at_boundary:
                # A bounded group word that overlaps the glued one is the better
                # reading: "the oromo" glued into "s" is "oromos" ("kill the oromos").
                reach = min(limit, end + _BOUNDED_REACH)
                plain = finders.plain.match(UNANCHORED, data, start, reach)[0]
                if counter is not None:
                    counter.regex(reach - start)
                if 0 <= plain[0] < end:
                    start, end = plain
                    bounded_here = True
            # Padded coordinates: the first character of the match is the boundary
            # (the pad counts as one), so the mention is [start + w, stop) in
            # padded bytes, which is [start + w - 1, stop - 1) in the text, where
            # ``w`` is the leading boundary's width and ``stop`` is where the
            # trailing boundary character begins (either may be several bytes
            # long: "؟", "«").
            stop = _last_char_start(data, end) if bounded_here else end
            b_start, b_end = start + _width(data[start]) - 1, stop - 1
            group = self._identify(finders, subject.data[b_start:b_end])
            led = False
            if group < 0 and finders.lead is not None:
                b_start, group = self._after_lead(finders, subject.data, b_start, b_end)
                led = group >= 0
            if not bounded_here and not at_boundary:
                if led:  # run into words on both sides: too loose to be a name
                    group = -1
                bounded = False
                # A short name run into a longer word is far more often the start of
                # an unrelated word (Hausa "mata" in "matasa") than a run-together name.
                if group >= 0 and _word_follows(data, end):
                    b_end, stop, group = self._undoubled(
                        finders, subject.data, b_start, b_end, stop, group
                    )
                    if not _gluable(subject, b_start, b_end, data, end, self._glue_exclude):
                        group = -1
            if group >= 0 and self._predicate is not None and group in self._predicate[1]:
                group = self._unless_predicate(data, b_start + 1, group)
            # A group word spelt wholly in stand-ins is a number ("180" reads i-b-o
            # through the leetspeak classes): a word needs a letter.
            if (
                group >= 0
                and groups[group][0].coded is None
                and not _has_letter(subject.data[b_start:b_end])
            ):
                group = -1
            if group >= 0:
                info, kind = groups[group]
                if kind == "modifier" and self._noun_use is not None:
                    group = self._as_noun(
                        subject.data[b_start:b_end], data, b_start + 1, stop, group
                    )
                    info, kind = groups[group]
                out.append(Mention(subject.char(b_start), subject.char(b_end), info, kind))
                position = stop if stop > position else position + 1
            else:
                # Not a mention ("يا بهاي" run into "ن"): a group word may still start
                # inside it ("بهاين"), so the search goes on from its next boundary.
                position = max(start + _width(data[start]), position + 1)
        return out, (out if glued and bounded else None)

    def _unless_predicate(self, padded: bytes, start: int, group: int) -> int:
        """-1 when the coded form at padded byte ``start`` follows a copula (see
        ``_predicate``), else ``group``."""
        assert self._predicate is not None
        return -1 if _preceded_by(self._predicate[0], padded, start) else group

    def _as_noun(self, piece: bytes, padded: bytes, start: int, stop: int, group: int) -> int:
        """The term group of a modifier that stands as a plural noun, else the
        modifier's own group (``start`` and ``stop``: the mention in padded bytes).

        Only the pack's NOUN_MODIFIERS qualify: colour words and demonyms ("white
        are", "polish are") read as adjectives there far more often.
        """
        assert self._noun_use is not None
        term = self._term_of.get(group)
        if term is None or not self._noun_use.is_noun(piece, padded, start, stop):
            return group
        return term

    def _undoubled(
        self, finders: _Finders, data: bytes, b_start: int, b_end: int, stop: int, group: int
    ) -> tuple[int, int, int]:
        """A run-together name that ends in a doubled letter, shortened by that letter
        when the shorter piece is a name too: the doubled spelling of a name
        ("muslimss", for "Muslimms"-like typing) must not swallow the first letter of
        the word run into it ("muslimssont" is "muslims" + "sont"). Longest-first
        matching would otherwise leave the skeleton "ont".
        """
        if b_end - b_start < 3:
            return b_end, stop, group
        last = data[b_end - 1]
        if last >= 0x80 or last != data[b_end - 2] or not chr(last).isalpha():
            return b_end, stop, group
        shorter = self._identify(finders, data[b_start : b_end - 1])
        if shorter < 0:
            return b_end, stop, group
        return b_end - 1, stop - 1, shorter

    def _after_lead(
        self, finders: _Finders, data: bytes, b_start: int, b_end: int
    ) -> tuple[int, int]:
        """Where a group word run into a leading GLUE_LEAD word starts, and its group.

        Only reached when the found piece is not a group word by itself, which is
        rare; the piece is a few dozen bytes, so trying each split is cheap. The
        shortest lead that leaves a whole group word wins. An Arabic-script lead (a
        demonstrative: "دولالغجر") leads only a group word with the article, which
        no Arabic word holds after such a prefix.
        """
        assert finders.lead is not None
        for split in range(b_start + 1, b_end):
            if _arabic_lead(data, b_start) and not data.startswith(_ARTICLE, split):
                continue
            if work.COUNTER is not None:
                work.COUNTER.regex(split - b_start)
            if finders.lead(data[b_start:split]):
                group = self._identify(finders, data[split:b_end])
                if group >= 0:
                    return split, group
        return b_start, -1

    def _identify(self, finders: _Finders, piece: bytes) -> int:
        """Which anchor and kind a found mention is: the first finder group it fully
        matches, or -1.

        A subset's answer is the whole finder's: a group word that fully matches a
        piece of the text is present in the scan, so it is in the subset.

        Remembered per spelling: the same few group names recur in text after text,
        and a dictionary lookup costs a tenth of a Set match. The memory is bounded
        (it starts over when full) and shared by threads; a race at worst asks the
        Set twice.
        """
        known = self._identified.get(piece)
        if known is not None:
            return known
        if work.COUNTER is not None:
            work.COUNTER.regex(len(piece))
        kinds = finders.identify(piece)
        group = finders.parts[min(kinds)] if kinds else -1
        if len(self._identified) >= _IDENTIFIED_MAX:
            self._identified = {}
        self._identified[piece] = group
        return group


# Emoji that decorate a post between its words ("X are 🤮 parasites", "X 🙄 are
# rats"): pictographs, emoticons, transport, symbols and dingbats, with their skin
# tones. Left out, so that a pack may read them as words: the animal blocks
# (U+1F400-1F43F: 🐀 🐍 🐒 🐷; U+1F980-1F9AF: 🦍 🦟; U+1FAB0-1FABF: 🪳 🪱) and the
# enclosed alphanumerics and flags (U+1F100-1F1FF: 🅱).
_EMOJI = (
    "\U0001f300-\U0001f3ff\U0001f440-\U0001f5ff\U0001f600-\U0001f64f"
    "\U0001f680-\U0001f6ff\U0001f900-\U0001f97f\U0001f9b0-\U0001f9ff"
    "\U0001fa70-\U0001faaf\U0001fac0-\U0001faff\u2600-\u27bf\u2b00-\u2bff"
)
_PAUSE = re.compile(f'"|\\.{{2,}}|[{_EMOJI}]')


def _unquoted(segment: str) -> str:
    """A skeleton segment with quote marks, ellipses and emoji turned into spaces.

    Normalization folds every quote mark (« » “ ” „) to '"' and NFKC spells "…"
    as "..."; between a group and its predicate ('X "are" vermin', "X… vermin",
    "X are 🤮 vermin") they are emphasis or a pause, not a clause break, so full
    patterns (whose spaces match whitespace only) read through them. Each is one
    character and becomes one space, so offsets are kept; suppression cues still
    read the normalized text, quotes and emoji included.
    """
    if segment.isascii() and '"' not in segment and ".." not in segment:
        return segment
    return _PAUSE.sub(lambda m: " " * len(m.group()), segment)


# Every byte that cannot begin the UTF-8 encoding of a character from U+2000 on
# (0xE2 begins U+2000-U+2FFF; higher lead bytes, higher planes).
_BELOW_U2000 = bytes(range(0xE2))


def _same(segment: str) -> str:
    return segment


@dataclass(frozen=True, slots=True)
class Skeleton:
    """A marked copy of a normalized text and the way back to its offsets."""

    text: str
    _starts: tuple[int, ...]  # skeleton index where each segment begins
    _origins: tuple[int, ...]  # normalized index where that segment begins
    _mentions: tuple[Mention | None, ...]  # the mention a marker segment stands for

    @classmethod
    def build(
        cls,
        text: str,
        mentions: Sequence[Mention],
        data: bytes | None = None,
        *,
        outside: tuple[str, ...] = (),
    ) -> Skeleton:
        """``data``, the text's UTF-8 bytes when the caller has them, lets a text
        without any pause (no quote mark, no dot run, no character from U+2000 on,
        where every emoji lies) skip ``_unquoted``'s per-segment regex.

        ``outside``: openings of a mention (with their space) written before its mark
        rather than inside it, so that a pattern can read them (LanguagePack
        ``mark_outside``); a span over them maps back to the mention's start."""
        if work.COUNTER is not None:
            work.COUNTER.scanned(len(text))
            work.COUNTER.mentions += len(mentions)
        unquoted = _unquoted
        if (
            '"' not in text
            and ".." not in text
            and (text.isascii() or (data is not None and not data.translate(None, _BELOW_U2000)))
        ):
            unquoted = _same
        pieces: list[str] = []
        starts: list[int] = []
        origins: list[int] = []
        marks: list[Mention | None] = []
        cursor = 0
        length = 0
        for mention in mentions:
            if mention.start > cursor:
                pieces.append(unquoted(text[cursor : mention.start]))
                starts.append(length)
                origins.append(cursor)
                marks.append(None)
                length += mention.start - cursor
            if outside:
                opening = next((o for o in outside if text.startswith(o, mention.start)), "")
                if opening and len(opening) < mention.end - mention.start:
                    pieces.append(opening)
                    starts.append(length)
                    origins.append(mention.start)
                    marks.append(None)
                    length += len(opening)
            pieces.append(MODIFIER_MARK if mention.kind == "modifier" else GROUP_MARK)
            starts.append(length)
            origins.append(mention.start)
            marks.append(mention)
            length += 1
            cursor = mention.end
        if cursor < len(text) or not starts:
            pieces.append(unquoted(text[cursor:]))
            starts.append(length)
            origins.append(cursor)
            marks.append(None)
        return cls("".join(pieces), tuple(starts), tuple(origins), tuple(marks))

    def to_normalized(self, start: int, end: int) -> tuple[int, int]:
        """Map a skeleton [start, end) span to the normalized text."""
        return self._position(start, at_end=False), self._position(end, at_end=True)

    def _position(self, pos: int, *, at_end: bool) -> int:
        index = bisect.bisect_right(self._starts, pos - 1 if at_end and pos > 0 else pos) - 1
        index = max(index, 0)
        mention = self._mentions[index]
        offset = pos - self._starts[index]
        if mention is not None:
            # A position past the mark (an empty span right after it) is its end.
            return mention.end if offset >= 1 else mention.start
        return self._origins[index] + offset

    def mention_in(self, start: int, end: int) -> Mention | None:
        """The first group mention whose marker lies in the skeleton span."""
        index = max(bisect.bisect_right(self._starts, start) - 1, 0)
        while index < len(self._starts) and self._starts[index] < end:
            if work.COUNTER is not None:
                work.COUNTER.mentions += 1
            mention = self._mentions[index]
            if mention is not None and self._starts[index] >= start:
                return mention
            index += 1
        return None
