"""The registry: each role registered once — its name, its class, its settings model, its
channels (a `bus.roster.RoleCard`) and its colour in the views.

Registering enrols the role's card in the bus's roster (`bus.roster.ROSTER`), which the
bus's tables read: who may say what, the servers' users and permissions, the work queues.
The application's tables read the registry: the roles a scenario configures (a typed
field of `society.scenario.RolesSpec` per role with settings, checked against this at
import), the roles a run starts, the views. Adding a role is one module and one
`register` call here (and its ``roles`` field, when it has settings). The registry is
light to import (classes are named, and imported when a run starts one), so importing
``roles`` loads it: every process that uses a role has the bus's tables filled.

The coder registers with its own wing (its `coder` package), so that nothing outside the wing names
it; the application (`society`) loads that wing, as does whatever runs roles without it.

A scenario's specialists are registered per run by `specialist`: a `Specialist` subclass
named after it, and its card; they are not built-in roles (`REGISTRY` lists those).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bus.roster import ASKS, ROSTER, WORKING, RoleCard
from bus.subjects import Channel
from roles.settings import (
    CriticSettings,
    HumanSettings,
    ManagerSettings,
    PlannerSettings,
    ReflectorSettings,
    ResearcherSettings,
    SpecialistSettings,
    StrictModel,
    VerifierSettings,
)

if TYPE_CHECKING:
    from roles.base import Role
    from roles.specialist import Specialist

__all__ = [
    "REGISTRY",
    "SPECIALIST_STYLE",
    "Registration",
    "always",
    "register",
    "specialist",
    "style_of",
]

SPECIALIST_STYLE = "bright_cyan"
"""How the views show a specialist."""


@dataclass(frozen=True)
class Registration:
    """One role: what the bus knows of it, and what the application does with it."""

    card: RoleCard
    role: str | type[Role[Any]] | None = None
    """Its class, or where it is (``module:Class``, imported when first needed); None: not
    a role a run starts (the runner, people)."""
    settings: type[StrictModel] | None = None
    """Its settings model: ``roles.<name>`` of a scenario (None: nothing to set)."""
    style: str = ""
    """Its colour in the terminal views (a rich style)."""
    calls_model: Callable[[Any], bool] = lambda settings: False
    """Whether an instance with these settings calls its model."""

    @property
    def name(self) -> str:
        """The role's name."""
        return self.card.name

    @property
    def cls(self) -> type[Role[Any]] | None:
        """Its class (None: not a role a run starts)."""
        if self.role is None or isinstance(self.role, type):
            return self.role
        module, _, name = self.role.partition(":")
        cls: type[Role[Any]] = getattr(importlib.import_module(module), name)
        return cls

    @property
    def worker(self) -> bool:
        """Whether plans may give it tasks (it takes ``task.<name>``)."""
        return Channel.TASK in self.card.takes

    @property
    def tools(self) -> bool:
        """Whether it may call MCP tools (its settings name them)."""
        return self.settings is not None and "tools" in self.settings.model_fields


REGISTRY: dict[str, Registration] = {}
"""The built-in roles, in the order they were registered."""


def register(registration: Registration) -> Registration:
    """Register a built-in role, and enrol its card in the bus's roster."""
    ROSTER.enrol(registration.card)
    REGISTRY[registration.name] = registration
    return registration


def always(settings: Any) -> bool:
    """A role that calls its model whatever its settings."""
    return True


register(  # the runner publishes the goal and stops a run; it has no user of its own
    Registration(RoleCard("runner", (Channel.GOAL, Channel.CONTROL), None, user=False), style="dim")
)
register(
    Registration(
        RoleCard(
            "manager",
            (
                Channel.GOAL,
                Channel.PLAN_REQUEST,
                Channel.PLAN_DECISION,
                Channel.TASK,
                Channel.CONTROL,
                Channel.FINAL,
                *ASKS,
            ),
            hears=None,  # everything: it is also the runner, which shows the whole run
            queue="manager",
            takes=(Channel.PLAN, Channel.RESULT, Channel.CRITIQUE),
        ),
        "roles.manager.manager:Manager",
        ManagerSettings,
        "bold blue",
    )
)
register(
    Registration(
        RoleCard(
            "planner",
            (Channel.PLAN, *ASKS),
            queue="plan-request",
            takes=(Channel.PLAN_REQUEST,),
        ),
        "roles.planner:Planner",
        PlannerSettings,
        "magenta",
        always,
    )
)
register(
    Registration(
        RoleCard.worker("researcher"),
        "roles.researcher:Researcher",
        ResearcherSettings,
        "cyan",
        always,
    )
)
register(  # its calls are made where the candidates are (the coder's process): no process
    Registration(
        RoleCard("verifier", (), hears=(), user=False),
        settings=VerifierSettings,
        style="bright_green",
        calls_model=always,
    )
)
register(
    Registration(
        RoleCard("critic", (Channel.CRITIQUE,), hears=None),
        "roles.critic.critic:Critic",
        CriticSettings,
        "yellow",
        lambda settings: bool(settings.model_review),
    )
)
register(
    Registration(
        RoleCard(
            "reflector",
            (Channel.LESSON,),
            hears=(Channel.TASK, Channel.RESULT, Channel.CRITIQUE, *WORKING),
        ),
        "roles.reflector:Reflector",
        ReflectorSettings,
        "bright_black",
    )
)
register(
    Registration(
        RoleCard("human", (Channel.HUMAN_ANSWER, Channel.CONTROL), hears=None),
        settings=HumanSettings,
        style="bold bright_white",
    )
)


@functools.cache
def _specialist_class(name: str) -> type[Specialist]:
    """One `Specialist` subclass per name (its ``name`` is the role's name on the bus)."""
    from roles.specialist import Specialist  # the role kit loads only when a run starts

    return type(f"Specialist_{name}", (Specialist,), {"name": name, "__doc__": Specialist.__doc__})


def specialist(settings: SpecialistSettings) -> Registration:
    """The registration of a scenario's specialist; its card is enrolled in the roster (for
    its work queue's stream and its identity's permissions)."""
    if settings.name in REGISTRY:
        msg = f"{settings.name!r} is a built-in role; a specialist needs a name of its own"
        raise ValueError(msg)
    card = RoleCard.specialist(settings.name)
    ROSTER.enrol(card)
    return Registration(
        card, _specialist_class(settings.name), SpecialistSettings, SPECIALIST_STYLE, always
    )


def style_of(role: str) -> str:
    """The views' style of ``role``: its registered one, else a specialist's."""
    known = REGISTRY.get(role)
    return known.style if known is not None else SPECIALIST_STYLE
