"""Offset bookkeeping between texts, their UTF-8 bytes and their skeletons.

The engine matches on UTF-8 bytes (engine.text.subject) and full patterns on a
skeleton where group mentions are single marks (engine.pipeline.mentions). Both convert
offsets back, and an off-by-one there puts the reported evidence on the wrong
words; non-ASCII texts (emoji, Cyrillic, Arabic) are where that goes wrong.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Classifier
from engine.pipeline.mentions import AnchorInfo, Mention, Skeleton
from engine.rules.compiler import GROUP_MARK, MODIFIER_MARK
from engine.text import re2x
from engine.text.normalize import normalize
from engine.text.re2x import UNANCHORED
from engine.text.subject import NO_SPAN, Subject

WORD = re2x.Regex(r"(\pL+)")
BOUNDED_WORD = re2x.Regex(r"(?:^|[^\pL\pN])(\pL+)(?:[^\pL\pN]|$)")

# text, expected byte offset of each character offset 0..len(text)
BYTE_MAPS: list[tuple[str, list[int]]] = [
    ("rats", [0, 1, 2, 3, 4]),
    ("", [0]),
    ("a😀b", [0, 1, 5, 6]),
    ("мир", [0, 2, 4, 6]),
    ("مسلم", [0, 2, 4, 6, 8]),
    ("é😀мx", [0, 2, 6, 8, 9]),
]


@pytest.mark.parametrize(("text", "bytes_of"), BYTE_MAPS, ids=[t or "empty" for t, _ in BYTE_MAPS])
def test_byte_and_char_offsets(text: str, bytes_of: list[int]) -> None:
    """``byte`` and ``char`` are inverse on character boundaries, ASCII or not."""
    subject = Subject(text)
    assert subject.data == text.encode("utf-8")
    assert subject.ascii is text.isascii()
    assert [subject.byte(i) for i in range(len(text) + 1)] == bytes_of
    for index, offset in enumerate(bytes_of):
        assert subject.char(offset) == index


def test_char_of_a_continuation_byte_is_its_character() -> None:
    """A byte inside a multi-byte character belongs to that character."""
    subject = Subject("a😀b")
    assert [subject.char(b) for b in range(6)] == [0, 1, 1, 1, 1, 2]


def test_lone_surrogate_does_not_break_the_maps() -> None:
    """JSON can carry a lone surrogate; encoding must not raise and maps stay aligned."""
    subject = Subject("a\ud800b")
    assert not subject.ascii
    assert subject.byte(2) == 4
    assert subject.char(4) == 2


@pytest.mark.parametrize(
    ("text", "start", "end", "window", "expected"),
    [
        ("they are rats", 0, None, False, [(0, 4), (0, 4)]),
        ("they are rats", 4, None, False, [(5, 8), (5, 8)]),
        ("héllo 😀 мир", 0, None, False, [(0, 5), (0, 5)]),
        ("héllo 😀 мир", 6, None, False, [(8, 11), (8, 11)]),
        ("héllo 😀 мир", 1, 3, False, [(1, 3), (1, 3)]),
        ("héllo 😀 мир", 1, 3, True, [(1, 3), (1, 3)]),
        ("اليهود كلاب", 7, None, False, [(7, 11), (7, 11)]),
        ("😀😀", 0, None, False, None),
    ],
)
def test_search_returns_character_spans(
    text: str, start: int, end: int | None, window: bool, expected: list[tuple[int, int]] | None
) -> None:
    """Spans come back in characters for every group, whatever the encoding."""
    assert Subject(text).search(WORD, start, end, window=window) == expected


def test_window_makes_slice_edges_text_edges() -> None:
    """With ``window`` a slice's edges act as ^, $ and word boundaries; without, they don't."""
    anchored = re2x.Regex(r"^(\pL+)$")
    subject = Subject("héllo мир 😀")
    assert subject.search(anchored, 6, 9) is None
    assert subject.search(anchored, 6, 9, window=True) == [(6, 9), (6, 9)]
    # "ll" is not a word of the text, but it is a whole word of the slice [2, 4).
    assert subject.search(BOUNDED_WORD, 2, 4) is None
    assert subject.search(BOUNDED_WORD, 2, 4, window=True) == [(2, 4), (2, 4)]


def test_search_reports_non_participating_groups() -> None:
    """An optional group that did not take part is NO_SPAN, not (0, 0)."""
    regex = re2x.Regex(r"(rats)(s)?")
    assert Subject("мы rats").search(regex) == [(3, 7), (3, 7), NO_SPAN]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("they are rats", ["they", "are", "rats"]),
        ("эти 😀 крысы, они", ["эти", "крысы", "они"]),
        ("هم جرذان", ["هم", "جرذان"]),
        ("", []),
    ],
)
def test_finditer_shares_boundaries(text: str, words: list[str]) -> None:
    """Matches resume at the group's end, so one separator serves both neighbours."""
    subject = Subject(text)
    found = [text[s:e] for s, e in (spans[1] for spans in subject.finditer(BOUNDED_WORD, 1))]
    assert found == words


