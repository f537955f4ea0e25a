"""The verifier: everything that judges an answer, in one room below the coder and the
manager.

- `spec` and `checks`: the answer's kind, stated from the goal alone before any candidate
  exists, and its check program run against candidates in the sandbox (a check that passes
  an empty answer could catch nothing, so it counts for nothing);
- `agreement`: whether two computations of an output state the same values;
- `values`: the one rule that reads numbers out of a text;
- `function_tests`: tests of a function written from its docstring alone (CodeT);
- `goal_check`: a program answering the whole goal on its own, agreeing with a plan's answer;
- `relation`: a relation the goal's own words define between values its answer reports,
  checked by code on an answer's figures;
- `rule`: the rule that decides `succeeded` from the typed verdicts.

A check shares no mistake with the solutions it judges because it never saw them (CodeT's
dual agreement; FINDINGS: agreement of two programs from one prompt repeats one misreading).
"""
