"""The pattern compiler (engine.rules.compiler), built from a small in-test lexicon.

Taxonomy authors write short patterns and trust the compiler to add leetspeak,
homoglyph and typo spellings, word boundaries and the group slot. These tests
pin each of those promises (docs/taxonomy-format.md) on a lexicon small enough
to read, independent of whatever the shipped language packs contain today.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import re2

from engine.errors import PatternError
from engine.rules.compiler import GROUP_MARK, MODIFIER_MARK, PatternCompiler, SlotSource
from engine.rules.models import LexiconEntry, Obfuscation, WordClass
from engine.rules.morphology import FormsFile, WordBook
from engine.rules.regex_syntax import has_assertion, min_length
from engine.rules.variants import concrete_forms, typo_variants
from engine.text.normalize import normalize

OBFUSCATION = Obfuscation(
    letter_classes={
        "a": "4@аα",
        "e": "3е",
        "i": "1!іι",
        "o": "0о",
        "s": "5$ѕ",
        "t": "7+т",
        "а": "a",
    },
    typo_min_length=4,
    typo_deletable="aeiouy",
    typo_transpositions=True,
    typo_deletions=True,
)

LEXICON: dict[str, LexiconEntry] = {
    "DET": LexiconEntry(terms=["all", "these", "the"]),
    "TAIL": LexiconEntry(terms=["like (?:you|them)"]),
    "VERMIN": LexiconEntry(terms=["rats?", "cockroach(?:es)?"], typo=True),
    "ADV": LexiconEntry(terms=["just", "really", "not"]),
    "DIRTY": LexiconEntry(terms=["filthy {VERMIN}"]),
    "CYCLE_A": LexiconEntry(terms=["x {CYCLE_B}"]),
    "CYCLE_B": LexiconEntry(terms=["y {CYCLE_A}"]),
    "SELF": LexiconEntry(terms=["z {SELF}"]),
}

FILLER_MAX = 2
WHERE = "test.yaml: row D2.4a-001: pattern 0"


def make_compiler(
    typo_exclude: tuple[str, ...] = (),
    *,
    lexicon: dict[str, LexiconEntry] | None = None,
    words: WordBook | None = None,
) -> PatternCompiler:
    """A compiler with slots bound the way engine.pipeline.language binds them."""
    compiler = PatternCompiler(
        lexicon=LEXICON if lexicon is None else lexicon,
        obfuscation=OBFUSCATION,
        filler_max_words=FILLER_MAX,
        context="test.yaml",
        typo_exclude=typo_exclude,
        words=words,
    )
    references = compiler.terms(["they", "them", "these people"], typo=False, where="refs")
    compiler.bind_slots(
        SlotSource(
            references=references,
            determiners=compiler.macro("DET", "test"),
            tail=compiler.macro("TAIL", "test"),
        )
    )
    return compiler


@pytest.fixture(scope="module")
def compiler() -> PatternCompiler:
    return make_compiler()


def skeleton(text: str) -> str:
    """Normalize like the classifier, then put group marks where '<g>'/'<m>' stand."""
    folded = normalize(text).text
    return folded.replace("<g>", GROUP_MARK).replace("<m>", MODIFIER_MARK)


def search(compiler: PatternCompiler, source: str, text: str) -> re2._Match | None:
    compiled = compiler.compile(source, WHERE)
    return re2.compile(compiled.full).search(skeleton(text))


# -- typo spellings and concrete forms --------------------------------------------


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("vermin", {"vremin", "vemrin", "verimn", "vermni", "vrmin", "vermn"}),
        ("kill", {"klil", "kll"}),  # the doubled l is not "swapped"
        ("rats", {"rtas", "rast", "rts"}),
        ("rat", set()),  # shorter than typo_min_length
        ("r4ts", set()),  # not a plain word
        ("black people", set()),
    ],
)
def test_typo_variants(word: str, expected: set[str]) -> None:
    """Only adjacent swaps and dropped vowels, from the second letter on."""
    assert typo_variants(word, OBFUSCATION) == expected


def test_typo_variants_never_touch_the_first_letter() -> None:
    """A leading vowel is never dropped nor swapped: 'mmigrant' would hit other words."""
    variants = typo_variants("immigrant", OBFUSCATION)
    assert variants
    assert all(v[0] == "i" and v[1:] != "immigrant"[1:] for v in variants)
    assert "mmigrant" not in variants
    assert "mimigrant" not in variants


def test_typo_variants_shortest_override_and_switches() -> None:
    """Inside a phrase short words get variants; each kind of edit can be turned off."""
    assert typo_variants("rat", OBFUSCATION, 3) == {"rta", "rt"}
    no_swaps = OBFUSCATION.model_copy(update={"typo_transpositions": False})
    assert typo_variants("kill", no_swaps) == {"kll"}
    no_drops = OBFUSCATION.model_copy(update={"typo_deletions": False})
    assert typo_variants("kill", no_drops) == {"klil"}


def test_typo_variants_double_a_letter_once() -> None:
    """A letter typed twice, from the second letter on; never a third of a doubled one.
    Every letter where the caller asks (group names); elsewhere only a vowel held or
    the last letter, which is what a held key or an emphatic vowel gives."""
    doubling = OBFUSCATION.model_copy(
        update={"typo_doublings": True, "typo_transpositions": False, "typo_deletions": False}
    )
    assert typo_variants("jews", doubling, doublings=True) == {"jeews", "jewws", "jewss"}
    assert typo_variants("kill", doubling, doublings=True) == {"kiill"}
    assert typo_variants("jews", doubling) == {"jeews", "jewss"}  # not the w inside
    assert typo_variants("rats", doubling) == {"raats", "ratss"}
    assert typo_variants("kill", doubling) == {"kiill"}  # the last letter is doubled already
    off = doubling.model_copy(update={"typo_doublings": False})
    assert typo_variants("rats", off) == set()


def test_typo_variants_type_a_doubled_consonant_once() -> None:
    """A doubled consonant typed once, one variant per double, never the first letter;
    a doubled vowel is already a dropped vowel."""
    degemination = OBFUSCATION.model_copy(
        update={"typo_degemination": True, "typo_transpositions": False, "typo_deletions": False}
    )
    assert typo_variants("immigrants", degemination) == {"imigrants"}
    assert typo_variants("kill", degemination) == {"kil"}
    assert typo_variants("sheep", degemination) == set()
    assert typo_variants("llama", degemination) == set()
    assert typo_variants("kill", OBFUSCATION) == {"klil", "kll"}  # off unless switched on


@pytest.mark.parametrize(
    ("term", "forms"),
    [
        ("rats?", ["rat", "rats"]),
        ("cockroach(?:es)?", ["cockroach", "cockroaches"]),
        ("muslim(?:s|ah)?", ["muslim", "muslims", "muslimah"]),
        ("jew(?:s|ry)", ["jews", "jewry"]),
        ("vermin", ["vermin"]),
        ("black people", ["black people"]),
        ("(?:a|b)", None),
        ("n[i1]ggers?", None),
        ("negro(?:e?s)?", None),
        ("muslim {PEOPLE}", None),
    ],
)
def test_concrete_forms(term: str, forms: list[str] | None) -> None:
    """Only simple terms are spelled out (and so get typo spellings)."""
    assert concrete_forms(term) == forms


# -- matching -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "text", "matches"),
    [
        # letters widened by obfuscation.letter_classes
        ("{T} are rats", "they are rats", True),
        ("{T} are rats", "they are r@ts", True),
        ("{T} are rats", "they are r4ts", True),
        ("{T} are rats", "they are rаts", True),  # Cyrillic а
        ("{T} are rats", "they are ra7$", True),
        ("{T} are rats", "THEY ARE RATS", True),
        ("{T} are rats", "they are rbts", False),
        # literals are folded like texts
        ("{T} are Ratás", "they are ratas", True),
        ("{T} are Ratás", "they are RATÁS", True),
        # inside a class or an escape, letters stay as written
        ("{T} are r[a]ts", "they are rats", True),
        ("{T} are r[a]ts", "they are r@ts", False),
        ("{T} are rats\\.", "they are rats.", True),
        ("{T} are rats\\.", "they are rats!", False),
        # a space matches no space or several
        ("{T} are rats", "theyarerats", True),
        ("{T} are rats", "they  are \t rats", True),
        ("death to {T}", "deathto them", True),
        # word boundaries are added at both ends, and they are Unicode-aware
        ("{T} are rats", "they are ratsy", False),
        ("{T} are rats", "they are ratsé", False),
        ("{T} are rats", "they are rats!", True),
        ("{T} are rats", "xthey are rats", False),
        # {F}: 0..filler_max_words words inside one clause
        ("{T} are {F}rats", "they are rats", True),
        ("{T} are {F}rats", "they are dirty rats", True),
        ("{T} are {F}rats", "they are dirty filthy rats", True),
        ("{T} are {F}rats", "they are such dirty filthy rats", False),
        ("{T} are {F}rats", "they are dirty. rats", False),
        ("{T} are {F}rats", "they are dirty, rats", False),
        # {F:NAME}: only the words of one lexicon entry
        ("{T} are {F:ADV}criminals", "they are criminals", True),
        ("{T} are {F:ADV}criminals", "they are just criminals", True),
        ("{T} are {F:ADV}criminals", "they are not just criminals", True),
        ("{T} are {F:ADV}criminals", "they are evil criminals", False),
        ("{T} are {F:ADV}criminals", "they are really not just criminals", False),
        # lexicon macros, nested macros and typo spellings of typo entries
        ("{T} are {VERMIN}", "they are cockroaches", True),
        ("{T} are {VERMIN}", "they are cockroahces", True),
        ("{T} are {VERMIN}", "they are rtas", True),
        ("{T} are {DIRTY}", "they are filthy rats", True),
        ("{T} are {DIRTY}", "they are filthyrats", True),
        ("{T} are {DIRTY}", "they are filthy", False),
        # {T}: group mark or reference, with determiners and a tail
        ("{T} are rats", "<g> are rats", True),
        ("{T} are rats", "all these <g> are rats", True),
        ("{T} are rats", "<g> like you are rats", True),
        ("{T} are rats", "these people are rats", True),
        ("{T} are rats", "muslims are rats", False),  # names are marks by now
        # {TM}: a mark (group or modifier) before a noun; never a pronoun
        ("{TM} rats", "<m> rats", True),
        ("{TM} rats", "<g> rats", True),
        ("{TM} rats", "they rats", False),
        # {G}: any mark inside the pattern's own text
        ("{T} are raping our {G}", "they are raping our <g>", True),
        ("{T} are raping our {G}", "they are raping our <m>", True),
        ("{T} are raping our {G}", "they are raping our women", False),
    ],
)
def test_pattern_matching(compiler: PatternCompiler, source: str, text: str, matches: bool) -> None:
    """What a pattern matches on a normalized, marked text (the skeleton)."""
    assert (search(compiler, source, text) is not None) is matches


def test_target_group_is_the_slot(compiler: PatternCompiler) -> None:
    """The target group spans the slot only; {G} is never taken as the target."""
    match = search(compiler, "{T} are raping our {G}", "all <g> are raping our <g>")
    assert match is not None
    assert match.group("t") == f"all {GROUP_MARK}"
    assert match.group("m") == f"all {GROUP_MARK} are raping our {GROUP_MARK}"


def test_mark_tail_follows_a_group_word_but_not_a_reference() -> None:
    """MARK_TAIL (a French attributive adjective) may follow a group mark; after a
    reference it would read a nominalized adjective as the group ("them veiled")."""
    lexicon = {**LEXICON, "MARK_TAIL": LexiconEntry(terms=["veiled", "who arrive"])}
    compiler = PatternCompiler(
        lexicon=lexicon,
        obfuscation=OBFUSCATION,
        filler_max_words=FILLER_MAX,
        context="test.yaml",
    )
    compiler.bind_slots(compiler.slot_source(["they", "them"], "refs"))
    compiled = re2.compile(compiler.compile("{T} are {VERMIN}", WHERE).full)
    match = compiled.search(skeleton("the <g> veiled are rats"))
    assert match is not None
    assert match.group("t") == f"the {GROUP_MARK} veiled"
    assert compiled.search(skeleton("the <g> who arrive like them are rats")) is not None
    assert compiled.search(skeleton("them veiled are rats")) is None
    assert compiled.search(skeleton("them are rats")) is not None


def test_filler_groups_are_named_in_order(compiler: PatternCompiler) -> None:
    """Each {F} is a named group so that negation can be looked for inside it: ``w<n>``
    for a filler of any words (FILLER_STOP applies), ``f<n>`` for a lexicon entry's."""
    compiled = compiler.compile("{T} are {F}rats and {F:ADV}vermin", WHERE)
    assert compiled.filler_groups == ("w0", "f1")
    match = re2.compile(compiled.full).search(skeleton("<g> are not rats and just vermin"))
    assert match is not None
    assert match.group("w0") == "not "
    assert match.group("f1") == "just "