@pytest.mark.parametrize(
    ("text", "regex", "group"),
    [
        ("they are rats", BOUNDED_WORD, 1),
        ("эти 😀 крысы, они", BOUNDED_WORD, 1),
        ("هم جرذان", WORD, 1),
        ("a😀", re2x.Regex(r"(x)?"), 1),
    ],
)
def test_finditer_from_a_known_first_match_is_the_same_iteration(
    text: str, regex: re2x.Regex, group: int
) -> None:
    """Handing finditer the first match (bytes, as RE2 gives it) changes nothing else."""
    subject = Subject(text)
    first = regex.match(UNANCHORED, subject.data, 0, len(subject.data))
    assert first[0][0] >= 0
    assert list(subject.finditer(regex, group, first=first)) == list(subject.finditer(regex, group))


def test_finditer_in_a_window() -> None:
    """A windowed iteration sees only the slice, and its spans are still whole-text."""
    text = "они 😀 крысы и тараканы"
    subject = Subject(text)
    spans = [s[1] for s in subject.finditer(BOUNDED_WORD, 1, 6, 13, window=True)]
    assert [text[s:e] for s, e in spans] == ["крысы", "и"]


def test_finditer_advances_past_empty_matches() -> None:
    """An empty match moves on by one character instead of looping forever."""
    subject = Subject("a😀")
    assert [spans[0] for spans in subject.finditer(re2x.Regex(r"(x)?"), 1)] == [
        (0, 0),
        (1, 1),
        (2, 2),
    ]


# -- skeleton ---------------------------------------------------------------------------

MUSLIM = AnchorInfo("en.religion.muslim", "religion", "religious_group")
JEW = AnchorInfo("en.religion.jew", "religion", "religious_group")


def test_skeleton_replaces_each_mention_by_one_mark() -> None:
    """Terms become the group mark, modifiers the modifier mark; the rest is kept."""
    text = "muslim trash and all jews are rats"
    mentions = [Mention(0, 6, MUSLIM, "modifier"), Mention(21, 25, JEW, "term")]
    skeleton = Skeleton.build(text, mentions)
    assert skeleton.text == f"{MODIFIER_MARK} trash and all {GROUP_MARK} are rats"


@pytest.mark.parametrize(
    ("span", "normalized"),
    [
        ((4, 5), (4, 11)),  # the mark alone is the whole mention
        ((0, 5), (0, 11)),  # "all" + mark
        ((6, 9), (12, 15)),  # "are", after the mark
        ((0, 14), (0, 20)),  # everything
        ((5, 5), (11, 11)),  # empty, right after the mark
        ((4, 4), (4, 4)),  # empty, right before the mark
        ((14, 14), (20, 20)),  # empty, at the end
    ],
)
def test_to_normalized(span: tuple[int, int], normalized: tuple[int, int]) -> None:
    """Skeleton spans map back onto the normalized text, a mark onto its mention."""
    text = "all muslims are rats"
    skeleton = Skeleton.build(text, [Mention(4, 11, MUSLIM, "term")])
    assert skeleton.text == f"all {GROUP_MARK} are rats"
    assert skeleton.to_normalized(*span) == normalized


def test_to_normalized_adjacent_and_edge_marks() -> None:
    """Marks at the start, at the end and next to each other map to their own mentions."""
    text = "jewsmuslims"
    first, second = Mention(0, 4, JEW, "term"), Mention(4, 11, MUSLIM, "term")
    skeleton = Skeleton.build(text, [first, second])
    assert skeleton.text == GROUP_MARK * 2
    assert skeleton.to_normalized(0, 1) == (0, 4)
    assert skeleton.to_normalized(1, 2) == (4, 11)
    assert skeleton.to_normalized(0, 2) == (0, 11)
    assert skeleton.to_normalized(1, 1) == (4, 4)
    assert skeleton.mention_in(1, 2) is second


