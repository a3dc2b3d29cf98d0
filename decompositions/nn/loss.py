"""Losses: pointwise (mse, l1, huber, smooth_l1, soft_margin) and their backwards, nll / cross-entropy,
binary cross-entropy, kl_div, poisson_nll, margin and embedding losses, ctc_loss's forward.
"""
from __future__ import annotations

import math

import torch

from primkit.decompositions.common import (
    P, aten, elementwise, like, prepare, register_out, register_with_variants, to_dtype, upcast)
from primkit.decompositions.nn.activation import log_sigmoid_parts, softmax_impl
from primkit.decompositions.nn.common import check_floating, i64
from primkit.decompositions.nn.distance import pairwise_distance
from primkit.decompositions.registry import register
from primkit.decompositions.layout import contiguous
from primkit.decompositions.type_promotion import computation_dtype, result_type
from primkit.prims import dtypes as dt
from primkit.prims.layout import numel, sizes_differ, surely


NONE, MEAN, SUM = 0, 1, 2


def _reduce(loss, reduction):
    if reduction == NONE:
        return loss
    if reduction not in (MEAN, SUM):
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    total = P.sum(loss, list(range(loss.dim())))
    return P.div(total, like(total, numel(loss.shape))) if reduction == MEAN else total


def _pointwise_loss(name, math_fn):
    """loss(input, target, reduction, *params): ``math_fn(x, y, c, *params)`` on the promoted computation
    dtype (``c(v)``: the number v shaped like x), then reduced."""
    def loss(a, b, reduction=MEAN, *params):
        pointwise = elementwise(lambda x, y: math_fn(x, y, lambda v: like(x, v), *params), a, b)
        (x,), orig = upcast(pointwise)
        return to_dtype(_reduce(x, reduction), orig)
    loss.__name__ = loss.__qualname__ = name
    return loss


def _squared_difference(x, y):
    diff = P.sub(x, y)
    return P.mul(diff, diff)


register_with_variants("mse_loss", _pointwise_loss("mse_loss", lambda x, y, c: _squared_difference(x, y)))
register(aten.l1_loss.default)(_pointwise_loss("l1_loss", lambda x, y, c: P.abs(P.sub(x, y))))


def binary_cross_entropy_with_logits(a, target, weight=None, pos_weight=None, reduction=MEAN):
    """(1 - t) * x - w_pos * log(sigmoid(x)), w_pos = (pos_weight - 1) * t + 1. Op by op as eager,
    so float16/bfloat16 round where eager's do (the subtraction cancels for large |x|)."""
    check_floating("binary_cross_entropy_with_logits", a)
    if tuple(target.shape) != tuple(a.shape):
        raise ValueError(f"Target size ({list(target.shape)}) must be the same as input size ({list(a.shape)})")
    log_sigmoid = log_sigmoid_parts(a)[0]
    if pos_weight is not None:
        log_weight = elementwise(P.add, elementwise(P.mul, elementwise(P.sub, pos_weight, 1), target), 1)
        log_sigmoid = elementwise(P.mul, log_sigmoid, log_weight)
    loss = elementwise(P.sub, elementwise(P.mul, elementwise(P.sub, 1, target), a), log_sigmoid)
    if weight is not None:
        loss = elementwise(P.mul, loss, weight)
    (x,), orig = upcast(loss)
    return to_dtype(_reduce(x, reduction), orig)


register_with_variants("binary_cross_entropy_with_logits", binary_cross_entropy_with_logits)


