"""The suite file: shared defaults (models, roles, budgets, sandbox) and cases, each a goal
with inputs, optional documents and graders. Loaded like a scenario: every problem names
the file, the line and the field, and unknown keys are refused.

Each case becomes a `Scenario` (`Suite.scenario_of`), so it runs exactly as
``society run`` would run that scenario file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, model_validator

from bus.deliverable import Deliverable
from bus.delivery import DeliverySettings
from roles.budget import BudgetSettings
from roles.settings import PresenceSettings
from sandbox.settings import SandboxSettings
from society.errors import ScenarioError, ScenarioIssue
from society.eval.split import Split, SplitSpec, draw_split
from society.models.spec import ModelSpec, ScriptedAnswer
from society.scenario import RolesSpec, Scenario
from society.yaml_source import YamlLimitError, load_yaml

__all__ = [
    "KINDS",
    "AnswerKey",
    "Case",
    "Choice",
    "Contains",
    "Defaults",
    "Equals",
    "Grader",
    "Number",
    "PythonCheck",
    "Regex",
    "Split",
    "SplitSpec",
    "Suite",
    "TatQA",
    "load_suite",
]

KINDS = (
    "dates",
    "number-theory",
    "statistics",
    "finance",
    "text",
    "units-physics",
    "tables",
    "policies",
    "combinatorics",
    "word-problems",
    "code",
)
"""The kinds of goal a case may be tagged with (results are tabled per kind)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _GraderBase(_Strict):
    output: str | None = None
    """Grade this named output of the run instead of its answer text."""


class Contains(_GraderBase):
    """The answer holds each of these texts."""

    kind: Literal["contains"] = "contains"
    text: str | list[str]
    """A text, or texts that must all appear."""
    case_sensitive: bool = False


class Regex(_GraderBase):
    """The answer matches a regular expression (`re.search`)."""

    kind: Literal["regex"] = "regex"
    pattern: str
    ignore_case: bool = True


class Number(_GraderBase):
    """The answer states a number within a tolerance of ``value``, and not many more: an
    answer that lists numbers until one fits is no answer."""

    kind: Literal["number"] = "number"
    value: float
    tolerance: float = Field(default=1e-6, ge=0)
    """Largest absolute difference accepted."""
    relative: float = Field(default=0.0, ge=0)
    """Largest difference accepted as a fraction of ``value`` (the larger bound wins)."""
    max_numbers: int = Field(default=12, ge=1)
    """The grader fails an answer stating more numbers than this (a date counts three)."""


class Choice(_GraderBase):
    """The answer names ``value`` (a whole word, any case) and none of the other
    ``options``: a weekday, a region, yes or no — listing every option is no answer."""

    kind: Literal["choice"] = "choice"
    value: str = Field(min_length=1)
    options: list[str] = Field(min_length=2)

    @model_validator(mode="after")
    def _value_is_an_option(self) -> Choice:
        if self.value.casefold() not in {o.casefold() for o in self.options}:
            msg = f"value {self.value!r} is not one of the options"
            raise ValueError(msg)
        return self


class Equals(_GraderBase):
    """The answer (or output) is ``value``: texts compared with whitespace collapsed and,
    unless case_sensitive, case folded; numbers within 1e-9; other JSON exactly."""

    kind: Literal["equals"] = "equals"
    value: JsonValue
    case_sensitive: bool = False


class PythonCheck(_Strict):
    """A check program, run in the sandbox (never on the host): it sees ``answer`` (str),
    ``outputs`` (dict), ``inputs`` (dict) and ``artifacts`` (name -> bytes) as globals, and
    passes when it exits 0 (an ``assert`` that fails says why)."""

    kind: Literal["python"] = "python"
    code: str = Field(min_length=1)
    timeout_s: float = Field(default=30.0, gt=0, le=600)


class TatQA(_GraderBase):
    """TAT-QA's exact match with scale, read from a sentence (`society.eval.tatqa_metric`):
    the gold value at its scale, or every gold span, stated in the answer."""

    kind: Literal["tatqa"] = "tatqa"
    answer: list[str] = Field(min_length=1)
    """The gold answers as the metric's strings: the spans, or the one number."""
    answer_type: Literal["span", "multi-span", "count", "arithmetic"]
    scale: Literal["", "thousand", "million", "billion", "percent"] = ""
    max_numbers: int = Field(default=12, ge=1)
    """An answer stating more numbers than this fails (a list is no answer)."""
    max_words: int = Field(default=150, ge=1)
    """An answer longer than this (plus twice the gold's words) fails."""


