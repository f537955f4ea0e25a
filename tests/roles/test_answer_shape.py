"""The researcher's answer shape: the schema a per-task pydantic model would give, built as
a dict, and the same refusals (a missing output goes back to the model by name)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, create_model

from bus.evidence import Quote
from roles.model_access import structured_args
from roles.researcher import answer_shape, evidence_shape
from roles.researcher.quoting import MAX_CHARS, MAX_LABEL, MAX_QUOTES
from roles.structured import AnswerInvalid, CodeAnswer, shape_of

pytestmark = pytest.mark.timeout(30)


class _Base(BaseModel):
    model_config = ConfigDict(extra="ignore")

    ask: str | None = None
    ask_human: str | None = None
    outputs: Any = None
    summary: str = ""
    sources: list[str] = []
    quotes: list[Quote] = []
    answer_is: Literal["stated", "computed"] | None = None


def _per_task_model(outputs: list[str]) -> type[BaseModel]:
    """How answers were shaped before: a model class with a required field per output."""
    found = Annotated[str, Field(min_length=1)] | float | Annotated[list[str], Field(min_length=1)]
    fields: dict[str, Any] = {name: (found, ...) for name in outputs}
    out = create_model("Outputs", __config__=ConfigDict(extra="ignore"), **fields)
    return create_model("ResearchAnswer", __base__=_Base, outputs=(out | None, None))


@pytest.mark.parametrize("outputs", [[], ["count"], ["count", "estimate", "ratio"], ["a b", "ü"]])
def test_the_schema_is_the_one_a_model_per_task_would_give(outputs: list[str]) -> None:
    expected = _per_task_model(outputs).model_json_schema()
    for field in expected["$defs"]["Outputs"]["properties"].values():
        del field["title"]  # a field's title tells the model nothing
    assert answer_shape(outputs).doc == expected


def test_shapes_do_not_share_their_schemas() -> None:
    first, second = answer_shape(["a"]), answer_shape(["b"])
    assert first.doc["$defs"]["Outputs"]["required"] == ["a"]
    assert second.doc["$defs"]["Outputs"]["required"] == ["b"]


def test_an_answer_missing_an_output_is_refused_by_name() -> None:
    shape = answer_shape(["count", "estimate"])
    with pytest.raises(AnswerInvalid, match=r"^outputs\.estimate: Field required$"):
        shape.parse('{"outputs": {"count": 3}}')
    with pytest.raises(AnswerInvalid, match="outputs: Input should be an object"):
        shape.parse('{"outputs": [3]}')
    with pytest.raises(AnswerInvalid, match="give either outputs or a question"):
        shape.parse("{}")
    with pytest.raises(AnswerInvalid, match=r"outputs\.estimate: give what was found"):
        shape.parse('{"outputs": {"count": 3, "estimate": {}}}')


def test_a_list_of_the_answers_own_json_pieces_is_refused() -> None:
    shape = answer_shape(["primes"])
    leaked = '{"outputs": {"primes": ["],", "summary", "The theorem says x / ln x."]}}'
    with pytest.raises(AnswerInvalid, match=r"outputs\.primes: a list holds the texts found"):
        shape.parse(leaked)
    fine = shape.parse('{"outputs": {"primes": ["2", "3", "5 and 7"]}}')
    assert fine.outputs == {"primes": ["2", "3", "5 and 7"]}


def test_complete_answers_and_questions_pass() -> None:
    shape = answer_shape(["count"])
    answer = shape.parse('Here: {"outputs": {"count": 3, "extra": 1}, "summary": "s"}')
    assert answer.outputs == {"count": 3, "extra": 1}
    assert answer.summary == "s"
    assert shape.parse('{"ask": "which limit?"}').ask == "which limit?"


def test_each_server_mode_gets_the_shapes_schema() -> None:
    shape = answer_shape(["count"])
    named = structured_args("json_schema", shape)["response_format"]["json_schema"]
    assert named["name"] == "ResearchAnswer"
    assert named["schema"] is shape.doc
    assert structured_args("json_object", shape)["response_format"]["schema"] is shape.doc
    assert structured_args("vllm", shape) == {"extra_body": {"guided_json": shape.doc}}
    assert structured_args("ollama", shape) == {"format": shape.doc}
    assert structured_args("prompt", shape) == {}
    assert structured_args("json_schema", None) == {}


def test_a_plain_models_shape_is_computed_once() -> None:
    assert shape_of(CodeAnswer) is shape_of(CodeAnswer)
    assert shape_of(CodeAnswer).doc == CodeAnswer.model_json_schema()


def test_a_raw_newline_inside_a_string_is_taken_as_written() -> None:
    # llama.cpp's schema grammar lets a model put a raw newline in a string; Python's own
    # parser refuses it by default, which would spend a retry on an answer the server allowed
    from roles.structured import code_from, parse_answer

    raw = '{"code": "x = 1\nprint(x)\n"}'
    assert code_from(raw) == "x = 1\nprint(x)\n"
    assert parse_answer(raw, CodeAnswer).code == "x = 1\nprint(x)\n"
    with pytest.raises(AnswerInvalid, match="not valid JSON"):
        parse_answer('{"code": "x = 1\n",}', CodeAnswer)
    with pytest.raises(AnswerInvalid, match="code"):
        parse_answer('{"program": "a\nb"}', CodeAnswer)


def test_a_task_asking_for_evidence_is_held_to_quoting_with_the_place_first() -> None:
    table = "| | 2019 | 2018 |\n|---|---|---|\n| Revenue | 1,234 | 1,000 |\n"
    doc = evidence_shape(["evidence", "quoted"], {"table.md": table, "notes.md": "Text."}).doc
    assert list(doc["properties"]) == ["quotes", "answer_is", "outputs"]  # nothing more
    assert doc["properties"]["answer_is"]["enum"] == ["stated", "computed"]
    assert doc["properties"]["quotes"]["minItems"] == 1 and "outputs" in doc["required"]
    quote = doc["properties"]["quotes"]["items"]
    assert list(quote["properties"]) == ["source", "row", "column", "text"]
    assert quote["properties"]["source"]["enum"] == ["table.md", "notes.md"]
    assert quote["properties"]["row"] == {"type": "string", "maxLength": MAX_LABEL}  # no enum
    assert quote["properties"]["text"]["maxLength"] == MAX_CHARS  # decoding closes it there
    said = doc["properties"]["outputs"]["properties"]["quoted"]["anyOf"]
    assert said[0]["maxLength"] == MAX_CHARS and said[1]["maxItems"] == MAX_QUOTES
    assert list(doc["properties"]["outputs"]["properties"]) == ["quoted"]  # evidence: the quotes
    searched = evidence_shape(["evidence", "quoted"], None).doc["properties"]["quotes"]["items"]
    assert searched["properties"]["source"] == {"type": "string"}