def test_typo_exclude_drops_a_spelling() -> None:
    """A typo spelling that is a real word of the language can be excluded."""
    compiler = make_compiler(typo_exclude=("rast",))
    assert search(compiler, "{T} are {VERMIN}", "they are rast") is None
    assert search(compiler, "{T} are {VERMIN}", "they are rtas") is not None


# -- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("are rats", "exactly one {T} or {TM}"),
        ("{T} and {T} are rats", "exactly one {T} or {TM}"),
        ("{T} are {TM} rats", "exactly one {T} or {TM}"),
        ("{TM} and {TM}", "exactly one {T} or {TM}"),
        ("\\b{T} are rats", "\\b is ASCII-only"),
        ("{T} are rats\\B", "\\b is ASCII-only"),
        ("{T} are (?P<noun>rats)", "named groups are reserved"),
        ("{T} are (?<noun>rats)", "named groups are reserved"),
        ("{T} are {VERMINS}", "unknown lexicon entry {VERMINS}"),
        ("{T} are {F:NOPE}rats", "unknown lexicon entry {NOPE}"),
        ("{T} are {vermin}", "unknown placeholder {vermin}"),
        ("{T} are [rats", "unterminated character class"),
        ("{T} are {VERMIN", "unterminated {"),
        ("{T} are rats\\", "trailing backslash"),
    ],
)
def test_compile_errors(compiler: PatternCompiler, source: str, message: str) -> None:
    """Each mistake is reported with where it is and what is wrong."""
    with pytest.raises(PatternError) as info:
        compiler.compile(source, WHERE)
    assert WHERE in str(info.value)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("source", "cycle"),
    [("{T} are {CYCLE_A}", "CYCLE_A -> CYCLE_B -> CYCLE_A"), ("{T} {SELF}", "SELF -> SELF")],
)
def test_lexicon_cycle_is_named(source: str, cycle: str) -> None:
    """Entries that refer to each other fail with the whole cycle, not a RecursionError."""
    with pytest.raises(PatternError, match="cycle") as info:
        make_compiler().compile(source, WHERE)
    assert cycle in str(info.value)


