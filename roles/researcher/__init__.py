"""The researcher: answers tasks from documents, memory and tools (`role`, its answer's
shape in `answer`); reads documents whole when they fit one prompt, else searches them
(`reading`); asked for evidence, quotes it in a schema that names the documents' rows and
columns (`quoting`), and has every quote confirmed by code where it says it stands
(`grounding`) and every statement of what the documents say confirmed against them
(`statements`)."""

from roles.researcher.answer import EVIDENCE, ResearchAnswer, answer_shape
from roles.researcher.quoting import QUOTING, evidence_shape
from roles.researcher.role import Researcher

__all__ = ["EVIDENCE", "QUOTING", "ResearchAnswer", "Researcher", "answer_shape", "evidence_shape"]
