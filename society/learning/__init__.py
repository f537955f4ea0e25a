"""A society that learns from its graded runs and from people.

- `prompt_set`: the roles' instructions as one versioned file (`society run/eval --prompts`),
  with where it came from and the val table that adopted it.
- `adapter` and `train`: `society train`, reflective prompt evolution with GEPA over a
  suite's train cases, adopted only when a paired comparison on val shows it better.
- `feedback`: a person's rating of a run (`society rate`) as a case of a feedback suite.

Verified solutions as memory live with the roles (`roles.solutions`) and the eval
(`society.eval.learned`).
"""
