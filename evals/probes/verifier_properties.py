"""Probe: what the verifier states (kind, properties) for the first N train goals, on a served model (http://127.0.0.1:8080/v1). Run: .venv/bin/python evals/probes/verifier_properties.py 25"""
import json, sys
import yaml
from openai import OpenAI
from roles.verifier.spec import StatedProperties as AnswerSpec, stated
from roles.verifier.checks import request
from roles.verifier.agreement import quoted_in

suite = yaml.safe_load(open("evals/dev.yaml"))
from society.eval.suite import load_suite
s = load_suite("evals/dev.yaml")
train = [c for c in s.cases if c.split == "train"]
client = OpenAI(base_url="http://127.0.0.1:8080/v1", api_key="x")
schema = AnswerSpec.model_json_schema()
n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
for c in train[:n]:
    msgs = request(c.goal, c.inputs, [], None, True)
    m = [{"role": "system", "content": msgs[0].content}, {"role": "user", "content": msgs[1].content}]
    r = client.chat.completions.create(model="qwen2.5-coder-1.5b", messages=m, temperature=0, max_tokens=200,
        extra_body={"response_format": {"type": "json_object", "schema": schema}})
    txt = r.choices[0].message.content
    try:
        spec = AnswerSpec.model_validate_json(txt)
        q = quoted_in(c.goal) | quoted_in(json.dumps(c.inputs))
        kept = stated(spec, q)
    except Exception as e:
        spec, kept = None, []
    print(json.dumps({"case": c.id, "spec": txt, "kept": [p.model_dump() for p in kept]}), flush=True)
