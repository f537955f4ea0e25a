"""The researcher: answers tasks from documents, memory and tools (`role`); reads documents
whole when they fit one prompt, else searches them (`reading`); and has every value it
quotes confirmed by code where it says it stands (`grounding`)."""

from roles.researcher.role import EVIDENCE, QUOTING, ResearchAnswer, Researcher, answer_shape

__all__ = ["EVIDENCE", "QUOTING", "ResearchAnswer", "Researcher", "answer_shape"]
