"""Every refusal reason and every decision tier the tutor can report: the code stored in the audit log and the
evaluation JSON, the sentence a 15-year-old reads (English and Hindi) and the short label a chart or badge shows.

Imports nothing else of the project, so any stage can name a reason without an import circle. Both enums are `str`
enums: `Reason.OFF_TOPIC == "off_topic"`, and JSON, SQLite and pandas see the same plain codes as before.
"""
from __future__ import annotations

from enum import StrEnum
from typing import Self


class Reason(StrEnum):
    """Why the tutor answered or refused: the code, a chart label, and the student's message in English and Hindi.

    `answered` is here too: an answer's row in the audit log carries it as its reason.
    """

    label: str
    en: str
    hi: str

    def __new__(cls, code: str, label: str, en: str, hi: str) -> Self:
        member = str.__new__(cls, code)
        member._value_ = code
        member.label, member.en, member.hi = label, en, hi
        return member

    ANSWERED = (
        "answered", "Answered",
        "The answer is taken from your textbook.",
        "उत्तर आपकी पाठ्यपुस्तक से लिया गया है।",
    )
    EMPTY_QUESTION = (
        "empty_question", "Empty question",
        "The question was empty. Type a question about your textbook.",
        "प्रश्न खाली था। अपनी पाठ्यपुस्तक के बारे में कोई प्रश्न लिखिए।",
    )
    NO_SHELF = (
        "no_shelf", "No textbook yet",
        "There is no textbook for this class and subject yet.",
        "इस कक्षा और विषय की पाठ्यपुस्तक अभी उपलब्ध नहीं है।",
    )
    INSUFFICIENT_CONTEXT = (
        "insufficient_context", "Too little text",
        "Your textbook has too little text about this to answer it.",
        "आपकी पाठ्यपुस्तक में इसके बारे में उत्तर देने लायक पाठ बहुत कम है।",
    )
    LOW_CONFIDENCE = (
        "low_confidence", "Weak match",
        "Your textbook does not seem to talk about this clearly enough for me to answer.",
        "आपकी पाठ्यपुस्तक इस बारे में इतना स्पष्ट नहीं बताती कि मैं उत्तर दे सकूँ।",
    )
    OFF_TOPIC = (
        "off_topic", "Off-topic",
        "This question is not about anything in this textbook.",
        "यह प्रश्न इस पाठ्यपुस्तक की किसी भी बात के बारे में नहीं है।",
    )
    ABOUT_YOU = (
        "about_you", "About the student",
        "This question asks about you: your own habits, experience or opinion. Your textbook cannot answer that for "
        "you; think it over, or talk about it with your teacher.",
        "यह प्रश्न आपके बारे में है: आपकी अपनी आदतें, अनुभव या राय। आपकी पाठ्यपुस्तक इसका उत्तर आपके लिए नहीं दे "
        "सकती; इस पर स्वयं सोचिए, या अपने शिक्षक से बात कीजिए।",
    )
    WRONG_SUBJECT = (
        "wrong_subject", "Wrong subject",
        "This looks like a question for a different subject's textbook.",
        "यह किसी दूसरे विषय की पाठ्यपुस्तक का प्रश्न लगता है।",
    )
    NO_CLEAR_WINNER = (
        "no_clear_winner", "No clear match",
        "Several different parts of the book match equally, so I can't tell which one answers you.",
        "पुस्तक के कई अलग-अलग भाग एक जैसे मेल खाते हैं, इसलिए मैं नहीं बता सकता कि कौन-सा उत्तर देता है।",
    )
    NOT_ANSWERABLE = (
        "not_answerable", "Answer not in the book",
        "Your textbook talks about this topic but does not give this exact answer.",
        "आपकी पाठ्यपुस्तक इस विषय पर बात करती है, पर यह सटीक उत्तर नहीं देती।",
    )
    MISSING_CITATIONS = (
        "missing_citations", "Missing citations",
        "I could not point to the page for every sentence, so I won't answer.",
        "मैं हर वाक्य के लिए पृष्ठ नहीं बता सका, इसलिए उत्तर नहीं दूँगा।",
    )
    INVALID_CITATIONS = (
        "invalid_citations", "Invalid citations",
        "The answer pointed to a page that was not among the sources, so I won't answer.",
        "उत्तर ने ऐसे पृष्ठ का हवाला दिया जो स्रोतों में नहीं था, इसलिए उत्तर नहीं दूँगा।",
    )
    LOW_GROUNDING = (
        "low_grounding", "Not grounded in the book",
        "The answer was not close enough to what the book says, so I won't answer.",
        "उत्तर पुस्तक की बात से पर्याप्त मेल नहीं खाता था, इसलिए उत्तर नहीं दूँगा।",
    )
    FORBIDDEN_PHRASING = (
        "forbidden_phrasing", "Guessing words",
        "The answer used guessing or hedging words instead of the book's words, so I won't answer.",
        "उत्तर में पुस्तक के शब्दों के बजाय अनुमान वाले शब्द थे, इसलिए उत्तर नहीं दूँगा।",
    )
    ANSWERER_ERROR = (
        "answerer_error", "Answerer error",
        "Something went wrong while writing the answer. Please try again.",
        "उत्तर लिखते समय कुछ गड़बड़ हो गई। कृपया फिर से प्रयास कीजिए।",
    )
    MULTIPLE_ISSUES = (
        "multiple_issues", "Several checks failed",
        "The answer failed several safety checks, so I won't answer.",
        "उत्तर कई सुरक्षा जाँचों में विफल रहा, इसलिए उत्तर नहीं दूँगा।",
    )
    SELECTED_TEXT_INSUFFICIENT = (
        "selected_text_insufficient", "Not in the selected passage",
        "The passage you selected does not answer this question.",
        "आपके चुने हुए अंश में इस प्रश्न का उत्तर नहीं है।",
    )
    # the language model's own words (tutor.safety.failsafe), the answerability judge and reader, the source check
    LLM_DECLINED = (
        "llm_declined", "LLM: not in the pages",
        "Your textbook's pages that I found do not give this answer, so I won't guess.",
        "मुझे मिले पाठ्यपुस्तक के पृष्ठ यह उत्तर नहीं देते, इसलिए मैं अनुमान नहीं लगाऊँगा।",
    )
    LLM_UNCERTAIN = (
        "llm_uncertain", "LLM: unsure",
        ("I was not sure enough of the answer from your textbook, so I won't guess. Try asking about one term "
         "or idea at a time."),
        ("पाठ्यपुस्तक से उत्तर के बारे में मैं पर्याप्त निश्चित नहीं था, इसलिए अनुमान नहीं लगाऊँगा। एक समय में"
         " एक ही शब्द या विचार के बारे में पूछिए।"),
    )
    LLM_AMBIGUOUS = (
        "llm_ambiguous", "Ambiguous question",
        ("Your question can be read in more than one way. Try asking it more precisely, for example naming the"
         " chapter or the term you mean."),
        ("आपके प्रश्न के एक से अधिक अर्थ हो सकते हैं। इसे अधिक स्पष्ट रूप से पूछिए, जैसे अध्याय या जिस शब्द की"
         " बात है उसका नाम लेकर।"),
    )
    LLM_TOOL_FAILURE = (
        "llm_tool_failure", "LLM failure",
        "The part of the tutor that writes answers had a problem. Please try again in a moment.",
        "उत्तर लिखने वाले भाग में समस्या आई। कृपया थोड़ी देर में फिर से प्रयास कीजिए।",
    )
    LLM_TIMEOUT = (
        "llm_timeout", "LLM timeout",
        "Writing the answer took too long, so I stopped. Please try again, or ask a shorter question.",
        "उत्तर लिखने में बहुत समय लगा, इसलिए मैंने रोक दिया। फिर से प्रयास कीजिए या छोटा प्रश्न पूछिए।",
    )
    LLM_LIMITATION = (
        "llm_limitation", "Too long or complex",
        ("This question is too long or too complex for me to answer from the book. Try a shorter, simpler "
         "question."),
        "यह प्रश्न पुस्तक से उत्तर देने के लिए बहुत लंबा या जटिल है। छोटा और सरल प्रश्न पूछिए।",
    )
    JUDGE_NOT_ANSWERABLE = (
        "judge_not_answerable", "Judge: answer not in the pages",
        "Your textbook talks about this topic, but the pages I found do not state this answer.",
        "आपकी पाठ्यपुस्तक इस विषय पर बात करती है, पर मुझे मिले पृष्ठ यह उत्तर नहीं बताते।",
    )
    READER_NOT_ANSWERABLE = (
        "reader_not_answerable", "Reader: answer not in the passages",
        "Your textbook talks about this topic, but none of the passages I found answers this exact question.",
        "आपकी पाठ्यपुस्तक इस विषय पर बात करती है, पर मुझे मिला कोई भी अंश इस सटीक प्रश्न का उत्तर नहीं देता।",
    )
    SOURCE_INSTRUCTIONS = (
        "source_instructions", "Instructions in the source",
        "The answer repeated text that gives orders to a computer instead of teaching, so I won't show it.",
        ("उत्तर में ऐसा पाठ दोहराया गया जो पढ़ाने के बजाय कंप्यूटर को आदेश देता है, इसलिए मैं उसे नहीं "
         "दिखाऊँगा।"),
    )
    UNREAD_LANGUAGE = (
        "unread_language", "Language not read",
        ("I can read questions in English and Hindi only (Hindi in Devanagari or in English letters), so I cannot "
         "tell what your textbook says about this one. Please ask it in English or Hindi."),
        ("मैं केवल अंग्रेज़ी और हिंदी (देवनागरी या अंग्रेज़ी अक्षरों में) के प्रश्न पढ़ सकता हूँ, इसलिए यह प्रश्न नहीं पढ़"
         " सका। कृपया इसे अंग्रेज़ी या हिंदी में पूछिए।"),
    )
    UNREAD_WORDS = (
        "unread_words", "Hindi words not read",
        ("Some Hindi words of your question are not in my Hindi-English dictionary, so I could not look for them in "
         "your English textbook. Please ask again with the English words for them, as your book writes them."),
        ("आपके प्रश्न के कुछ हिंदी शब्द मेरे हिंदी-अंग्रेज़ी शब्दकोश में नहीं हैं, इसलिए मैं उन्हें आपकी अंग्रेज़ी पाठ्यपुस्तक में"
         " नहीं खोज सका। कृपया उनके अंग्रेज़ी शब्द लिखकर फिर से पूछिए, जैसे आपकी पुस्तक उन्हें लिखती है।"),
    )
    # limits and damage (tutor.policy limits; a shelf whose files fail their checksums)
    QUESTION_TOO_LONG = (
        "question_too_long", "Question too long",
        "Your question is too long. Please ask it in fewer words (the limit is shown under the chat box).",
        "आपका प्रश्न बहुत लंबा है। कृपया इसे कम शब्दों में पूछिए (सीमा प्रश्न-बॉक्स के नीचे लिखी है)।",
    )
    PASSAGE_TOO_LONG = (
        "passage_too_long", "Passage too long",
        "The passage you chose is too long. Please select a shorter part of the page.",
        "आपका चुना हुआ अंश बहुत लंबा है। कृपया पृष्ठ का छोटा भाग चुनिए।",
    )
    QUESTION_TIMEOUT = (
        "question_timeout", "Question timed out",
        "Answering this question took too long, so I stopped. Please ask a shorter or simpler question.",
        "इस प्रश्न का उत्तर देने में बहुत समय लगा, इसलिए मैंने रोक दिया। कृपया छोटा या सरल प्रश्न पूछिए।",
    )
    SHELF_DAMAGED = (
        "shelf_damaged", "Textbook damaged",
        ("This textbook cannot be opened right now: its files are damaged. The maintainers can see this and "
         "repair it; other subjects still work."),
        ("यह पाठ्यपुस्तक अभी खोली नहीं जा सकती: इसकी फ़ाइलें खराब हो गई हैं। अनुरक्षक इसे देख सकते हैं और ठीक "
         "कर सकते हैं; दूसरे विषय काम करते हैं।"),
    )
    LIBRARY_UNREACHABLE = (
        "library_unreachable", "Library unreachable",
        "The library is not reachable right now; your question is saved. Please ask again in a few minutes.",
        "पुस्तकालय से अभी संपर्क नहीं हो पा रहा है; आपका प्रश्न सहेज लिया गया है। कृपया कुछ मिनट बाद फिर से पूछिए।",
    )
    LIBRARY_BUSY = (
        "library_busy", "Library busy",
        "The library is too busy to answer right now. Please ask again in a minute.",
        "पुस्तकालय अभी बहुत व्यस्त है और उत्तर नहीं दे पाया। कृपया एक मिनट बाद फिर से पूछिए।",
    )
    FOLLOWUP_NOT_COVERED = (
        "followup_not_covered", "Follow-up not in the book",
        "Your textbook's pages about what we were talking about do not say this, so I won't guess.",
        ("जिस विषय पर हम बात कर रहे थे, उसके बारे में पाठ्यपुस्तक के पृष्ठ यह नहीं बताते, इसलिए मैं अनुमान "
         "नहीं लगाऊँगा।"),
    )

    NO_REASON_IN_BOOK = (
        "no_reason_in_book", "No reason in the book",
        "The book gives no reason for this.",
        "पुस्तक इसका कोई कारण नहीं बताती।",
    )
    NO_EXAMPLE_IN_BOOK = (
        "no_example_in_book", "No example in the book",
        "The book gives no example of this.",
        "पुस्तक इसका कोई उदाहरण नहीं देती।",
    )
    NOTHING_MORE_IN_BOOK = (
        "nothing_more_in_book", "Nothing more in the book",
        "The book says nothing more about this than the answer you have.",
        "पुस्तक इस बारे में आपके पास जो उत्तर है उससे अधिक कुछ नहीं कहती।",
    )
    NO_EARLIER_ANSWER = (
        "no_earlier_answer", "No earlier answer",
        "There is no earlier answer in this chat to go on from. Ask your question in full.",
        "इस बातचीत में आगे बढ़ने के लिए कोई पिछला उत्तर नहीं है। अपना पूरा प्रश्न लिखिए।",
    )

    def message(self, language: str = "en") -> str:
        """The student's message in `language` ("hi" or "en"; anything else reads English)."""
        return self.hi if language == "hi" else self.en

    @property
    def is_refusal(self) -> bool:
        return self is not Reason.ANSWERED

    @property
    def is_coverage_gap(self) -> bool:
        """A refusal that points at something missing from the shelf, not at the question's form or a fault.

        Read by `coverage_gaps` in tutor/audit/reports.py, which leaves out empty questions, answerer errors, missing
        shelves, questions asked while the shared database was unreachable or too busy, questions in a script the
        tutor cannot read, Hindi words its dictionary lacks, questions about nothing the shelf is about (off-topic:
        who won the IPL), questions about the student ("Do you compare prices?"), a follow-up ("Why?") with no
        earlier answer to read it against, and answered rows, which are not refusals.
        """
        return self not in _NOT_COVERAGE_GAPS


