"""What kind of value every right answer to a goal gives, as the verifier states it from the
goal alone (a typed value, held to its schema by constrained decoding), and the check program
made from it: a count is a whole number above 0; a probability lies strictly between 0 and
1; a percentage is not 0 nor a fall of more than 100 % (a share lies in (0, 100], but a
report's change in percent may be -74 % or 448 %); a name, a date (a year will do), a yes
or no is said as one.

Why a kind and not a program or bounds: on train (1.5B), a check program written freely
compared with an answer the verifier worked out itself, wrongly ("assert answer == '1056'",
a gcd of 33 for 21), and free bounds were guesses (a largest of 100 for 50,400
arrangements, whole numbers for a probability); naming one of eight kinds it got right on
10 of 11 train goals, and a kind cannot smuggle an answer in.

Why not 0 (nor a probability of 1): it is what a program that found nothing, or counted
everything, gives (a filter that matched nothing, a loop that never ran), so two such
programs agree on it. On train (1.5B, bec0244) every answer stating a computed 0 was wrong,
and 3 of the 8 wrong answers that ended `succeeded` were a 0 two programs agreed on. A right
0 is rare in a goal that asks for a value; it ends `unverified`, not `succeeded`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CONDITIONS",
    "PROPERTIES",
    "SYSTEM",
    "AnswerSpec",
    "Property",
    "StatedProperties",
    "check_program",
    "clause_program",
    "stated",
]

SYSTEM = """You check a teammate's answer to a goal without seeing it. From the goal alone,
say what kind of value every right answer gives:
- "count": a number of whole things (people, items, days, ways, arrangements, primes);
- "amount": a quantity that may have decimals (money, a measurement, a rate, an average,
  a statistic);
- "probability": a probability or a fraction of a whole, between 0 and 1;
- "percentage": a percentage, between 0 and 100;
- "name": a name, a word or a label;
- "date": a date, a time or a weekday;
- "yes_or_no": yes or no;
- "text": a text, such as an encoded or transformed message.
And how many values the goal asks for. Do not work out the answer. Answer with one JSON
object."""

PROPERTIES = """
If the goal itself states a property every right answer has, give it in "properties" (else
leave it empty):
- "divisible_by": the answer is divisible by each of these numbers;
- "between": the answer lies between these two numbers (inclusive);
- "sums_to": the answer's numbers add up to this number;
- "ordering_of": the answer lists exactly these numbers, in some order.
Use only numbers written in the goal or its values; a property of the things counted is not
one of the answer."""
"""Added to `SYSTEM` with the verifier's ``properties`` on (its answer's shape:
`StatedProperties`)."""

Kind = Literal["count", "amount", "probability", "percentage", "name", "date", "yes_or_no", "text"]


class Property(BaseModel):
    """A defining property the goal states, checked by program against every candidate."""

    model_config = ConfigDict(extra="ignore")

    kind: Literal["divisible_by", "between", "sums_to", "ordering_of"]
    values: list[float] = []


class AnswerSpec(BaseModel):
    """What kind of value every right answer gives (the verifier's typed statement)."""

    model_config = ConfigDict(extra="ignore")

    kind: Kind
    values_asked: int = Field(default=1, ge=1, le=6)


class StatedProperties(AnswerSpec):
    """The statement's shape when the verifier is asked for defining properties (the schema
    the model's decoding is held to names them)."""

    properties: list[Property] = []
    """Checked when their numbers are the goal's own (`stated`); others are set aside, never
    a reason to refuse the statement."""


_WHOLE = "n >= 1 and abs(n - round(n)) < 1e-9"
CONDITIONS: dict[str, tuple[str, str]] = {
    "count": (_WHOLE, "a count the goal asks for is a whole number, and not 0"),
    "amount": ("n != 0", "an amount the goal asks for is a number, and not 0"),
    "probability": (
        "0 < n < (100 if '%' in answer else 1)",
        "a probability the goal asks for lies strictly between 0 and 1 (or 0 and 100 %)",
    ),
    "percentage": (
        "n != 0 and n >= -100",
        "a percentage is not 0, and no fall is more than 100 %",
    ),
}
"""For a kind that is a number: what the answer's computed numbers must hold, and why."""

_PATTERNS = {
    "name": (r"[A-Za-z]{2,}", "a name or a word is asked, and the answer has none"),
    "text": (r"[A-Za-z]{2,}", "a text is asked, and the answer has none"),
    "yes_or_no": (r"(?i)\b(yes|no)\b", "a yes-or-no goal is answered yes or no"),
    "date": (
        r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}|\b(?:1[89]|20)\d{2}\b|January|February|March|April|"
        r"May|June|July|August|"
        r"September|October|November|December|Monday|Tuesday|Wednesday|Thursday|Friday|"
        r"Saturday|Sunday",
        "a date, a time or a weekday is asked, and the answer names none",
    ),
}


