"""Evidence that spreads along the model: personalized PageRank from the task's seeds.

The elements a task points at directly (hinted, named, owning a changed file, matching
its words) are the seeds. Their evidence reaches the rest of the model through its
structure — parents and children, declared relationships — the way a random walk that
keeps returning to the seeds visits it: a neighbour of two seeds more than a neighbour of
one, an element three steps away little. This is the alternative to the fixed rules
(a child inherits its share of its parent, a partner one relationship away gets
``hop_weight``); ``[recall] graph`` chooses between them, and bench/recall_quality.py
compares them leaving each repository out.

The walk is a plain power iteration over a graph of a few hundred nodes at most: it
matches ``networkx.pagerank`` (the tests hold it to that) without importing networkx,
which costs more than a whole recall.
"""

from __future__ import annotations

from collections.abc import Mapping

from archmem.model.types import ArchitectureModel

ITERATIONS = 100
TOLERANCE = 1e-10


def element_graph(model: ArchitectureModel) -> dict[str, dict[str, float]]:
    """Undirected, weighted adjacency: parent and child, both ends of a relationship."""
    adjacency: dict[str, dict[str, float]] = {element.id: {} for element in model.elements}

    def join(a: str, b: str) -> None:
        if a == b or a not in adjacency or b not in adjacency:
            return
        adjacency[a][b] = adjacency[a].get(b, 0.0) + 1.0
        adjacency[b][a] = adjacency[b].get(a, 0.0) + 1.0

    for element in model.elements:
        if element.parent is not None:
            join(element.id, element.parent)
    for relationship in model.relationships:
        join(relationship.source, relationship.destination)
    return adjacency


def personalized_pagerank(
    adjacency: Mapping[str, Mapping[str, float]], seeds: Mapping[str, float], *, alpha: float = 0.85
) -> dict[str, float]:
    """PageRank with restarts to ``seeds`` (weights, normalized here); a node without
    edges hands its share back to the seeds, as networkx does with its personalization."""
    total = sum(weight for node, weight in seeds.items() if node in adjacency and weight > 0)
    if total <= 0:
        return {}
    restart = {node: weight / total for node, weight in seeds.items() if node in adjacency and weight > 0}
    degree = {node: sum(edges.values()) for node, edges in adjacency.items()}
    rank = dict.fromkeys(adjacency, 0.0)
    rank.update(restart)
    for _ in range(ITERATIONS):
        dangling = sum(rank[node] for node in adjacency if degree[node] == 0)
        following = dict.fromkeys(adjacency, 0.0)
        for node, edges in adjacency.items():
            if degree[node] == 0 or rank[node] == 0.0:
                continue
            share = alpha * rank[node] / degree[node]
            for other, weight in edges.items():
                following[other] += share * weight
        for node, weight in restart.items():
            following[node] += (1 - alpha + alpha * dangling) * weight
        change = sum(abs(following[node] - rank[node]) for node in adjacency)
        rank = following
        if change < TOLERANCE * len(adjacency):
            break
    return rank


def spread(adjacency: Mapping[str, Mapping[str, float]], direct: Mapping[str, float], *, alpha: float,
           weight: float) -> dict[str, float]:
    """Each element's evidence from the walk: the strongest seed's score, times how much
    the walk visits the element against the seed it visits most, times ``weight``."""
    rank = personalized_pagerank(adjacency, direct, alpha=alpha)
    if not rank:
        return {}
    top_seed = max(rank[node] for node in direct if node in rank)
    strongest = max(direct.values())
    if top_seed <= 0:
        return {}
    return {node: weight * strongest * min(1.0, value / top_seed) for node, value in rank.items()
            if node not in direct and value > 0}
