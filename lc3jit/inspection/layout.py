"""Graph layout for the page: Graphviz `dot` when it is installed, a layered layout of our own otherwise.

Both give the same `Layout` (node centres, edge paths in SVG's path syntax, cluster boxes,
y growing downwards), so the page draws one way whichever laid it out. Graphviz is an
optional extra (`pip install lc3jit[html]` and the `dot` program); without it, or when it
fails, the built-in layout keeps the page working: each cluster is laid out in layers
(longest path from its first node, back edges ignored, each layer ordered by where its
predecessors sit), and the clusters are packed in rows.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

NODE_WIDTH = 150.0
NODE_HEIGHT = 44.0
H_GAP = 36.0
V_GAP = 44.0
PAD = 18.0  # inside a cluster's box, around its nodes
TITLE = 16.0  # a cluster's title, above its nodes
POINTS = 72.0  # Graphviz measures in points and sizes in inches


@dataclass(frozen=True, slots=True)
class Node:
    name: str
    cluster: str | None = None


@dataclass(frozen=True, slots=True)
class Edge:
    tail: str
    head: str


@dataclass
class Layout:
    width: float
    height: float
    centres: dict[str, tuple[float, float]] = field(default_factory=dict)
    paths: list[str] = field(default_factory=list)  # one per edge, in the order given
    clusters: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)  # x, y, w, h
    engine: str = "built-in"


def lay_out(nodes: Sequence[Node], edges: Sequence[Edge], clusters: Sequence[str] = ()) -> Layout:
    """Graphviz when it can, the built-in layout when it cannot."""
    try:
        return dot_layout(nodes, edges, clusters)
    except (ImportError, OSError, RuntimeError, ValueError, KeyError):  # no package, no `dot`, or it failed
        return layered_layout(nodes, edges, clusters)


def dot_layout(nodes: Sequence[Node], edges: Sequence[Edge], clusters: Sequence[str]) -> Layout:
    """Lays the graph out with `dot` through the `graphviz` package, read back as JSON."""
    import graphviz  # the optional extra

    graph = graphviz.Digraph(graph_attr={"rankdir": "TB", "nodesep": "0.35", "ranksep": "0.45"})
    size = {"width": str(NODE_WIDTH / POINTS), "height": str(NODE_HEIGHT / POINTS), "fixedsize": "true"}
    members: dict[str | None, list[Node]] = {}
    for node in nodes:
        members.setdefault(node.cluster, []).append(node)
    for node in members.get(None, []):
        graph.node(node.name, shape="box", **size)
    for index, cluster in enumerate(clusters):
        with graph.subgraph(name=f"cluster_{index}") as sub:
            sub.attr(label=cluster, id=cluster)
            for node in members.get(cluster, []):
                sub.node(node.name, shape="box", **size)
    for index, edge in enumerate(edges):
        graph.edge(edge.tail, edge.head, id=f"e{index}")
    try:
        document = json.loads(graph.pipe(format="json", encoding="utf-8"))
    except graphviz.ExecutableNotFound as e:
        raise OSError(str(e)) from None
    except graphviz.CalledProcessError as e:
        raise RuntimeError(str(e)) from None
    _, _, width, height = (float(v) for v in document["bb"].split(","))
    layout = Layout(width, height, engine="dot")

    def point(text: str) -> tuple[float, float]:
        x, y = (float(v) for v in text.split(","))
        return x, height - y

    for item in document.get("objects", []):
        if "bb" in item and item.get("id") in clusters:
            x0, y0, x1, y1 = (float(v) for v in item["bb"].split(","))
            layout.clusters[item["id"]] = (x0, height - y1, x1 - x0, y1 - y0)
        elif "pos" in item:
            layout.centres[item["name"]] = point(item["pos"])
    by_id = {item["id"]: item for item in document.get("edges", [])}
    for index in range(len(edges)):
        layout.paths.append(_spline_path(by_id[f"e{index}"]["pos"], point))
    return layout


def _spline_path(pos: str, point: object) -> str:
    """Graphviz's "e,x,y p0 p1 p2 p3 ..." (a B-spline of cubic pieces, then the arrow's tip)
    as an SVG path ending at the tip."""
    assert callable(point)
    tip = None
    points = []
    for part in pos.split():
        if part.startswith("e,"):
            tip = point(part[2:])
        elif not part.startswith("s,"):
            points.append(point(part))
    d = [f"M{points[0][0]:.1f},{points[0][1]:.1f}"]
    for i in range(1, len(points) - 2, 3):
        (ax, ay), (bx, by), (cx, cy) = points[i : i + 3]
        d.append(f"C{ax:.1f},{ay:.1f} {bx:.1f},{by:.1f} {cx:.1f},{cy:.1f}")
    if tip is not None:
        d.append(f"L{tip[0]:.1f},{tip[1]:.1f}")
    return " ".join(d)


def _layers(names: Sequence[str], successors: dict[str, list[str]]) -> dict[str, int]:
    """Each node's layer: the longest path to it from the first nodes, back edges left out."""
    state: dict[str, int] = {}  # 1 on the walk's stack, 2 done
    forward: dict[str, list[str]] = {name: [] for name in names}
    for root in names:
        if root in state:
            continue
        stack = [(root, iter(successors[root]))]
        state[root] = 1
        while stack:
            name, pending = stack[-1]
            following = next(pending, None)
            if following is None:
                state[name] = 2
                stack.pop()
            elif following not in state:
                forward[name].append(following)
                state[following] = 1
                stack.append((following, iter(successors[following])))
            elif state[following] == 2:
                forward[name].append(following)
    order: list[str] = []  # reverse postorder of the forward edges: a topological order
    seen: set[str] = set()
    for root in names:
        if root in seen:
            continue
        seen.add(root)
        stack2 = [(root, iter(forward[root]))]
        while stack2:
            name, pending = stack2[-1]
            following = next(pending, None)
            if following is None:
                order.append(name)
                stack2.pop()
            elif following not in seen:
                seen.add(following)
                stack2.append((following, iter(forward[following])))
    layer = dict.fromkeys(names, 0)
    for name in reversed(order):
        for following in forward[name]:
            layer[following] = max(layer[following], layer[name] + 1)
    return layer


