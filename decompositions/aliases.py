"""Aliases: ATen ops that are another op under a second name (torch.absolute is torch.abs,
torch.special.expit is torch.sigmoid, ...), and the torch.special functions that have a prim of
their own.

Most aliases are CompositeImplicitAutograd: make_fx decomposes them with torch's kernels before
our table is consulted, while torch.export keeps them and run_decompositions uses the table. Each
overload of an alias runs the original's overload (functional, in-place and out= alike), so the
alias inherits the original's decomposition, checks and errors.
"""
from __future__ import annotations

import torch

from primkit.decompositions.common import P, aten, elementwise, register_with_variants
from primkit.decompositions.registry import register

# alias -> original: the alias's overload <o> (and <alias>_.<o>) runs the original's <o>.
ALIASES = {
    "absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
    "arctan": "atan", "arctanh": "atanh", "negative": "neg", "multiply": "mul", "greater": "gt",
    "greater_equal": "ge", "less": "lt", "less_equal": "le", "not_equal": "ne", "fix": "trunc",
    "concat": "cat", "concatenate": "cat", "moveaxis": "movedim", "row_stack": "vstack",
    "special_expit": "sigmoid", "special_exp2": "exp2", "special_expm1": "expm1", "special_log1p": "log1p",
    "special_erf": "erf", "special_erfc": "erfc", "special_erfinv": "erfinv", "special_digamma": "digamma",
    "special_psi": "digamma", "special_gammaln": "lgamma", "special_i0": "i0", "special_sinc": "sinc",
    "special_logit": "logit", "special_logsumexp": "logsumexp", "special_polygamma": "polygamma",
    "special_multigammaln": "mvlgamma", "special_gammainc": "igamma", "special_gammaincc": "igammac",
}


# Overloads whose name differs from the original's: (alias, overload) -> (original, overload).
RENAMED = {
    ("special_round", "default"): ("round", "decimals"), ("special_round", "out"): ("round", "decimals_out"),
    ("swapaxes", "default"): ("transpose", "int"), ("swapdims", "default"): ("transpose", "int"),
    ("special_log_softmax", "default"): ("log_softmax", "int"), ("special_softmax", "default"): ("softmax", "int"),
}


def _runs(original):
    def alias(*args, **kwargs):
        return original(*args, **kwargs)
    alias.__name__ = alias.__qualname__ = f"alias_of[{original.name()}]"
    return alias


def _register_alias(name, original):
    for packet_name, target_name in ((name, original), (name + "_", original + "_")):
        packet, target = getattr(aten, packet_name, None), getattr(aten, target_name, None)
        if packet is None or target is None:
            continue
        for overload in packet.overloads():
            register(getattr(packet, overload))(_runs(getattr(target, overload)))


for _alias, _original in ALIASES.items():
    _register_alias(_alias, _original)
for (_alias, _overload), (_original, _target) in RENAMED.items():
    register(getattr(getattr(aten, _alias), _overload))(_runs(getattr(getattr(aten, _original), _target)))


# ---------------------------------------------------------------- torch.special with a prim of its own
# (special function, prim): float results, integer and bool inputs computed in the default dtype.
SPECIAL = {
    "special_ndtr": "ndtr", "special_bessel_j0": "bessel_j0", "special_bessel_j1": "bessel_j1",
    "special_bessel_y0": "bessel_y0", "special_bessel_y1": "bessel_y1",
    "special_modified_bessel_i0": "modified_bessel_i0", "special_modified_bessel_i1": "modified_bessel_i1",
    "special_modified_bessel_k0": "modified_bessel_k0", "special_modified_bessel_k1": "modified_bessel_k1",
    "special_scaled_modified_bessel_k0": "scaled_modified_bessel_k0",
    "special_scaled_modified_bessel_k1": "scaled_modified_bessel_k1",
    "special_spherical_bessel_j0": "spherical_bessel_j0", "special_airy_ai": "airy_ai",
}


def _special(name, prim):
    prim_fn = getattr(P, prim)

    def decomp(a):
        return elementwise(prim_fn, a, kind="int_to_float")
    decomp.__name__ = decomp.__qualname__ = name
    return decomp


for _name, _prim in SPECIAL.items():
    register_with_variants(_name, _special(_name, _prim))


@register(aten.positive.default)
def positive(a):
    """a itself (a view): unary plus, refused on bool as eager does."""
    if a.dtype == torch.bool:
        raise RuntimeError("positive: the `+` operator, on a bool tensor is not supported.")
    return aten.alias.default(a)
