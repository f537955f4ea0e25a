"""What a program that ran must still show before its outputs are taken: one signature for
every check, ``(Attempt) -> str`` — the empty string when the attempt holds, else what is
wrong, phrased for the model that wrote it. `CHECKS` are run in order; the first problem is
the feedback.

- `ran`: it exited 0 in time (else the exit code, stderr's tail and the hints that name the
  mistakes small models make);
- `wrote_outputs`: it wrote every output (``outputs.json``, all of it for a lone answer that
  it does not key, or the one other JSON file that
  holds them all, or a single printed value — the number of a ``name: number`` line — or the
  file its one printed line names, or, when it printed nothing, variables of the outputs'
  names);
- `valued`: its outputs are values, not a Python object's text (``<class 'itertools.count'>``,
  ``<generator object …>``), ``nan``, ``inf``, control characters or null: what a program that printed the wrong
  name gives, which a second program can repeat;
- `computed`: its result is computed, not written in as a literal, from inputs that exist;
- `unfloored`: no quotient is cut to a whole number by ``//`` with a fraction for divisor;
- `one_value` (a task whose one output another task reads): it printed that one value, not
  several lines of values;
- `defined` (a task that answers the goal, where the goal defines a value in its own words,
  "how close they are (the count divided by the estimate)"): its answer states what the
  figures it names give (`roles.verifier.relation`);
- `brief` (the goal check): its answer states the values the goal asks for, not the data
  they were computed from (a list of 1,229 primes).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from pydantic import JsonValue

from bus.payloads import TaskSpec
from roles.coder.hints import code_hints, describe_run
from roles.coder.program_checks import floored, inputs_hint, unchecked_problem
from roles.execution import ExecutionResult, notes_text
from roles.program import NAMED
from roles.structured import AnswerInvalid
from roles.verifier.agreement import given_in
from roles.verifier.goal_check import OUTPUT
from roles.verifier.relation import Relation, gives, holds, relation_in
from roles.verifier.values import numbers
from sandbox.manifest import Manifest, missing_module_hint

__all__ = [
    "CHECKS",
    "Attempt",
    "Check",
    "brief",
    "checks_for",
    "computed",
    "defined",
    "hints_text",
    "one_value",
    "ran",
    "read_outputs",
    "run_problem",
    "unfloored",
    "valued",
    "wrote_outputs",
]


@dataclass(frozen=True)
class Attempt:
    """One program that ran, and what it was asked to do."""

    code: str
    run: ExecutionResult
    outputs: list[str]
    """The outputs the task names."""
    inputs: Mapping[str, JsonValue] = field(default_factory=dict)
    quoted: frozenset[float] = frozenset()
    """Numbers the goal itself states (a literal equal to one is not written in)."""
    libraries: Manifest | None = None


Check = Callable[[Attempt], str]
"""A check of an attempt: "" when it holds, else the problem, for the model."""


def read_outputs(outputs: list[str], run: ExecutionResult) -> dict[str, JsonValue]:
    """The task's outputs from ``outputs.json``, else the printed value of a single output."""
    raw = run.files.get("outputs.json")
    if raw is not None:
        try:
            data = json.loads(raw)
        except ValueError as exc:
            msg = f"outputs.json is not valid JSON: {exc}"
            raise AnswerInvalid(msg) from None
        if len(outputs) == 1 and (whole := _whole(data, outputs[0])) is not None:
            return {outputs[0]: whole}
        if not isinstance(data, dict):
            msg = "outputs.json must hold a JSON object"
            raise AnswerInvalid(msg)
        missing = [o for o in outputs if o not in data]
        if missing:
            msg = f"outputs.json lacks {missing}"
            raise AnswerInvalid(msg)
        return {o: data[o] for o in outputs}
    if outputs and (misnamed := _misnamed_outputs(run, outputs)) is not None:
        return misnamed
    if len(outputs) == 1 and run.stdout.strip():
        text = _named_file(run) or run.stdout.strip()
        try:
            value: JsonValue = _own(json.loads(text), outputs[0])
        except ValueError:
            value = _labelled(text, outputs[0])
        return {outputs[0]: value}
    if outputs and NAMED in run.files:
        named = json.loads(run.files[NAMED])  # the prelude wrote it from a dict: an object
        return {o: named[o] for o in outputs}
    if not outputs:
        return {}
    msg = f"the program wrote no outputs.json with {outputs}"
    raise AnswerInvalid(msg)


