"""The reading's schema against a real llama.cpp server (llama-cpp-python, SmolLM2-135M):
constrained decoding closes a quote's text at `MAX_CHARS`, so a model copying a long
paragraph cannot run one string on to its token limit."""

from __future__ import annotations

import re

import openai
import pytest

from roles.researcher.quoting import MAX_CHARS, evidence_shape

pytestmark = [pytest.mark.timeout(600)]

PARAGRAPH = " ".join(
    f"Revenue in region {i} grew because demand for our cloud services was strong."
    for i in range(1, 25)
)


def test_a_quote_longer_than_the_schema_allows_is_closed_by_decoding(llama_server: str) -> None:
    schema = evidence_shape(["evidence", "quoted"], {"notes.md": PARAGRAPH}).doc
    client = openai.OpenAI(base_url=llama_server, api_key="sk-local", timeout=500)
    reply = client.chat.completions.create(
        model="smollm2",
        messages=[
            {"role": "system", "content": "You answer in JSON."},
            {
                "role": "user",
                "content": "Quote the whole paragraph below, word for word, as the text of "
                f"one quote from notes.md.\n\n{PARAGRAPH}",
            },
        ],
        response_format={"type": "json_object", "schema": schema},  # type: ignore[typeddict-item]
        max_tokens=900,
        temperature=0,
    )
    content = reply.choices[0].message.content or ""
    # every string's content, an unterminated last one too (an answer cut at the limit)
    strings = re.split(r'(?<!\\)"', content)[1::2]
    assert strings, content
    assert max(len(s) for s in strings) <= MAX_CHARS, content
    assert max(len(s) for s in strings) >= 200, content  # it did copy at length