def _nll(logp, target, weight, reduction, ignore_index):
    """(loss, total_weight) of the negative log likelihood; logp is (N, C, *d) or (C,)."""
    if target.dtype not in (torch.int64, torch.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {dt.short(target.dtype)}")
    if logp.dim() < 1 or target.dim() != max(logp.dim() - 1, 0) or \
            (logp.dim() > 1 and sizes_differ(target.shape, logp.shape[:1] + logp.shape[2:])):
        raise RuntimeError(f"nll_loss: size mismatch (got input: {list(logp.shape)}, target: {list(target.shape)})")
    classes = logp.shape[0 if logp.dim() == 1 else 1]
    if weight is not None and numel(weight.shape) != classes:
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or no classes but got "
                           f"weight tensor of shape: {list(weight.shape)}")
    (x,), orig = upcast(logp)
    t = to_dtype(target, torch.int64)
    if x.dim() == 1:
        x, t = P.expand_dims(x, [0]), P.expand_dims(t, [0])
    ignored = P.eq(t, i64(ignore_index, t.shape, t.device))
    safe = P.where(ignored, i64(0, t.shape, t.device), t)   # ignored targets may be out of range
    picked = P.squeeze(P.gather(x, 1, P.expand_dims(safe, [1])), [1])
    w = like(picked, 1) if weight is None else \
        P.reshape(P.index_select(to_dtype(weight, x.dtype), 0, P.reshape(safe, [numel(t.shape)])), list(t.shape))
    w = P.where(ignored, like(picked, 0), w)
    loss = P.neg(P.mul(picked, w))
    all_dims = list(range(loss.dim()))
    total_weight = P.sum(w, all_dims)
    if reduction == NONE:
        out = P.reshape(loss, list(target.shape))
        if logp.dim() > 1:   # eager's kernel leaves total_weight 0 per batch, and sums it for a single sample
            total_weight = like(total_weight, 0)
    elif reduction == SUM:
        out = P.sum(loss, all_dims)
    elif reduction == MEAN:
        out = P.div(P.sum(loss, all_dims), total_weight)
    else:
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    return to_dtype(out, orig), to_dtype(total_weight, orig)


@register(aten.nll_loss_forward.default, aten.nll_loss2d_forward.default)
def nll_loss_forward(a, target, weight, reduction, ignore_index):
    if a.dim() > 2 and a.dim() != 4:
        raise RuntimeError(f"nll_loss_forward: input tensor should be 1D or 2D (4D for nll_loss2d), got {a.dim()}D")
    return _nll(a, target, weight, reduction, ignore_index)


@register(aten.nll_loss.default, aten.nll_loss_nd.default)
def nll_loss(a, target, weight=None, reduction=MEAN, ignore_index=-100):
    if a.dim() > 1 and target.dim() >= 1 and surely(a.shape[0] != target.shape[0]):
        raise ValueError(f"Expected input batch_size ({a.shape[0]}) to match target batch_size ({target.shape[0]}).")
    return _nll(a, target, weight, reduction, ignore_index)[0]


