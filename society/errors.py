"""Errors of the application layer.

SocietyError
├── ScenarioError       a scenario file is missing, not YAML, or not valid (with locations)
├── ModelConfigError    a model in the scenario cannot be built
├── UntrustedScenario   someone else's scenario would start, read or contact things here
└── RunError            a run could not start or be attached to
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ModelConfigError",
    "RunError",
    "RunNotFound",
    "ScenarioError",
    "ScenarioIssue",
    "ServerUnreachable",
    "SocietyError",
    "UntrustedScenario",
]


class SocietyError(Exception):
    """Root of the society package's errors."""


@dataclass(frozen=True)
class ScenarioIssue:
    """One problem in a scenario file: where it is and what is wrong."""

    file: Path
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else str(self.file)
        return (
            f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        )


class ScenarioError(SocietyError, ValueError):
    """The scenario cannot be used; every issue names the file, line and field."""

    def __init__(self, issues: list[ScenarioIssue]) -> None:
        self.issues = issues
        super().__init__("\n".join(str(i) for i in issues))


class ModelConfigError(SocietyError):
    """A model client could not be built from its config."""


class UntrustedScenario(SocietyError):
    """A scenario the person did not choose (a bundle's, a log's) would start commands,
    read environment variables or contact hosts; ``lines`` says each."""

    def __init__(self, message: str, lines: list[str]) -> None:
        self.lines = lines
        super().__init__(message)


class RunError(SocietyError):
    """A run could not be started, found or attached to."""


class RunNotFound(RunError):
    """No run with that id in the runs folder or on the server."""


class ServerUnreachable(RunError):
    """The NATS server of a run does not answer (it is down, or the run has ended)."""
