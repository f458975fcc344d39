"""Hausa forms, hand-written: no maintained library inflects Hausa.

Hausa marks person and aspect not on the verb but on a pronoun-aspect complex
before it ("sun kashe" they killed, "za su kashe" they will kill, "a kashe"
let ... be killed, "suna kashe" they are killing), so a verb's "forms" here are
those complexes joined to it, for every person. Plurals are largely irregular
and are listed per noun; the genitive linker (-n after -a/-e/-i/-o/-u plurals
and masculine nouns, -r after feminine -a nouns) is added to both numbers.

Hooked letters (ɓ ɗ ƙ ƴ) fold to plain ones at normalization, so the tables are
written in plain letters. Verbal nouns and plurals marked "unsure" in
``UNSURE`` were not checked with a native speaker; the pack's notes repeat them.
"""

from __future__ import annotations

Paradigm = dict[str, list[str]]

# Pronoun-aspect complexes, every person (1sg, 2sg m/f, 3sg m/f, 1pl, 2pl, 3pl,
# impersonal). The relative perfective (muka, suka, aka ...) stands after focus
# and in "lokacin da suka ..." clauses.
_PERF = (
    "na",
    "ka",
    "kin",
    "kika",
    "ya",
    "ta",
    "mun",
    "muka",
    "kun",
    "kuka",
    "sun",
    "suka",
    "an",
    "aka",
)
_FUT = ("za ka", "za ki", "zai", "za ya", "za ta", "za ku", "za su", "zasu", "za a", "za'a")
_FUT1 = ("zan", "za ni", "zani", "za mu", "zamu")
_SUBJ = ("in", "ka", "ki", "ya", "ta", "mu", "ku", "su", "a")
_CONT = (
    "ina",
    "kana",
    "kina",
    "yana",
    "tana",
    "muna",
    "kuna",
    "suna",
    "ana",
    "nake",
    "suke",
    "muke",
    "ake",
)

# Verbal nouns (the form after the continuous when no object follows: "suna kisa").
VERBAL_NOUN: dict[str, tuple[str, ...]] = {
    "kashe": ("kisa", "kashewa"),
    "karkashe": ("karkashewa",),
    "yanka": ("yanka", "yankawa"),
    "kona": ("konawa",),
    "kone": ("konewa",),
    "harbe": ("harbi",),
    "harba": ("harbi",),
    "jefe": ("jifa",),
    "sare": ("sara",),
    "soke": ("soka",),
    "rataye": ("ratayewa",),
    "halaka": ("halakawa", "halakarwa"),
    "hallaka": ("hallakawa",),
    "murkushe": ("murkushewa",),
    "buge": ("duka",),
}

# Plurals, hand-listed (several where usage varies).
PLURAL: dict[str, tuple[str, ...]] = {
    "bera": ("beraye",),
    "kyankyaso": ("kyankyasai",),
    "kwaro": ("kwari",),
    "kuda": ("kudaje",),
    "maciji": ("macizai",),
    "tsutsa": ("tsutsotsi",),
    "kwarkwata": ("kwarkwatai",),
    "dabba": ("dabbobi",),
    "kare": ("karnuka",),
    "alade": ("aladu",),
    "biri": ("birai",),
    "jaki": ("jakai", "jakuna"),
    "kura": ("kuraye",),
    "kazami": ("kazamai",),
    "shaidan": ("shaidanu",),
    "aljani": ("aljanu",),
    "mugu": ("mugaye", "miyagu"),
    "barawo": ("barayi",),
    "makashi": ("makasa",),
    "azzalumi": ("azzalumai",),
    "munafuki": ("munafukai", "munafikai"),
    "dodo": ("dodanni",),
}
# Feminine singulars in -a take the linker -r ("dabbar gida", "tsutsar ciki");
# everything else -n ("ƙudan zuma": ƙuda is masculine).
_FEMININE_A = frozenset({"bera", "kwarkwata", "dabba", "kura", "tsutsa"})

# Forms not verified with a native speaker; the pack's entries say so too. The
# gender of ɓera, kura and ƙwarƙwata (hence their linker) is among them.
UNSURE: frozenset[str] = frozenset(
    {
        "karkashewa",
        "soka",
        "ratayewa",
        "halakarwa",
        "hallakawa",
        "murkushewa",
        "kwarkwatai",
        "kyankyasai",
        "kuraye",
        "berar",
        "kurar",
        "kwarkwatar",
    }
)


def verb(lemma: str) -> Paradigm:
    """The verb with every pronoun-aspect complex before it, and its verbal nouns."""
    nouns = list(VERBAL_NOUN.get(lemma, ()))
    return {
        "base": [lemma],
        "vn": nouns,
        "perf": [f"{pac} {lemma}" for pac in _PERF],
        "fut": [f"{pac} {lemma}" for pac in (*_FUT1, *_FUT)],
        "fut1": [f"{pac} {lemma}" for pac in _FUT1],
        "subj": [f"{pac} {lemma}" for pac in _SUBJ],
        "cont": [f"{pac} {form}" for pac in _CONT for form in (lemma, *nouns)],
    }


def _link(word: str, feminine: bool) -> str:
    return word + ("r" if feminine and word.endswith("a") else "n")


def noun(lemma: str) -> Paradigm:
    """Singular, hand-listed plurals and both with the genitive linker."""
    if lemma not in PLURAL:
        raise ValueError(f"no Hausa plural listed for {lemma!r} (add it to PLURAL)")
    plurals = list(PLURAL[lemma])
    return {
        "s": [lemma],
        "p": plurals,
        "link": [_link(lemma, lemma in _FEMININE_A), *(p + "n" for p in plurals)],
    }


def adjective(lemma: str) -> Paradigm:
    raise ValueError(f"Hausa adjectives are listed as nouns (they inflect alike): {lemma!r}")
