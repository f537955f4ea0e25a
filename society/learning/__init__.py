"""A society that learns from its graded runs and from people.

- `adapter` and `train`: `society train`, reflective prompt evolution with GEPA over a
  suite's train cases, adopted only when a paired comparison on val shows it better.
- `feedback`: a person's rating of a run (`society rate`) as a case of a feedback suite.

The prompt set that training writes (`society run/eval --prompts`) lives with the run
(`society.run.prompt_set`), so the eval applies it without importing learning. Verified
solutions as memory live with the roles (`roles.solutions`) and the eval
(`society.eval.learned`).
"""