@pytest.mark.parametrize(
    ("term", "message"),
    [("{T} rats", "only allowed in row patterns"), ("{F}rats", "only allowed in row patterns")],
)
def test_slots_are_not_allowed_in_terms(compiler: PatternCompiler, term: str, message: str) -> None:
    """Lexicon and anchor terms are plain alternatives: no slot or filler inside."""
    with pytest.raises(PatternError, match=message):
        compiler.terms([term], typo=False, where="test.yaml lexicon X")


def test_empty_term_is_an_error(compiler: PatternCompiler) -> None:
    """An empty alternative would match everywhere."""
    with pytest.raises(PatternError, match="empty term"):
        compiler.terms(["rats", "  "], typo=False, where="test.yaml lexicon X")


def test_macros_used_before_slots_are_bound() -> None:
    """Compiling a row pattern needs the slots; forgetting them is a clear error."""
    unbound = PatternCompiler(
        lexicon=LEXICON, obfuscation=OBFUSCATION, filler_max_words=2, context="test.yaml"
    )
    with pytest.raises(PatternError, match="slots used before anchors"):
        unbound.compile("{T} are rats", WHERE)


# -- dispatch components ---------------------------------------------------------------


def _t(compiler: PatternCompiler, source: str) -> str:
    return compiler.translate(source, where=WHERE, allow_slots=False)


