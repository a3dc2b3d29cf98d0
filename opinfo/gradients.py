"""Which entries test_gradients checks, and its known failures: data, read by ``opinfo``.

``NO_EAGER_GRADIENT``: entries whose op eager does not differentiate on the float64 samples
(integer or bool results, creation from sizes, ops whose eager derivative is not implemented,
out= forms, which autograd refuses). Their entries get ``supports_autograd=False``; primkit's
own prim derivatives are checked by tests/test_autograd.py (gradcheck) regardless.

``GRADIENT_XFAILS``: entries whose float64 gradients through the traced prim graph do not equal
eager's yet; each becomes a strict xfail of test_gradients with its reason (an entry fixed
shows up as an unexpected pass).
"""
from __future__ import annotations

_RESULT_NOT_FLOATING = "its result is integer or bool: nothing to differentiate"
_CREATION = "creates a tensor from sizes or scalars: no tensor input to differentiate"
_EAGER_NOT_IMPLEMENTED = "eager has no derivative for it ('not implemented')"

NO_EAGER_GRADIENT = {
    **dict.fromkeys((
        "signbit", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "logical_not", "eq", "ne", "lt", "le", "gt",
        "ge", "logical_and", "logical_or", "logical_xor", "argmax", "argmin", "any", "all", "count_nonzero",
        "_assert_tensor_metadata"), _RESULT_NOT_FLOATING),
    **dict.fromkeys((
        "full", "zeros", "ones", "empty", "empty_strided", "scalar_tensor", "full_like", "zeros_like", "ones_like",
        "empty_like", "new_full", "new_zeros", "new_ones", "new_empty", "new_empty_strided", "arange", "linspace",
        "logspace", "eye"), _CREATION),
    **dict.fromkeys((
        "floor_divide", "nextafter", "special.gammainc", "special.gammaincc", "special.zeta", "heaviside", "copy",
        "scatter_reduce_add"), _EAGER_NOT_IMPLEMENTED),
}

_NOT_FUNCTIONAL = ("the traced graph keeps an in-place copy_to into a fresh buffer, which autograd cannot "
                   "differentiate (canonicalize leaves writes into buffers that have views)")
_NO_TRACE = "the float64 sample does not trace (a view op's in-place form has no decomposition)"

GRADIENT_XFAILS = {
    "prod": "prod's derivative (result / x) overflows to nan on large magnitudes; eager divides without overflow",
    "prod_all": "prod's derivative (result / x) overflows to nan on large magnitudes; eager divides without overflow",
    "max": "max over large magnitudes: the gradient is spread differently from eager's (ties)",
    "var": "0-d input: var's derivative divides by a zero count where eager gives nan/0 by its own rule",
    "std": "0-d input: std's derivative at a zero deviation gives inf where eager gives 0",
    "std_mean": "0-d input: std's derivative at a zero deviation gives nan where eager gives 0",
    "logsumexp": "large magnitudes: logsumexp's derivative is not max-shifted, half the weight is lost",
    "detach": "detach decomposes to the alias prim, which passes the gradient; eager's detach stops it",
    "nn.functional.embedding": "padding_idx: the gradient reaches the padding row, eager's does not",
    "nn.functional.batch_norm": _NOT_FUNCTIONAL,
    **dict.fromkeys(("matmul_vector_matrix", "nn.functional.linear_vector_input",
                     "nn.functional.adaptive_avg_pool2d.global_channels_last"), _NO_TRACE),
    "sum": "a sample sums into dtype=int64, whose gradient eager refuses",
    "index_bool_mask": "boolean-mask indexing is data-dependent: primkit cannot trace it",
    "scatter": "eager's ScatterBackward returns src's gradient in index's shape (src larger than index)",
    "scatter_add": "eager's ScatterAddBackward returns src's gradient in index's shape (src larger than index)",
}


def apply(op_db) -> None:
    """Set supports_autograd and add the strict xfails; a name that is no entry is an error."""
    from opinfo.core import XFail
    import torch
    by_name = {e.name: e for e in op_db}
    unknown = sorted((set(NO_EAGER_GRADIENT) | set(GRADIENT_XFAILS)) - set(by_name))
    if unknown:
        raise ValueError(f"opinfo.gradients: no entries named {unknown}")
    for name in NO_EAGER_GRADIENT:
        by_name[name].supports_autograd = False
    for name, reason in GRADIENT_XFAILS.items():
        entry = by_name[name]
        entry.xfails = (*entry.xfails, XFail("gradients", reason, frozenset({torch.float64})))
