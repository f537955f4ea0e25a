"""The arms' model calls: through the roles' `ModelAccess` (same client, retries, limits),
each written to the answer's ``calls.jsonl``, and answered once per request in an eval.

`CallCache` is the eval's memory of answers by request (the case, the repeat and the
request itself: model, messages, create args with temperature and seed): two arms that
send the same request — the ``program`` arm and the ``loop`` arm's first program — are
asked once; the second records the call with ``reused_from`` and counts it as its own. An
arm that sends one request twice is answered twice (a loop asks again on purpose).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from autogen_core.models import LLMMessage

from roles.model_access import ModelAccess
from society.eval.context import CallCache, CaseContext, Reply
from society.eval.suite import Case, Suite
from society.models.factory import ModelFactory

__all__ = ["CallCache", "Reply", "ask", "documents_of", "model_of"]


def documents_of(suite: Suite, case: Case) -> dict[str, bytes]:
    """The case's documents by file name."""
    return {Path(d).name: (suite.base_dir / d).read_bytes() for d in case.documents}


def model_of(case: Case, cx: CaseContext) -> ModelAccess:
    """The model the baselines call (the coder's, or ``--model``'s), scripted by the case
    under the arm's name when it scripts one."""
    models = dict(cx.suite.defaults.models)
    if cx.eval.override is not None:
        models = dict.fromkeys(models, cx.eval.override)
    factory = ModelFactory(models, case.script)
    return factory.build(cx.suite.defaults.roles.coder.model, cx.arm)


async def ask(
    access: ModelAccess, messages: list[LLMMessage], case: Case, cx: CaseContext, log: Path
) -> Reply:
    """The model's answer to ``messages`` (from the cache when this eval asked it already),
    logged to ``log``."""
    request = access.request(messages)
    scripted_here = cx.arm in case.script  # a per-arm script answers this arm alone
    key = json.dumps(
        [case.id, cx.repeat, cx.arm if scripted_here else "", request], sort_keys=True, default=str
    )
    cache = cx.eval.calls
    if cache is not None and key in cache.replies and cache.replies[key].arm != cx.arm:
        reply = cache.replies[key]
        _log(log, request, reply, reused_from=reply.arm)
        return reply
    started = time.monotonic()
    answer = await access.call(messages)
    reply = Reply(
        answer.text,
        answer.tokens_in,
        answer.tokens_out,
        access.cost(answer.tokens_in, answer.tokens_out),
        round(time.monotonic() - started, 3),
        cx.arm,
    )
    if cache is not None:
        cache.replies[key] = reply
    _log(log, request, reply, latency_s=round(answer.latency_s, 3))
    return reply


def _log(log: Path, request: object, reply: Reply, **more: object) -> None:
    record = {
        "request": request,
        "answer": reply.text,
        "tokens_in": reply.tokens_in,
        "tokens_out": reply.tokens_out,
        "wall_s": reply.wall_s,
        **more,
    }
    with log.open("a") as f:
        f.write(json.dumps(record, default=str) + "\n")
