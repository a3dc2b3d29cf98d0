"""Decompositions of reductions, one module per section: ``sums`` (sum, prod, mean, nansum, nanmean,
sum_to_size), ``extrema``, ``logical`` (any, all, count_nonzero), ``statistics`` (var, std, logsumexp, cov,
corrcoef), ``norms``, ``segments`` (segment_reduce), ``counting`` (histc, histogram, histogramdd, bincount)
and ``integration`` (trapezoid, cumulative_trapezoid, diff); ``common`` holds the helpers they share.
Importing the package registers them all.

Each reduces a list of dims with one reduction prim (whose output is contiguous, as eager's
is) and puts the reduced dims back as size 1 for keepdim.
"""
from __future__ import annotations

from primkit.decompositions.reductions import (  # noqa: F401  (each module registers its decompositions on import)
    sums, extrema, logical, statistics, norms, segments, counting, integration,
)