@register(aten.cross_entropy_loss.default)
def cross_entropy_loss(a, target, weight=None, reduction=MEAN, ignore_index=-100, label_smoothing=0.0):
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if target.dtype not in dt.FLOAT and a.dim() > 1 and target.dim() >= 1 and surely(a.shape[0] != target.shape[0]):
        raise ValueError(f"Expected input batch_size ({a.shape[0]}) to match target batch_size ({target.shape[0]}).")
    class_dim = 0 if a.dim() == 1 else 1
    classes = a.shape[class_dim]
    logp = softmax_impl(a, class_dim, a.dtype, log=True)
    (x,), orig = upcast(logp)
    w = None if weight is None else P.broadcast_in_dim(to_dtype(weight, x.dtype), list(x.shape), [class_dim])
    if target.dtype in dt.FLOAT:   # class probabilities
        if tuple(target.shape) != tuple(a.shape):
            raise RuntimeError(f"cross_entropy: target with class probabilities must have the input's shape "
                               f"{list(a.shape)}, got {list(target.shape)}")
        t = to_dtype(target, x.dtype)
        if label_smoothing > 0:
            t = P.add(P.mul(t, like(t, 1 - label_smoothing)), like(t, label_smoothing / classes))
        per_class = P.mul(x, t) if w is None else P.mul(P.mul(x, t), w)
        if reduction == NONE:
            return to_dtype(P.neg(P.sum(per_class, [class_dim])), orig)
        total = P.neg(P.sum(per_class, list(range(x.dim()))))
        if reduction == MEAN:   # averaged over the batch (elements / classes), nan when empty
            total = P.div(total, like(total, numel(x.shape) // classes if classes else 0))
        return to_dtype(total, orig)
    nll = _nll(logp, target, weight, reduction, ignore_index)[0]
    if label_smoothing == 0:
        return nll
    # Label smoothing: mix in the mean over classes of -log p (weighted), zero at ignored targets.
    smooth = P.neg(P.sum(x if w is None else P.mul(x, w), [class_dim]))
    t = to_dtype(target, torch.int64)
    ignored = P.eq(t, i64(ignore_index, t.shape, t.device))
    smooth = P.where(ignored, like(smooth, 0), smooth)
    dims = list(range(smooth.dim()))
    if reduction == NONE:
        smooth_total = smooth
    elif reduction == SUM:
        smooth_total = P.sum(smooth, dims)
    else:
        if weight is None:
            denominator = P.sum(to_dtype(P.logical_not(ignored), x.dtype), dims)
        else:
            safe = P.where(ignored, i64(0, t.shape, t.device), t)
            picked = P.reshape(P.index_select(to_dtype(weight, x.dtype), 0, P.reshape(safe, [numel(t.shape)])),
                               list(t.shape))
            denominator = P.sum(P.where(ignored, like(picked, 0), picked), dims)
        smooth_total = P.div(P.sum(smooth, dims), denominator)
    smooth_total = P.mul(smooth_total, like(smooth_total, label_smoothing / classes))
    mixed = P.add(P.mul(to_dtype(nll, x.dtype), like(smooth_total, 1 - label_smoothing)), smooth_total)
    return to_dtype(mixed, orig)
register_out(aten.nll_loss.out, nll_loss)
register_out(aten.nll_loss_forward.output, nll_loss_forward)


def _huber(x, y, c, delta=1.0):
    if delta <= 0:
        raise RuntimeError(f"huber_loss does not support non-positive values for delta, got {delta}")
    z = P.abs(P.sub(x, y))
    return P.where(P.lt(z, c(delta)), P.mul(c(0.5), P.mul(z, z)), P.mul(c(delta), P.sub(z, c(0.5 * delta))))


def _smooth_l1(x, y, c, beta=1.0):
    if beta < 0:
        raise RuntimeError(f"smooth_l1_loss does not support negative values for beta, got {beta}")
    z = P.abs(P.sub(x, y))
    if beta == 0:
        return z
    return P.where(P.lt(z, c(beta)), P.div(P.mul(c(0.5), P.mul(z, z)), c(beta)), P.sub(z, c(0.5 * beta)))


def _soft_margin(x, y, c):
    return P.log1p(P.exp(P.mul(P.neg(x), y)))


def _check_same_size(name, a, b):
    if tuple(a.shape) != tuple(b.shape):
        raise RuntimeError(f"{name}: target size ({list(b.shape)}) must be the same as input size ({list(a.shape)})")


def _sized(name, loss):
    def fn(a, b, *args, **kwargs):
        _check_same_size(name, a, b)
        return loss(a, b, *args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    return fn


huber_loss = _pointwise_loss("huber_loss", _huber)
smooth_l1_loss = _pointwise_loss("smooth_l1_loss", _smooth_l1)
soft_margin_loss = _pointwise_loss("soft_margin_loss", _soft_margin)
register_with_variants("huber_loss", huber_loss)
register_with_variants("smooth_l1_loss", smooth_l1_loss)
register_with_variants("soft_margin_loss", soft_margin_loss)


def _pointwise_loss_backward(name, math_fn):
    """grad_input of loss(input, target, reduction, *params): eager's formula ``math_fn(g, x, y, c,
    norm, *params)`` with norm = 1 / numel under mean, else 1; contiguous, as eager's kernels write it."""
    def backward(grad_output, a, b, reduction, *params):
        count = numel(a.shape)
        norm = (1.0 / count if count else math.inf) if reduction == MEAN else 1.0   # eager's 1. / numel
        out = elementwise(lambda g, x, y: math_fn(g, x, y, lambda v: like(x, v), norm, *params), grad_output, a, b)
        return contiguous(out)
    backward.__name__ = backward.__qualname__ = f"{name}_backward"
    return backward


def _huber_backward(g, x, y, c, norm, delta):
    z = P.sub(x, y)
    return P.where(P.le(z, c(-delta)), P.mul(P.mul(c(-norm), g), c(delta)),
                   P.where(P.ge(z, c(delta)), P.mul(P.mul(c(norm), g), c(delta)), P.mul(P.mul(c(norm), z), g)))


def _smooth_l1_backward(g, x, y, c, norm, beta):
    """With beta = 0 the middle is empty: l1's gradient, -norm * g at x == y as in eager."""
    z = P.sub(x, y)
    middle = P.div(P.mul(P.mul(c(norm), z), g), c(beta)) if beta else c(0.0)
    return P.where(P.le(z, c(-beta)), P.mul(c(-norm), g), P.where(P.ge(z, c(beta)), P.mul(c(norm), g), middle))


def _soft_margin_backward(g, x, y, c, norm):
    """d/dx log1p(exp(-y x)) = -y z / (1 + z) with z = exp(-y x), in eager's order of operations."""
    z = P.exp(P.mul(P.neg(y), x))
    return P.mul(P.div(P.mul(P.mul(y, z), c(-norm)), P.add(z, c(1.0))), g)


for _name, _math in (("huber_loss", _huber_backward), ("smooth_l1_loss", _smooth_l1_backward),
                     ("soft_margin_loss", _soft_margin_backward)):
    register_with_variants(f"{_name}_backward", _pointwise_loss_backward(_name, _math))


def binary_cross_entropy(a, target, weight=None, reduction=MEAN):
    _check_same_size("binary_cross_entropy", a, target)
    check_floating("binary_cross_entropy", a)
    (x, t), orig = upcast(a, to_dtype(target, a.dtype))
    c = lambda v: like(x, v)   # noqa: E731
    # eager clamps each log at -100 so that 0 * log(0) stays finite; at log(0) itself the clamp is
    # taken by where (the log reads 1 there), so the derivative of the graph is finite too (the
    # clamp's zero times log's 1/0 would be nan)
    def clamped(finite, log):
        return P.where(finite, P.maximum(log, c(-100.0)), c(-100.0))
    inside, below_one = P.logical_not(P.le(x, c(0.0))), P.logical_not(P.ge(x, c(1.0)))   # nan stays nan
    log_x = clamped(inside, P.log(P.where(inside, x, c(1.0))))
    log_1mx = clamped(below_one, P.log1p(P.neg(P.where(below_one, x, c(0.0)))))
    # input-derived operands first: eager's result takes the input's layout
    loss = P.neg(P.add(P.mul(log_x, t), P.mul(log_1mx, P.sub(c(1.0), t))))
    if weight is not None:
        loss = P.mul(loss, prepare(weight, x.dtype, x.shape, x.device))
    return to_dtype(_reduce(loss, reduction), orig)


register_with_variants("binary_cross_entropy", binary_cross_entropy)


@register(aten.kl_div.default)
def kl_div(a, target, reduction=MEAN, log_target=False):
    if log_target:
        pointwise = elementwise(lambda x, t: P.mul(P.exp(t), P.sub(t, x)), a, target)
    else:
        pointwise = elementwise(lambda x, t: P.sub(P.xlogy(t, t), P.mul(t, x)), a, target)
    (x,), orig = upcast(pointwise)
    return to_dtype(_reduce(x, reduction), orig)


@register(aten.poisson_nll_loss.default)
def poisson_nll_loss(a, target, log_input, full, eps, reduction):
    def math_fn(x, t):
        c = lambda v: like(x, v)   # noqa: E731
        loss = P.sub(P.exp(x), P.mul(t, x)) if log_input else P.sub(x, P.mul(t, P.log(P.add(x, c(eps)))))
        if full:
            stirling = P.add(P.sub(P.mul(t, P.log(t)), t), P.mul(c(0.5), P.log(P.mul(c(2 * math.pi), t))))
            loss = P.add(loss, P.where(P.gt(t, c(1.0)), stirling, c(0.0)))
        return loss
    (x,), orig = upcast(elementwise(math_fn, a, target))
    return to_dtype(_reduce(x, reduction), orig)


@register(aten.hinge_embedding_loss.default)
def hinge_embedding_loss(a, target, margin=1.0, reduction=MEAN):
    def math_fn(x, t):
        c = lambda v: like(x, v)   # noqa: E731
        margin_part = P.where(P.ne(t, c(1.0)), P.maximum(P.sub(c(margin), x), c(0.0)), c(0.0))
        return P.add(margin_part, P.where(P.ne(t, c(-1.0)), x, c(0.0)))
    (x,), orig = upcast(elementwise(math_fn, a, target))
    return to_dtype(_reduce(x, reduction), orig)


@register(aten.margin_ranking_loss.default)
def margin_ranking_loss(a, b, target, margin=0.0, reduction=MEAN):
    if not (a.dim() == b.dim() == target.dim()):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {list(a.shape)}, input2: {list(b.shape)}, target: {list(target.shape)} ")

    def math_fn(x1, x2, t):
        c = lambda v: like(x1, v)   # noqa: E731
        return P.maximum(P.add(P.mul(P.neg(t), P.sub(x1, x2)), c(margin)), c(0.0))
    (x,), orig = upcast(elementwise(math_fn, a, b, target))
    return to_dtype(_reduce(x, reduction), orig)


COSINE_EMBEDDING_EPS = 1e-12


@register(aten.cosine_embedding_loss.default)
def cosine_embedding_loss(a, b, target, margin=0.0, reduction=MEAN):
    if a.dim() != b.dim():
        raise RuntimeError(f"cosine_embedding_loss: input1 and input2 must have the same number of dimensions, got "
                           f"{a.dim()} and {b.dim()}")
    if target.dim() != a.dim() - 1:
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(a.shape)} and {list(b.shape)}." if target.dim() == 0 else
                           f"{target.dim()}D target tensor expects {target.dim() + 1}D input tensors, but found "
                           f"inputs with sizes {list(a.shape)} and {list(b.shape)}.")
    dim = a.dim() - 1
    dtype = result_type(a, b)
    compute = computation_dtype(dtype)
    x1, x2 = to_dtype(a, compute), to_dtype(b, compute)
    prod = P.sum(P.mul(x1, x2), [dim])
    mag1 = P.add(P.sum(P.mul(x1, x1), [dim]), like(prod, COSINE_EMBEDDING_EPS))
    mag2 = P.add(P.sum(P.mul(x2, x2), [dim]), like(prod, COSINE_EMBEDDING_EPS))
    cos = P.div(prod, P.sqrt(P.mul(mag1, mag2)))
    t = prepare(target, compute, cos.shape, cos.device)
    c = lambda v: like(cos, v)   # noqa: E731
    pos = P.where(P.eq(t, c(1.0)), P.sub(c(1.0), cos), c(0.0))
    neg = P.where(P.eq(t, c(-1.0)), P.maximum(P.sub(cos, c(margin)), c(0.0)), c(0.0))
    return to_dtype(_reduce(P.add(pos, neg), reduction), dtype)


@register(aten.triplet_margin_loss.default)
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction=MEAN):
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = aten.minimum.default(d_neg, pairwise_distance(positive, negative, p, eps))
    loss = aten.clamp_min.default(aten.add.Tensor(aten.sub.Tensor(d_pos, d_neg), margin), 0)
    (x,), orig = upcast(loss)
    return to_dtype(_reduce(x, reduction), orig)