def test_components(compiler: PatternCompiler) -> None:
    """Required parts: macros and literal runs; never slots, fillers or optional parts."""
    vermin = compiler.macro("VERMIN", WHERE)
    cases: list[tuple[str, list[str]]] = [
        ("{T} are {F}{VERMIN}", [_t(compiler, "are"), vermin]),
        ("{T} (?:are|is) {F:ADV} (?:dirty )?{VERMIN}", [_t(compiler, "(?:are|is)"), vermin]),
        ("kill all {T}", [_t(compiler, "kill all")]),
        ("{T} are rats?", [_t(compiler, "are rat")]),
        ("{T} are {VERMIN}?", [_t(compiler, "are")]),
        ("{T} are {VERMIN}{0,1}", [_t(compiler, "are")]),
        ("{TM} {VERMIN}", [vermin]),
        ("{T} (?:are {F}rats)", []),
        ("{T} are rats|vermin like {G}", []),
    ]
    for source, expected in cases:
        assert compiler.components(source, WHERE) == expected, source


def test_dispatch_only_without_components(compiler: PatternCompiler) -> None:
    """A pattern with a top-level '|' is dispatched by its whole (slot-free) form."""
    split = compiler.compile("{T} are rats", WHERE)
    assert split.dispatch == ""
    whole = compiler.compile("{T} are rats|vermin like {G}", WHERE)
    assert whole.components == ()
    dispatch = re2.compile(whole.dispatch)
    assert dispatch.search("muslims are rats") is not None
    assert dispatch.search("vermin like muslims") is not None
    assert dispatch.search("muslims are people") is None


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("{T} are {F}{VERMIN}", "these <g> are dirty r@ts"),
        ("{T} (?:are|is) {F:ADV} (?:dirty )?{VERMIN}", "<g> is just cockroaches"),
        ("kill all {T}", "k i l l all <g>"),
        ("{T} are \\pL+ rats", "<g> are βαδ rats"),
        ("{T} are \\p{Greek}+ rats", "<g> are βαδ rats"),
    ],
)
def test_components_are_found_in_every_match(
    compiler: PatternCompiler, source: str, text: str
) -> None:
    """A component is a necessary condition: if the pattern matches, each one is present.

    The matcher scans for one component per pattern and skips the pattern when
    it is absent, so a component that a real match lacks silently disables the
    pattern. (Fails today for ``\\p{Greek}``: ``components`` steps over only
    three characters of the escape and takes 'greek}' for a literal word.)
    """
    marked = skeleton(text)
    compiled = compiler.compile(source, WHERE)
    assert re2.compile(compiled.full).search(marked) is not None
    for component in compiled.components:
        assert re2.compile(component).search(marked) is not None, component


