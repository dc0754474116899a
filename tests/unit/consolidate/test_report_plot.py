import sys

import numpy as np
import pytest

from consolidate.report_plot import PlotError, draw, weight_of
from graph.models import Community, Correction, Fact, Lesson, Topic
from graph.repositories.exports import ExportGraph
from graph.rows import ExportEdge

mpl_image = pytest.importorskip("matplotlib.image")
TAB10 = [(0.122, 0.467, 0.706), (1.0, 0.498, 0.055)]  # the first two community colours


def _graph(with_communities: bool = True) -> ExportGraph:
    topics = [Topic(id=f"t{i}", project="p", title=f"topic {i}", weight=i) for i in range(1, 7)]
    items = [
        *topics,
        Lesson(id="l1", project="p", title="a lesson", weight=2.0),
        Correction(id="c1", project="p", rule_text="a rule", confidence=0.9),
        Fact(id="f1", project="p", statement="a fact", confidence=0.4),
    ]
    communities = [
        Community(id="big", project="p", run_id="r", title="big one"),
        Community(id="small", project="p", run_id="r", title="small one"),
    ]
    members = {"t1": "big", "t2": "big", "t3": "big", "l1": "big", "t4": "small", "c1": "small"}
    edges = [ExportEdge("t1", "RELATED_TO", "t2", weight=0.5)]
    if with_communities:
        edges += [ExportEdge(m, "IN_COMMUNITY", c) for m, c in members.items()]
    return ExportGraph(tuple(items + communities), tuple(edges))


def _has_colour(img: np.ndarray, rgb: tuple[float, float, float]) -> bool:
    return bool((np.abs(img[..., :3] - np.array(rgb)) < 0.01).all(axis=-1).any())


def test_draw_colours_nodes_by_community(tmp_path):
    out = tmp_path / "c.png"
    summary = draw(_graph(), out, title="p")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (summary.items, summary.communities) == (9, 2)
    assert summary.labelled[:3] == ("topic 6", "topic 5", "topic 4")  # heaviest first
    img = mpl_image.imread(out)
    assert _has_colour(img, TAB10[0])  # the largest community
    assert _has_colour(img, TAB10[1])


def test_weight_of_each_kind():
    assert weight_of(Topic(id="t", project="p", title="t", weight=3.0)) == 3.0
    assert weight_of(Correction(id="c", project="p", confidence=0.25)) == 0.25
    assert weight_of(Fact(id="f", project="p", confidence=0.75)) == 0.75


def test_draw_without_communities_says_what_to_run(tmp_path):
    with pytest.raises(PlotError, match="rem job communities"):
        draw(_graph(with_communities=False), tmp_path / "c.png", title="p")
    assert not (tmp_path / "c.png").exists()


def test_missing_matplotlib_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # what `import` sees when not installed
    with pytest.raises(PlotError, match=r"remgraph\[plot\]"):
        draw(_graph(), tmp_path / "c.png", title="p")