@register(aten.nll_loss2d.default)
def nll_loss2d(a, target, weight=None, reduction=MEAN, ignore_index=-100):
    if a.dim() != 4:
        raise RuntimeError(f"only batches of spatial inputs supported (4D tensors), but got input of dimension: "
                           f"{a.dim()}")
    return nll_loss(a, target, weight, reduction, ignore_index)


register_out(aten.nll_loss2d_forward.output, nll_loss_forward, "nll_loss2d_forward")


register_out(aten.nll_loss2d.out, nll_loss2d, "nll_loss2d")


def _multi_margin_shape(a, target, weight):
    """(frames, classes), with eager's checks."""
    nd = a.dim()
    if not ((nd == 2 and a.shape[1] != 0) or (nd == 1 and a.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(a.shape)}")
    frames, classes = (a.shape[0], a.shape[1]) if nd == 2 else (1, a.shape[0] if nd == 1 else 1)
    if target.dim() > 1 or numel(target.shape) != frames:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{frames}], but got {list(target.shape)}.")
    if weight is not None and (weight.dim() > 1 or numel(weight.shape) != classes):
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got {list(weight.shape)}")
    return frames, classes


def _frame_losses(per_frame, batched, reduction):
    """Eager's reduction of per-frame losses: the vector for reduction='none' with a batch of targets
    (``batched``), else their sum (mean) as a 0-d tensor."""
    if reduction == NONE and batched:
        return per_frame
    if reduction not in (0, 1, 2):
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    total = P.sum(per_frame, [0])
    return P.div(total, like(total, per_frame.shape[0])) if reduction == MEAN else total


