"""A fixed, reproducible corpus of 280-character texts for the speed benchmarks.

The mix imitates a moderation queue: mostly everyday posts, some that name
identity groups neutrally or positively, some counter-speech, and a minority
of harmful posts. Sentences are written for this benchmark (none come from
the external evaluation sets) and combined with a fixed seed.
"""

from __future__ import annotations

import random

GROUPS = [
    "Muslims",
    "Jews",
    "immigrants",
    "refugees",
    "women",
    "gay people",
    "trans people",
    "Black people",
    "disabled people",
    "Mexicans",
    "Roma",
    "Christians",
]
EVERYDAY = [
    "Just got back from the market and the tomatoes were amazing this week.",
    "Can anyone recommend a good plumber in the north of the city?",
    "The train was late again, third time this week, honestly what is going on.",
    "Our team finally won the derby after a very long season.",
    "I have been reading about the history of the old bridge downtown.",
    "Weather looks great for the weekend, planning a hike with friends.",
    "The council meeting about the new bus routes starts at seven tonight.",
    "My cat knocked the coffee off the table and looked proud of it.",
    "Does anyone know when the library reopens after the renovation?",
    "Prices at the petrol station went up again, it is getting ridiculous.",
    "Happy birthday to my little brother, you are the best!",
    "New episode of the podcast is out, we talk about urban gardening.",
    "The exam results came out and I passed everything, so relieved.",
    "Traffic on the ring road is terrible, avoid it if you can.",
    "The museum has a new exhibition on medieval maps and it is wonderful.",
    "We are collecting winter coats for the shelter this Saturday.",
]
NEUTRAL_GROUP = [
    "Three {g} were elected to the city council yesterday.",
    "A new report looks at housing conditions for {g} in the region.",
    "My neighbours are {g} and they invited us for dinner.",
    "The festival celebrates the culture of {g} with music and food.",
    "Several {g} spoke at the conference about small businesses.",
    "{g} have lived in this town for generations.",
]
COUNTER = [
    'Saying that "{g} are vermin" is hateful and it has to stop.',
    "People who call {g} parasites should be reported, that is dehumanizing.",
    "It is not true that {g} are criminals, the data says otherwise.",
]
HARMFUL = [
    "{g} are vermin and everyone knows it.",
    "Honestly {g} should all be deported or worse, they are a plague.",
    "We need to get rid of {g} once and for all.",
    "I can't stand {g}. They are parasites living off us.",
    "Death to all {g}.",
]


def build_corpus(count: int = 2000, *, length: int = 280, seed: int = 20261122) -> list[str]:
    """``count`` texts of exactly ``length`` characters (about 8% contain harm)."""
    rng = random.Random(seed)
    texts: list[str] = []
    for _ in range(count):
        roll = rng.random()
        parts: list[str] = []
        if roll < 0.08:
            parts.append(rng.choice(HARMFUL).format(g=rng.choice(GROUPS)))
        elif roll < 0.12:
            parts.append(rng.choice(COUNTER).format(g=rng.choice(GROUPS)))
        elif roll < 0.35:
            parts.append(rng.choice(NEUTRAL_GROUP).format(g=rng.choice(GROUPS)))
        while sum(len(p) + 1 for p in parts) < length:
            parts.insert(rng.randrange(len(parts) + 1), rng.choice(EVERYDAY))
        text = " ".join(parts)
        texts.append(text[:length])
    return texts