def test_empty_span_after_a_final_mark_is_empty() -> None:
    """An empty span at the end of a skeleton that ends in a mark maps to an empty span.

    (Fails today: ``_position`` for a start offset past the last mark returns the
    mention's start, so (len, len) maps to the whole mention.)
    """
    text = "kill the jews"
    skeleton = Skeleton.build(text, [Mention(9, 13, JEW, "term")])
    end = len(skeleton.text)
    assert skeleton.to_normalized(end, end) == (13, 13)


def test_skeleton_without_mentions_is_the_text() -> None:
    """No mention: the skeleton is the text and offsets are unchanged."""
    for text in ("they are rats", ""):
        skeleton = Skeleton.build(text, [])
        assert skeleton.text == text
        assert skeleton.to_normalized(0, len(text)) == (0, len(text))
        assert skeleton.mention_in(0, len(text)) is None


def test_mention_in() -> None:
    """The first mention whose mark lies inside the span, or None."""
    text = "muslim trash and all jews are rats"
    modifier, term = Mention(0, 6, MUSLIM, "modifier"), Mention(21, 25, JEW, "term")
    skeleton = Skeleton.build(text, [modifier, term])
    mark = skeleton.text.index(GROUP_MARK)
    assert skeleton.mention_in(0, 1) is modifier
    assert skeleton.mention_in(0, len(skeleton.text)) is modifier
    assert skeleton.mention_in(1, len(skeleton.text)) is term
    assert skeleton.mention_in(mark - 4, mark + 1) is term
    assert skeleton.mention_in(mark + 1, len(skeleton.text)) is None
    assert skeleton.mention_in(1, mark) is None


def test_round_trip_through_pattern_match() -> None:
    """A pattern matched on the skeleton maps back to the words of the text."""
    text = "i think all muslims are rats, really"
    mention = Mention(12, 19, MUSLIM, "term")
    skeleton = Skeleton.build(text, [mention])
    regex = re2x.Regex(r"(?P<t>all \x01) are rats")
    subject = Subject(skeleton.text)
    spans = subject.search(regex)
    assert spans is not None
    start, end = skeleton.to_normalized(*spans[0])
    assert text[start:end] == "all muslims are rats"
    t_start, t_end = spans[regex.groupindex["t"]]
    assert skeleton.mention_in(t_start, t_end) is mention


# -- one finder pass for both mention lists ---------------------------------------------------

_PIECES = [
    "muslims",
    "Muslim",
    "jews",
    "jewish",
    "gay",
    "gay men",
    "gay people",
    "refugees",
    "immigrant",
    "they",
    "vermin",
    "are",
    "the",
    "x",
    "_",
    "-",
    ".",
    ",",
    "'",
    "1",
    "é",
    "…",
    "🐀",
    "мусульмане",
    "مسلمون",
    "mata",
    "matasa",
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    code=st.sampled_from(["en", "es", "ru", "ar", "ha"]),
    pieces=st.lists(
        st.tuples(st.sampled_from(_PIECES), st.sampled_from(["", " ", "  ", "\n"])),
        max_size=12,
    ),
)
def test_plain_mentions_from_the_glued_pass_are_the_plain_finders(
    classifier: Classifier, code: str, pieces: list[tuple[str, str]]
) -> None:
    """When the glued pass says its list serves as the plain one, it is exactly that list."""
    matcher = classifier.pipeline(code).mentions
    subject = Subject(normalize("".join(piece + gap for piece, gap in pieces)).text)
    glued, plain = matcher.find_glued_and_plain(subject)
    assert glued == matcher.find(subject, glued=True)
    if plain is not None:
        assert plain == matcher.find(subject)


def test_skeleton_reads_through_decorating_emoji() -> None:
    """An emoji between words becomes one space per character, so a pattern's space
    reads through it and offsets are kept; animal emoji stay for the packs to read."""
    text = "muslims 🙄 are 🤮🤮 rats 🐀👍🏽"
    skeleton = Skeleton.build(text, [Mention(0, 7, MUSLIM, "term")])
    assert skeleton.text == f"{GROUP_MARK}   are    rats 🐀  "
    assert len(skeleton.text) == len(text) - 6
    end = len(skeleton.text)
    assert skeleton.to_normalized(0, end) == (0, len(text))