@register(aten.multi_margin_loss.default)
def multi_margin_loss(a, target, p=1, margin=1, weight=None, reduction=MEAN):
    """sum over classes i != y of max(0, margin - x[y] + x[i])^p * w[y], over the class count."""
    if p not in (1, 2):
        raise RuntimeError("only p == 1 and p == 2 supported")
    frames, classes = _multi_margin_shape(a, target, weight)
    check_floating("multi_margin_loss", a)
    (x,), orig = upcast(P.reshape(a, [frames, classes]))
    t = P.reshape(to_dtype(target, torch.int64), [frames, 1])
    c = lambda v: like(x, v)   # noqa: E731
    z = P.add(P.sub(c(margin), P.broadcast_in_dim(P.gather(x, 1, t), [frames, classes], [0, 1])), x)
    h = P.where(P.gt(z, c(0)), z if p == 1 else P.mul(z, z), c(0))
    if weight is not None:
        w = P.index_select(to_dtype(P.reshape(weight, [classes]), x.dtype), 0, P.reshape(t, [frames]))
        h = P.mul(h, P.broadcast_in_dim(w, [frames, classes], [0]))
    classes_iota = P.broadcast_in_dim(P.iota(classes, start=0, step=1, dtype=torch.int64, device=a.device),
                                      [frames, classes], [1])
    h = P.where(P.eq(classes_iota, P.broadcast_in_dim(t, [frames, classes], [0, 1])), c(0), h)   # i == y
    per_frame = P.div(P.sum(h, [1]), like(P.sum(h, [1]), classes))
    return to_dtype(_frame_losses(per_frame, target.dim() > 0, reduction), orig)


