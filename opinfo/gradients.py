"""Which entries test_gradients checks: data, read by ``opinfo``.

``NO_EAGER_GRADIENT``: entries whose op eager does not differentiate on the float64 samples
(integer or bool results, creation from sizes, ops whose eager derivative is not implemented,
out= forms, which autograd refuses). Their entries get ``supports_autograd=False``; primkit's
own prim derivatives are checked by tests/test_autograd.py (gradcheck) regardless.

``HERMITIAN_INPUT``: entries whose input 0 is read as a Hermitian matrix (one triangle); their
gradients are compared on Hermitian perturbations (see below).

``EAGER_REFERENCE_INPUTS``: entries whose eager reference gradient is computed at shifted inputs
(same gradient, computed exactly by eager there).

Known gradient failures are strict xfails ("gradients") in their entries, as every other xfail.
"""
from __future__ import annotations

_RESULT_NOT_FLOATING = "its result is integer or bool: nothing to differentiate"
_CREATION = "creates a tensor from sizes or scalars: no tensor input to differentiate"
_EAGER_NOT_IMPLEMENTED = "eager has no derivative for it ('not implemented')"
_OUT = "an out= form: eager autograd refuses out= arguments that require grad"

NO_EAGER_GRADIENT = {
    **dict.fromkeys((
        "signbit", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "logical_not", "eq", "ne", "lt",
        "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal", "logical_and",
        "logical_or", "logical_xor", "argmax", "argmin", "any", "all", "count_nonzero", "_assert_tensor_metadata",
        "linalg.matrix_rank", "argsort", "argsort_stable", "searchsorted", "searchsorted_scalar", "bucketize",
        "bucketize_scalar", "nonzero", "argwhere"), _RESULT_NOT_FLOATING),
    **dict.fromkeys((
        "full", "zeros", "ones", "empty", "empty_strided", "scalar_tensor", "full_like", "zeros_like", "ones_like",
        "empty_like", "new_full", "new_zeros", "new_ones", "new_empty", "new_empty_strided", "arange", "linspace",
        "logspace", "eye", "fft.fftfreq", "fft.rfftfreq", "hann_window", "hamming_window", "bartlett_window",
        "blackman_window", "kaiser_window", "hann_window.out", "bartlett_window.out", "hamming_window.out",
        "blackman_window.out", "kaiser_window.out"), _CREATION),
    **dict.fromkeys((
        "floor_divide", "nextafter", "special.gammainc", "special.gammaincc", "special.zeta", "heaviside", "copy",
        "detach_copy", "scatter_reduce_add", "scatter_value_reduce", "scatter_value_reduce_multiply", "native_channel_shuffle", "special_airy_ai",
        "special_bessel_j0", "special_bessel_j1", "special_bessel_y0", "special_bessel_y1",
        "special_modified_bessel_i0", "special_modified_bessel_i1", "special_modified_bessel_k0",
        "special_modified_bessel_k1", "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
        "special_spherical_bessel_j0"), _EAGER_NOT_IMPLEMENTED),
    "view_as_complex_copy": "eager does not differentiate view_as_complex_copy's complex output",
    "detach": "its result never requires grad (eager's detach and primkit's stop_gradient alike)",
    "nn.functional.relu6_": "an in-place form: eager refuses in-place writes into a leaf that requires grad",
    **dict.fromkeys(("any_all_out", "all_all_out", "max_dim_out", "min_dim_out", "aminmax_out"), _OUT),
}



def _shift_by_max(sample, tensors):
    """The input less its (detached) max along the sample's reduced dims: logsumexp's gradient,
    softmax, does not change under such a shift, and eager's exp(x - result) is exact near 0 but not
    at 4.5e307, where result rounds to the max (log 2 is lost) and two tied maxima would each get 1
    instead of 0.5."""
    x = tensors[0]
    dim = sample.kwargs.get("dim", sample.args[0] if sample.args else ())
    dims = [dim] if isinstance(dim, int) else list(dim) or list(range(x.dim()))
    if x.numel() == 0 or x.dim() == 0:
        return tensors
    return [x - x.detach().amax(dims, keepdim=True), *tensors[1:]]


# Entries whose eager reference gradient is taken at transformed inputs where the gradient is
# mathematically the same and eager computes it exactly: name -> function of (sample, its tensors).
EAGER_REFERENCE_INPUTS = {"logsumexp": _shift_by_max, "special_logsumexp": _shift_by_max}

# The prim reads one triangle of A, and its derivative is that triangle's (what finite differences
# see); eager returns the Hermitian gradient. The two agree on every Hermitian perturbation, which is
# what test_gradients compares for these entries: the Hermitian part of primkit's gradient with
# respect to A against eager's gradient (so a model whose A is built Hermitian, L L^H + D, gets
# eager's parameter gradients).
HERMITIAN_INPUT = frozenset(("cholesky", "linalg.cholesky", "linalg.cholesky_ex", "linalg.eigh", "linalg.eigvalsh"))

def apply(op_db) -> None:
    """Set supports_autograd; a name that is no entry is an error."""
    by_name = {e.name: e for e in op_db}
    unknown = sorted((set(NO_EAGER_GRADIENT) | HERMITIAN_INPUT | set(EAGER_REFERENCE_INPUTS))
                     - set(by_name))
    if unknown:
        raise ValueError(f"opinfo.gradients: no entries named {unknown}")
    for name in NO_EAGER_GRADIENT:
        by_name[name].supports_autograd = False