Grader = Annotated[
    Contains | Regex | Number | Equals | Choice | TatQA | PythonCheck, Field(discriminator="kind")
]


class AnswerKey(_Strict):
    """How a case's expected answer is known and its graders are shown to discriminate
    (`society.eval.answer_key` checks both): never shown to an arm."""

    solution: str = Field(min_length=1)
    """A standard-library program that computes the right answer and prints it (``inputs``
    is defined; the documents are files in its folder): its output must pass the graders."""
    wrong: list[str] = Field(min_length=1)
    """Plausible wrong answers (an off-by-one, a rule forgotten): each must fail a grader."""


class Case(_Strict):
    """One goal to answer, and how its answer is graded (every grader must pass)."""

    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    """Unique in the suite; run ids start with it."""
    goal: str = Field(min_length=1)
    inputs: dict[str, JsonValue] = {}
    """Named values given with the goal (to every arm)."""
    documents: list[str] = []
    """Files (relative to the suite) the researcher may read; baselines get their text."""
    graders: list[Grader] = Field(min_length=1)
    checks: list[Grader] = []
    """Checks an arm may run on its own answer (the ``loop`` baseline does): unlike the
    graders, these are visible; never put the graded answer here."""
    answer: Literal["text", "code"] = "text"
    """What the answer is: text (a program baseline prints it), or the code of a Python
    function (HumanEval: the program baseline's code is the answer)."""
    deliverable: Deliverable | None = None
    """For a code answer: the function (name and stub) the society's coder writes and
    checks by its docstring's examples."""
    budgets: BudgetSettings | None = None
    """This case's budgets instead of the suite's."""
    script: dict[str, list[ScriptedAnswer]] = {}
    """Scripted model answers by role (offline tests); ``direct`` and ``program`` script
    the baselines."""
    tags: list[str] = []
    kind: str | None = Field(default=None, pattern=r"^[a-z][a-z0-9-]*$")
    """The kind of goal (one of `KINDS`): the split and the tables go by it."""
    split: Split | None = None
    """``train`` or ``val``; pinned here, or drawn from the suite's ``split`` at load."""
    source: str = ""
    """Where the case was drawn from (a public data set's file and line)."""
    key: AnswerKey | None = None
    """The answer key (solution program and wrong answers); never shown to an arm."""
    remark: str = ""
    """What a person said about the run this case came from (a feedback suite's case,
    `society rate`): ``society train`` shows it to the reflection model, never to an arm."""


class Defaults(_Strict):
    """What every case of the suite shares (a scenario's settings)."""

    models: dict[str, ModelSpec] = {"default": ModelSpec()}
    roles: RolesSpec = RolesSpec()
    budgets: BudgetSettings = BudgetSettings()
    sandbox: SandboxSettings = SandboxSettings()
    delivery: DeliverySettings = DeliverySettings()
    presence: PresenceSettings = PresenceSettings()


class Suite(_Strict):
    """A suite file."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_-]+$")
    description: str = ""
    defaults: Defaults = Defaults()
    split: SplitSpec | None = None
    """Draw a train/val split (cases without a ``split`` of their own)."""
    cases: list[Case] = Field(min_length=1)
    base_dir: Path = Field(default=Path("."), exclude=True)
    """Folder of the suite file (documents resolve from it); not a YAML key."""

    @model_validator(mode="after")
    def _drawn(self) -> Suite:
        """Every case's half filled in from ``split`` (where the case pins none)."""
        if self.split is not None and any(c.split is None for c in self.cases):
            halves = draw_split(self.cases, self.split)
            self.cases = [c.model_copy(update={"split": halves[c.id]}) for c in self.cases]
        return self

    def case(self, case_id: str) -> Case:
        """The case named ``case_id`` (KeyError when there is none)."""
        for case in self.cases:
            if case.id == case_id:
                return case
        raise KeyError(case_id)

    def kinds(self) -> list[str]:
        """The kinds its cases are tagged with, in first-seen order."""
        return list(dict.fromkeys(c.kind for c in self.cases if c.kind))

    def scenario_of(self, case: Case) -> Scenario:
        """The scenario that runs ``case``: the defaults, the goal, its documents as the
        researcher's corpus, its budgets and script."""
        d = self.defaults
        roles = d.roles
        if case.documents:
            researcher = roles.researcher.model_copy(update={"corpus": list(case.documents)})
            roles = roles.model_copy(update={"researcher": researcher})
        data: dict[str, Any] = {
            "name": case.id,
            "description": f"{self.name}: {case.id}",
            "goal": {"text": case.goal, "inputs": case.inputs, "deliverable": case.deliverable},
            "models": d.models,
            "roles": roles,
            "budgets": case.budgets or d.budgets,
            "sandbox": d.sandbox,
            "delivery": d.delivery,
            "presence": d.presence,
            "script": case.script,
            "base_dir": self.base_dir,
        }
        return Scenario.model_validate(data)