@pytest.mark.parametrize(
    ("regex", "length"),
    [
        ("", 0),
        ("abc", 3),
        ("a|bc", 1),
        ("(?:ab)?c", 1),
        ("a{3}", 3),
        ("(?:ab){2,4}", 4),
        ("[abc]x*", 1),
        ("\\s*rats", 4),
        ("x+", 1),
        ("^a$", 1),
        ("(?i)ab", 2),
        ("(?s:.)y", 2),
        ("\\pLx", 2),
        ("\\p{Greek}x", 2),
        ("\\x01y", 2),
        ("[^\\pL\\pN]ab", 3),
        ("(?P<m>abc)", 3),
    ],
)
def test_min_length(regex: str, length: int) -> None:
    """The fewest characters a compiled expression can match ranks components."""
    assert min_length(regex) == length


def test_min_length_of_a_macro(compiler: PatternCompiler) -> None:
    """A typo-expanded macro is as short as its shortest spelling ('rts')."""
    assert min_length(compiler.macro("VERMIN", WHERE)) == 3


@pytest.mark.parametrize(
    ("regex", "expected"),
    [
        ("(?:not|never)", False),
        ("[^\\pL\\pN]no[$^]", False),
        ("\\pLx\\p{Greek}\\x{1F600}\\s", False),
        ("stop\\s*calling", False),
        ("^no", True),
        ("no$", True),
        ("(?:a|\\bno)", True),
        ("\\Bno", True),
        ("\\Ano\\z", True),
    ],
)
def test_has_assertion(regex: str, expected: bool) -> None:
    """Only an anchor or a word-boundary escape outside a class counts; ``[^...]`` does not."""
    assert has_assertion(regex) is expected


