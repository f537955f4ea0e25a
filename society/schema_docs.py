"""Field descriptions for the scenario's JSON Schema, read from the attribute docstrings.

The scenario's models document each field with a docstring under it. Pydantic can read
those when it builds each class (``use_attribute_docstrings``), but before Python 3.13 that
walks frames and re-parses the source for every class: 40-60 ms of every command that
reads a scenario. Only `society schema scenario` shows them, so they are read here, one
parse per module, when it asks.
"""

from __future__ import annotations

import ast
import functools
import inspect
import sys
from typing import Any, get_args

from pydantic import BaseModel

__all__ = ["attribute_docs", "with_descriptions"]


@functools.cache
def _module_docs(module: str) -> dict[str, dict[str, str]]:
    """{class name: {field: docstring}} of every top-level class in ``module``."""
    tree = ast.parse(inspect.getsource(sys.modules[module]))
    found: dict[str, dict[str, str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        docs = found.setdefault(node.name, {})
        for stmt, after in zip(node.body, node.body[1:], strict=False):
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                docs[stmt.target.id] = inspect.cleandoc(after.value.value)
    return found


def attribute_docs(cls: type[BaseModel]) -> dict[str, str]:
    """The docstrings under ``cls``'s fields (its own and those it inherits)."""
    docs: dict[str, str] = {}
    for base in reversed(cls.__mro__):
        if issubclass(base, BaseModel) and base is not BaseModel:
            docs.update(_module_docs(base.__module__).get(base.__name__, {}))
    return docs


def _models_in(root: type[BaseModel]) -> dict[str, type[BaseModel]]:
    """Every model reachable from ``root``'s fields, by class name (the schema's ``$defs``)."""
    found: dict[str, type[BaseModel]] = {}
    todo: list[Any] = [root]
    while todo:
        tp = todo.pop()
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            if found.get(tp.__name__) is tp:
                continue
            found[tp.__name__] = tp
            todo += [field.annotation for field in tp.model_fields.values()]
        else:
            todo += get_args(tp)
    return found


def with_descriptions(doc: dict[str, Any], root: type[BaseModel]) -> dict[str, Any]:
    """``root``'s JSON Schema ``doc`` with each field's docstring as its description."""
    models = _models_in(root)
    for name, schema in [(root.__name__, doc), *doc.get("$defs", {}).items()]:
        cls = models.get(name)
        if cls is None:
            continue
        docs = attribute_docs(cls)
        for field, prop in schema.get("properties", {}).items():
            if field in docs and "description" not in prop:
                prop["description"] = docs[field]
    return doc