WHOLE = frozenset({"answer", OUTPUT})
"""The outputs that take a whole ``outputs.json`` not keyed by them: an answer states every
value asked, however the program laid them out."""


def _whole(data: JsonValue, name: str) -> JsonValue | None:
    """The one output ``name`` from an ``outputs.json`` not keyed by it: an answer's is all of
    it (a live 1.5B goal check, twice, wrote the right count, estimate and ratio as a list
    and as its own keys, and failed three attempts on a missing key).
    None: another output (a value under another key may be another value), or keyed by it,
    or empty."""
    if name not in WHOLE or (isinstance(data, dict) and name in data):
        return None
    return None if data in (None, "", [], {}) else data


def _misnamed_outputs(run: ExecutionResult, outputs: list[str]) -> dict[str, JsonValue] | None:
    """The outputs from the one other JSON file the program wrote that holds them all
    (``output.json``, a live 1.5B count task: its own values under another file name)."""
    found = []
    for name, data in run.files.items():
        if not name.endswith(".json") or name in ("outputs.json", "inputs.json", NAMED):
            continue
        try:
            held = json.loads(data)
        except ValueError:
            continue
        if isinstance(held, dict) and all(o in held for o in outputs):
            found.append({o: held[o] for o in outputs})
    return found[0] if len(found) == 1 else None


_LABELLED = re.compile(
    r"\s*([A-Za-z][A-Za-z _-]*?)\s*[:=]\s*(-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*"
)


def _own(value: JsonValue, name: str) -> JsonValue:
    """The value a printed dict holds under the output's own name (a live 1.5B count task
    printed ``{'num_primes': 1229, 'estimate': …, 'close_ratio': …}`` for ``num_primes``);
    else ``value`` as it is. An ``answer`` keeps all of it."""
    if name != "answer" and isinstance(value, dict) and name in value:
        held = value[name]
        if isinstance(held, (int, float, str)) and not isinstance(held, bool):
            return held
    return value


def _labelled(text: str, name: str) -> JsonValue:
    """The number of a printed ``name: number`` line, or what a printed Python dict holds
    under ``name`` (`_own`; a live 1.5B estimate printed "estimate: 1085.736…", and the tasks
    that read it failed on float() three times each); else ``text`` as it is. An ``answer``
    keeps its words."""
    if name == "answer":
        return text
    key = re.sub(r"[\s_-]+", "_", name.strip().lower())
    if (m := _LABELLED.fullmatch(text)) is not None:
        if re.sub(r"[\s_-]+", "_", m.group(1).strip().lower()) == key:
            number = m.group(2).replace(",", "")
            return float(number) if any(c in number for c in ".eE") else int(number)
        return text
    try:
        held = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return text
    own = _own(held, name) if isinstance(held, dict) else None
    return own if isinstance(own, (int, float, str)) else text


def _named_file(run: ExecutionResult) -> str | None:
    """The text of a file the program wrote and names in the one line it printed ("Answer
    has been written to answer.txt", a live 1.5B answer task): where it put the value."""
    said = run.stdout.strip()
    if "\n" in said:
        return None
    for name, data in run.files.items():
        if name == "outputs.json" or PurePosixPath(name).name not in said or len(data) > 4000:
            continue
        try:
            text = data.decode().strip()
        except UnicodeDecodeError:
            continue
        if text:
            return text
    return None


