"""What a scenario would do on this machine beyond the sandbox: the host commands it
starts, the environment variables it reads, the hosts it contacts and the client classes
it imports. One function (`exposure_of`) lists them for `society validate --explain`, for
a fork of someone else's log or bundle (refused unless the person trusts it), and for
anyone reviewing a scenario file they were sent.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from society.models.spec import PROVIDER_ALIASES
from society.scenario import Scenario

__all__ = ["Exposure", "exposure_of", "is_loopback"]

_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_OFFLINE = ("scripted", "replay")


@dataclass
class Exposure:
    """Everything a scenario would start, read, contact or import, each with where it is
    said (a dotted path in the scenario)."""

    commands: list[str] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    endpoints: list[str] = field(default_factory=list)
    """Every host a model or tool would be reached at (loopback ones included)."""
    remote: list[str] = field(default_factory=list)
    """The endpoints that are not this machine's loopback."""
    providers: list[str] = field(default_factory=list)
    """Model client classes that are not one of society's named providers."""

    @property
    def needs_trust(self) -> bool:
        """Whether running it does anything a person must agree to first."""
        return bool(self.commands or self.variables or self.remote or self.providers)

    def lines(self) -> list[str]:
        """What it would do, one thing a line."""
        out = [f"start the command: {c}" for c in self.commands]
        out += [f"read the environment variable {v}" for v in self.variables]
        out += [f"contact {e}" for e in self.endpoints]
        out += [f"import the model client {p}" for p in self.providers]
        return out


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) only answers this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _loopback(url: str) -> bool:
    return is_loopback(urlsplit(url if "//" in url else f"//{url}").hostname or "")


def _variables(value: Any, where: str, found: dict[str, str]) -> None:
    """Every ``${VAR}`` in ``value`` (recursively), with the first place it is used."""
    if isinstance(value, str):
        for name in _ENV.findall(value):
            found.setdefault(name, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            _variables(item, f"{where}.{key}" if where else str(key), found)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _variables(item, f"{where}.{i}", found)


def exposure_of(scenario: Scenario, *, models: bool = True) -> Exposure:
    """What ``scenario`` would do on this machine (``models=False``: leave out its models,
    which the person replaced with their own)."""
    ex = Exposure()
    found: dict[str, str] = {}
    doc = scenario.model_dump(mode="json", exclude={"models"} if not models else None)
    if not isinstance(scenario.script, dict):  # answers in a file beside the scenario
        doc["script"] = {
            role: [a.model_dump(mode="json") for a in answers]
            for role, answers in scenario.scripted_answers().items()
        }
    _variables(doc, "", found)
    ex.variables = [f"{name} (in {where})" for name, where in found.items()]
    if models:
        for name, spec in scenario.models.items():
            if spec.provider in _OFFLINE:
                continue
            endpoint = spec.endpoint()
            if "://" not in endpoint:  # the client finds its own service
                endpoint = f"the service of {spec.provider}"
            ex.endpoints.append(f"{endpoint} (models.{name})")
            if not _loopback(endpoint):
                ex.remote.append(endpoint)
            if spec.provider not in PROVIDER_ALIASES:
                ex.providers.append(f"{spec.provider} (models.{name}.provider)")
    for name, tool in scenario.tools.items():
        if tool.command is not None:
            line = " ".join([tool.command, *tool.args])
            ex.commands.append(f"{line} (tools.{name}.command)")
        if tool.url is not None:
            ex.endpoints.append(f"{tool.url} (tools.{name}.url)")
            if not _loopback(tool.url):
                ex.remote.append(tool.url)
    return ex
