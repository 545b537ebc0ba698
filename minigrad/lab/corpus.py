"""A small text corpus generated from a seed: sentences from a toy grammar, no download.

    the old man watches a red car at night. my sister finds the river. ...

The grammar is small (a few dozen words), so a tiny character-level model can learn
the spelling of its words and some of the order of the sentence parts within a couple
of hundred steps, which is all the ``warmup`` experiment needs.
"""

from __future__ import annotations

import numpy as np

__all__ = ["make_corpus"]

_SUBJECTS = ("the cat", "a dog", "the old man", "my sister", "a small bird", "the teacher",
             "our neighbour", "the children")  # fmt: skip
_VERBS = ("sees", "likes", "chases", "finds", "calls", "helps", "watches", "paints")
_OBJECTS = ("the ball", "a red car", "the garden", "her friend", "the river", "a green apple",
            "the house", "two boats")  # fmt: skip
_ENDINGS = ("today", "slowly", "again", "at night", "every morning", "near the hill")


def make_corpus(seed: int, n_sentences: int = 3000) -> str:
    """``n_sentences`` sentences (about 33 characters each), the same for the same seed."""
    rng = np.random.default_rng([seed, 11])
    sentences = []
    for _ in range(n_sentences):
        words = [rng.choice(_SUBJECTS), rng.choice(_VERBS), rng.choice(_OBJECTS)]
        if rng.random() < 0.5:
            words.append(rng.choice(_ENDINGS))
        sentences.append(" ".join(words) + ".")
    return " ".join(sentences)
