"""Evidence spread along the model by personalized PageRank, held to networkx's own."""

from __future__ import annotations

import random

import networkx as nx
import pytest
from networkx.algorithms.link_analysis.pagerank_alg import _pagerank_python

from archmem.config import RecallConfig
from archmem.model.types import ArchitectureModel, Element, Relationship
from archmem.recall.elements import ElementIndex, relevant_elements
from archmem.recall.graph import element_graph, personalized_pagerank, spread


def _random_graph(seed: int) -> dict[str, dict[str, float]]:
    rng = random.Random(seed)
    nodes = [f"n{i}" for i in range(rng.randint(3, 40))]
    adjacency: dict[str, dict[str, float]] = {n: {} for n in nodes}
    for _ in range(rng.randint(0, 80)):
        a, b = rng.sample(nodes, 2)
        adjacency[a][b] = adjacency[a].get(b, 0.0) + 1.0
        adjacency[b][a] = adjacency[b].get(a, 0.0) + 1.0
    return adjacency


@pytest.mark.parametrize("seed", range(25))
def test_the_walk_is_networkx_personalized_pagerank(seed: int) -> None:
    adjacency = _random_graph(seed)
    rng = random.Random(1000 + seed)
    seeds = {n: rng.random() for n in rng.sample(sorted(adjacency), min(3, len(adjacency)))}
    alpha = rng.choice([0.3, 0.5, 0.85])
    graph = nx.Graph()
    graph.add_nodes_from(adjacency)
    graph.add_weighted_edges_from((a, b, w) for a, edges in adjacency.items() for b, w in edges.items() if a < b)
    # networkx's own power iteration (its pagerank() needs scipy, which archmem does not)
    expected = _pagerank_python(graph, alpha=alpha, personalization=seeds, dangling=seeds, tol=1e-12, max_iter=1000)
    found = personalized_pagerank(adjacency, seeds, alpha=alpha)
    assert found == pytest.approx(expected, abs=1e-6)


def model() -> ArchitectureModel:
    return ArchitectureModel(
        name="Shop",
        elements=[
            Element(id="shop", name="Shop", kind="softwareSystem"),
            Element(id="shop.web", name="Web", kind="container", parent="shop", description="Shows pages."),
            Element(id="shop.orders", name="Orders", kind="container", parent="shop", description="Takes orders."),
            Element(id="shop.pay", name="Payments", kind="container", parent="shop", description="Charges cards."),
            Element(id="shop.mail", name="Mailer", kind="container", parent="shop", description="Sends mail."),
        ],
        relationships=[Relationship(source="shop.web", destination="shop.orders"),
                       Relationship(source="shop.orders", destination="shop.pay")],
    )


def test_evidence_fades_with_distance_from_the_seeds() -> None:
    m = model()
    found = spread(element_graph(m), {"shop.web": 1.0}, alpha=0.6, weight=1.0)
    assert found["shop.orders"] > found["shop.pay"] > 0
    assert "shop.web" not in found  # a seed keeps its own evidence


def test_pagerank_replaces_the_fixed_rules_when_chosen() -> None:
    m = model()
    config = RecallConfig(graph="pagerank", graph_alpha=0.6, graph_weight=0.5)
    matches = relevant_elements(m, ElementIndex(m), None, query="", hints=["shop.web"], config=config)
    assert matches["shop.web"].score == 1.0
    assert matches["shop.orders"].reasons == ["near the task in the model"]
    assert matches["shop.orders"].score > matches["shop.pay"].score
