"""The roles of the society on one shared kit. Imports bus and sandbox, never society.

The kit: `roles.context` (a role's typed `RoleContext` and `RoleDeps`), `roles.base`
(lifecycle and routing), `roles.calls` (model calls), `roles.conversation` (chat),
`roles.budget` (limits, spend, guard, tracker), `roles.execution` (running code),
`roles.presence` (who is there), `roles.human_gate` (asking a person). Each role module
holds its handlers and prompts; the manager's parts live in `roles.manager`.

Importing any of it registers the roles (`roles.registry`, light: classes load when a run
starts them), so the bus's tables of who may say what are filled wherever a role is used;
the coder registers with its own wing (its `coder` package), which nothing else here names.
"""

import roles.registry  # noqa: F401
