"""The morphology layer: French paradigms, digests, word-class expansion, and the shipped
forms of fr, es, ar and ru against their generator."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.errors import PatternError
from engine.rules.formgen import fr, generate
from engine.rules.load import LoadedTaxonomy, load_taxonomy
from engine.rules.morphology import content_digest

TAXONOMY = Path(__file__).resolve().parents[3] / "taxonomy"


@pytest.fixture(scope="module")
def shipped() -> LoadedTaxonomy:
    return load_taxonomy()


@pytest.mark.parametrize(
    ("lemma", "slot", "forms"),
    [
        ("tuer", "pres", ["tue", "tues", "tue", "tuons", "tuez", "tuent"]),
        # envoyer / renvoyer take the future stem of voir (fr-paradigms/2)
        (
            "renvoyer",
            "fut",
            ["renverrai", "renverras", "renverra", "renverrons", "renverrez", "renverront"],
        ),
        (
            "envoyer",
            "cond",
            ["enverrais", "enverrais", "enverrait", "enverrions", "enverriez", "enverraient"],
        ),
        (
            "renvoyer",
            "pres",
            ["renvoie", "renvoies", "renvoie", "renvoyons", "renvoyez", "renvoient"],
        ),
        (
            "crever",
            "fut",
            ["crèverai", "crèveras", "crèvera", "crèverons", "crèverez", "crèveront"],
        ),
        ("noyer", "subj", ["noie", "noies", "noie", "noyions", "noyiez", "noient"]),
        (
            "égorger",
            "impf",
            ["égorgeais", "égorgeais", "égorgeait", "égorgions", "égorgiez", "égorgeaient"],
        ),
        ("lacérer", "pres", ["lacère", "lacères", "lacère", "lacérons", "lacérez", "lacèrent"]),
        (
            "éventrer",
            "pres",
            ["éventre", "éventres", "éventre", "éventrons", "éventrez", "éventrent"],
        ),
        ("pendre", "pres", ["pends", "pends", "pend", "pendons", "pendez", "pendent"]),
        ("abattre", "pp", ["abattu", "abattue", "abattus", "abattues"]),
        (
            "anéantir",
            "subj",
            [
                "anéantisse",
                "anéantisses",
                "anéantisse",
                "anéantissions",
                "anéantissiez",
                "anéantissent",
            ],
        ),
        ("mourir", "pp", ["mort", "morte", "morts", "mortes"]),
    ],
)
def test_verb_paradigms(lemma: str, slot: str, forms: list[str]) -> None:
    assert fr.verb(lemma)[slot] == forms


@pytest.mark.parametrize(
    ("lemma", "forms"),
    [
        ("dangereux", ["dangereux", "dangereuse", "dangereux", "dangereuses"]),
        ("cruel", ["cruel", "cruelle", "cruels", "cruelles"]),
        ("brutal", ["brutal", "brutale", "brutaux", "brutales"]),
        ("immonde", ["immonde", "immonde", "immondes", "immondes"]),
        ("agressif", ["agressif", "agressive", "agressifs", "agressives"]),
    ],
)
def test_adjective_paradigms(lemma: str, forms: list[str]) -> None:
    p = fr.adjective(lemma)
    assert [p["ms"][0], p["fs"][0], p["mp"][0], p["fp"][0]] == forms


def test_unknown_verb_needs_a_table() -> None:
    with pytest.raises(ValueError, match="IRREGULAR"):
        fr.verb("occire")


def test_word_class_slots(shipped: LoadedTaxonomy) -> None:
    book = shipped.words("fr")
    assert set(book.forms("ETRE_V:pres", "t")) == {"suis", "es", "est", "sommes", "êtes", "sont"}
    assert "poignardées" in book.forms("KILL_V:pp", "t")
    with pytest.raises(PatternError, match="paradigm slot 'ms' does not exist for verb"):
        book.forms("KILL_V:ms", "t")
    with pytest.raises(PatternError, match="unknown word class"):
        book.forms("NOPE", "t")


def test_committed_forms_match_their_digest(shipped: LoadedTaxonomy) -> None:
    forms = shipped.forms["fr"]
    assert forms.forms["tuer"]["inf"] == ("tuer",)
    assert content_digest({}) != content_digest({"tuer": {}})


@pytest.mark.parametrize(
    ("code", "needs"),
    [
        ("fr", ("simplemma",)),
        ("es", ("simplemma",)),
        ("ar", ("simplemma",)),
        ("ru", ("simplemma", "pymorphy3")),
    ],
)
def test_shipped_forms_are_what_the_generator_writes(code: str, needs: tuple[str, ...]) -> None:
    """A paradigm rule or a lemma changed without `make taxonomy-forms` leaves a stale
    file: the generator (with its development dependencies) must write exactly it."""
    for module in needs:
        pytest.importorskip(module)
    pack = yaml.safe_load((TAXONOMY / "lang" / f"{code}.yaml").read_text(encoding="utf-8"))
    shipped_forms = yaml.safe_load((TAXONOMY / "forms" / f"{code}.yaml").read_text("utf-8"))
    assert generate(code, pack["words"]) == shipped_forms