# a question the tutor cannot read (its script, or Hindi words its dictionary lacks) says nothing about what the book
# lacks, and neither does one about nothing the shelf is about (its best evidence under offtopic_max_score) or one
# about the student's own habits or opinion
_NOT_COVERAGE_GAPS = frozenset({Reason.ANSWERED, Reason.EMPTY_QUESTION, Reason.ANSWERER_ERROR, Reason.NO_SHELF,
                                Reason.UNREAD_LANGUAGE, Reason.UNREAD_WORDS, Reason.OFF_TOPIC, Reason.ABOUT_YOU,
                                Reason.LIBRARY_UNREACHABLE, Reason.LIBRARY_BUSY, Reason.NO_EARLIER_ANSWER})
# the refusals that say the book lacks something: for a question about the student ("Do you compare prices?") they
# become ABOUT_YOU, and for one whose reading kept Hindi words the dictionary could not read UNREAD_WORDS (the book may
# hold the answer under the English word)
BOOK_REFUSALS = frozenset({Reason.OFF_TOPIC, Reason.LOW_CONFIDENCE, Reason.INSUFFICIENT_CONTEXT, Reason.NO_CLEAR_WINNER,
                           Reason.NOT_ANSWERABLE, Reason.READER_NOT_ANSWERABLE})