register_out(aten.multi_margin_loss.out, multi_margin_loss)


@register(aten.multilabel_margin_loss_forward.default)
def multilabel_margin_loss_forward(a, target, reduction):
    """(loss, is_target): each row of target lists classes up to its first -1; the loss sums
    max(0, 1 - x[j] + x[i]) over listed j and unlisted i, over the class count."""
    nd = a.dim()
    if not ((nd == 2 and a.shape[1] != 0) or (nd == 1 and a.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(a.shape)}")
    frames, classes = (a.shape[0], a.shape[1]) if nd == 2 else (1, a.shape[0] if nd == 1 else 1)
    ok = (target.dim() <= 1 and numel(target.shape) == classes) if nd <= 1 else \
        (target.dim() == 2 and list(target.shape) == [frames, classes])
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(a.shape)}")
    check_floating("multilabel_margin_loss", a)
    (x,), orig = upcast(P.reshape(a, [frames, classes]))
    t = P.reshape(to_dtype(target, torch.int64), [frames, classes])
    shape = [frames, classes]
    listed = P.eq(P.cumsum(to_dtype(P.lt(t, i64(0, shape, a.device)), torch.int64), 1), i64(0, shape, a.device))
    safe = P.where(listed, t, i64(0, shape, a.device))
    hits = P.scatter_add(P.full(shape, 0, dtype=x.dtype, device=a.device), 1, safe, to_dtype(listed, x.dtype))
    is_target = P.gt(hits, like(hits, 0))
    # z[n, k, i] = 1 - x[n, target[n, k]] + x[n, i], kept where k is listed and i is not.
    cube = [frames, classes, classes]
    z = P.add(P.sub(P.full(cube, 1, dtype=x.dtype, device=a.device), P.broadcast_in_dim(P.gather(x, 1, safe), cube,
                                                                                         [0, 1])),
              P.broadcast_in_dim(x, cube, [0, 2]))
    keep = P.logical_and(P.broadcast_in_dim(listed, cube, [0, 1]),
                         P.logical_not(P.broadcast_in_dim(is_target, cube, [0, 2])))
    terms = P.where(P.logical_and(keep, P.gt(z, P.full(cube, 0, dtype=x.dtype, device=a.device))), z,
                    P.full(cube, 0, dtype=x.dtype, device=a.device))
    per_frame = P.sum(terms, [1, 2])
    per_frame = P.div(per_frame, like(per_frame, classes))
    loss = _frame_losses(per_frame, target.dim() > 1, reduction)
    return to_dtype(loss, orig), P.reshape(to_dtype(is_target, a.dtype), list(target.shape))


