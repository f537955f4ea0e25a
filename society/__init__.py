"""The application, in wings: ``cli/`` (every command) on top; then ``web/``, ``eval/``
and ``replay/``; then ``run/`` (what makes, runs and ends a run); then ``human/``,
``tools/``, ``tracing/`` and ``models/``; the terminal's ``view/`` at the bottom; beside
them the scenario model, credentials, errors and logging. No arrow runs back up.

Loading the application registers its roles (`roles.registry`, and the coder's wing): the bus's tables of who
may say what, of users and of work queues are read from them."""

import roles.coder
import roles.registry  # noqa: F401
