"""The one grammar of prior specs, as ``--prior`` and the sweep spell them.

``uniform`` | ``iid:P0,P1,…`` (row pmf) | ``pmf:P0,…,P(N−1)`` | ``file:PATH`` (.npy, .csv, .json) |
``contagious:W`` or ``contagious:W:P0,P1,…`` | ``mixture:W0,W1,…/P00,P01,…/P10,P11,…`` (weights, then one row
pmf per component; ``;`` may separate them instead of ``/``, and must where a number is a fraction:
``mixture:1/3,2/3;0.8,0.2;0.3,0.7``).  Numbers are decimals (``0.25``) or fractions (``1/3``); lists are
comma-separated with no empty item.

:func:`parse_prior_spec` reads a spec into a :class:`PriorSpec` (the grammar only: no pmf is built and no
length is checked, so it is cheap at any n).  The priors are built from it by
:func:`problems.priors.prior_from_spec` (the dense :class:`~problems.priors.Prior`, N = mⁿ entries) and
:func:`problems.orbit.symmetric_prior.symmetric_from_spec` (a
:class:`~problems.orbit.symmetric_prior.SymmetricPrior`, rows only, any n); those check the shapes and
values.  :func:`problems.dispatch.prior_from_spec` chooses between them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import InvalidInputError

__all__ = [
    "PriorSpec",
    "PRIOR_KINDS",
    "SYMMETRIC_SPECS",
    "parse_prior_spec",
    "spec_kind",
    "is_symmetric_spec",
    "parse_number",
    "split_items",
    "parse_numbers",
]

#: The kinds of prior spec.
PRIOR_KINDS = ("uniform", "iid", "pmf", "file", "contagious", "mixture")
#: Spec kinds that are invariant under permuting rows (read without building the mⁿ pmf).
SYMMETRIC_SPECS = ("uniform", "iid", "contagious", "mixture")

DENSE_GRAMMAR = "use uniform, iid:P0,P1,…, pmf:P0,…, file:PATH or contagious:W[:P0,P1,…]"


@dataclass(frozen=True)
class PriorSpec:
    """A parsed prior spec.

    Attributes
    ----------
    kind:
        One of :data:`PRIOR_KINDS`.
    text:
        The spec as given.
    values:
        ``iid``: the row pmf; ``pmf``: the N masses; ``contagious``: the row pmf π, or empty for uniform π.
    weight:
        ``contagious``: the weight W of the all-rows-equal component.
    rows, weights:
        ``mixture``: the component row pmfs π_j and the mixture weights w_j.
    path:
        ``file``: the path of the pmf file.
    """

    kind: str
    text: str
    values: tuple[float, ...] = ()
    weight: float | None = None
    rows: tuple[tuple[float, ...], ...] = ()
    weights: tuple[float, ...] = ()
    path: str | None = None

    @property
    def symmetric(self) -> bool:
        """The prior is invariant under permuting rows (a SymmetricPrior can describe it)."""
        return self.kind in SYMMETRIC_SPECS


def parse_number(token: str, what: str = "number") -> float:
    """A float from a decimal (``0.25``) or a fraction (``1/3``); bad input otherwise."""
    t = token.strip()
    try:
        if "/" in t:
            num, den = t.split("/")
            value = float(num) / float(den)
        else:
            value = float(t)
    except (ValueError, ZeroDivisionError):
        raise InvalidInputError(
            f"{what}: {t!r} is not a number (decimals like 0.25 or fractions like 1/3)"
        ) from None
    return value


def split_items(text: str, what: str) -> list[str]:
    """The items of a comma-separated list, stripped; an empty item (``1,,2``, ``0.3,0.7,``) is bad input.

    Every list on the command line is read with this (prior specs, sweep values), so they agree.
    """
    tokens = [t.strip() for t in str(text).split(",")]
    if tokens == [""]:
        raise InvalidInputError(f"{what}: expected comma-separated values, got {text!r}")
    if "" in tokens:
        k = tokens.index("")
        where = (
            "a trailing comma" if k == len(tokens) - 1 else ("a leading comma" if k == 0 else "two commas")
        )
        raise InvalidInputError(
            f"{what}: empty item {k + 1} in {text!r} ({where}); write values separated by single commas"
        )
    return tokens


def parse_numbers(text: str, what: str) -> list[float]:
    """Comma-separated numbers (decimals or fractions)."""
    return [parse_number(t, what) for t in split_items(text, what)]


def spec_kind(spec: str) -> str:
    """The kind of a spec (the text before the first colon, lower case), without parsing the rest."""
    return spec.split(":", 1)[0].strip().lower()


def is_symmetric_spec(spec: str) -> bool:
    """``spec`` names a row-permutation-invariant prior (uniform, iid, contagious, mixture)."""
    return isinstance(spec, str) and spec_kind(spec) in SYMMETRIC_SPECS


def parse_prior_spec(spec: str, *, symmetric: bool = False) -> PriorSpec:
    """Read a prior spec (see the module docstring); bad input names the spec and the valid forms.

    With ``symmetric=True`` only the row-permutation-invariant kinds (:data:`SYMMETRIC_SPECS`) are accepted:
    the spec of a :class:`~problems.orbit.symmetric_prior.SymmetricPrior`.
    """
    if symmetric:
        if not isinstance(spec, str):
            raise InvalidInputError(f"a prior spec is a string such as 'iid:0.3,0.7', got {spec!r}")
        kind, _, rest = spec.partition(":")
        if kind.strip().lower() not in SYMMETRIC_SPECS or (kind.strip().lower() == "uniform" and rest):
            raise InvalidInputError(
                f"unknown symmetric prior spec {spec!r}; use uniform, iid:P0,P1,…, contagious:W[:P0,…] or "
                "mixture:W0,W1/P00,P01,…/P10,P11,…"
            )
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidInputError(f"the prior spec is empty; {DENSE_GRAMMAR}")
    kind, _, rest = spec.partition(":")
    kind = kind.strip().lower()
    if kind == "uniform" and not rest:
        return PriorSpec("uniform", spec)
    if kind == "iid":
        return PriorSpec("iid", spec, values=tuple(parse_numbers(rest, "--prior iid")))
    if kind == "pmf":
        return PriorSpec("pmf", spec, values=tuple(parse_numbers(rest, "--prior pmf")))
    if kind == "file":
        return PriorSpec("file", spec, path=rest)
    if kind == "contagious":
        w, _, row = rest.partition(":")
        weights = parse_numbers(w, "--prior contagious weight")
        if len(weights) != 1:
            raise InvalidInputError(f"--prior contagious:W takes one weight W in [0, 1], got {w!r}")
        values = tuple(parse_numbers(row, "--prior contagious row")) if row else ()
        return PriorSpec("contagious", spec, values=values, weight=weights[0])
    if kind == "mixture":
        sep = ";" if ";" in rest else "/"
        parts = rest.split(sep)
        if len(parts) < 2:
            raise InvalidInputError(
                f"--prior mixture is W0,W1,…/ROW0/ROW1/… (or with ';' between them), got {spec!r}"
            )
        rows = tuple(tuple(parse_numbers(p, "mixture row")) for p in parts[1:])
        mix = tuple(parse_numbers(parts[0], "weights"))
        if sep == "/" and (len(mix) != len(rows) or len({len(r) for r in rows}) > 1):
            raise InvalidInputError(
                f"--prior {spec!r}: {len(mix)} weight(s) for {len(rows)} row(s) of lengths "
                f"{sorted({len(r) for r in rows})}; a mixture needs one row pmf per weight, all of one length. "
                "'/' separates the parts, so a fraction such as 1/3 splits them: separate the parts with ';' "
                "instead (mixture:1/3,2/3;0.8,0.2;0.3,0.7) or write decimals"
            )
        return PriorSpec("mixture", spec, rows=rows, weights=mix)
    raise InvalidInputError(f"unknown prior spec {spec!r}; {DENSE_GRAMMAR}")
