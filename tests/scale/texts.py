"""A small multilingual table of texts, harmful and benign, written for the scale tests.

Languages are those that compile fastest (English, Spanish, Arabic, Yoruba,
Hausa): each worker process compiles every language it meets, and the cluster
test must stay quick on two shared cores. Harmful sentences sit next to benign
ones on the same topics (animals, weather, neighbours) so that a partition mixes
both; a few carry a context or no language at all (the default), one names an
unknown language code (falls back to English), one asks for identification.
"""

from __future__ import annotations

# (language or None, text, context or None)
BASE: tuple[tuple[str | None, str, str | None], ...] = (
    ("en", "Immigrants are rats and should be exterminated.", None),
    ("en", "Refugees are criminals, every one of them.", None),
    ("en", "We should drive all the Jews out of this town.", None),
    ("en", "Those Muslims are not vermin, stop saying that.", None),
    ("en", "The rats in the barn ate the grain.", None),
    ("en", "My neighbour grows tomatoes on the balcony.", "a gardening forum"),
    (None, "They are vermin.", "I can't stand Muslims."),
    (None, "The bus was late again this morning.", None),
    ("es", "Los inmigrantes son ratas.", None),
    ("es", "Hay que matar a todos los musulmanes.", None),
    ("es", "Hoy hace un día precioso en la playa.", None),
    ("es", "Los gitanos son criminales.", None),
    ("ar", "المهاجرون جرذان", None),
    ("ar", "الطقس جميل اليوم", None),
    ("ar", "يجب قتل كل اليهود", None),
    ("yo", "Awọn Hausa jẹ eku.", None),
    ("ha", "Yarbawa beraye ne.", None),
    ("xx", "Immigrants are vermin.", None),
    ("auto", "Refugees are criminals and should all be deported.", None),
)


def rows(count: int) -> list[tuple[int, str | None, str, str | None]]:
    """``count`` rows (id, language, text, context): the base texts with a numbered suffix,
    so that no two rows share a text or a content hash."""
    out = []
    for index in range(count):
        language, text, context = BASE[index % len(BASE)]
        out.append((index, language, f"{text} ({index})", context))
    return out
