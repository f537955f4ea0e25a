"""The coder's wing: the role that writes programs and runs them in the sandbox, and what it
needs to do that well with a small model.

- `role`: the `Coder` worker role (bus, sandbox records, artifacts) and its prompts;
  `instructions`: its system prompt (a prompt set may replace it).
- `program_checks`: what makes a program that ran still no answer (a result written in as a
  literal, inputs made up); `cross_check` and `votes`: a second and third program, and which
  values are kept; `hints`: the mistakes small models make, named from a failed run;
  `missing_imports`: a forgotten standard-library import added before a run; `input_notes`:
  what an input is (CSV text, an empty inputs file); `function_writer`: goals whose answer is
  a function.

Only `role` talks to the bus; the rest are functions of code, runs and values, and import
nothing of the role (so the manager's goal check may use `cross_check` without the role).
"""
