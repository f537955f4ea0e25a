from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from bus import Envelope, decode, encode, encode_new, sender_name
from bus.envelope import subject_for
from bus.payloads import PAYLOAD_TYPES, Chat, TaskAssignment

from .samples import SAMPLES, TASK


def test_every_payload_type_has_a_sample() -> None:
    assert {type(s) for s in SAMPLES} == set(PAYLOAD_TYPES)


@pytest.mark.parametrize("payload", SAMPLES, ids=lambda p: p.type)
def test_round_trip_every_payload(payload: object) -> None:
    env = Envelope.new("run", "coder/1", payload, parent_id="p1", task_id="t1")  # type: ignore[arg-type]
    back = decode(encode(env))
    assert back == env
    assert encode(back) == encode(env)


@pytest.mark.parametrize("payload", SAMPLES, ids=lambda p: p.type)
def test_lean_encoder_matches_the_model(payload: object) -> None:
    for parent, task in ((None, None), ('quo"te', "t\\1")):
        mid, data = encode_new("run", "coder/1", payload, parent, task)  # type: ignore[arg-type]
        env = decode(data)
        assert env.id == mid and env.payload == payload and env.parent_id == parent
        assert encode(env) == data


def test_ids_are_unique_and_time_ordered() -> None:
    ids = [Envelope.new("r", "a/0", Chat(text="x")).id for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)


def test_decode_refuses_unknown_type_and_extra_keys() -> None:
    good = json.loads(encode(Envelope.new("r", "a/0", Chat(text="x"))))
    bad_type = {**good, "payload": {"type": "nonsense"}}
    with pytest.raises(ValidationError):
        decode(json.dumps(bad_type))
    with pytest.raises(ValidationError):
        decode(json.dumps({**good, "surprise": 1}))


def test_subject_is_derived_from_the_payload() -> None:
    env = Envelope.new("r", "manager/0", TaskAssignment(task=TASK, goal="g"))
    assert subject_for(env) == "society.r.task.coder"
    assert (
        subject_for(env.reply("coder/0", Chat(text="hi", to="planner"))) == "society.r.chat.planner"
    )
    assert sender_name("coder", "2") == "coder/2"
    assert env.role == "manager" and env.instance == "0"
