"""TutorAnswer and its parts read back from their `to_dict` form (the audit log's JSON)."""
import json

from tutor.types import AnswerSentence, Check, Source, Suggestion, TutorAnswer


def _answer() -> TutorAnswer:
    src = Source(1, "light-p1-0", 0.81, "Light", "jesc110", "light.pdf", 1, 1, "Refraction", "Light bends in water.")
    return TutorAnswer(
        question="What is refraction?", klass="10", subject="science", mode="library",
        answer="Light bends at the surface [1].", was_refusal=False, reason="answered", message="", confidence=0.8,
        sentences=(AnswerSentence("Light bends at the surface [1].", (1,), 1, True),),
        sources=(src,), near_misses=(src,),
        checks=(Check("similarity", "gate", True, 0.81, 0.3, "cosine", ""), Check("label", "answer", False, "x", None)),
        suggestions=(Suggestion("Light", "Refraction", 2, 0.5),), decided_by="reader", llm_called=True,
        answerer="local", timings_ms={"retrieve": 3.5}, measures={"top": 0.81}, language="hi", draft="draft",
        draft_sentences=(AnswerSentence("Draft sentence.", (1, 2), None, False),), notes=("reranker fell back",),
        direct_answer="bends", resolved_question="What is refraction of light?", followup=True,
    )


def test_an_answer_round_trips_through_its_dict_and_json():
    ans = _answer()
    assert TutorAnswer.from_dict(ans.to_dict()) == ans
    assert TutorAnswer.from_dict(json.loads(json.dumps(ans.to_dict()))) == ans  # lists come back as tuples


def test_from_dict_ignores_fields_it_does_not_know_and_fills_defaults():
    d = {**_answer().to_dict(), "from_a_newer_version": 1}
    d["checks"] = [{**c, "extra": True} for c in d["checks"]]
    assert TutorAnswer.from_dict(d) == _answer()
    bare = TutorAnswer.from_dict({"question": "q", "class": 9, "subject": "science", "mode": "library", "answer": "",
                                  "was_refusal": True, "reason": "no_match", "message": "m", "confidence": 0.0})
    assert bare.klass == "9" and bare.sentences == () and bare.checks == () and bare.decided_by == "retrieval"
