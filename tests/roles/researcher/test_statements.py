"""A reading's statements against the documents (pure logic), on what live 1.5B researchers
stated from the quickstart's corpus: copies stand, a made-up figure or the goal's own value
does not, nor a sentence the documents never say."""

from __future__ import annotations

from pathlib import Path

from roles.researcher.statements import statement_problems, statement_verdict

ROOT = Path(__file__).resolve().parents[3]

DOCS = {"primes.md": (ROOT / "scenarios" / "corpus" / "primes.md").read_text()}
TASK = (
    "Count the primes below the given limit.\nFrom the documents, state what they say about primes."
)


def test_statements_copied_from_the_documents_stand() -> None:
    copied = {
        "statement": "The prime number theorem states that the number of primes not exceeding "
        "x, written π(x), is asymptotic to x / ln(x).",
        "definition": "A prime number is a natural number greater than 1 that has no positive "
        "divisors other than 1 and itself. The first primes are 2, 3, 5, 7, 11 and 13.",
        "formula": "x / ln(x)",
    }
    assert statement_problems(copied, DOCS, TASK) == []
    verdict = statement_verdict(copied, DOCS, TASK, "read")
    assert verdict is not None and verdict.passed and verdict.kind == "grounding"


def test_a_number_no_document_holds_does_not_stand() -> None:
    assert statement_problems({"fact": 7052}, DOCS, TASK) == ["fact: 7052 stand(s) in no document"]
    limit = {"statement": "The prime numbers below the limit of 10,000 are greater than 1."}
    (problem,) = statement_problems(limit, DOCS, TASK)
    assert "10000" in problem  # the goal's value is no reading of the documents
    assert statement_problems(limit, DOCS, TASK + " below 10000") == []  # unless the task says it


def test_a_sentence_the_documents_do_not_say_does_not_stand() -> None:
    (problem,) = statement_problems(
        {"statement": "There are infinitely many prime numbers."}, DOCS, TASK
    )
    assert "of its words stand in the documents" in problem
    verdict = statement_verdict(
        {"statement": "There are infinitely many prime numbers."}, DOCS, TASK, "read"
    )
    assert verdict is not None and not verdict.passed


def test_only_what_a_reading_states_is_checked() -> None:
    assert statement_problems({"answer": "1229", "prime_count": 1229}, DOCS, TASK) == []
    assert statement_verdict({"answer": "1229"}, DOCS, TASK, "t") is None
    assert statement_verdict({"statement": "1229"}, {}, TASK, "t") is None  # nothing to read


def test_a_statement_repeating_the_task_is_told_so() -> None:
    """A live 1.5B reading (43c6b76) stated its task twice, told only how few of its words
    stood in the documents."""
    echoed = {"statement": "From the documents, state what they say about primes."}
    problems = statement_problems(echoed, DOCS, TASK)
    assert any("repeats what you were asked" in p for p in problems)
    own = {"statement": "Cats and dogs say what they like about the weather."}
    assert not any("repeats" in p for p in statement_problems(own, DOCS, TASK))
