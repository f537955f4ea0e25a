"""The researcher: answers a task from its sources — long-term memory and a local document
corpus. It may ask the planner to clarify a task, and, when the scenario allows questions
to the human, ask the person attached (the default answer leaves the decision to it).

Asked for ``evidence``, it quotes what the task needs as it stands in the documents, with
where it stands; code confirms every quote (`grounding`), and a quote that is not there goes
back to the model once with what does stand there. A statement of what the documents say
is confirmed against them the same way (`statements`).

Uses: the model (and budget guard), the corpus, long-term memory and its recall count.
"""

from __future__ import annotations

import json

from autogen_core.models import AssistantMessage, LLMMessage, UserMessage
from pydantic import JsonValue

from bus import Envelope
from bus.payloads import TaskAssignment, TaskResult
from bus.verdicts import CheckVerdict
from roles.errors import TaskFailed
from roles.memory import Hit
from roles.reports.scale import with_scale
from roles.researcher.answer import (
    EVIDENCE,
    QUOTED,
    VALUES,
    ResearchAnswer,
    answer_shape,
    quoted_values,
)
from roles.researcher.grounding import ground, grounding_verdict, labels, placed
from roles.researcher.quoting import QUOTING, evidence_shape
from roles.researcher.reading import reading, whole
from roles.researcher.statements import statement_problems, statement_verdict
from roles.settings import ResearcherSettings
from roles.structured import AnswerShape
from roles.worker import WorkerRole, task_header

__all__ = ["Researcher", "cited_source"]

SYSTEM = """You are the researcher of a team of AI agents. You answer a task using the
sources you are given (documents, lessons, search results) and your knowledge, say where
each fact comes from, and never invent sources. Answer with one JSON object only:
{"outputs": {<one key per requested output>}, "summary": "...", "sources": ["..."]}
If the task is unclear, you may instead ask the planner one question:
{"ask": "your question"}"""

ASK_HUMAN = """If only the person you work for can decide (a preference, a choice between
options), you may instead ask them one question: {"ask_human": "your question"}"""

NO_ANSWER = "(no answer: decide yourself)"


def cited_source(cited: str, labels: set[str]) -> str:
    """The source a citation names, as the prompt labels it or bare: ``[document: primes.md]``
    and ``document: primes.md`` name ``primes.md`` (a live 1.5B researcher cited the label
    its prompt shows, and its right answer failed the check)."""
    text = cited.strip().strip("[]").strip()
    label, colon, rest = text.partition(":")
    return rest.strip() if colon and label.strip().lower() in labels else text


def _sources_verdict(
    cited: list[str], hits: list[Hit], task_id: str, *, required: bool
) -> list[CheckVerdict]:
    """The answer's check: it cites documents it was given. Sources it did not read, or none
    at all, check nothing: a failed check when sources are required, else no check (an
    uncited answer is never a pass)."""
    read = {h.source for h in hits if h.kind != "lesson"}
    labels = {h.kind or "source" for h in hits}
    real = list(dict.fromkeys(n for c in cited if (n := cited_source(c, labels)) in read))
    if not real and not required:
        return []
    what = f"it cites the documents it read: {', '.join(real)}" if real else "it cites none"
    return [
        CheckVerdict(
            kind="sources", what=what, candidate=task_id, passed=bool(real), independent=True
        )
    ]


def _given(assignment: TaskAssignment) -> str:
    """What a reading may state besides the documents: the goal's words and its task's (not
    the goal's values: a live reading stated the limit given with the goal as what the
    documents say)."""
    return f"{assignment.goal}\n{assignment.task.description}"