def _tail(text: str, n: int = 2000) -> str:
    return text if len(text) <= n else "…" + text[-n:]


def hints_text(code: str, run: ExecutionResult, outputs: list[str]) -> str:
    """The hints for a failed run, one ``Hint:`` line each."""
    return "".join(f"\nHint: {h}" for h in code_hints(code, run, outputs))


def run_problem(run: ExecutionResult) -> str:
    """What went wrong with the run itself, then the sandbox's notes (a full tmpfs, files
    dropped...), which name causes the program's own output may not ("" when it ran)."""
    if run.error:
        return f"the sandbox failed: {run.error}"
    if run.timed_out:
        problem = "the program was killed at the time limit (make it faster or stop looping)"
    elif run.oom_killed:
        problem = (
            "the program was killed for using too much memory (files it writes count "
            "against the memory limit too)"
        )
    elif run.exit_code != 0:
        problem = f"the program exited with code {run.exit_code}; stderr:\n{_tail(run.stderr)}"
    else:
        return ""
    return problem + notes_text(run)


def ran(a: Attempt) -> str:
    """It exited 0 in time; a failure comes with the hints that name its likely cause."""
    problem = run_problem(a.run)
    if a.run.exit_code not in (0, None) and not a.run.timed_out:
        problem += missing_module_hint(a.run.stderr, a.libraries)
        problem += hints_text(a.code, a.run, a.outputs)
        problem += inputs_hint(a.code, a.inputs)
    return problem


def wrote_outputs(a: Attempt) -> str:
    """It wrote every output the task names."""
    try:
        read_outputs(a.outputs, a.run)
    except AnswerInvalid as exc:
        return (
            f"{exc}\n{describe_run(a.run, a.outputs)}"
            + hints_text(a.code, a.run, a.outputs)
            + notes_text(a.run)
        )
    return ""


NOT_A_VALUE = re.compile(
    r"<(?:class|function|built-in function|bound method|module|generator object|map object"
    r"|filter object|zip object)\s[^\n>]*>?|<[\w.]+ object at 0x[0-9a-fA-F]+>|(?<![\w.])-?(?:nan|inf)(?![\w-])"
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"
)
"""What a program prints when it prints an object, a float that is no number, or bytes that
are no text (control characters)."""


def _not_values(value: JsonValue) -> list[str]:
    match value:
        case None:
            return ["null"]
        case str() if value.strip() == "None":
            return ["None"]
        case str():
            return [m.group(0) for m in NOT_A_VALUE.finditer(value)]
        case list():
            return [bad for v in value for bad in _not_values(v)]
        case dict():
            return [bad for v in value.values() for bad in _not_values(v)]
        case _:
            return []


def valued(a: Attempt) -> str:
    """Its outputs hold values, not a Python object's text, ``nan``, ``inf`` or null."""
    outputs = read_outputs(a.outputs, a.run)
    for name, value in outputs.items():
        bad = _not_values(value)
        if bad:
            return (
                f"the output {name!r} holds {bad[0]!r}, which is not a value: the program "
                "wrote an object, or a computation that found nothing, where the value "
                "belongs. Compute the value and write it."
            )
    return ""


def computed(a: Attempt) -> str:
    """Its result is computed, from inputs that exist (`unchecked_problem`). A number the
    task is given as an input is no more worked out outside the program than one the goal
    states (a live 1.5B report task wrote the count and estimate it was given as literals,
    and was sent back twice)."""
    given = given_in(a.inputs)
    return unchecked_problem(a.code, read_outputs(a.outputs, a.run), a.inputs, a.quoted | given)


