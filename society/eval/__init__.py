"""`society eval`: goals with graders, run through the society and through baselines on the
same model, graded after the fact, as JSON results that `eval compare` diffs.

Holds the suite format (`suite`), the graders (`graders`, code checks in the sandbox), the
arms that answer a case (`arms`: the society via `run_scenario`; `baselines`: one call,
one program), HumanEval as a suite (`humaneval`), the results and their table (`results`,
`report`) and the loop over cases (`runner`). May import the run (`society.run.runner`),
models, roles and sandbox; nothing below it imports this package.
"""

from society.eval.results import EvalResults, Record
from society.eval.suite import Case, Suite, load_suite

__all__ = ["Case", "EvalResults", "Record", "Suite", "load_suite"]
