"""What a question about a report asks for, read from its words alone: a clause of the
report's text (a reason, what an item includes or is used for, how it is measured) or
something else (a figure, a year, a list of items).

A clause is answered in the report's words, and a 1.5B worked answer words it its own way
(TAT-QA dev: "a 17 % increase" for the reason of an increase), while the report's sentence
the question matches best holds it 4 times in 5. On TAT-QA dev (1,668 questions, offline),
`asks_for_text` says so of 171: 141 are answered by a span of the text of four words or more
(of 225 such questions; 126 of 150 before "based on", "relates to", "refers to" and "What
does the table show?" were added), the rest mostly by a clause the text and a table share;
BM25's first sentence holds the answer of 105 of the 141 (98 before). Its rules were written
on dev alone (test, as totals: 142 of 185 flagged, 124 of 163 before).
"""

from __future__ import annotations

import re

__all__ = ["asks_for_text"]

_CLAUSE = re.compile(
    r"^(why|how (is|are|was|were|does|do|did|has|have|can|should|would|will|often)\b|when|"
    r"where|what (does|do|did|could)\b)|\b(reasons?|caused?|causes|led to|lead to|due to|"
    r"driven|drove|includes?|included|consists?|comprises?|comprised?|used (for|to|as)|"
    r"purpose|objective|definition|defined?|means?|meaning|calculated|determined|measured|"
    r"recogni[sz]ed as|method|approach|policy|policies|basis|assumptions?|focus|limited to|"
    r"implications?|describe|explain|reflects?|represent(s|ed)?|impact(s|ed)?|engaged in|"
    r"exclude[sd]?|excluding|based (on|upon)|relate[sd]? to|related to|rationale|refers? to|"
    r"entitled?|requirements?)\b",
    re.IGNORECASE,
)
"""Words that ask for a clause: why, how, what an item includes, is used for, means."""
_VALUE = re.compile(
    r"\b(how (much|many)|percentage|proportion|ratio|average|total|sum|change|difference|"
    r"years?|financial items|components|amount|units?|value|table)\b",
    re.IGNORECASE,
)
"""Words that ask for a value, a year or a table's items, whatever else the question says
("How is the change in … calculated?" asks for a figure as often as for a clause)."""


_SHOWN = re.compile(r"^what (does|do) the table (show|represent|present|depict|illustrate)", re.I)
"""What a table shows, which its text says ("What does the table show?")."""


def asks_for_text(question: str) -> bool:
    """Whether ``question`` asks for a clause of the report's text (`_CLAUSE`) and for no
    value (`_VALUE`), or what a table shows (`_SHOWN`)."""
    clause = bool(_CLAUSE.search(question)) and not _VALUE.search(question)
    return clause or bool(_SHOWN.search(question.strip()))