def _group_layout(
    names: Sequence[str], edges: Sequence[Edge]
) -> tuple[dict[str, tuple[float, float]], float, float]:
    """A cluster's nodes in layers, relative to its top left corner; its width and height."""
    inside = set(names)
    successors: dict[str, list[str]] = {name: [] for name in names}
    predecessors: dict[str, list[str]] = {name: [] for name in names}
    for edge in edges:
        if edge.tail in inside and edge.head in inside and edge.tail != edge.head:
            successors[edge.tail].append(edge.head)
            predecessors[edge.head].append(edge.tail)
    layer = _layers(names, successors)
    rows: dict[int, list[str]] = {}
    for name in names:
        rows.setdefault(layer[name], []).append(name)
    slot: dict[str, float] = {}
    for depth in sorted(rows):
        row = rows[depth]
        weights = {}
        for index, name in enumerate(row):
            above = [slot[p] for p in predecessors[name] if p in slot]
            weights[name] = sum(above) / len(above) if above else float(index)
        row.sort(key=weights.__getitem__)
        for index, name in enumerate(row):
            slot[name] = float(index)
    widest = max(len(row) for row in rows.values())
    width = widest * NODE_WIDTH + (widest - 1) * H_GAP
    centres = {}
    for depth, row in rows.items():
        offset = (width - (len(row) * NODE_WIDTH + (len(row) - 1) * H_GAP)) / 2
        for index, name in enumerate(row):
            x = offset + index * (NODE_WIDTH + H_GAP) + NODE_WIDTH / 2
            centres[name] = (x, depth * (NODE_HEIGHT + V_GAP) + NODE_HEIGHT / 2)
    height = len(rows) * NODE_HEIGHT + (len(rows) - 1) * V_GAP
    return centres, width, height


def layered_layout(nodes: Sequence[Node], edges: Sequence[Edge], clusters: Sequence[str] = ()) -> Layout:
    """The built-in layout: each cluster (and each node outside any) laid out in layers,
    the pieces packed in rows about as wide as the whole is tall."""
    groups: list[tuple[str | None, list[str]]] = [(cluster, []) for cluster in clusters]
    index = {cluster: i for i, cluster in enumerate(clusters)}
    loose: list[str] = []
    for node in nodes:
        if node.cluster in index:
            groups[index[node.cluster]][1].append(node.name)
        else:
            loose.append(node.name)
    if loose:
        groups.append((None, loose))
    pieces = []
    for cluster, names in groups:
        if not names:
            continue
        centres, width, height = _group_layout(names, edges)
        frame = PAD if cluster is not None else 0.0
        top = frame + (TITLE if cluster is not None else 0.0)
        pieces.append((cluster, centres, width + 2 * frame, height + top + frame, frame, top))
    area = sum(w * h for _, _, w, h, _, _ in pieces)
    row_width = max(max((w for _, _, w, _, _, _ in pieces), default=0.0), math.sqrt(area) * 1.6)
    layout = Layout(0.0, 0.0)
    x = y = row_height = 0.0
    for cluster, centres, width, height, frame, top in pieces:
        if x > 0 and x + width > row_width:
            x, y, row_height = 0.0, y + row_height + V_GAP, 0.0
        for name, (cx, cy) in centres.items():
            layout.centres[name] = (x + frame + cx, y + top + cy)
        if cluster is not None:
            layout.clusters[cluster] = (x, y, width, height)
        layout.width = max(layout.width, x + width)
        row_height = max(row_height, height)
        x += width + H_GAP
    layout.height = y + row_height
    layout.paths = [_straight_path(layout.centres[e.tail], layout.centres[e.head]) for e in edges]
    return layout


def _straight_path(tail: tuple[float, float], head: tuple[float, float]) -> str:
    """From the tail's bottom to the head's top; upwards or sideways, a curve around the side."""
    (tx, ty), (hx, hy) = tail, head
    start = (tx, ty + NODE_HEIGHT / 2)
    if hy > ty:
        end = (hx, hy - NODE_HEIGHT / 2)
        return f"M{start[0]:.1f},{start[1]:.1f} L{end[0]:.1f},{end[1]:.1f}"
    if (tx, ty) == (hx, hy):  # a block that loops on itself
        side, out = tx + NODE_WIDTH / 2, tx + NODE_WIDTH / 2 + 40
        up, down = ty - 8, ty + 8
        return f"M{side:.1f},{up:.1f} C{out:.1f},{ty - 30:.1f} {out:.1f},{ty + 30:.1f} {side:.1f},{down:.1f}"
    end = (hx + NODE_WIDTH / 2, hy)
    bend = max(abs(tx - hx), 60.0) / 2 + 40
    return (
        f"M{tx + NODE_WIDTH / 2:.1f},{ty:.1f} C{tx + NODE_WIDTH / 2 + bend:.1f},{ty:.1f} "
        f"{end[0] + bend:.1f},{end[1]:.1f} {end[0]:.1f},{end[1]:.1f}"
    )
