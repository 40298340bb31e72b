"""Questions of students asking at the same moment share one MiniLM forward pass and get the vectors they would get
alone (the real packaged model)."""
from __future__ import annotations

import threading

import numpy as np

from tutor.retrieval.embedding import MiniLMEmbedder

QUESTIONS = ["What is refraction of light?", "Why is the sky blue?", "What are the kinds of resources?",
             "How does a fuse protect a circuit?", "Who wrote the Constitution of India?",
             "What is the function of the heart?", "Define the power of a lens.", "What is soil erosion?"]


def test_questions_embedded_at_once_get_the_vectors_they_get_alone():
    emb = MiniLMEmbedder()
    alone = np.stack([emb.embed([q])[0] for q in QUESTIONS])
    emb.clear_cache()
    got: dict[int, np.ndarray] = {}
    start = threading.Barrier(len(QUESTIONS))

    def student(i: int) -> None:
        start.wait()
        got[i] = emb.embed([QUESTIONS[i]])[0]

    threads = [threading.Thread(target=student, args=(i,)) for i in range(len(QUESTIONS))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    together = np.stack([got[i] for i in range(len(QUESTIONS))])
    assert emb._questions.combined >= 1  # some did share a pass
    assert (alone * together).sum(axis=1).min() > 0.999  # padded beside longer questions: the same vector
