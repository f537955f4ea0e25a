"""Probe: the prose view's final value for the named train cases, on a served model (http://127.0.0.1:8080/v1). Run: .venv/bin/python evals/probes/prose_view.py ID,ID,..."""
import sys, json
from openai import OpenAI
from roles.coder import prose
from society.eval.suite import load_suite
s = load_suite("evals/dev.yaml")
ids = sys.argv[1].split(",")
client = OpenAI(base_url="http://127.0.0.1:8080/v1", api_key="x")
for c in s.cases:
    if c.id not in ids: continue
    msgs = prose.request(c.goal, c.goal, c.inputs, {}, "")
    m = [{"role": "system", "content": msgs[0].content}, {"role": "user", "content": msgs[1].content}]
    r = client.chat.completions.create(model="qwen2.5-coder-1.5b", messages=m, temperature=0, max_tokens=700)
    t = r.choices[0].message.content
    try:
        v = prose.worked(t).outputs["answer"]
    except Exception as e:
        v = f"FAILED: {e}"
    print(json.dumps({"case": c.id, "value": v, "tokens": r.usage.completion_tokens, "tail": t[-200:]}), flush=True)