class Tier(StrEnum):
    """The stage that decided an answer (`TutorAnswer.decided_by`) and the label the diagnostics show for it."""

    label: str

    def __new__(cls, code: str, label: str) -> Self:
        member = str.__new__(cls, code)
        member._value_ = code
        member.label = label
        return member

    RETRIEVAL = ("retrieval", "Retrieval gate")
    RERANKER = ("reranker", "Reranker gate")
    READER = ("reader", "Answerability reader")
    JUDGE = ("judge", "LLM answerability judge")
    ANSWERER = ("answerer", "Answerer (the LLM declined)")
    ANSWER_CHECKS = ("answer_checks", "Answer checks")
    ERROR = ("error", "Error handler")


def reason(code: str) -> Reason | None:
    """The member for a code, or None when the code is not a reason (an old audit row, a typo)."""
    try:
        return Reason(code)
    except ValueError:
        return None


def message(code: str, language: str = "en") -> str:
    """The student's message for a reason code in `language`; an unknown code is returned as it is.

    Every code the tutor produces is a member (tests/test_reasons.py checks it), so the raw code only shows for a
    row written by an older version.
    """
    member = reason(code)
    return member.message(language) if member else code


def label(code: str) -> str:
    """The short label of a reason code; an unknown code reads as its words ("some_code" -> "Some code")."""
    member = reason(code)
    return member.label if member else str(code).replace("_", " ").capitalize()


def tier_label(tier: str) -> str:
    """The label of a decision tier; an unknown tier is returned as it is."""
    try:
        return Tier(tier).label
    except ValueError:
        return tier