_HOLDS = {
    "divisible_by": (
        "any(all(abs(n / d - round(n / d)) < 1e-9 for d in {v} if d) for n in judged)",
        "the goal says the answer is divisible by each of {v}",
    ),
    "between": (
        "any({lo} - 1e-9 <= n <= {hi} + 1e-9 for n in judged)",
        "the goal says the answer lies between {lo} and {hi}",
    ),
    "sums_to": (
        "abs(sum(numbers) - {lo}) < 1e-6 * max(1.0, abs({lo}))",
        "the goal says the answer's numbers add up to {lo}",
    ),
    "ordering_of": (
        "sorted(numbers) == sorted({v})",
        "the goal says the answer lists exactly {v}, in some order",
    ),
}
"""Each property's condition over the answer's numbers, and why it must hold."""


def stated(spec: AnswerSpec, goal_numbers: Iterable[float]) -> list[Property]:
    """The properties whose numbers the goal or its values state (a property the verifier
    made up numbers for checks nothing the goal says); ``between`` needs two numbers, and
    none may have no numbers."""
    given = set(goal_numbers)
    props = spec.properties if isinstance(spec, StatedProperties) else []
    return [
        p
        for p in props
        if p.values
        and all(v in given for v in p.values)
        and (p.kind != "between" or len(p.values) == 2)
    ]


def _property_lines(props: list[Property]) -> list[str]:
    lines = []
    for p in props:
        values = [int(v) if v == int(v) else v for v in p.values]
        held, why = _HOLDS[p.kind]
        fill = {"v": values, "lo": min(values), "hi": max(values)}
        lines.append(f"    assert {held.format(**fill)}, {why.format(**fill)!r}")
    return lines


def check_program(spec: AnswerSpec, quoted: Iterable[float]) -> str:
    """``check(answer, numbers)`` for ``spec``. For a number it judges the numbers the answer
    computed (not ones quoted from the goal or its values; ``a/b`` also as its quotient):
    as many as the goal asks for must hold the kind's condition, lenient with the extra
    numbers a sentence states, strict with an answer whose values are all of another kind."""
    quoted = sorted(set(quoted))
    lines = [
        "import re",
        f"QUOTED = {quoted!r}",
        "",
        "def check(answer, numbers):",
    ]
    props = stated(spec, quoted)
    if spec.kind in CONDITIONS or props:
        held, why = CONDITIONS.get(spec.kind, ("True", ""))
        lines += [
            "    assert numbers, 'a number is asked, and the answer states none'",
            "    computed = [n for n in numbers if not any(abs(n - q) < 1e-9 for q in QUOTED)]",
            "    ratios = [int(a) / int(b) for a, b in re.findall(r'(\\d+)\\s*/\\s*(\\d+)', answer)"
            " if int(b)]",
            "    judged = (computed or numbers) + ratios",
            f"    assert sum(1 for n in judged if {held}) >= min({spec.values_asked}, len(judged)),"
            f" {why!r}",
            *_property_lines(props),
        ]
    else:
        pattern, why = _PATTERNS[spec.kind]
        lines.append(f"    assert re.search({pattern!r}, answer), {why!r}")
    return "\n".join(lines) + "\n"


_NOT_OWN = [
    "million",
    "millions",
    "billion",
    "billions",
    "thousand",
    "thousands",
    "percent",
    "usd",
    "eur",
    "gbp",
    "rmb",
    "dollars",
    "euros",
    "pounds",
]


def clause_program() -> str:
    """``check(answer, numbers)`` for a goal whose words ask for a clause of a report's text
    (`roles.reports.questions`): the answer has two words of three letters or more besides
    scale and currency words. A figure ("$22,446 million" for "What does the recorded
    investment include?", TAT-QA dev at 1.5B) or a lone name is no clause; the plain "text"
    kind passed it on the letters of "million"."""
    return (
        "\n".join(
            [
                "import re",
                f"NOT_OWN = {sorted(_NOT_OWN)!r}",
                "",
                "def check(answer, numbers):",
                "    words = [w for w in re.findall(r'[A-Za-z]{3,}', answer) if w.lower() not in NOT_OWN]",
                "    assert len(words) >= 2, 'a clause of the report is asked, and the answer is a "
                "figure or a lone word'",
            ]
        )
        + "\n"
    )