register_out(aten.multilabel_margin_loss_forward.output, multilabel_margin_loss_forward)


@register(aten.multilabel_margin_loss.default)
def multilabel_margin_loss(a, target, reduction=MEAN):
    return multilabel_margin_loss_forward(a, target, reduction)[0]


register_out(aten.multilabel_margin_loss.out, multilabel_margin_loss)



# ----------------------------------------------------------------------------- ctc_loss

def _lengths(lengths, n, device):
    """input_lengths / target_lengths (an int list or an integer tensor) as an int64 tensor of n."""
    if isinstance(lengths, torch.Tensor):
        return P.reshape(to_dtype(lengths, torch.int64), [n])
    return P.cat([P.full([1], v, dtype=torch.int64, device=device) for v in lengths], 0)


def _log_add(*terms):
    """log(sum(exp(term))) from the terms' maximum, as eager's CTC kernel; -inf where all are -inf, without
    a log(0) on the way (whose derivative would make the gradient nan)."""
    top = terms[0]
    for t in terms[1:]:
        top = P.maximum(top, t)
    none = P.eq(top, like(top, -math.inf))
    top = P.where(none, like(top, 0), top)
    total = P.exp(P.sub(terms[0], top))
    for t in terms[1:]:
        total = P.add(total, P.exp(P.sub(t, top)))
    return P.where(none, like(top, -math.inf), P.add(top, P.log(P.where(none, like(total, 1), total))))


def _shifted(x, k, fill):
    """x (n, L) moved k label positions on (position s reads s - k), fill shifted in."""
    n, length = x.shape
    if k >= length:
        return P.full([n, length], fill, dtype=x.dtype, device=x.device)
    return P.pad(P.slice(x, [0, 0], [n, length - k], [1, 1]), fill, [0, k], [0, 0], [0, 0])


def _padded_targets(targets, tl, n, device):
    """targets as (n, S) rows of labels: 2-d targets as they are; 1-d (concatenated) targets read from
    the sum of the lengths before each sample (S: their total length, past a sample's end: any label)."""
    targets = to_dtype(targets, torch.int64)
    if targets.dim() == 2:
        return targets
    total = targets.shape[0]
    if total == 0:
        return P.full([n, 0], 0, dtype=torch.int64, device=device)
    start = P.sub(P.cumsum(tl, 0), tl)
    at = P.add(P.broadcast_in_dim(start, [n, total], [0]),
               P.broadcast_in_dim(P.iota(total, start=0, step=1, dtype=torch.int64, device=device), [n, total], [1]))
    return P.take(targets, P.minimum(at, like(at, total - 1)))


@register(aten._ctc_loss.Tensor, aten._ctc_loss.default)
def ctc_loss_forward(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=False):
    return _ctc(log_probs, targets, input_lengths, target_lengths, blank, with_alpha=True)


@register(aten.ctc_loss.IntList, aten.ctc_loss.Tensor)
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=MEAN, zero_infinity=False):
    """Eager's composite over _ctc_loss, whose target lengths it reads as data for the mean (which fails on
    fake tensors): an unbatched input as a batch of one, infinite losses zeroed under zero_infinity, the
    mean of each loss over its target length (at least 1)."""
    for name, lengths in (("input_lengths", input_lengths), ("target_lengths", target_lengths)):
        if isinstance(lengths, torch.Tensor) and lengths.dtype not in dt.INT:
            raise RuntimeError(f"ctc_loss: {name} must be integral, got {dt.short(lengths.dtype)}")
    batched = log_probs.dim() == 3
    x = log_probs if batched else P.expand_dims(log_probs, [1])
    nll, _ = _ctc(x, targets, input_lengths, target_lengths, blank, with_alpha=False)
    if zero_infinity:
        nll = P.where(P.eq(nll, like(nll, math.inf)), like(nll, 0), nll)
    if reduction == MEAN:
        n = x.shape[1]
        tl = _lengths(target_lengths, n, x.device)
        per_label = P.div(nll, to_dtype(P.maximum(tl, like(tl, 1)), nll.dtype))
        return P.div(P.sum(per_label, [0]), P.full([], n, dtype=nll.dtype, device=x.device))
    if reduction == SUM:
        return P.sum(nll, [0])
    if reduction != NONE:
        raise RuntimeError(f"{reduction} is not a valid value for reduction")
    return nll if batched else P.squeeze(nll, [0])