def _issues(exc: ValidationError, path: Path, line_of: Any) -> list[ScenarioIssue]:
    issues = []
    for err in exc.errors():
        loc = tuple(err["loc"])
        message = err["msg"]
        if err["type"] == "extra_forbidden":
            message = "unknown key (check the spelling; unknown keys are not allowed)"
        field = ".".join(str(p) for p in loc)
        issues.append(ScenarioIssue(path, line_of(loc), field, message))
    return issues


def load_suite(path: Path | str) -> Suite:
    """Load and validate a suite file; raises `ScenarioError` listing every problem with
    its file, line and field."""
    path = Path(path)
    try:
        source = load_yaml(path)
    except FileNotFoundError:
        raise ScenarioError([ScenarioIssue(path, None, "", "file not found")]) from None
    except (IsADirectoryError, UnicodeDecodeError, OSError) as exc:
        raise ScenarioError([ScenarioIssue(path, None, "", f"cannot read: {exc}")]) from None
    except Exception as exc:  # yaml.YAMLError, YamlLimitError: name the line
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        if not isinstance(exc, YamlLimitError):
            problem = f"invalid YAML: {problem}"
        raise ScenarioError([ScenarioIssue(path, line, "", problem)]) from None
    data = source.data
    if not isinstance(data, dict):
        raise ScenarioError([ScenarioIssue(path, 1, "", "a suite is a YAML mapping")])
    if "base_dir" in data:
        line = source.line_of(("base_dir",))
        raise ScenarioError([ScenarioIssue(path, line, "base_dir", "unknown key")])
    try:
        suite = Suite.model_validate({**data, "base_dir": path.resolve().parent})
    except ValidationError as exc:
        raise ScenarioError(_issues(exc, path, source.line_of)) from None
    issues = _cross_check(suite, path, source.line_of)
    if issues:
        raise ScenarioError(issues)
    return suite


def _cross_check(suite: Suite, path: Path, line_of: Any) -> list[ScenarioIssue]:
    """Duplicate ids, documents that are not there, models roles name, and each case as the
    scenario it becomes."""
    issues: list[ScenarioIssue] = []

    def add(loc: tuple[str | int, ...], message: str) -> None:
        field = ".".join(str(p) for p in loc)
        issues.append(ScenarioIssue(path, line_of(loc), field, message))

    seen: set[str] = set()
    for i, case in enumerate(suite.cases):
        if case.id in seen:
            add(("cases", i, "id"), f"duplicate id {case.id!r}")
        seen.add(case.id)
        if case.kind is not None and case.kind not in KINDS:
            add(("cases", i, "kind"), f"unknown kind {case.kind!r} (kinds: {', '.join(KINDS)})")
        if suite.split is not None and case.kind is None:
            add(("cases", i), "the suite is split by kind: give this case a kind")
        for j, doc in enumerate(case.documents):
            if not (suite.base_dir / doc).is_file():
                add(("cases", i, "documents", j), f"{doc!r} not found beside the suite")
    for role, model in suite.defaults.roles.model_names().items():
        if model not in suite.defaults.models:
            known = ", ".join(sorted(suite.defaults.models)) or "none"
            message = f"no model named {model!r} in defaults.models (known: {known})"
            add(("defaults", "roles", role, "model"), message)
    if issues:
        return issues
    for i, case in enumerate(suite.cases):
        try:
            suite.scenario_of(case)
        except ValidationError as exc:
            for issue in _issues(exc, path, lambda _loc, i=i: line_of(("cases", i))):
                issues.append(issue)
    return issues
