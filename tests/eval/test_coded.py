"""Unit tests of `make eval-coded` (tests/eval/coded.py): term forms, group slots,
the in-memory substitution and the benign file.

Every sentence here is written for these tests. The checks against the real
glossary need ../shared/eval: they skip without it, except under CI=true, where
they fail (CI must never pass by skipping).
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

from tests.eval import coded
from tests.eval.coded import (
    DEFAULT_BENIGN,
    DEFAULT_GLOSSARY,
    GROUP_FORMS,
    POLITICAL_PERSONAS,
    SLOT_OF_PERSONA,
    plural_candidates,
    read_benign,
    read_glossary,
    substitute,
    term_forms,
)

GLOSSARY_COLUMNS = ["Dogwhistle", "Surface Forms", "Persona/In-Group", "Type", "Register"]


def need(path: Path) -> None:
    if path.is_file():
        return
    message = f"{path} is missing (../shared/eval holds the evaluation data)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}. CI=true: the coded-language checks must run, not skip.")
    pytest.skip(message)


def write_glossary(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, GLOSSARY_COLUMNS, delimiter="\t", restval="")
        writer.writeheader()
        writer.writerows(rows)
    return path


# -- term forms ----------------------------------------------------------------------


def test_plural_candidates_cover_the_glossary_spellings() -> None:
    assert {"lamps", "lampes"} <= plural_candidates("lamp")
    assert "ponies" in plural_candidates("pony")
    assert "keies" not in plural_candidates("key") and "keys" in plural_candidates("key")
    assert "postmen" in plural_candidates("postman")
    assert "boxes" in plural_candidates("box")


def test_term_forms_prefers_the_pair_of_the_headword() -> None:
    surface = ["tin can", "tin cans", "paper cup", "paper cups"]
    assert term_forms("paper cups", surface) == ("paper cup", "paper cups")
    assert term_forms("paper cup", surface) == ("paper cup", "paper cups")
    # A headword outside every pair: the first pair in the glossary's order.
    assert term_forms("kitchenware", surface) == ("tin can", "tin cans")


def test_term_forms_without_a_plural_uses_the_headword_in_both_slots() -> None:
    assert term_forms(" seaweed ", ["seaweed", "kelp"]) == ("seaweed", "seaweed")
    assert term_forms("daisy", ["daisy", "daisies"]) == ("daisy", "daisies")


def test_read_glossary_keeps_only_group_naming_types(tmp_path: Path) -> None:
    path = write_glossary(
        tmp_path / "glossary.tsv",
        [
            {
                "Dogwhistle": "pebble ",
                "Surface Forms": "pebble; pebbles; Pebble",
                "Persona/In-Group": "racist",
                "Type": "arbitrary target group label",
            },
            {
                "Dogwhistle": "teapot",
                "Surface Forms": "teapot",
                "Persona/In-Group": "antisemitic",
                "Type": "persona signal (symbol)",
            },
            {
                "Dogwhistle": "lantern",
                "Surface Forms": "lantern; lanterns",
                "Persona/In-Group": "anti-liberal",
                "Type": "stereotype-based target group label",
            },
        ],
    )
    terms = read_glossary(path)
    assert [t.headword for t in terms] == ["pebble", "lantern"]
    pebble = terms[0]
    assert (pebble.singular, pebble.plural, pebble.kind) == ("pebble", "pebbles", "arbitrary")
    assert pebble.surface == ("pebble", "pebbles", "Pebble")
    assert pebble.slot is not None and pebble.slot.target_ident == "black people"
    assert terms[1].slot is None and terms[1].persona in POLITICAL_PERSONAS


# -- the persona -> HateCheck group mapping ------------------------------------------------


@pytest.mark.parametrize(
    ("persona", "target", "direct"),
    [
        ("racist", "black people", True),
        ("transphobic", "trans people", True),
        ("Islamophobic", "Muslims", True),
        ("homophobic", "gay people", True),
        ("anti-LGBTQ", "gay people", True),
        ("anti-Latino", "immigrants", False),
        ("anti-Asian", "immigrants", False),
        ("antisemitic", "Muslims", False),
    ],
)
def test_slot_of_persona(persona: str, target: str, direct: bool) -> None:
    slot = SLOT_OF_PERSONA[persona]
    assert (slot.target_ident, slot.direct) == (target, direct)
    assert slot.target_ident in GROUP_FORMS


def test_political_personas_have_no_slot() -> None:
    assert not POLITICAL_PERSONAS & SLOT_OF_PERSONA.keys()


# -- substitution --------------------------------------------------------------------


def test_plural_slot_takes_the_plural_and_a_capital_at_the_start() -> None:
    text = "Gay people run the bakery on our street."
    assert substitute(text, "gay people", "kite", "kites") == "Kites run the bakery on our street."
    assert (
        substitute("Yes. Immigrants built this harbour.", "immigrants", "owl", "owls")
        == "Yes. Owls built this harbour."
    )


def test_singular_and_attributive_slots_take_the_singular() -> None:
    assert (
        substitute("My aunt is a black person who sings.", "black people", "kite", "kites")
        == "My aunt is a kite who sings."
    )
    assert (
        substitute("They opened a new Muslim school.", "Muslims", "kite", "kites")
        == "They opened a new kite school."
    )
    assert (
        substitute("The female choir sang first.", "women", "kite", "kites")
        == "The kite choir sang first."
    )


def test_article_agrees_with_the_term() -> None:
    assert (
        substitute("I met an immigrant at the market.", "immigrants", "kite", "kites")
        == "I met a kite at the market."
    )
    assert (
        substitute("A trans person chairs the club.", "trans people", "owl", "owls")
        == "An owl chairs the club."
    )


def test_every_occurrence_is_replaced_and_case_kept_mid_sentence() -> None:
    text = "Muslims and other Muslims met; one Muslim spoke."
    assert (
        substitute(text, "Muslims", "Kite", "Kites") == "Kites and other Kites met; one Kite spoke."
    )
    assert substitute("We met trans people.", "trans people", "kite", "kites") == "We met kites."


def test_no_group_word_gives_none() -> None:
    assert substitute("Public transport is slow today.", "trans people", "kite", "kites") is None
    assert substitute("The blackbird sang.", "black people", "kite", "kites") is None
    assert substitute("We saw immigrnts.", "immigrants", "kite", "kites") is None


# -- the benign file -----------------------------------------------------------------


def test_benign_file_loads() -> None:
    benign = read_benign(DEFAULT_BENIGN)
    assert len(benign) >= 50
    assert all(sentences for sentences in benign.values())
    every = [s for sentences in benign.values() for s in sentences]
    assert len(every) == len(set(every)), "a benign sentence is listed twice"


def test_every_benign_term_is_a_group_naming_glossary_term() -> None:
    need(DEFAULT_GLOSSARY)
    terms = {t.headword: t for t in read_glossary(DEFAULT_GLOSSARY)}
    benign = read_benign(DEFAULT_BENIGN)
    assert sorted(set(benign) - terms.keys()) == []
    assert [t for t in benign if terms[t].slot is None] == []


def test_read_benign_rejects_a_malformed_file(tmp_path: Path) -> None:
    path = tmp_path / "benign.yaml"
    path.write_text("terms:\n  kite: not a list\n", encoding="utf-8")
    with pytest.raises(ValueError, match="kite"):
        read_benign(path)


# -- the whole run, on inputs written here ---------------------------------------------


def test_main_measures_and_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    glossary = write_glossary(
        tmp_path / "glossary.tsv",
        [
            {
                "Dogwhistle": "kite",
                "Surface Forms": "kite; kites",
                "Persona/In-Group": "racist",
                "Type": "arbitrary target group label",
            }
        ],
    )
    hatecheck = tmp_path / "hc.csv"
    with hatecheck.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["test_case", "target_ident", "eval_label"])
        writer.writerow(["Black people painted the fence green.", "black people", "positive"])
        writer.writerow(["Our blck neighbours waved.", "black people", "positive"])
        writer.writerow(["Black people like tea.", "black people", "negative"])
    benign = tmp_path / "benign.yaml"
    benign.write_text("terms:\n  kite:\n    - The kite rose over the hill.\n", encoding="utf-8")
    code = coded.main(
        ["--glossary", str(glossary), "--hatecheck", str(hatecheck), "--benign", str(benign)]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "| kite | racist | black people | kites / kite | 1 | 1 |" in out
    assert "| 1 | 1 | 0 | 0.0 |" in out  # benign: one term, one sentence, none flagged


def test_main_reports_a_missing_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert coded.main(["--glossary", str(tmp_path / "absent.tsv")]) == 2
    assert "glossary not found" in capsys.readouterr().err