def _ctc(log_probs, targets, input_lengths, target_lengths, blank, *, with_alpha):
    """(negative log-likelihood per sample, log_alpha): the CTC forward recursion over the extended labels
    l' = (blank, l1, blank, l2, ..., blank), unrolled over time: alpha_t(s) = log_add(alpha_{t-1}(s),
    alpha_{t-1}(s-1), alpha_{t-1}(s-2) where l'_s is a label unlike l'_{s-2}) + log_probs[t, l'_s]; a sample's
    alpha stops at its input length; its likelihood is log_add of alpha at its last label and the blank after
    it. The labels run over targets' width (padded 2-d targets, or the total of 1-d ones), not over the
    lengths' values, so only log_alpha's last dim is data: eager's 2 * max(target_lengths) + 1 (entries
    outside a sample's lengths are the backward's workspace, unspecified as eager's). zero_infinity acts in
    the backward only."""
    check_floating("ctc_loss", log_probs)
    if log_probs.dim() != 3:   # (ctc_loss unsqueezes an unbatched input before it calls _ctc_loss)
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.dim()}-dimensional tensor for "
                           f"argument #1 'log_probs' (while checking arguments for ctc_loss_allocate_outputs)")
    T, N, C = log_probs.shape
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    device, dtype = log_probs.device, log_probs.dtype
    il, tl = _lengths(input_lengths, N, device), _lengths(target_lengths, N, device)
    labels = _padded_targets(targets, tl, N, device)
    L = 2 * labels.shape[1] + 1
    s = P.broadcast_in_dim(P.iota(L, start=0, step=1, dtype=torch.int64, device=device), [N, L], [1])
    odd = P.eq(P.remainder(s, like(s, 2)), like(s, 1))
    if labels.shape[1] > 0:
        slot = P.maximum(P.floor_divide(P.sub(s, like(s, 1)), like(s, 2)), like(s, 0))
        ext = P.where(odd, P.gather(labels, 1, slot), like(s, blank))
    else:
        ext = like(s, blank)
    skip = P.logical_and(P.logical_and(odd, P.ge(s, like(s, 2))), P.ne(ext, _shifted(ext, 2, blank)))
    emissions = P.gather(P.permute(log_probs, [1, 0, 2]), 2, P.broadcast_in_dim(ext, [N, T, L], [0, 2]))
    within = P.lt(s, P.broadcast_in_dim(P.add(P.mul(tl, like(tl, 2)), like(tl, 1)), [N, L], [0]))
    neg_inf = P.full([N, L], -math.inf, dtype=dtype, device=device)

    def emitted(t):
        return P.reshape(P.slice(emissions, [0, t, 0], [N, t + 1, L], [1, 1, 1]), [N, L])

    alpha = P.where(P.logical_and(P.lt(s, like(s, 2)), within), emitted(0), neg_inf)
    alphas = [alpha]
    for t in range(1, T):
        step = P.add(_log_add(alpha, _shifted(alpha, 1, -math.inf), P.where(skip, _shifted(alpha, 2, -math.inf),
                                                                            neg_inf)), emitted(t))
        running = P.broadcast_in_dim(P.lt(like(il, t), il), [N, L], [0])
        alpha = P.where(running, P.where(within, step, neg_inf), alpha)
        alphas.append(alpha)
    last = P.reshape(P.mul(tl, like(tl, 2)), [N, 1])
    end = P.reshape(P.gather(alpha, 1, last), [N])
    before = P.reshape(P.gather(alpha, 1, P.maximum(P.sub(last, like(last, 1)), like(last, 0))), [N])
    before = P.where(P.gt(tl, like(tl, 0)), before, like(before, -math.inf))
    nll = P.neg(_log_add(end, before))
    if not with_alpha:
        return nll, None
    width = 2 * P.item(P.amax(tl, [0])) + 1
    log_alpha = P.slice(P.cat([P.expand_dims(a, [1]) for a in alphas], 1), [0, 0, 0], [N, T, width], [1, 1, 1])
    return nll, log_alpha
