"""The coder's wing: the role that writes programs and runs them in the sandbox, and what it
needs to do that well with a small model.

- `role`: the `Coder` worker role (bus, sandbox records, artifacts) and its prompts;
  `instructions`: its system prompt (a prompt set may replace it).
- `role`'s `STRATEGIES`: the ways of answering a task, in order, the first that fits
  answering (a function, the goal check, the answer by selection, other outputs by vote,
  once unchecked);
- `program_checks`: what makes a program that ran still no answer (a result written in as a
  literal, inputs made up); `votes` and `select`: a second and third program, candidates
  and which values are kept, and which numbers they are not compared on (`repeatable`;
  agreement itself is the verifier's: `roles.verifier.agreement`); `hints`: the mistakes
  small models make, named from a failed run;
  `missing_imports`: a forgotten standard-library import added before a run; `input_notes`:
  what an input is (CSV text, an empty inputs file); `function_writer`: goals whose answer is
  a function, and `function_task` its strategy bound to the role; `goal_check`: the goal
  check's strategy (a program for the whole goal, drawn again after a failure, and a second).

Only `role` (and the strategies it hands itself to) talks to the bus; the rest are functions of code, runs and values. Nothing
outside this wing imports it: what judges an answer lives below it in `roles.verifier`, the
program protocol in `roles.program`.
"""

from bus.roster import RoleCard
from bus.subjects import Channel
from roles.registry import Registration, always, register
from roles.settings import CoderSettings

register(  # the wing registers its role: nothing outside it names the coder
    Registration(
        RoleCard.worker("coder", Channel.EXEC),
        "roles.coder.role:Coder",
        CoderSettings,
        "green",
        always,
    )
)
