"""280-character texts that each name a group, per language (issue 12's speed target).

Half carry a harm predicate, half are benign; every text names one group. The
group words and predicates are the packs' own vocabulary (taxonomy/lang/*.yaml),
written into sentences for this benchmark (none come from an evaluation set),
padded with everyday sentences and combined with a fixed seed.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class LanguageCorpus:
    """The pieces of one language's texts: ``{g}`` is replaced by a group word."""

    groups: tuple[str, ...]
    harmful: tuple[str, ...]
    benign: tuple[str, ...]
    everyday: tuple[str, ...]


CORPORA: dict[str, LanguageCorpus] = {
    "en": LanguageCorpus(
        groups=("Muslims", "Jews", "immigrants", "refugees", "women", "gay people", "Mexicans"),
        harmful=(
            "{g} are vermin and parasites.",
            "We should kill all {g}.",
            "Honestly {g} are filth, nothing more.",
            "{g} are a disease on this country.",
        ),
        benign=(
            "{g} on our street organised a bake sale for the school.",
            "I had lunch with two {g} from work today.",
            "The museum opened a room about the history of {g}.",
        ),
        everyday=(
            "The bus was twenty minutes late again this morning.",
            "Anyone know a decent bike repair shop near the station?",
            "We planted tomatoes and basil on the balcony this spring.",
            "The match went to penalties and we lost, of course.",
            "Finished the novel last night and the ending surprised me.",
        ),
    ),
    "fr": LanguageCorpus(
        groups=("les musulmans", "les juifs", "les immigrés", "les réfugiés", "les roms"),
        harmful=(
            "{g} sont des rats, rien de plus.",
            "Il faut tuer tous {g}.",
            "{g} sont de la vermine.",
            "{g} sont des parasites qui vivent sur notre dos.",
        ),
        benign=(
            "Dans le quartier, {g} ont organisé une fête pour les enfants.",
            "Un documentaire raconte l'histoire de {g} dans la région.",
            "Au marché, j'ai parlé avec {g} qui tiennent la boulangerie.",
        ),
        everyday=(
            "Le train avait encore vingt minutes de retard ce matin.",
            "Quelqu'un connaît un bon plombier dans le centre-ville ?",
            "On a planté des tomates et du basilic sur le balcon.",
            "Le match s'est fini aux tirs au but et on a perdu.",
            "J'ai fini le roman hier soir, la fin m'a surpris.",
        ),
    ),
    "es": LanguageCorpus(
        groups=("los musulmanes", "los judíos", "los inmigrantes", "los gitanos", "los negros"),
        harmful=(
            "{g} son ratas y parásitos.",
            "Hay que matar a todos {g}.",
            "{g} son basura, nada más.",
            "{g} son una plaga para este país.",
        ),
        benign=(
            "En mi barrio {g} organizaron una fiesta para los niños.",
            "Vi un documental sobre la historia de {g} en la región.",
            "En el mercado hablé con {g} que llevan la panadería.",
        ),
        everyday=(
            "El autobús llegó otra vez veinte minutos tarde esta mañana.",
            "¿Alguien conoce un buen fontanero en el centro?",
            "Plantamos tomates y albahaca en el balcón esta primavera.",
            "El partido terminó en penaltis y perdimos, como siempre.",
            "Terminé la novela anoche y el final me sorprendió.",
        ),
    ),
    "ar": LanguageCorpus(
        groups=("المسلمين", "اليهود", "المسيحيين", "الشيعة", "اللاجئين", "المهاجرين"),
        harmful=(
            "{g} حشرات لازم نتخلص منهم.",
            "اقتلوا {g} كلهم.",
            "{g} قذارة وزبالة.",
            "{g} كلاب وحيوانات.",
        ),
        benign=(
            "{g} في حينا نظموا حفلة للأطفال.",
            "شاهدت فيلما عن تاريخ {g} في المنطقة.",
            "تكلمت في السوق مع {g} الذين يديرون المخبز.",
        ),
        everyday=(
            "تأخر القطار مرة أخرى عشرين دقيقة هذا الصباح.",
            "هل يعرف أحد سباكا جيدا في وسط المدينة؟",
            "زرعنا الطماطم والريحان في الشرفة هذا الربيع.",
            "انتهت المباراة بركلات الترجيح وخسرنا كالعادة.",
            "أنهيت الرواية أمس وفاجأتني النهاية.",
        ),
    ),
    "ru": LanguageCorpus(
        groups=("мусульмане", "евреи", "мигранты", "цыгане", "христиане"),
        harmful=(
            "{g} — это крысы и паразиты.",
            "{g} — животные, не люди.",
            "{g} — мусор и грязь.",
            "{g} — паразиты на теле страны.",
        ),
        benign=(
            "{g} из нашего района устроили праздник для детей.",
            "Вчера вышел фильм о том, как живут {g} в городе.",
            "На рынке со мной говорили {g} из соседнего дома.",
        ),
        everyday=(
            "Автобус сегодня утром опять опоздал на двадцать минут.",
            "Кто знает хорошего сантехника в центре города?",
            "Весной мы посадили на балконе помидоры и базилик.",
            "Матч закончился серией пенальти, и мы проиграли.",
            "Вчера дочитал роман, концовка меня удивила.",
        ),
    ),
    "ig": LanguageCorpus(
        groups=("ndi hausa", "fulani", "ndi yoruba", "nyamiri", "ndigbo"),
        harmful=(
            "{g} bu anumanu.",
            "{g} di ka oke.",
            "{g} bu unyi.",
            "{g} bu agwo.",
        ),
        benign=(
            "{g} bi n'obodo anyi nwere ahia.",
            "Enyi m so {g} rie nri ehihie taa.",
            "Akwukwo a na-akoro akuko {g}.",
        ),
        everyday=(
            "Kedu ka i mere taa?",
            "Anyi na-aga ahia echi n'ututu.",
            "Mmiri na-ezo taa n'obodo anyi.",
            "Nwanne m nwoke gafere ule ya.",
            "Ugbo ala ahu biara n'oge taa.",
        ),
    ),
    "yo": LanguageCorpus(
        groups=("awon igbo", "hausa", "fulani", "yoruba", "ndigbo"),
        harmful=(
            "{g} je eranko.",
            "{g} je eku.",
            "eranko ni {g}.",
            "{g} je kokoro.",
        ),
        benign=(
            "{g} n ta oja ni oja wa.",
            "Mo ba {g} soro ni ana.",
            "Iwe yii so itan {g}.",
        ),
        everyday=(
            "E kaaro, bawo ni ise?",
            "Ojo n ro loni ni ilu wa.",
            "A n lo si oja lola.",
            "Egbon mi yege ninu idanwo re.",
            "Oko naa de ni asiko loni.",
        ),
    ),
    "ha": LanguageCorpus(
        groups=("yarbawa", "hausawa", "fulani", "inyamirai", "nyamiri"),
        harmful=(
            "{g} dabbobi ne.",
            "{g} kamar karnuka suke.",
            "{g} kazamai ne.",
            "{g} beraye ne.",
        ),
        benign=(
            "{g} suna kasuwanci a garinmu.",
            "Na yi magana da {g} a kasuwa jiya.",
            "Littafin nan ya ba da labarin {g}.",
        ),
        everyday=(
            "Ina kwana, yaya aiki?",
            "Ruwan sama yana sauka yau a garinmu.",
            "Za mu je kasuwa gobe da safe.",
            "Dan uwana ya ci jarrabawa.",
            "Motar ta iso a kan lokaci yau.",
        ),
    ),
}


def _capitalized(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def build_group_corpus(
    code: str, count: int = 400, *, length: int = 280, seed: int = 20261125
) -> list[str]:
    """``count`` texts of ``length`` characters in language ``code``, each naming a
    group: even ones with a harm predicate, odd ones benign."""
    corpus = CORPORA[code]
    rng = random.Random(f"{seed}:{code}")
    texts: list[str] = []
    for index in range(count):
        templates = corpus.harmful if index % 2 == 0 else corpus.benign
        group_sentence = _capitalized(rng.choice(templates).format(g=rng.choice(corpus.groups)))
        parts = [group_sentence]
        while sum(len(p) + 1 for p in parts) < length + len(group_sentence):
            parts.insert(rng.randrange(len(parts) + 1), rng.choice(corpus.everyday))
        text = " ".join(parts)
        # Cut at the length, but never through the group sentence.
        start = text.index(group_sentence)
        if start + len(group_sentence) > length:
            text = text[start + len(group_sentence) - length :]
        texts.append(text[:length])
    return texts
