"""Load YAML while keeping where every value came from, so errors can name the line."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

__all__ = ["YamlSource", "load_yaml"]


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


def load_yaml(path: Path) -> YamlSource:
    """Read ``path``; raises OSError (unreadable) or yaml.YAMLError (not YAML)."""
    text = path.read_text(encoding="utf-8")
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    finally:
        loader.dispose()
    return YamlSource(path, data, root)