def test_cue_bodies_compile_without_assertions(compiler: PatternCompiler) -> None:
    """Cue terms compile to plain alternations, which the presence scan relies on."""
    assert not has_assertion(
        compiler.terms(["not", "stop calling", "no way"], typo=False, where=WHERE)
    )


# -- a filler after a space ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("<g> are really rats", True),
        ("<g> are rats", True),
        ("<g> arerats", True),  # the space alone may still be missing
        ("<g> are  just  rats", True),
        # "are" + "ally rats" out of "areally": a filler word starts after a space.
        ("<g> areally rats", False),
        ("<g> r escued rats", True),
        ("<g> rescued rats", False),
    ],
)
def test_a_filler_word_starts_after_whitespace(text: str, found: bool) -> None:
    lexicon = {**LEXICON, "COP": LexiconEntry(terms=["are", "r"])}
    compiler = PatternCompiler(
        lexicon=lexicon, obfuscation=OBFUSCATION, filler_max_words=FILLER_MAX, context="test"
    )
    compiler.bind_slots(SlotSource(references="(?:they)", determiners=None, tail=None))
    compiled = compiler.compile("{T} {COP} {F}{VERMIN}", WHERE)
    assert (re2.compile(compiled.full).search(skeleton(text)) is not None) is found


def test_a_listed_clitic_may_run_into_the_word_before_a_filler() -> None:
    """English "n't" (FILLER_CLITIC): "aren't rats" reads "are" + a filler "n't", so
    negation finds its cue inside the filler; it has a group of its own."""
    lexicon = {
        **LEXICON,
        "COP": LexiconEntry(terms=["are"]),
        "FILLER_CLITIC": LexiconEntry(terms=["n'?t"]),
    }
    compiler = PatternCompiler(
        lexicon=lexicon, obfuscation=OBFUSCATION, filler_max_words=FILLER_MAX, context="test"
    )
    compiler.bind_slots(SlotSource(references="(?:they)", determiners=None, tail=None))
    compiled = compiler.compile("{T} {COP} {F}{VERMIN}", WHERE)
    assert compiled.filler_groups == ("w0", "w1")
    regex = re2.compile(compiled.full)
    spaced = regex.search(skeleton("<g> are really rats"))
    assert spaced is not None and spaced.group("w0") == "really " and spaced.group("w1") is None
    for text in ("<g> aren't rats", "<g> arent rats"):
        clitic = regex.search(skeleton(text))
        assert clitic is not None and clitic.group("w1").startswith("n"), text
    assert regex.search(skeleton("<g> arena rats")) is None


