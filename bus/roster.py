"""The roster: what the bus knows of each role — its name, the channels it publishes and
hears, its work queue — as `RoleCard` values that `roles.registry` enrols.

The bus defines the card and holds the process's roster; it names no role itself (it
imports nothing of ``roles``). Every table that lists roles — who may say what
(`bus.authority`), the servers' users (`bus.permissions`), the work queues' streams
(`bus.runlog`) — reads the roster when asked, so a role registered once is in all of them.

A role the roster has no card for is judged as a *specialist* (`RoleCard.specialist`): a
worker that takes ``task.<name>`` and reports results, never steering. A scenario declares
specialists per run, and whoever reads that run's log later (replay, the web view, a
person attached) has no scenario to enrol them from; what may connect at all is decided
by the server, which only knows the run's own identities.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bus import subjects
from bus.errors import SubjectError
from bus.subjects import Channel

__all__ = ["ASKS", "EVERYONE", "ROSTER", "WORKING", "RoleCard", "Roster"]

EVERYONE: tuple[Channel, ...] = (
    Channel.PRESENCE,
    Channel.CHAT,
    Channel.USAGE,
    Channel.DEAD_LETTER,
)
"""What any sender may say: it informs, it never steers."""

ASKS: tuple[Channel, ...] = (Channel.HUMAN_ASK, Channel.HUMAN_ANSWER)
"""A question, and its default answer when nobody answers in time."""

WORKING: tuple[Channel, ...] = (
    Channel.GOAL,
    Channel.FINAL,
    Channel.CONTROL,
    Channel.CHAT,
    Channel.HUMAN_ANSWER,
    Channel.PRESENCE,
)
"""What a worker hears besides its queue: the run's start and end, steering, talk, answers
and who is there to answer."""


@dataclass(frozen=True)
class RoleCard:
    """What the bus knows of one role."""

    name: str
    publishes: tuple[Channel, ...] = ()
    """Beyond `EVERYONE`, the channels its senders publish on."""
    hears: tuple[Channel, ...] | None = WORKING
    """The channels it subscribes to (None: everything of the run)."""
    queue: str | None = None
    """The name of its work queue, if it takes work through one."""
    takes: tuple[Channel, ...] = ()
    """The channels its queue takes, of any run (``task`` means ``task.<name>``)."""
    user: bool = True
    """Whether it has a user of its own on a shared server (`bus.permissions`)."""

    def __post_init__(self) -> None:
        subjects.check_token(self.name, "role name")

    @classmethod
    def worker(cls, name: str, *also: Channel) -> RoleCard:
        """A role that takes ``task.<name>`` from its queue and reports results (and
        ``also`` publishes these channels)."""
        return cls(
            name, (Channel.RESULT, *also, *ASKS), queue=f"task-{name}", takes=(Channel.TASK,)
        )

    @classmethod
    def specialist(cls, name: str) -> RoleCard:
        """A scenario's specialist: a worker that publishes nothing but its results (and
        questions), and has no user on a shared server (it exists for one run)."""
        card = cls.worker(name)
        return cls(card.name, card.publishes, card.hears, card.queue, card.takes, user=False)

    def queue_filters(self) -> tuple[str, ...]:
        """The subjects of any run its work queue takes (none without a queue)."""
        if self.queue is None:
            return ()
        return tuple(
            subjects.any_run(c, self.name if c is Channel.TASK else None) for c in self.takes
        )


class Roster:
    """The roles this process knows, by name; one card per name."""

    def __init__(self) -> None:
        self._cards: dict[str, RoleCard] = {}
        self.version = 0
        """Bumped on every change, so those who cache a judgement know to judge again."""

    def enrol(self, card: RoleCard) -> None:
        """Add ``card`` (again: nothing changes); another card under a taken name is an error."""
        known = self._cards.get(card.name)
        if known == card:
            return
        if known is not None:
            msg = f"the role {card.name!r} is registered already, with other channels"
            raise ValueError(msg)
        self._cards[card.name] = card
        self.version += 1

    def withdraw(self, name: str) -> None:
        """Forget the role ``name`` (a test's role, once the test is over)."""
        if self._cards.pop(name, None) is not None:
            self.version += 1

    def card(self, name: str) -> RoleCard:
        """The card of ``name``: its own, or a specialist's for a name not enrolled.

        Raises `LookupError` while nothing is enrolled: every role would pass for a
        specialist, and a manager could hear or say next to nothing."""
        known = self._cards.get(name)
        if known is not None:
            return known
        if not self._cards:
            msg = (
                "no roles are registered in this process: import roles.registry first "
                "(the application does, in society/__init__)"
            )
            raise LookupError(msg)
        return RoleCard.specialist(name)

    def __contains__(self, name: object) -> bool:
        return name in self._cards

    def __iter__(self) -> Iterator[RoleCard]:
        return iter(self._cards.values())

    def names(self) -> tuple[str, ...]:
        """Every enrolled role's name, in the order they were enrolled."""
        return tuple(self._cards)

    def may_publish(self, role: str, channel: Channel) -> bool:
        """Whether a sender of ``role`` may publish on ``channel``."""
        if channel in EVERYONE:
            return True
        try:
            return channel in self.card(role).publishes
        except SubjectError:  # not a role's name at all
            return False

    def queues(self) -> dict[str, tuple[str, ...]]:
        """Every enrolled work queue's name and the subjects (of any run) it takes."""
        return {c.queue: c.queue_filters() for c in self._cards.values() if c.queue is not None}

    def queue_of(self, role: str) -> str | None:
        """The work queue of ``role`` (None: it takes no work through one)."""
        return self.card(role).queue


ROSTER = Roster()
"""The process's roster (`roles.registry` enrols the built-in roles, a run its specialists)."""
