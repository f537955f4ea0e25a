"""A researcher's citation names a source as its prompt labels it or bare (pure logic): a
live 1.5B researcher cited "document: primes.md", the label its prompt shows, and its right
answer failed the sources check."""

from __future__ import annotations

from roles.researcher.role import cited_source

LABELS = {"document", "source"}


def test_a_citation_as_the_prompt_labels_it_names_the_source() -> None:
    for cited in (
        "document: primes.md",
        "[document: primes.md]",
        " primes.md ",
        "Source: primes.md",
    ):
        assert cited_source(cited, LABELS) == "primes.md"


def test_a_colon_that_is_no_label_stays_part_of_the_name() -> None:
    assert cited_source("https://example.org/primes", LABELS) == "https://example.org/primes"
    assert cited_source("notes: primes.md", LABELS) == "notes: primes.md"  # not a label shown
    assert cited_source("document: ", LABELS) == ""  # names nothing


def test_the_sources_check_passes_a_labelled_citation_of_a_document_read() -> None:
    from roles.memory import Hit
    from roles.researcher.role import _sources_verdict

    hits = [Hit(text="π(x) ~ x / ln x", source="primes.md", kind="document")]
    (passed,) = _sources_verdict(
        ["document: primes.md", "document: sorting.md"], hits, "t", required=True
    )
    assert passed.passed and passed.what == "it cites the documents it read: primes.md"
    (failed,) = _sources_verdict(["document: sorting.md"], hits, "t", required=True)
    assert not failed.passed  # a document it did not read checks nothing
