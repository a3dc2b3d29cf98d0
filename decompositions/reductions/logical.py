"""Logical reductions: any, all, count_nonzero."""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, like, register_overloads, to_dtype
from primkit.decompositions.reductions.common import full_reduced, keep, reduced_count, reduced_dims
from primkit.prims.layout import maybe, surely


def _logical(name, prim, identity):
    """any / all: the max / min of a != 0, with the identity over empty dims; bool result
    (uint8 for uint8 input, as eager)."""
    def reduce(a, dim=None, keepdim=False):
        dims = reduced_dims(a, dim, empty_means_all=False)
        out_dtype = torch.uint8 if a.dtype == torch.uint8 else torch.bool
        count = reduced_count(a, dims)
        if surely(count == 0):
            out = full_reduced(a, dims, identity, torch.bool)
        elif maybe(count == 0):   # a count read from data (selected rows): no guard, the count of a's elements
            # that decide (zeros for all, nonzeros for any) holds for no element too
            decisive = P.eq(a, like(a, 0)) if identity else P.ne(a, like(a, 0))
            found = P.sum(to_dtype(decisive, torch.int64), dims)
            out = P.eq(found, like(found, 0)) if identity else P.ne(found, like(found, 0))
        else:
            out = prim(a if a.dtype == torch.bool else P.ne(a, like(a, 0)), dims)
        return keep(to_dtype(out, out_dtype), dims, keepdim)
    reduce.__name__ = reduce.__qualname__ = name
    return reduce


any_ = _logical("any", P.amax, False)
all_ = _logical("all", P.amin, True)
for _name, _fn in (("any", any_), ("all", all_)):
    register_overloads(_fn, _name, ("default", "dim", "dims", "out", "all_out", "dims_out"))


def count_nonzero(a, dim=None):
    dims = reduced_dims(a, dim)
    nonzero = a if a.dtype == torch.bool else P.ne(a, like(a, 0))
    return P.sum(to_dtype(nonzero, torch.int64), dims)


register_overloads(count_nonzero, "count_nonzero", ("default", "dim_IntList", "out", "dim_IntList_out"))
