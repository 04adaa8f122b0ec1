"""Helpers for the CuPy client tests."""

import numpy as np


def ulp_error(got, exact):
    """|got - exact| in units of the spacing of `got`'s type at `exact` (max over elements).

    `exact` is a float64 (or better) reference. Near a power of two this counts up to twice
    the error a textbook ulp would, so tolerances below add one ulp of slack."""
    got = np.asarray(got)
    exact = np.asarray(exact, dtype=np.float64)
    spacing = np.spacing(np.abs(exact).astype(got.dtype)).astype(np.float64)
    both_inf = np.isinf(got) & np.isinf(exact) & (np.sign(got) == np.sign(exact))
    both_nan = np.isnan(got) & np.isnan(exact)
    err = np.abs(got.astype(np.float64) - exact) / spacing
    err = np.where(both_inf | both_nan, 0.0, err)
    err = np.where(np.isnan(err), np.inf, err)  # NaN on one side only
    return float(err.max()) if err.size else 0.0
