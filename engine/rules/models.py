"""Validated models of the taxonomy files.

The YAML is the single home of every weight, pattern, cue and threshold; these
models are its schema. They reject unknown keys so that a typo in a taxonomy
file fails loudly at load time instead of silently dropping a rule.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from engine.languages import LANGUAGES as LANGUAGES

ROW_ID = re.compile(r"^D2\.4a-\d{3}$")
# Arabizi spellings: the Latin side, and the Arabic side as normalization leaves
# it (no أ إ آ ى ة ؤ ئ, no harakat), with the space of a two-word spelling.
_ARABIZI_LATIN = re.compile(r"^[a-z0-9']{1,20}$")
_ARABIZI_ARABIC = re.compile(r"^[ءابتثجحخدذرزسشصضطظعغفقكلمنهوي ]+$")
MACRO_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")

IdentityAxis = Literal[
    "national_origin",
    "religion",
    "ethnicity",
    "race",
    "migration_status",
    "gender",
    "gender_identity",
    "sexual_orientation",
    "disability",
]
MechanismName = Literal[
    "false_attribution",
    "demonization",
    "objectification",
    "animalization",
    "criminalization",
    "direct_call_to_violence",
]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class Mechanism(Strict):
    """One harm mechanism: its severity, reporting category and guidance text."""

    severity: Annotated[int, Field(ge=1, le=4)]
    category: str
    display: str
    guidance: str


class Row(Strict):
    """A taxonomy row: the unit a decision cites (``Matched row D2.4a-NNN``)."""

    id: str
    mechanism: MechanismName
    weight: Annotated[float, Field(gt=0.0, le=1.0)]
    title: str

    @field_validator("id")
    @classmethod
    def _row_id(cls, value: str) -> str:
        if not ROW_ID.match(value):
            raise ValueError(f"row id {value!r} must look like D2.4a-NNN")
        return value


class Windows(Strict):
    """Distances, in words and sentences, over which context is looked for."""

    negation_words_before: Annotated[int, Field(ge=0, le=30)]
    reference_sentences_back: Annotated[int, Field(ge=0, le=10)]
    reference_sentences_forward: Annotated[int, Field(ge=0, le=3)]
    counter_speech_sentences: Annotated[int, Field(ge=0, le=5)]
    benign_words: Annotated[int, Field(ge=0, le=50)]
    filler_max_words: Annotated[int, Field(ge=1, le=8)]


class LanguageIdentification(Strict):
    """``language: "auto"`` and the script check for texts sent without a language.

    ``min_confidence``: an identification under it is unsure, and the text is read
    in the default language with a note. ``non_latin_share``: a text sent without a
    language whose letters are more than this share in one non-Latin script gets a
    note that it was read in the default language all the same.
    """

    min_confidence: Annotated[float, Field(gt=0.0, le=1.0)]
    non_latin_share: Annotated[float, Field(ge=0.0, lt=1.0)]


class Obfuscation(Strict):
    """How pattern literals are widened to catch leetspeak, homoglyphs and typos.

    ``letter_classes`` maps a letter to the other characters that stand for it
    (digits, symbols, Cyrillic/Greek look-alikes). ``typo_*`` govern the
    edit-distance-1 spellings generated for lexicon entries marked ``typo``.
    """

    letter_classes: dict[str, str]
    typo_min_length: Annotated[int, Field(ge=3, le=12)]
    typo_deletable: str
    typo_transpositions: bool
    typo_deletions: bool
    # A letter typed twice in a group name ("Muslimms", "Jeews"): a key held too long,
    # or an evasion that a run of three letters would not need.
    typo_doublings: bool = False
    # A doubled consonant typed once ("sous-homes", "imigrés", "kil"): the commonest
    # dropped consonant, and one variant per double, where dropping any consonant
    # would cost as much as the doublings.
    typo_degemination: bool = False


class Amplification(Strict):
    """Score amplification from the optional text-analytics provider."""

    provider: Literal["azure_language"]
    api_version: str
    negative_sentiment_min: Annotated[float, Field(ge=0.0, le=1.0)]
    factor_negative_sentiment: Annotated[float, Field(ge=1.0, le=2.0)]
    factor_entity_overlap: Annotated[float, Field(ge=1.0, le=2.0)]
    max_factor: Annotated[float, Field(ge=1.0, le=2.0)]
    no_sentiment_languages: list[str]
    no_entity_languages: list[str]
    default_timeout_s: Annotated[float, Field(gt=0.0, le=30.0)]
    retry_after_cap_s: Annotated[float, Field(ge=0.0, le=10.0)]
    max_attempts: Annotated[int, Field(ge=1, le=5)]
    breaker_failures: Annotated[int, Field(ge=1, le=100)]
    breaker_cooldown_s: Annotated[float, Field(ge=0.0, le=3600.0)]


class Tracking(Strict):
    """Defaults for source tracking (overridable by settings)."""

    window: Annotated[int, Field(ge=1, le=10_000)]
    trend_delta: Annotated[float, Field(gt=0.0, le=4.0)]
    trend_min_observations: Annotated[int, Field(ge=2, le=100)]
    risk_levels: list[str]
    risk_by_severity: dict[int, str]
    escalation_raise: Annotated[int, Field(ge=0, le=3)]

    @model_validator(mode="after")
    def _risk_known(self) -> Tracking:
        for sev, level in self.risk_by_severity.items():
            if level not in self.risk_levels:
                raise ValueError(f"risk_by_severity[{sev}] = {level!r} is not in risk_levels")
        return self


class LanguageRef(Strict):
    file: str
    confidence: Literal["verified", "experimental"]


class Taxonomy(Strict):
    """The top-level taxonomy file (``taxonomy_v1.yaml``)."""

    schema_version: Literal[1] = Field(alias="schema")
    version: str
    baseline_tag: str
    decision_threshold: Annotated[float, Field(gt=0.0, le=1.0)]
    require_target_present: bool
    ambiguity_resolution: Literal["highest_score_then_lower_severity_then_lower_row_id"]
    default_language: Literal["en"]
    language_identification: LanguageIdentification
    max_text_chars: Annotated[int, Field(ge=1, le=1_000_000)]
    windows: Windows
    obfuscation: Obfuscation
    mechanisms: dict[MechanismName, Mechanism]
    identity_axes: dict[IdentityAxis, str]
    rows: list[Row]
    languages: dict[str, LanguageRef]
    dogwhistles: str
    amplification: Amplification
    tracking: Tracking
    # Optional so that a taxonomy without a benchmark suite or gate still loads;
    # the commands that need them say which file is missing.
    benchmark: str | None = Field(
        default=None, description="Benchmark suite file (SuiteFile), relative to this file."
    )
    legacy_gate: str | None = Field(
        default=None, description="Legacy phase-1 gate file (GateFile), relative to this file."
    )

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True, defer_build=True)

    @field_validator("version")
    @classmethod
    def _semver(cls, value: str) -> str:
        if not re.fullmatch(r"\d+\.\d+\.\d+", value):
            raise ValueError(f"version {value!r} must have three parts, e.g. 1.0.0")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Taxonomy:
        seen: set[str] = set()
        for row in self.rows:
            if row.id in seen:
                raise ValueError(f"row {row.id}: duplicate row id")
            seen.add(row.id)
        missing = sorted(set(LANGUAGES) - set(self.languages))
        if missing:
            raise ValueError(f"languages: missing {', '.join(missing)}")
        unknown = sorted(set(self.languages) - set(LANGUAGES))
        if unknown:
            raise ValueError(f"languages: unsupported {', '.join(unknown)}")
        return self


class Anchor(Strict):
    """An identity group and the words that name it in one language.

    ``terms`` are noun phrases that refer to the group ("muslims", "black
    people"); ``modifiers`` are forms that only name the group when they stand
    before a noun inside a pattern ("muslim trash", "black vermin"), so a bare
    adjective such as "black" never anchors on its own.
    """

    id: str
    identity_axis: IdentityAxis
    target_type: str | None = None
    terms: list[str]
    modifiers: list[str] = Field(default_factory=list)
    # Only hits of these rows may take this anchor as target (empty: any row). For
    # words that name a group only under some predicates: a religion's name stands
    # for its members when it is called vermin, filth or a disease to eradicate,
    # not when its ideas are criticised (SPEC §2.4).
    rows: list[str] = Field(default_factory=list)
    typo: bool = True
    note: str | None = None


class LexiconEntry(Strict):
    """A named list of alternatives, used inside patterns as ``{NAME}``."""

    terms: list[str]
    typo: bool = False
    note: str | None = None


class Cues(Strict):
    """Suppression cue lists (regex fragments over normalized text)."""

    negation: list[str]
    negation_exceptions: list[str] = Field(default_factory=list)
    reporting: list[str]
    condemnation: list[str]
    clause_breaks: list[str]
    # Phrases that call what was just said false ("that's a myth", "eso es mentira"):
    # right after a match, with nothing but punctuation between, they rebut it.
    rebuttal: list[str] = Field(default_factory=list)
    # Frames before a claim that call it a lie or question who said it ("it is a lie
    # that ...", "who told you that ..."): in the clause before a match, counter-speech.
    rebuttal_frames: list[str] = Field(default_factory=list)
    # Corrective conjunctions ("not A but B", "no A sino B", "не A, а B"): a negation
    # followed by one of them before the predicate negates A, and the predicate B
    # after the conjunction is asserted.
    corrections: list[str] = Field(default_factory=list)
    # Consequence connectors ("X are not like us, and that's why they deserve ..."): after
    # a negation and before the predicate, they open the clause that asserts it.
    consequences: list[str] = Field(default_factory=list)


class BenignContext(Strict):
    """A context that makes a literal reading likely (pest control, fiction ...)."""

    id: str
    cues: list[str]
    rows: list[str]
    # Phrases that, inside the match itself, rule the literal reading out: pest control
    # near "rats" is literal, but not when the match says the group *are* rats.
    unless_in_match: list[str] = []
    note: str | None = None


class PatternSpec(Strict):
    """One pattern of a row; a bare string in YAML is shorthand for ``{regex: ...}``."""

    regex: str
    note: str | None = None


PartOfSpeech = Literal["verb", "adj", "noun"]
FrameKind = Literal[
    "wish", "modal", "hypothetical", "plural_address", "comparative", "copula", "opinion"
]


class WordClass(Strict):
    """A word class of the morphology layer: lemmas of one part of speech.

    Its forms are generated by ``make taxonomy-forms`` into ``taxonomy/forms/``;
    a pattern names the class (``{W:KILL_V}``, ``{W:KILL_V:inf,imp}``) and gets
    every inflection of every lemma.
    """

    pos: PartOfSpeech
    lemmas: list[str]
    note: str | None = None

    @field_validator("lemmas")
    @classmethod
    def _lemmas(cls, value: list[str]) -> list[str]:
        for lemma in value:
            if not lemma or lemma != lemma.strip().lower() or any(c in lemma for c in "{}()[]|\\"):
                raise ValueError(f"lemma {lemma!r} must be a plain lowercase word or phrase")
        return value


class Arabizi(Strict):
    """Latin-script Arabic ("Arabizi") for one pack: the evidence that a text is
    written in it, and how its words are spelt in Arabic letters so that the
    pack's own patterns match them (engine.text.arabizi).

    Evidence, over the Latin words of a text: a word with a ``chat_digits`` digit
    next to a letter counts ``digit_weight`` (codes in ``not_words`` do not), a
    word of ``function_words`` counts one, and, once there is some evidence, a word
    of at least ``known_word_letters`` whose spelling the pack knows counts one;
    the text is Arabizi when the points
    reach ``min_evidence`` and the evidence words are at least ``min_share`` of
    its Latin words. ``words`` spell whole words; ``glue`` words (article,
    conjunction, prepositions) are written onto the next word; ``prefixes`` are
    the same glued inside a word. ``letters`` spell one- or two-character units;
    a value of several letters is an equivalence class (the unit may stand for
    any of them). ``vowels`` give the long reading of a single vowel (a vowel
    inside a word is read short, dropped, or long; the pack's vocabulary chooses),
    ``endings`` the readings of a word's last one or two characters ("a": ا|ه).
    A spelling is known when the pack's vocabulary matches it whole, or less one
    of ``suffixes`` or ``stem_prefixes`` (inflection the pack writes elsewhere).
    ``omitted_vowels`` are long vowels a writer may leave out between two
    consonants ("sh3a" for shi3a): when no written reading is known, one of them
    is tried at each such gap, one gap at a time.
    """

    note: str | None = None
    chat_digits: str
    digit_weight: Annotated[int, Field(ge=1, le=5)]
    min_evidence: Annotated[int, Field(ge=1, le=10)]
    min_share: Annotated[float, Field(ge=0.0, le=1.0)]
    max_candidates: Annotated[int, Field(ge=1, le=256)]
    known_word_letters: Annotated[int, Field(ge=2, le=20)]
    function_words: list[str]
    not_words: list[str] = Field(default_factory=list)
    words: dict[str, str]
    glue: dict[str, str]
    prefixes: dict[str, str] = Field(default_factory=dict)
    letters: dict[str, str]
    vowels: dict[str, str]
    initial_vowel: str
    endings: dict[str, str]
    suffixes: list[str]
    stem_prefixes: list[str]
    omitted_vowels: str = ""

    @model_validator(mode="after")
    def _spellings(self) -> Arabizi:
        """Latin sides lowercase Latin, Arabic sides folded Arabic letters: a spelling
        the patterns' normalization would change could never match."""
        latin = [*self.function_words, *self.not_words, *self.words, *self.glue]
        latin += [*self.prefixes, *self.letters, *self.vowels, *self.endings]
        for word in latin:
            if not _ARABIZI_LATIN.match(word):
                raise ValueError(f"arabizi: {word!r} is not a lowercase Latin word")
        arabic = {f"words.{k}": v for k, v in self.words.items()}
        arabic |= {f"glue.{k}": v for k, v in self.glue.items()}
        arabic |= {f"prefixes.{k}": v for k, v in self.prefixes.items()}
        arabic |= {f"letters.{k}": v for k, v in self.letters.items()}
        arabic |= {f"vowels.{k}": v for k, v in self.vowels.items()}
        arabic |= {f"endings.{k}": v.replace("|", "") for k, v in self.endings.items()}
        arabic |= {"initial_vowel": self.initial_vowel}
        arabic |= {f"suffixes.{v}": v for v in [*self.suffixes, *self.stem_prefixes]}
        arabic |= {f"omitted_vowels.{v}": v for v in self.omitted_vowels}
        for where, value in arabic.items():
            if not value or not _ARABIZI_ARABIC.match(value):
                raise ValueError(f"arabizi {where}: {value!r} is not folded Arabic letters")
        for digit in self.chat_digits:
            if not digit.isdigit() or digit not in self.letters:
                raise ValueError(f"arabizi chat_digits: {digit!r} has no entry in letters")
        return self


class LanguagePack(Strict):
    """Everything one language contributes: anchors, references, cues, patterns."""

    language: str
    note: str | None = None
    references: list[str]
    anchors: list[Anchor]
    lexicon: dict[str, LexiconEntry]
    words: dict[str, WordClass] = Field(default_factory=dict)
    frames: dict[FrameKind, LexiconEntry] = Field(default_factory=dict)
    cues: Cues
    benign: list[BenignContext] = Field(default_factory=list)
    typo_exclude: list[str] = Field(default_factory=list)
    # Words that open a mention but stay outside its mark in the skeleton (ar "ولا":
    # "not even one", a negative quantifier that a singular group noun needs to be read
    # as the group): patterns then see "ولا \x01" and can read the quantifier.
    mark_outside: list[str] = Field(default_factory=list)
    # Ordinary words that begin with a group word of five letters or more (fr
    # "ratonnade", "arabesque"): a group word run into the rest of one of them is no
    # mention (engine.pipeline.mentions), so patterns still read the whole word.
    glue_exclude: list[str] = Field(default_factory=list)
    arabizi: Arabizi | None = None
    patterns: dict[str, list[PatternSpec]]

    @field_validator("patterns", mode="before")
    @classmethod
    def _shorthand(cls, value: object) -> object:
        if isinstance(value, dict):
            return {
                key: [{"regex": p} if isinstance(p, str) else p for p in (items or [])]
                for key, items in value.items()
            }
        return value

    @field_validator("lexicon", "words")
    @classmethod
    def _macro_names(cls, value: dict[str, BaseModel]) -> dict[str, BaseModel]:
        for name in value:
            if not MACRO_NAME.match(name):
                raise ValueError(f"lexicon name {name!r} must be UPPER_SNAKE_CASE")
        return value


class Dogwhistle(Strict):
    """A coded term: what it says on the surface and what it means in-group.

    ``surface`` forms have no common ordinary sense; ``ambiguous`` forms do
    ("Skittles", "bankers"), so they name the group only where the entry's
    ``gate`` (a key of the pack's ``gates``) finds the coded reading selected.
    """

    id: str
    surface: list[str]
    ambiguous: list[str] = Field(default_factory=list)
    gate: str | None = None
    canonical: str
    meaning: str
    identity_axis: IdentityAxis | None
    names_group: bool
    row: str
    weight: Annotated[float, Field(gt=0.0, le=1.0)]
    note: str | None = None

    @model_validator(mode="after")
    def _gated(self) -> Dogwhistle:
        if not self.surface and not self.ambiguous:
            raise ValueError(f"entry {self.id}: needs surface or ambiguous forms")
        if self.ambiguous and self.gate is None:
            raise ValueError(f"entry {self.id}: ambiguous forms need a gate")
        return self


class CodedGate(Strict):
    """When an ambiguous coded form names its group (docs/taxonomy-format.md).

    Always: it must be the target of a harm pattern (the predicate selects the
    coded reading; the term alone never does). ``exclude``: rows, or single
    patterns (``D2.4a-013:en:1``), whose predicate is literal or ordinary for the
    ordinary referent (animal metaphors for an animal, "get rid of" for a
    product). ``corroborate``: the ordinary referent is itself a set of people
    (bankers), so a harm predicate does not select the coded reading either; the
    text must also name the group or another coded term, or set the term off in
    one of ``marks`` (scare quotes).
    """

    exclude: list[str] = Field(default_factory=list)
    only: list[str] = Field(default_factory=list)  # built from an anchor's ``rows``
    corroborate: bool = False
    marks: list[str] = Field(default_factory=list)
    note: str | None = None


class DogwhistlePack(Strict):
    language: Literal["en"]
    source: str
    gates: dict[str, CodedGate] = Field(default_factory=dict)
    entries: list[Dogwhistle]

    @model_validator(mode="after")
    def _known_gates(self) -> DogwhistlePack:
        for entry in self.entries:
            if entry.gate is not None and entry.gate not in self.gates:
                raise ValueError(f"entry {entry.id}: unknown gate {entry.gate!r}")
        return self