def unfloored(a: Attempt) -> str:
    """No quotient is floored by ``//`` with a fraction for divisor (`floored`): live 1.5B
    goal checks wrote ``limit // math.log(limit)`` in three quickstarts of four, and gave
    the prime number theorem's estimate as 1085.0 where it is 1085.74."""
    cut = floored(a.code)
    if not cut:
        return ""
    return (
        f"`{cut[0]}` cuts the quotient to a whole number: `//` floors it, and the divisor is "
        "a fraction. Divide with `/`, and round only where the task asks for a whole number."
    )


_NUMBER = re.compile(r"\d")


def one_value(a: Attempt) -> str:
    """A task's one output is one value: a live 1.5B count task printed the count, the
    estimate and their ratio, three lines, and the next task could not read its count."""
    if len(a.outputs) != 1 or "outputs.json" in a.run.files:
        return ""
    said = a.run.stdout.strip()
    try:
        json.loads(said)
    except ValueError:
        pass
    else:
        return ""  # a list or an object, as JSON, is one value
    lines = [line for line in said.splitlines() if _NUMBER.search(line)]
    if len(lines) < 2:
        return ""
    name = a.outputs[0]
    return (
        f"the task has one output, {name!r}, and the program printed {len(lines)} lines "
        f"of values: print only {name}'s value, once (a list as one JSON list). The other "
        "values are other tasks' work."
    )


def defined(relation: Relation) -> Check:
    """The answer states what the goal's own relation gives for the figures it names: a live
    1.5B plan's answer task gave a count of 1229, an estimate of 1085.74 and a "ratio" of
    0.00104, and goal check programs the count's excess over the estimate, 0.132, for "how
    close they are (the count divided by the estimate)"; each broke the goal's definition,
    which no comparison of programs sees, and was only refused at the end of the run."""

    def check(a: Attempt) -> str:
        outputs = read_outputs(a.outputs, a.run)
        for name in ("answer", OUTPUT):
            value = outputs.get(name)
            if value is None or holds(relation, value) is not False:
                continue
            given = gives(relation, value)
            assert given is not None  # holds() is False only where both operands are named
            left, right, want = given
            wanted = f", which give {want:.6g}," if want is not None else ""
            return (
                f"the goal defines a value as ({relation.words}). Your {name} names {left:g} "
                f"and {right:g} for those two{wanted} and it states no such value. Compute "
                "that value exactly as the goal's words define it, and state it."
            )
        return ""

    return check


MOST_STATED = 20
"""More numbers than a goal check's one sentence states: what it computed from, not what the
goal asks (a goal asking for more values than this is answered by a plan, not checked)."""


def brief(a: Attempt) -> str:
    """The goal check states its values, not its data: a live 1.5B goal check (8f79ffc)
    printed the primes below 10000, which neither confirmed nor refuted a right answer, and
    the run ended unverified where a sentence of three values could have settled it."""
    value = read_outputs(a.outputs, a.run).get(OUTPUT)
    stated = len(numbers(value)) if value is not None else 0
    if stated <= MOST_STATED:
        return ""
    return (
        f"your {OUTPUT} states {stated} numbers: it is one sentence that states each value "
        "the goal asks for, not the data the values are computed from. Compute from the data "
        "in the program, and state only the values asked."
    )


CHECKS: tuple[Check, ...] = (ran, wrote_outputs, valued, computed, unfloored)
"""Every check of a program, in the order the first problem is reported."""


def checks_for(task: TaskSpec, goal: str = "") -> tuple[Check, ...]:
    """Every check; a plan's step towards the answer (one output, not ``answer``, not the
    goal check) also prints one value, as another task reads it; the goal check states its
    values briefly (`brief`); a task answering the goal states what the relation its words
    define gives (`defined`)."""
    if task.purpose == "work" and len(task.outputs) == 1 and task.outputs != ["answer"]:
        return (*CHECKS, one_value)
    checks = (*CHECKS, brief) if task.purpose == "goal_check" else CHECKS
    relation = relation_in(goal)
    if relation is not None and ({"answer", OUTPUT} & set(task.outputs)):
        return (*checks, defined(relation))
    return checks
