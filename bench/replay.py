"""Reading a run log: validated typed records against plain ``json.loads``, same file,
same run.

Writes a log of N messages shaped like a real run (assignments, model usage with
answers, sandbox runs with output, results, chat, critiques), then reads it (a) with
``bus.logfile.read_jsonl`` — every line validated into a `LogRecord` with a typed
`Envelope` — and (b) line by line with ``json.loads`` (no validation), both throwing each
parsed line away (the issue's baseline) and keeping them in a list (what a reader must
do). Prints messages per second for each and the ratios, best of R rounds.

Keeping 100,000 parsed objects is dominated by the cyclic garbage collector re-scanning the
growing list (about 3x the parsing itself); ``read_jsonl`` pauses it while it reads, since
log records hold no reference cycles.

    python bench/replay.py [--messages 100000] [--rounds 3]
    python bench/replay.py --short   # seconds: small sizes, checks that it runs

Target (issue 7): typed reading >= 0.5x plain json.loads.
"""

from __future__ import annotations

import argparse
import gc
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import common  # before the project's packages: it drops bench/ from the path

from bus import Envelope
from bus import payloads as p
from bus.envelope import subject_for
from bus.logfile import LogRecord, read_jsonl, write_jsonl

RUN = "bench-replay"
ANSWER = "```python\n" + "import json\nprint(json.dumps({'n': 42}))\n" * 8 + "```"


def _spec(i: int) -> p.TaskSpec:
    return p.TaskSpec(
        id=f"t{i}",
        role="coder",
        description=f"Compute step {i} of the analysis from the inputs and report it.",
        inputs=["limit", f"v{i - 1}"],
        outputs=[f"v{i}"],
        depends_on=[f"t{i - 1}"] if i else [],
    )


def messages(n: int) -> list[LogRecord]:
    """``n`` messages cycling through the shapes of a coding task."""
    records: list[LogRecord] = []
    i = 0
    while len(records) < n:
        task = _spec(i)
        kinds: list[p.Payload] = [
            p.TaskAssignment(task=task, goal="analyse", inputs={"limit": 1000, "v": [1, 2, 3]}),
            p.Usage(kind="model", model="gpt-4o", tokens_in=812, tokens_out=140, answer=ANSWER),
            p.ExecRequest(code=ANSWER, timeout_s=30, input_files=["inputs.json"]),
            p.ExecResult(exit_code=0, stdout="42\n" * 20, stderr="", wall_s=0.05),
            p.Usage(kind="sandbox", sandbox_s=0.05),
            p.TaskResult(
                task_id=task.id, role="coder", status="done", outputs={task.outputs[0]: i}
            ),
            p.Chat(text=f"note {i}: the value looks right", to="manager"),
            p.Critique(detector="repeat", verdict="ok", summary="fine", evidence=["a", "b"]),
        ]
        for payload in kinds:
            env = Envelope.new(RUN, "coder/0", payload, task_id=task.id)
            records.append(LogRecord(seq=len(records) + 1, subject=subject_for(env), envelope=env))
        i += 1
    return records[:n]


def plain(path: Path) -> list[object]:
    count = 0
    with path.open("rb") as f:
        for line in f:
            json.loads(line)
            count += 1
    return [None] * count


def plain_kept(path: Path) -> list[object]:
    with path.open("rb") as f:
        return [json.loads(line) for line in f]


def typed(path: Path) -> list[LogRecord]:
    read = read_jsonl(path)
    assert not read.problems
    return read.records


def best_rate(fn: Callable[[Path], list[Any]], path: Path, n: int, rounds: int) -> float:
    """Messages per second of the fastest round (freeing the result is not timed)."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        result = fn(path)
        elapsed = time.perf_counter() - start
        assert len(result) == n
        del result
        gc.collect()
        best = min(best, elapsed)
    return n / best


SHORT = {"messages": 2_000, "rounds": 2}
"""The sizes of ``--short`` (`common.parse`)."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = common.parse(parser, SHORT)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.jsonl"
        write_jsonl(messages(args.messages), path)
        size = path.stat().st_size
        raw = best_rate(plain, path, args.messages, args.rounds)
        kept = best_rate(plain_kept, path, args.messages, args.rounds)
        ours = best_rate(typed, path, args.messages, args.rounds)
    print(f"log: {args.messages:,} messages, {size / 1e6:.1f} MB")
    print(f"plain json.loads, discarded   {raw:10,.0f} msg/s")
    print(f"plain json.loads, kept        {kept:10,.0f} msg/s")
    print(f"typed read_jsonl (validated)  {ours:10,.0f} msg/s")
    print(f"ratio typed / plain discarded {ours / raw:10.2f}x   (target >= 0.5x)")
    print(f"ratio typed / plain kept      {ours / kept:10.2f}x")


if __name__ == "__main__":
    main()
