"""The task graph as SVG, drawn on the server: tasks in layers by dependency depth, edges
from each dependency, colour by state, priority (value) in the box."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from society.view.progress import TaskView

__all__ = ["graph_svg"]

_FILL = {
    "pending": "#eeeeee",
    "proposed": "#f4f4f4",
    "running": "#ffe08a",
    "done": "#b7e4b0",
    "failed": "#f4a3a3",
    "cancelled": "#e0b3f0",
    "refused": "#f8d0d0",
    "superseded": "#dddddd",
    "merged": "#cfe8f0",
}
_W, _H, _GAP_X, _GAP_Y = 150, 36, 40, 10
_MAX_NODES = 1500


def _layers(tasks: Sequence[TaskView]) -> dict[str, int]:
    """Each task's depth: 0 without known dependencies, else one more than its deepest."""
    known = {t.id: t for t in tasks}
    depth: dict[str, int] = {}
    for start in tasks:
        stack = [(start.id, False)]
        while stack:
            tid, expanded = stack.pop()
            if tid in depth:
                continue
            deps = [d for d in known[tid].depends_on if d in known and d != tid]
            if expanded:
                depth[tid] = 1 + max((depth.get(d, 0) for d in deps), default=-1)
                continue
            stack.append((tid, True))
            stack.extend((d, False) for d in deps if d not in depth)
    return depth


def graph_svg(tasks: Sequence[TaskView]) -> str:
    """An SVG of the tasks and their dependency edges (the first `_MAX_NODES` tasks)."""
    shown = list(tasks)[:_MAX_NODES]
    if not shown:
        return '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>'
    depth = _layers(shown)
    rows: dict[int, int] = {}
    place: dict[str, tuple[int, int]] = {}
    for t in shown:
        layer = depth.get(t.id, 0)
        row = rows.get(layer, 0)
        rows[layer] = row + 1
        place[t.id] = (layer * (_W + _GAP_X) + 5, row * (_H + _GAP_Y) + 5)
    width = (max(rows) + 1) * (_W + _GAP_X)
    height = max(rows.values()) * (_H + _GAP_Y) + 10
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">'
    ]
    for t in shown:
        x, y = place[t.id]
        for d in t.depends_on:
            if d in place:
                dx, dy = place[d]
                parts.append(
                    f'<line x1="{dx + _W}" y1="{dy + _H // 2}" x2="{x}" y2="{y + _H // 2}" '
                    'stroke="#888" stroke-width="1"/>'
                )
    for t in shown:
        x, y = place[t.id]
        fill = _FILL.get(t.state, "#ffffff")
        label = escape(t.id[:22])
        parts.append(
            f'<g class="task" data-task="{escape(t.id)}" data-state="{escape(t.state)}">'
            f"<title>{escape(t.id)} ({escape(t.role)}): {escape(t.state)} · value "
            f"{t.value:g}</title>"
            f'<rect x="{x}" y="{y}" width="{_W}" height="{_H}" rx="5" fill="{fill}" '
            'stroke="#555"/>'
            f'<text x="{x + 6}" y="{y + 15}" font-size="12" font-family="sans-serif">{label}'
            "</text>"
            f'<text x="{x + 6}" y="{y + 30}" font-size="10" font-family="sans-serif" '
            f'fill="#333">{escape(t.state)} · {escape(t.role)} · v{t.value:g}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)
