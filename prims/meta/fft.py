"""Meta rule of the fft family: c2c keeps shape and dtype; r2c halves dims[-1] (onesided) and
goes complex; c2r sets dims[-1] to last_dim_size and goes real. Contiguous output."""
from __future__ import annotations

from primkit.prims import dtypes as dt
from primkit.prims.errors import check
from primkit.prims.meta.rules import TensorMeta, meta_rule, one_of
from primkit.prims.meta.common import canonical_dims, check_dtype
from primkit.prims.layout import contiguous_strides

NORMALIZATIONS = (0, 1, 2)   # none, 1/sqrt(n), 1/n: ATen's fft_norm_mode


@meta_rule("fft", params={"kind": one_of("c2c", "r2c", "c2r")}, constraints=("C1", "C2", "C3", "C4"))
def fft(prim, a, dims, mode, normalization):
    """mode: c2c's forward, r2c's onesided, c2r's last_dim_size."""
    kind = prim.params["kind"]
    check(len(dims) > 0, prim, "C1", "dims is empty, expected at least one dim to transform")
    dims = canonical_dims(prim, "C1", dims, len(a.shape))
    check(len(a.shape) > 0, prim, "C1", "cannot transform a 0-d operand")
    check_dtype(prim, "C2", a, prim.dtypes)
    check(normalization in NORMALIZATIONS, prim, "C3", lambda: f"normalization is {normalization}, expected 0 (none), "
          f"1 (1/sqrt(n)) or 2 (1/n)")
    for d in dims:
        check(a.shape[d] >= 1, prim, "C4", lambda: f"dim {d} has size {a.shape[d]}, expected >= 1 to transform")
    shape, last = list(a.shape), dims[-1]
    if kind == "c2c":
        dtype = a.dtype
    elif kind == "r2c":
        dtype = dt.to_complex(a.dtype)
        if mode:
            shape[last] = a.shape[last] // 2 + 1
    else:
        check(mode >= 1, prim, "C4", lambda: f"last_dim_size is {mode}, expected >= 1")
        check(a.shape[last] == mode // 2 + 1, prim, "C4", lambda: f"the input has size {a.shape[last]} in dim {last} "
              f"but last_dim_size {mode} needs {mode // 2 + 1}")
        dtype, shape[last] = dt.to_real(a.dtype), mode
    return TensorMeta(tuple(shape), contiguous_strides(shape), dtype, a.device)
