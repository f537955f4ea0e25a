"""A person as the ``human`` role: attach to a run, see the conversation, take part."""

from society.human.attach import attach, human_in_run
from society.human.session import HumanSession, person_name

__all__ = ["HumanSession", "attach", "human_in_run", "person_name"]
