"""Dropout: native_dropout and the dropout / feature / alpha dropout composites, their noise drawn
by the random family's prims in eager's layout and order.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import P, aten, like, register_out, write_into
from primkit.decompositions.composite import above_autograd
from primkit.decompositions.random import bernoulli_noise
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous, preserved_strides
from primkit.prims.layout import numel


def check_dropout_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


ALPHA = 1.7580993408473766    # SELU's alpha * scale: alpha dropout keeps SELU's mean and variance


def _feature_noise_like(a):
    """A tensor shaped as make_feature_noise's input.new_empty([N, C, 1, ...]) (one draw per sample and
    channel), laid out so that empty_like of it is contiguous in its draw order: a's first element per
    (sample, channel), from a contiguous copy where a holds channels outside samples."""
    if a.dim() < 2:
        raise RuntimeError(f"Feature dropout requires at least 2 dimensions in the input, got a {a.dim()}-D input")
    src = a if a.stride(0) >= a.stride(1) else contiguous(a)
    return P.slice(src, [0] * a.dim(), [a.shape[0], a.shape[1]] + [1] * (a.dim() - 2), [1] * a.dim())


def _dropout_impl(a, p, train, *, feature, alpha):
    """Eager's _dropout_impl (functional): the input itself when nothing is dropped, else input * noise
    (+ b for alpha dropout), the noise drawn as empty_like(input) (or new_empty of the feature shape,
    contiguous) .bernoulli_(1 - p)."""
    check_dropout_p(p)
    if p == 0 or not train or numel(a.shape) == 0:
        return a        # eager returns the input itself
    if p == 1:
        return P.mul(a, like(a, 0))    # eager's input * zeros({}): nan stays nan
    noise = bernoulli_noise(_feature_noise_like(a) if feature else a, 1 - p, a.dtype)
    if not alpha:
        return aten.mul.Tensor(a, aten.div.Scalar(noise, 1 - p))
    s = 1.0 / math.sqrt((ALPHA * ALPHA * p + 1) * (1 - p))
    b = aten.add.Scalar(aten.mul.Scalar(aten.add.Scalar(noise, -1), ALPHA * s), ALPHA * s * p)
    return aten.add.Tensor(aten.mul.Tensor(a, aten.mul.Scalar(noise, s)), b)


def _dropout_variant(name, feature, alpha):
    def functional(a, p, train):
        return _dropout_impl(a, p, train, feature=feature, alpha=alpha)

    def inplace(a, p, train):
        out = _dropout_impl(a, p, train, feature=feature, alpha=alpha)
        return a if out is a else write_into(a, out, name + "_")
    def inplace_above_autograd(a, p, train):
        out = _dropout_impl(a, p, train, feature=feature, alpha=alpha)
        return a if out is a else aten.copy_.default(a, out)
    functional.__name__ = functional.__qualname__ = name
    inplace.__name__ = inplace.__qualname__ = name + "_"
    register(getattr(aten, name).default)(functional)
    register(getattr(aten, name + "_").default)(inplace)
    # torch's C++ composites of these (all but functional dropout, which torch itself sends to native_dropout)
    # draw into a fresh tensor (input.new_empty(...) / empty_like(input)).bernoulli_(): under AOTAutograd the
    # draw then depends on no input, and the default partitioner copies it into the backward, which draws
    # again (the generator ends past eager's). Under a trace holding this table, primkit's entries run
    # above autograd instead: the draw is shaped after the input and stays in the forward.
    if name != "dropout":
        above_autograd(getattr(aten, name).default, functional)
    above_autograd(getattr(aten, name + "_").default, inplace_above_autograd)


for _name, _feature, _alpha in (("dropout", False, False), ("feature_dropout", True, False),
                                ("alpha_dropout", False, True), ("feature_alpha_dropout", True, True)):
    _dropout_variant(_name, _feature, _alpha)


@register(aten.native_dropout.default)
def native_dropout(a, p, train):
    """(input * mask * (1 / (1 - p)), mask): eager's CPU kernel draws the bool mask as
    empty_like(input, bool).bernoulli_(1 - p) whenever train is not False, even for p = 0 or 1."""
    if not 0 <= 1 - p <= 1:     # eager checks nothing itself: its bernoulli_(1 - p) refuses
        raise RuntimeError(f"native_dropout: bernoulli_ expects p to be in [0, 1], but got p={1 - p} (1 - p for "
                           f"dropout probability {p})")
    keep_all = P.broadcast_in_dim(P.scalar_tensor(True, dtype=torch.bool, device=a.device), list(a.shape), [])
    if train is False:
        return P.clone(a), keep_all
    if numel(a.shape) == 0:    # eager: (input, empty_like(input)), the mask in the input's dtype
        return P.clone(a), P.empty_strided(list(a.shape), list(preserved_strides(a)), dtype=a.dtype, device=a.device)
    mask = bernoulli_noise(a, 1 - p, torch.bool)
    scale = 0.0 if p == 1 else 1.0 / (1 - p)
    return aten.mul.Scalar(aten.mul.Tensor(a, mask), scale), mask


register_out(aten.native_dropout.out, native_dropout)