def test_budget_bound_is_never_below_the_expansion(compiler: PatternCompiler) -> None:
    """The load-time budget check trusts its upper bound below the budget: the bound
    must never be smaller than the full expression it stands for."""
    for source in (
        "{T} are {VERMIN}",
        "{T} are {F:ADV}criminals",
        "{T} are {DIRTY}",
        "kill {T} now and kill them all",
        "{T} are {F}rats",
    ):
        body = compiler.translate(source, where="test", allow_slots=True)
        refs = ("they", "them", "these people")
        assert compiler._bound(source, "test") + compiler._slot_bound(refs, "test") >= len(body)


def test_budget_sees_through_lexicon_entries() -> None:
    """A short pattern whose lexicon entry is huge is refused, naming the pattern."""
    big = LexiconEntry(terms=[" ".join(f"word{i}x" for i in range(20_000))])
    compiler = PatternCompiler(
        lexicon={"BIG": big, "HUGE": LexiconEntry(terms=["{BIG} {BIG}"])},
        obfuscation=OBFUSCATION,
        filler_max_words=3,
        context="test",
    )
    compiler.check_budget("{T} {BIG}", "row X")  # about 335,000 characters: within
    with pytest.raises(PatternError, match=r"row X: expands to .* over the budget"):
        compiler.check_budget("{T} {HUGE}", "row X")


# -- typo spellings of generated forms --------------------------------------------


def _compiler_with_words() -> PatternCompiler:
    """A compiler whose pack has one noun class and one verb class, and a typo-spelled
    lexicon entry naming each (the shape of the packs' ANIMAL and KILL entries)."""
    words = {
        "PEST_N": WordClass(pos="noun", lemmas=["roach"]),
        "CRUSH_V": WordClass(pos="verb", lemmas=["squash"]),
    }
    forms = FormsFile(
        path=Path("forms.yaml"),
        pos={"roach": "noun", "squash": "verb"},
        forms={
            "roach": {"s": ("roach",), "p": ("roaches",)},
            "squash": {"inf": ("squash",), "pres3": ("squashes",)},
        },
    )
    lexicon = {
        **LEXICON,
        "PESTS": LexiconEntry(terms=["{W:PEST_N:p}"], typo=True),
        "CRUSH": LexiconEntry(terms=["{W:CRUSH_V}"], typo=True),
        "PRE_PESTS": LexiconEntry(terms=["{ADV} {W:PEST_N:p}"], typo=True),
    }
    return make_compiler(lexicon=lexicon, words=WordBook(words, forms, "test.yaml", "en"))


@pytest.mark.parametrize(
    ("source", "text", "found"),
    [
        # a noun class named in a typo-spelled entry takes its forms' typo spellings
        ("{T} are {PESTS}", "<g> are roaches", True),
        ("{T} are {PESTS}", "<g> are raoches", True),
        # dropped letters stay out: they turned plurals into ordinary words
        ("{T} are {PESTS}", "<g> are roches", False),
        # only the slots the entry names: the singular stays out
        ("{T} are {PESTS}", "<g> are roach", False),
        # the same class named in a pattern, outside any typo entry, stays exact
        ("{T} are {W:PEST_N:p}", "<g> are raoches", False),
        # verb classes stay exact even in a typo-spelled entry
        ("{CRUSH} {T}", "squash <g>", True),
        ("{CRUSH} {T}", "sqaush <g>", False),
    ],
)
def test_generated_nouns_take_typo_spellings(source: str, text: str, found: bool) -> None:
    assert (search(_compiler_with_words(), source, text) is not None) is found


def test_a_macro_before_the_word_class_leaves_its_entry_typo_spelled() -> None:
    """'{PRE}{W:…}' in a typo entry: compiling the macro first (its own entry is exact)
    must not switch the typo spellings off for the word class after it."""
    assert search(_compiler_with_words(), "{T} are {PRE_PESTS}", "<g> are just raoches")
