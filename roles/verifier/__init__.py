"""The verifier: checks of what a right answer must satisfy, written from the goal alone
before any candidate answer exists (bounds, types, inverse operations, defining properties,
the goal's own examples), and their run against candidates in the sandbox. A check shares
no mistake with the solutions it judges because it never saw them (CodeT's dual agreement;
FINDINGS: agreement of two programs from one prompt repeats one misreading)."""
