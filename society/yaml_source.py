"""Load YAML while keeping where every value came from, so errors can name the line.

Loading is bounded (`YamlLimits`: size, nesting, alias expansion) and strict about
duplicate keys, so a hostile or broken file is refused with its line instead of crashing
the loader, stalling it, or silently keeping the last of two values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import yaml

__all__ = ["YamlLimitError", "YamlLimits", "YamlSource", "load_yaml"]


class YamlSource:
    """Parsed YAML data plus the node tree it came from."""

    def __init__(self, path: Path, data: Any, root: yaml.Node | None) -> None:
        self.path = path
        self.data = data
        self.root = root

    def line_of(self, loc: Sequence[int | str]) -> int | None:
        """1-based line of the deepest node along ``loc`` (a pydantic error location).

        Location parts that are not in the document (union tags, model names) are
        skipped; a missing key points at the mapping that should hold it.
        """
        node = self.root
        if node is None:
            return None
        line = node.start_mark.line + 1
        for part in loc:
            child, key_line = _child(node, part)
            if child is None:
                if key_line is not None:
                    return key_line
                continue
            node = child
            line = node.start_mark.line + 1
        return line


def _child(node: yaml.Node, part: int | str) -> tuple[yaml.Node | None, int | None]:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                if isinstance(value, yaml.ScalarNode) and value.value == "":
                    return None, key.start_mark.line + 1
                return value, None
    elif (
        isinstance(node, yaml.SequenceNode)
        and isinstance(part, int)
        and 0 <= part < len(node.value)
    ):
        return node.value[part], None
    return None, None


@dataclass(frozen=True)
class YamlLimits:
    """How much one YAML file may ask of the loader; beyond these it is refused, not loaded.

    Scenario files are hand-written and small (a few KB, nested about 10 deep, a handful of
    aliases), so the bounds are far above real use and far below what hurts.
    """

    max_bytes: int = 4 << 20
    """Largest file read: 4 MiB, room for a scripted plan of 10,000 tasks (2.6 MB); the
    pure-Python parser takes about 6 s a MiB."""
    max_depth: int = 64
    """Deepest nesting of mappings and sequences (Python's stack gives out near 500)."""
    max_alias_nodes: int = 10_000
    """Nodes that all ``*alias`` references together may stand for ("billion laughs")."""
    max_alias_chars: int = 1 << 20
    """Characters of text they may stand for (one long string repeated by aliases)."""


class YamlLimitError(yaml.MarkedYAMLError):
    """The file goes beyond a `YamlLimits` bound; ``line`` (1-based) is where."""

    def __init__(self, problem: str, line: int) -> None:
        super().__init__(problem=problem, problem_mark=yaml.Mark("", 0, line - 1, 0, None, 0))
        self.line = line


_MERGE = "tag:yaml.org,2002:merge"


if TYPE_CHECKING:
    from yaml._yaml import CParser as _EventSource
else:
    try:  # libyaml scans and parses: a 2.6 MB scenario in 4 s instead of 14 s
        from yaml._yaml import CParser as _EventSource
    except ImportError:  # a PyYAML built without libyaml: its pure-Python scanner and parser

        class _EventSource(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
            def __init__(self, stream):
                yaml.reader.Reader.__init__(self, stream)
                yaml.scanner.Scanner.__init__(self)
                yaml.parser.Parser.__init__(self)


class _BoundedLoader(
    yaml.composer.Composer,  # composed here, in Python, to count and to keep line numbers
    _EventSource,
    yaml.constructor.SafeConstructor,
    yaml.resolver.Resolver,
):
    """PyYAML's safe loader that counts while it composes: nesting depth, the nodes aliases
    expand to, and the keys of each mapping (a duplicate is refused, not silently dropped)."""

    def __init__(self, text: str, limits: YamlLimits) -> None:
        _EventSource.__init__(self, text)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)
        self.limits = limits
        self._depth = 0
        self._nodes = 0
        self._chars = 0
        """Nodes and scalar characters composed so far, an alias counting what it stands for."""
        self._alias_nodes = 0
        self._alias_chars = 0
        self._sizes: dict[str, tuple[int, int]] = {}
        """What each anchored node stands for: nodes and characters."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = cast(yaml.NodeEvent, self.peek_event())  # a node comes next, or an alias
        if isinstance(event, yaml.AliasEvent):
            self._count_alias(event)
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > self.limits.max_depth:
            msg = f"nested deeper than {self.limits.max_depth} levels; refused"
            raise YamlLimitError(msg, _line(event))
        nodes, chars = self._nodes, self._chars
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        self._nodes += 1
        if isinstance(node, yaml.ScalarNode):
            self._chars += len(node.value)
        if event.anchor is not None:
            self._sizes[event.anchor] = (self._nodes - nodes, self._chars - chars)
        if isinstance(node, yaml.MappingNode):
            self._check_unique_keys(node)
        return node

    def _count_alias(self, event: yaml.AliasEvent) -> None:
        # an anchor still being composed (a recursive alias) counts as one node
        nodes, chars = self._sizes.get(event.anchor or "", (1, 0))
        self._alias_nodes += nodes
        self._alias_chars += chars
        self._nodes += nodes
        self._chars += chars
        if self._alias_nodes > self.limits.max_alias_nodes:
            much = f"{self.limits.max_alias_nodes:,} nodes"
        elif self._alias_chars > self.limits.max_alias_chars:
            much = f"{self.limits.max_alias_chars:,} characters"
        else:
            return
        msg = f"aliases (*{event.anchor} here) expand to more than {much}; refused"
        raise YamlLimitError(msg, _line(event))

    def _check_unique_keys(self, node: yaml.MappingNode) -> None:
        first: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _MERGE:
                continue  # complex keys are refused by the constructor itself
            key = self.construct_object(key_node)
            line = key_node.start_mark.line + 1
            try:
                seen = first.get(key)
            except TypeError:  # unhashable: the constructor says so
                continue
            if seen is not None:
                msg = f"duplicate key {key_node.value!r} (first at line {seen})"
                context = "while composing a mapping"
                raise yaml.constructor.ConstructorError(
                    context, node.start_mark, msg, key_node.start_mark
                )
            first[key] = line


def _line(event: yaml.Event) -> int:
    return event.start_mark.line + 1 if event.start_mark is not None else 1


def load_yaml(path: Path, limits: YamlLimits = YamlLimits()) -> YamlSource:
    """Read ``path``; raises OSError (unreadable), UnicodeDecodeError, or yaml.YAMLError
    (not YAML, a duplicate key, or a `YamlLimitError`)."""
    with path.open("rb") as f:
        raw = f.read(limits.max_bytes + 1)
    if len(raw) > limits.max_bytes:
        msg = f"the file is larger than {limits.max_bytes:,} bytes; refused"
        raise YamlLimitError(msg, 1)
    loader = _BoundedLoader(raw.decode("utf-8"), limits)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as exc:
        # libyaml's own nesting limit (PyYAML >= 6.0.3) can answer before ours does: its
        # scanner looks ahead past our depth. Either way the file says the same thing.
        if isinstance(exc, YamlLimitError) or "nesting depth" not in str(exc.problem):
            raise
        mark = exc.problem_mark
        msg = f"nested deeper than {limits.max_depth} levels; refused"
        raise YamlLimitError(msg, mark.line + 1 if mark is not None else 1) from None
    finally:
        loader.dispose()
    return YamlSource(path, data, root)
