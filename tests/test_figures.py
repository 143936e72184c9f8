"""Figures fit for a paper: every axis labelled with its unit, legends off the data, no DP bounds on an MI
plot, coinciding curves visible, no "this work"; all drawn on Figure objects without pyplot."""

from types import SimpleNamespace

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from problems import DatabaseSpace, priors
from problems.curves import privacy_distortion_curve
from problems.orbit.scale import PRECOMPUTED_CSV, read_rows
from problems.plotting import h_figure, privacy_distortion_figure, save_figure
from problems.reproduce.figures import (
    calibration_figure,
    comparison_figure,
    privacy_distortion_ip_figure,
    scale_plot,
)
from problems.reproduce.information import calibration_data

UNITS = ("(nats)", "rows)", "(probability)", "per row)", "(bits)")


def _check_paper_ready(fig: Figure) -> None:
    assert isinstance(fig, Figure)
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        labels = [ax.get_xlabel(), ax.get_ylabel()]
        if ax.get_shared_x_axes().get_siblings(ax) != [ax] and not labels[0]:
            labels = labels[1:]  # a twin axis shares the x label of its parent
        for label in labels:
            assert label and any(u in label for u in UNITS), f"axis label without unit: {label!r}"
        legend = ax.get_legend()
        if legend is not None:
            texts = [t.get_text() for t in legend.get_texts()]
            assert not any("this work" in t for t in texts)
            # the legend box lies outside the data area, or no data point falls inside it
            box = legend.get_window_extent(renderer)
            for line in ax.get_lines():
                pts = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
                # the segments between the vertices too (a horizontal line has only two)
                t = np.linspace(0.0, 1.0, 25)[:, None, None]
                xy = (pts[:-1] * (1 - t) + pts[1:] * t).reshape(-1, 2) if len(pts) > 1 else pts
                inside = (box.x0 < xy[:, 0]) & (xy[:, 0] < box.x1) & (box.y0 < xy[:, 1]) & (xy[:, 1] < box.y1)
                assert not inside.any(), f"legend covers {line.get_label()!r}"
    for legend in fig.legends:
        assert not any("this work" in t.get_text() for t in legend.get_texts())


@pytest.fixture(scope="module")
def curves():
    sp = DatabaseSpace(3, 2)
    pr = priors.iid(sp, [0.3, 0.7])
    return {nt: privacy_distortion_curve(pr, nt, points=6) for nt in "idm"}


@pytest.fixture(scope="module")
def uniform_curves():
    pr = priors.uniform(DatabaseSpace(3, 2))
    return [privacy_distortion_curve(pr, nt, points=6) for nt in "id"]


def test_figure2(curves, tmp_path):
    fig = privacy_distortion_figure([curves["i"], curves["d"]])
    _check_paper_ready(fig)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert any("h^{-1}(D)-\\epsilon_X" in lab for lab in labels)  # the DP lower bound of Theorem 1
    paths = save_figure(fig, tmp_path / "f")
    assert [p.suffix for p in paths] == [".png", ".svg"] and all(p.stat().st_size > 0 for p in paths)


def test_mi_curve_has_no_dp_bounds(curves):
    fig = privacy_distortion_figure([curves["m"]])
    _check_paper_ready(fig)
    ax = fig.axes[0]
    labels = " ".join(ax.get_legend_handles_labels()[1])
    assert "h^{-1}" not in labels and "Theorem 1" not in labels and "$\\epsilon_X$" not in labels
    assert "mutual information" in ax.get_ylabel()
    assert not ax.texts  # no floating labels above the axes


def test_equal_curves_stay_visible(uniform_curves):
    fig = privacy_distortion_figure(uniform_curves)
    ax = fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    li = next(v for k, v in lines.items() if "PD-I" in k)
    ld = next(v for k, v in lines.items() if "PD-DP" in k)
    np.testing.assert_allclose(li.get_ydata(), ld.get_ydata(), atol=1e-6)  # the curves coincide ...
    assert li.get_marker() != ld.get_marker() and li.get_linestyle() != ld.get_linestyle()  # ... both visible
    assert ld.get_markersize() > li.get_markersize() and ld.get_markerfacecolor() == "none"


def test_h_figure():
    _check_paper_ready(h_figure(4, 2))


def test_calibration_figure_both_panels_labelled():
    fig = calibration_figure(calibration_data(points=4, gauss_points=3))
    _check_paper_ready(fig)
    assert len(fig.axes) == 2 and all("C_1" in ax.get_ylabel() for ax in fig.axes)


def test_design_figures(curves):
    rows = [
        {"eps": e, "optimal_ip": 0.5 - e, "randomized-response": 0.7 - e, "optimal_dp": 0.6}
        for e in (0.1, 0.2, 0.3)
    ]
    _check_paper_ready(comparison_figure(rows))
    grid = curves["d"].distortion
    _check_paper_ready(privacy_distortion_ip_figure(grid, curves, np.zeros_like(grid), title="t"))


def test_scale_figure_has_legend_for_both_panels():
    rows = read_rows(PRECOMPUTED_CSV)
    fig = scale_plot(rows, computed_ns=())
    _check_paper_ready(fig)
    assert len(fig.legends) == 1  # one legend for both panels, below them
    assert {t.get_text() for t in fig.legends[0].get_texts()} >= {"PD-DP, n = 200 (precomputed)"}


def test_balance_figure():
    pytest.importorskip("casadi")
    from ipopt_models.reproduce import balance_figure

    b = np.linspace(0, np.log(4), 4)
    c = SimpleNamespace(name="c", b=b, delta_lower=b * 0.1, delta_upper=b * 0.1, c1_lower=0.3)
    _check_paper_ready(balance_figure([c, c]))