class Researcher(WorkerRole[ResearcherSettings]):
    """Does research tasks."""

    name = "researcher"

    async def _sources(self, query: str, parent: Envelope) -> list[Hit]:
        hits: list[Hit] = []
        if self.deps.corpus is not None:
            hits += reading(self.deps.corpus, query, self.settings)
        lessons = await self.recall(query, parent=parent)
        return hits + [Hit(text=text, source="memory", kind="lesson") for text in lessons]

    async def work(self, env: Envelope, assignment: TaskAssignment) -> TaskResult:
        """Gather sources, ask the model, validate that every output is there."""
        task = assignment.task
        query = f"{task.description} {' '.join(task.outputs)}"
        hits = await self._sources(query, env)
        documents = self.deps.corpus.texts if self.deps.corpus is not None else {}
        if EVIDENCE in task.outputs:
            read = whole(self.deps.corpus, self.settings) if self.deps.corpus else None
            schema = evidence_shape(task.outputs, documents if read else None)
        else:
            schema = answer_shape(task.outputs)
        convo = self.prompt(assignment, hits)
        consults = self.settings.max_consults
        for _ in range(consults + 1):
            answer = await self.calls.structured(
                convo, schema, what="research answer", parent=env, task_id=task.id
            )
            if answer.outputs is not None:
                break
            if answer.ask_human is not None:
                asked, source = {"ask_human": answer.ask_human}, "human"
                said = await self._ask_human(env, answer.ask_human)
            elif answer.ask is not None:
                asked, source = {"ask": answer.ask}, "planner"
                reply = await self.talk.consult("planner", answer.ask, parent=env, task_id=task.id)
                said = f"The planner answered: {reply}"
            else:
                break
            convo += [
                AssistantMessage(content=json.dumps(asked), source=self.name),
                UserMessage(content=f"{said}\nNow answer the task.", source=source),
            ]
        if answer.outputs is None:
            msg = f"the researcher kept asking questions instead of answering ({consults} asked)"
            raise TaskFailed(msg)
        if EVIDENCE in task.outputs:
            answer = await self._grounded(answer, convo, schema, env, task.id)
            placed_quotes = [placed(q, documents)[0] for q in answer.quotes]
            answer = answer.model_copy(update={"quotes": placed_quotes})
        elif documents:
            answer = await self._stated(answer, convo, schema, env, assignment, documents)
        evidence: list[JsonValue] = [q.model_dump() for q in answer.quotes]
        stated: dict[str, JsonValue] = dict(answer.outputs or {})
        if answer.answer_is == "computed" and QUOTED in stated:  # nothing stated to quote
            stated[QUOTED] = ""
        sources = [q.source for q in answer.quotes]
        quotation = stated.get(QUOTED)
        if isinstance(quotation, str) and quotation:  # a table's figure, with its table's scale
            stated[QUOTED] = with_scale(quotation, sources, documents)
        elif isinstance(quotation, list):
            stated[QUOTED] = [
                with_scale(q, sources, documents) if isinstance(q, str) else q for q in quotation
            ]
        given: dict[str, JsonValue] = {
            **stated,
            EVIDENCE: evidence,
            VALUES: quoted_values(answer.quotes),
        }
        required = self.settings.require_sources
        cited = answer.sources or list(dict.fromkeys(q.source for q in answer.quotes))
        verdicts = _sources_verdict(cited, hits, task.id, required=required)
        grounding = grounding_verdict(answer.quotes, documents, task.id)
        stands = statement_verdict(stated, documents, _given(assignment), task.id)
        if grounding is not None:
            verdicts.append(grounding)
        elif stands is not None:
            verdicts.append(stands)
        elif EVIDENCE in task.outputs:  # asked to quote and quoted nothing: nothing stands
            verdicts.append(
                CheckVerdict(
                    kind="grounding",
                    what="it quoted nothing",
                    candidate=task.id,
                    passed=False,
                    independent=False,
                )
            )
        return TaskResult(
            task_id=task.id,
            role=self.name,
            attempt=assignment.attempt,
            status="done",
            outputs={name: given[name] for name in task.outputs if name in given},
            summary=answer.summary,
            verdicts=verdicts,
            quotes=answer.quotes,
        )

    async def _again(
        self,
        answer: ResearchAnswer,
        convo: list[LLMMessage],
        schema: AnswerShape[ResearchAnswer],
        parent: Envelope,
        task_id: str,
        told: str,
    ) -> ResearchAnswer:
        """The model's answer once more, after its first and what code found wrong in it."""
        said = AssistantMessage(
            content=answer.model_dump_json(exclude_defaults=True), source=self.name
        )
        return await self.calls.structured(
            [*convo, said, UserMessage(content=told, source="verifier")],
            schema,
            what="research answer",
            parent=parent,
            task_id=task_id,
        )

    async def _grounded(
        self,
        answer: ResearchAnswer,
        convo: list[LLMMessage],
        schema: AnswerShape[ResearchAnswer],
        env: Envelope,
        task_id: str,
    ) -> ResearchAnswer:
        """The answer, asked once more when a quote does not stand in the documents (what
        is wrong said); the second answer is kept only if it quotes something."""
        documents = self.deps.corpus.texts if self.deps.corpus is not None else {}
        problems = [p for q in answer.quotes if (p := ground(q, documents)) is not None]
        if not problems and answer.quotes:
            return answer
        said = problems or ["no quotes were given"]
        table_labels = labels(documents)
        where = "\nThe tables' labels, as they stand:\n- " + "\n- ".join(table_labels)
        told = (
            "Code checked your quotes against the documents:\n- "
            + "\n- ".join(said)
            + (where if table_labels else "")
            + "\nQuote every value exactly as it stands there, and answer again."
        )
        again = await self._again(answer, convo, schema, env, task_id, told)
        return again if again.outputs is not None and again.quotes else answer

    async def _stated(
        self,
        answer: ResearchAnswer,
        convo: list[LLMMessage],
        schema: AnswerShape[ResearchAnswer],
        env: Envelope,
        assignment: TaskAssignment,
        documents: dict[str, str],
    ) -> ResearchAnswer:
        """The answer, asked once more when what it states does not stand in the documents
        (`roles.researcher.statements`, what is wrong said); the second answer is kept when it
        states what the task asks."""
        problems = statement_problems(answer.outputs or {}, documents, _given(assignment))
        if not problems:
            return answer
        told = (
            "Code checked what you stated against the documents:\n- "
            + "\n- ".join(problems)
            + "\nState only what the documents say, in their own words: no value worked "
            "out and none taken from the goal. Answer again."
        )
        again = await self._again(answer, convo, schema, env, assignment.task.id, told)
        return again if again.outputs is not None else answer

    async def _ask_human(self, env: Envelope, question: str) -> str:
        """Ask the person attached; what the model is told they said."""
        if not self.human.settings.questions:
            return "No person can be asked in this run: decide yourself."
        reply = await self.ask_human(question, default=NO_ANSWER, parent=env, task_id=env.task_id)
        if reply.defaulted:
            return "Nobody answered in time: decide yourself."
        return f"{reply.by} (the human) answered: {reply.text}"

    def prompt(self, assignment: TaskAssignment, hits: list[Hit]) -> list[LLMMessage]:
        """The messages for one research task."""
        parts = task_header(assignment)
        if hits:
            parts.append(
                "Sources:\n"
                + "\n".join(f"[{h.kind or 'source'}: {h.source}]\n{h.text}" for h in hits)
            )
        if EVIDENCE in assignment.task.outputs:
            parts.append(QUOTING)
        notes = assignment.notes + self.talk.take_remarks()
        if notes:
            parts.append("Keep in mind:\n- " + "\n- ".join(notes))
        system = f"{SYSTEM}\n{ASK_HUMAN}" if self.human.settings.questions else SYSTEM
        return [
            self.system_prompt(system),
            UserMessage(content="\n\n".join(parts), source="manager"),
        ]
