"""Notebook views: ``_repr_html_`` of results and mechanisms, and ``Mechanism.to_pandas``.

The HTML is read back with the standard library's parser and compared with the numbers it must show,
formatted here from their definitions; pandas is replaced by a recording stand-in (it is not a dependency),
and the real one is used when it is installed.
"""

import dataclasses
import sys
import types
from html.parser import HTMLParser

import numpy as np
import pytest

from problems import PDI, DatabaseSpace, Mechanism, PrivacyToolkitError, Status, exponential_mechanism, priors
from problems.model import MechanismModel, losses, privacy
from problems.notebook import PandasUnavailableError


class _Cells(HTMLParser):
    """Text of every <th>/<td>, row by row, for each <table>."""

    def __init__(self):
        super().__init__()
        self.tables, self._cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _tables(markup: str) -> list[list[list[str]]]:
    parser = _Cells()
    parser.feed(markup)
    return parser.tables


@pytest.fixture(scope="module")
def result():
    return PDI(priors.iid(DatabaseSpace(3, 2), [0.3, 0.7])).solve(1.5)


def test_result_html_shows_status_value_bounds_and_mechanism(result):
    summary, table = _tables(result._repr_html_())
    fields = {row[0]: row[1] for row in summary}
    assert fields["status"] == "optimal (certified)"
    assert fields["value"] == f"{result.value:.10g} rows"
    assert fields["bounds"] == f"[{result.bounds.lower:.10g}, {result.bounds.upper:.10g}] rows"
    assert fields["ε"] == "1.5 nats"
    labels = [",".join(x) for x in ("000", "001", "010", "011", "100", "101", "110", "111")]
    assert table[0] == ["x \\ y", *labels]
    W = result.mechanism.matrix
    for k, row in enumerate(table[1:]):
        assert row[0] == labels[k]
        np.testing.assert_allclose([float(v) for v in row[1:]], W[k], rtol=1e-5, atol=0)


def test_an_uncertified_result_says_so(result):
    worse = dataclasses.replace(result, status=Status.INACCURATE)
    fields = {row[0]: row[1] for row in _tables(worse._repr_html_())[0]}
    assert fields["status"] == "inaccurate"


def test_model_results_have_the_same_view():
    res = MechanismModel([0.5, 0.5], losses.zero_one(2)).add(privacy.local(1.0)).solve()
    summary, table = _tables(res._repr_html_())
    assert summary[0] == ["status", "optimal (certified)"]
    assert len(table) == 3 and table[0] == ["x \\ y", "0", "1"]


def test_large_mechanisms_are_elided():
    W = exponential_mechanism(DatabaseSpace(5, 2), 1.0)  # 32 × 32
    (table,) = _tables(W._repr_html_())
    assert len(table) == 1 + 10 + 1  # header, 5 + 5 rows, the ⋮ row
    assert table[0][:2] == ["x \\ y", "0,0,0,0,0"] and table[0][6] == "…" and table[0][-1] == "1,1,1,1,1"
    assert table[6][0] == "⋮" and table[-1][0] == "1,1,1,1,1"
    assert float(table[1][1]) == pytest.approx(W.matrix[0, 0], rel=1e-5)
    assert float(table[-1][-1]) == pytest.approx(W.matrix[31, 31], rel=1e-5)


def test_labels_are_escaped():
    m = Mechanism(np.eye(2), ("<b>a</b>", "x&y"), ("0", "1"))
    markup = m._repr_html_()
    assert "<b>a</b>" not in markup and "&lt;b&gt;a&lt;/b&gt;" in markup and "x&amp;y" in markup


class _Recorder:
    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs


def test_to_pandas_labels_rows_and_columns(monkeypatch):
    fake = types.ModuleType("pandas")
    fake.DataFrame, fake.Index = _Recorder, _Recorder
    monkeypatch.setitem(sys.modules, "pandas", fake)
    m = Mechanism(np.array([[0.25, 0.75], [1.0, 0.0]]), ("a", "b"), ("y0", "y1"))
    frame = m.to_pandas()
    np.testing.assert_array_equal(frame.args[0], [[0.25, 0.75], [1.0, 0.0]])
    assert frame.kwargs["index"].args == (["a", "b"],) and frame.kwargs["index"].kwargs == {"name": "x"}
    assert frame.kwargs["columns"].args == (["y0", "y1"],) and frame.kwargs["columns"].kwargs == {"name": "y"}


def test_to_pandas_without_pandas_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas → ImportError
    with pytest.raises(PandasUnavailableError, match="pip install pandas") as info:
        Mechanism(np.eye(2)).to_pandas()
    assert isinstance(info.value, ImportError) and isinstance(info.value, PrivacyToolkitError)


def test_to_pandas_with_pandas(result):
    pd = pytest.importorskip("pandas")
    frame = result.mechanism.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.index) == list(result.mechanism.input_labels) and frame.index.name == "x"
    assert frame.loc["0,0,0", "1,1,1"] == result.mechanism.matrix[0, 7]
