"""Derivative formulas from the catalog, registered as autograd rules of the prims.

A catalog entry's ``derivative`` key gives, per tensor argument, a Python expression written in
prims (in the spirit of PyTorch's derivatives.yaml)::

    derivative: {a: "mul(grad, conj(b))", b: "mul(grad, conj(a))"}   # mul
    derivative: {x: "mul(grad, ...)", n: none}                        # not differentiable in n
    derivative: none                                                  # not differentiable at all
    derivative: constant                                              # a constant to differentiation

``none`` means no derivative exists: asking for a gradient through the prim raises
NotDifferentiableError. ``constant`` means the derivative is zero by design (stop_gradient, as
eager's detach): the prim's outputs never require grad, so nothing downstream differentiates
into its inputs, and writes into those outputs are not refused by autograd.

A formula may use:
- prim names, called like functions (``sin(a)``); they run as ``torch.ops.primkit.<name>``, so a
  backward is made of prims and is differentiable again where those prims are;
- the prim's argument names; ``grad`` (``grads[i]`` for a prim with several outputs), the
  gradient of the output; ``result`` (``results[i]``), the forward output;
- numeric literals (``0``, ``0.5``, ``-1``), lists of them, and ``+ - * /`` between plain numbers
  (never tensors: tensor arithmetic is spelled with prims). A literal in a Tensor argument of a
  prim becomes a tensor full of that value, shaped like the call's first non-bool tensor
  argument (prims do not wrap scalars themselves);
- attributes ``x.shape``, ``x.dtype``, ``x.ndim`` of a tensor;
- the helpers of ``HELPERS`` below and of the modules of ``prims.derivative_helpers`` (each
  small, documented, written in prims).

Formulas are parsed with ``ast`` against that whitelist at catalog load, never ``eval``-ed.
Tensor and Tensor[] arguments each need a formula or ``none``; a formula for a Tensor[]
argument yields a list. Prims whose outputs are never floating or complex (comparisons,
bitwise ops) need no key: their outputs cannot require grad.
"""
from __future__ import annotations

import ast
import math
from dataclasses import dataclass

import torch

NOT_DIFFERENTIABLE = "none"
CONSTANT = "constant"


class NotDifferentiableError(RuntimeError):
    """A gradient was asked of a prim (or one of its arguments) whose catalog entry says ``none``."""


class FormulaError(ValueError):
    """A malformed formula; ``field`` is ``derivative`` or ``derivative.<arg>``."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


# --- helpers a formula may call ----------------------------------------------------------------

def _ops():
    return torch.ops.primkit


def conj(x):
    """conj_physical(x) for a complex x, x itself otherwise (Wirtinger convention, as eager)."""
    return _ops().conj_physical(x) if x.is_complex() else x


def zeros_like(x):
    """A zero tensor with x's shape, dtype and device (the prim ``full``)."""
    return _ops().full(list(x.shape), 0, dtype=x.dtype, device=x.device)


def other_dims(a, dims):
    """The dims of ``a`` not in ``dims`` (negative dims wrapped), in order: a reduction's kept dims."""
    reduced = {d % max(a.dim(), 1) for d in dims}
    return [d for d in range(a.dim()) if d not in reduced]


def unreduce(x, a, dims):
    """x (the shape of a reduced over dims) broadcast back to a's shape."""
    return _ops().broadcast_in_dim(x, list(a.shape), other_dims(a, dims))


def count(a, dims):
    """How many elements of a each output element of a reduction over dims combines (a number)."""
    return math.prod(a.shape[d] for d in dims)


def inverse_permutation(dims):
    """The permutation undoing ``permute(x, dims)``."""
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[d % n] = i
    return inv


def swap_last_two(x):
    """The dims of x with the last two exchanged: ``permute(x, swap_last_two(x))`` is x transposed."""
    dims = list(range(x.dim()))
    dims[-2], dims[-1] = dims[-1], dims[-2]
    return dims


def unbroadcast(grad, a, broadcast_dimensions):
    """The gradient of ``broadcast_in_dim(a, shape, broadcast_dimensions)``: grad summed over the new
    dims and over the dims a had as size 1 and that were broadcast, then reshaped to a's shape."""
    kept = {d: i for i, d in enumerate(broadcast_dimensions)}
    reduced = [d for d in range(grad.dim()) if d not in kept or (a.shape[kept[d]] == 1 and grad.shape[d] != 1)]
    return _ops().reshape(_ops().sum(grad, reduced), list(a.shape))


def unslice(grad, a, start_indices, limit_indices, strides):
    """The gradient of ``slice``: grad put back at its positions in a's shape, zero elsewhere (pad)."""
    low, high, interior = [], [], []
    for size, n, start, step in zip(a.shape, grad.shape, start_indices, strides):
        last = start + (n - 1) * step if n > 0 else start - 1   # index of the last element taken
        low.append(start)
        high.append(size - 1 - last if n > 0 else size - start)
        interior.append(step - 1)
    return _ops().pad(grad, 0, low, high, interior)


def unpad(grad, a, low, high, interior):
    """The gradient of ``pad``: the elements of grad that came from a (a cropped edge, negative low or
    high, gets zero gradient: it is padded back first), read with a slice."""
    ops = _ops()
    if any(x < 0 for x in (*low, *high)):
        grad = ops.pad(grad, 0, [max(-x, 0) for x in low], [max(-x, 0) for x in high], [0] * len(low))
        low, high = [max(x, 0) for x in low], [max(x, 0) for x in high]
    limits = [lo + (n - 1) * (i + 1) + 1 if n > 0 else lo for lo, n, i in zip(low, a.shape, interior)]
    return ops.slice(grad, list(low), limits, [i + 1 for i in interior])


def split_like(grad, tensors, dim):
    """The gradient of ``cat(tensors, dim)``: one slice of grad per input."""
    out, start = [], 0
    dim = dim % grad.dim()
    for t in tensors:
        lo, hi = [0] * grad.dim(), list(grad.shape)
        lo[dim], hi[dim] = start, start + t.shape[dim]
        out.append(_ops().slice(grad, lo, hi, [1] * grad.dim()))
        start += t.shape[dim]
    return out


def mvdigamma(a, p):
    """The derivative of ``mvlgamma(a, p)``: the sum of digamma(a - j / 2) for j in 0..p-1."""
    ops = _ops()
    total = ops.digamma(a)
    for j in range(1, p):
        total = ops.add(total, ops.digamma(ops.sub(a, ops.full(list(a.shape), j / 2, dtype=a.dtype, device=a.device))))
    return total


def negated(xs):
    """The numbers of xs negated (roll's inverse shifts)."""
    return [-x for x in xs]


def unfold_back(grad, a, dim, size, step):
    """The gradient of ``unfold(a, dim, size, step)``: element k of window i came from position
    i * step + k of dim, so each window-element slice of grad is spread back along dim with interior
    padding (``pad``) and the slices are summed (overlapping windows add up)."""
    ops = _ops()
    if a.dim() == 0:
        return ops.reshape(grad, [])
    dim = dim % a.dim()
    n = grad.shape[dim]
    total = zeros_like(a)
    for k in range(size):
        lo, hi = [0] * grad.dim(), list(grad.shape)
        lo[-1], hi[-1] = k, k + 1
        piece = ops.reshape(ops.slice(grad, lo, hi, [1] * grad.dim()), list(grad.shape[:-1]))
        low, high, interior = [0] * a.dim(), [0] * a.dim(), [0] * a.dim()
        low[dim], interior[dim] = k, step - 1
        high[dim] = a.shape[dim] - (k + (n - 1) * step + 1 if n > 0 else k)
        total = ops.add(total, ops.pad(piece, 0, low, high, interior))
    return total


def diagonal_back(grad, a, offset, dim1, dim2):
    """The gradient of ``diagonal(a, offset, dim1, dim2)``: grad (the diagonal, last dim) written onto
    the diagonal of zeros shaped like a. A vector v of length L becomes a diagonal L x L matrix by
    padding it to (L, L + 1), flattening, keeping L * L elements and reshaping; pads then place the
    matrix at the offset, and a permute puts dim1 and dim2 back."""
    ops = _ops()
    nd = a.dim()
    dim1, dim2 = dim1 % nd, dim2 % nd
    batch = list(grad.shape[:-1])
    L = grad.shape[-1]
    x = ops.reshape(grad, batch + [L, 1])
    x = ops.pad(x, 0, [0] * (len(batch) + 2), [0] * len(batch) + [0, L], [0] * (len(batch) + 2))
    x = ops.reshape(x, batch + [L * (L + 1)])
    x = ops.slice(x, [0] * (len(batch) + 1), batch + [L * L], [1] * (len(batch) + 1))
    x = ops.reshape(x, batch + [L, L])
    n, m = a.shape[dim1], a.shape[dim2]
    row0, col0 = (0, offset) if offset >= 0 else (-offset, 0)
    if L == 0:
        row0, col0 = 0, 0
    x = ops.pad(x, 0, [0] * len(batch) + [row0, col0], [0] * len(batch) + [n - row0 - L, m - col0 - L],
                [0] * (len(batch) + 2))
    others = [d for d in range(nd) if d not in (dim1, dim2)]
    perm = [others.index(d) if d in others else (nd - 2 if d == dim1 else nd - 1) for d in range(nd)]
    return ops.permute(x, perm)


def _storage_indices(shape, strides, offset, device):
    """int64 tensor of shape ``shape``: the storage index of each element of that geometry (iota per
    dim, scaled by its stride, broadcast and summed)."""
    ops = _ops()
    idx = ops.full(list(shape), offset, dtype=torch.int64, device=device)
    for d, (n, st) in enumerate(zip(shape, strides)):
        if st == 0:
            continue    # an expanded dim reads one index throughout
        steps = ops.iota(n, start=0, step=st, dtype=torch.int64, device=device)
        idx = ops.add(idx, ops.broadcast_in_dim(steps, list(shape), [d]))
    return idx


def as_strided_back(grad, a, size, stride, storage_offset):
    """The gradient of ``as_strided(a, size, stride, storage_offset)``: grad summed (``index_add``,
    so elements of an overlapping view add up) into a flat buffer at the storage index each output
    element reads, then read back (``take``) at the storage index of each element of a. Exact for an
    operand whose own elements do not overlap in memory (the operands as_strided is used on)."""
    ops = _ops()
    reach = [storage_offset + sum((n - 1) * st for n, st in zip(size, stride)) if 0 not in size else 0,
             a.storage_offset() + sum((n - 1) * st for n, st in zip(a.shape, a.stride())) if a.numel() else 0]
    buffer = ops.full([max(reach) + 1], 0, dtype=grad.dtype, device=grad.device)
    out_idx = ops.reshape(_storage_indices(list(size), list(stride), storage_offset, grad.device), [grad.numel()])
    buffer = ops.index_add(buffer, 0, out_idx, ops.reshape(grad, [grad.numel()]))
    return ops.take(buffer, _storage_indices(list(a.shape), list(a.stride()), a.storage_offset(), grad.device))


def convolution_weight_grad(grad, input, weight, stride, padding, dilation, transposed, groups):
    """The weight gradient of ``convolution``: a convolution of the input (channels as batch, per
    group) with grad as the kernel, stride and dilation exchanged, cut to the kernel's size. For a
    transposed convolution grad and input exchange roles (it is the adjoint of a convolution)."""
    ops = _ops()
    x, gy = (grad, conj(input)) if transposed else (conj(input), grad)   # Wirtinger: the other operand conjugated
    n = weight.dim() - 2
    N, cin = x.shape[0], x.shape[1]
    cpg = cin // groups
    spatial = list(x.shape[2:])
    xg = ops.reshape(x, [N, groups, cpg] + spatial)
    xg = ops.reshape(ops.permute(xg, [2, 1, 0] + list(range(3, n + 3))), [cpg, groups * N] + spatial)
    kg = ops.permute(gy, [1, 0] + list(range(2, n + 2)))                      # (C, N, *o)
    out = ops.convolution(xg, kg, None, list(dilation), list(padding), list(stride), False, [0] * n, groups)
    out = ops.slice(out, [0] * (n + 2), [out.shape[0], out.shape[1]] + list(weight.shape[2:]), [1] * (n + 2))
    return ops.permute(out, [1, 0] + list(range(2, n + 2)))                    # (C, cpg, *k)


def convolution_input_grad(grad, input, weight, stride, padding, dilation, transposed, output_padding, groups):
    """The input gradient of ``convolution``: the transposed convolution of grad (output_padding
    chosen so the result has the input's size), or for a transposed convolution the plain one."""
    ops = _ops()
    n = weight.dim() - 2
    w = conj(weight)   # Wirtinger: the other operand conjugated
    if transposed:
        out = ops.convolution(grad, w, None, list(stride), list(padding), list(dilation), False, [0] * n, groups)
        # output_padding may reach past the stride (up to the dilation): the forward's last
        # output_padding rows then read no input, and the plain convolution gives one row more.
        return ops.slice(out, [0] * (n + 2), list(input.shape), [1] * (n + 2))
    extra = [input.shape[2 + i] - ((grad.shape[2 + i] - 1) * stride[i] - 2 * padding[i]
                                   + dilation[i] * (weight.shape[2 + i] - 1) + 1) for i in range(n)]
    return ops.convolution(grad, w, None, list(stride), list(padding), list(dilation), True, extra, groups)


def convolution_bias_grad(grad):
    """The bias gradient of ``convolution``: grad summed over batch and spatial dims."""
    return _ops().sum(grad, [0] + list(range(2, grad.dim())))


HELPERS = {f.__name__: f for f in (conj, zeros_like, other_dims, unreduce, count, inverse_permutation,
                                   swap_last_two, unbroadcast, unslice, unpad, split_like, mvdigamma, negated,
                                   unfold_back, diagonal_back, as_strided_back,
                                   convolution_input_grad, convolution_weight_grad, convolution_bias_grad)}


def _family_helpers() -> dict:
    from primkit.prims import derivative_helpers
    extra = derivative_helpers.collect()
    clash = sorted(set(extra) & set(HELPERS))
    if clash:
        raise RuntimeError(f"prims.derivative_helpers redefines the helpers {clash} of prims.autograd")
    return extra


HELPERS.update(_family_helpers())
ATTRIBUTES = {"shape", "dtype", "ndim"}


# --- parsing -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Formula:
    arg: str
    text: str
    tree: ast.expr | None       # None: not differentiable in this argument
    calls: frozenset            # prim and helper names the formula calls


@dataclass(frozen=True)
class Derivative:
    """A prim's parsed ``derivative`` entry: one Formula per tensor argument, or none at all."""
    formulas: tuple = ()        # () for ``derivative: none`` and ``derivative: constant``
    values: frozenset = frozenset()   # argument names, grad/result names the formulas read
    constant: bool = False      # ``derivative: constant``: outputs never require grad

    @property
    def differentiable(self) -> bool:
        return any(f.tree is not None for f in self.formulas)

    @property
    def calls(self) -> frozenset:
        return frozenset().union(*(f.calls for f in self.formulas))


_NODES = (ast.Expression, ast.Call, ast.Name, ast.Constant, ast.List, ast.Tuple, ast.UnaryOp, ast.USub,
          ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Attribute, ast.Subscript, ast.Load, ast.keyword)


def tensor_args(schema) -> list[str]:
    """Names of a schema's Tensor, Tensor? and Tensor[] arguments."""
    return [a.name for a in schema.arguments
            if str(a.type) in ("Tensor", "Optional[Tensor]", "List[Tensor]", "List[Optional[Tensor]]")]


def parse_derivative(spec, schema) -> Derivative:
    """A catalog ``derivative`` value -> Derivative; FormulaError naming the field on any defect.
    Names of called functions are checked later, against the whole catalog (``check_calls``)."""
    if spec == NOT_DIFFERENTIABLE:
        return Derivative()
    if spec == CONSTANT:
        return Derivative(constant=True)
    if not isinstance(spec, dict) or not spec:
        raise FormulaError("derivative", "expected `none`, `constant` or a mapping from argument name to formula, "
                           f"got {spec!r}")
    args = [a.name for a in schema.arguments]
    tensors = tensor_args(schema)
    outputs = len(schema.returns)
    grad_names = {"grad", "result"} if outputs == 1 else {"grads", "results"}
    formulas, values = [], set()
    for arg, text in spec.items():
        fld = f"derivative.{arg}"
        if arg not in args:
            raise FormulaError(fld, f"the prim has no argument '{arg}' (it has: {', '.join(args)})")
        if arg not in tensors:
            raise FormulaError(fld, f"argument '{arg}' is not a tensor; only tensor arguments have derivatives")
        if text == NOT_DIFFERENTIABLE:
            formulas.append(Formula(arg, text, None, frozenset()))
            continue
        if not isinstance(text, str):
            raise FormulaError(fld, f"expected a formula string or `none`, got {text!r}")
        tree, calls, names = _parse(fld, text, set(args) | grad_names)
        formulas.append(Formula(arg, text, tree, calls))
        values |= names
    missing = [t for t in tensors if t not in spec]
    if missing:
        raise FormulaError("derivative", f"tensor argument(s) {', '.join(missing)} need a formula or `none`")
    return Derivative(tuple(formulas), frozenset(values))


def _parse(fld, text, names):
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        raise FormulaError(fld, f"cannot parse formula {text!r}: {e.msg}") from None
    calls, used = set(), set()
    for node in ast.walk(tree):
        if not isinstance(node, _NODES):
            raise FormulaError(fld, f"{text!r}: {type(node).__name__} is not allowed in a formula (calls of "
                                    f"prims and helpers, names, numbers and lists only)")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise FormulaError(fld, f"{text!r}: only prims and helpers can be called, by name")
            calls.add(node.func.id)
        elif isinstance(node, ast.Name) and not _is_callee(tree, node):
            if node.id not in names:
                raise FormulaError(fld, f"{text!r}: unknown name '{node.id}' (known: {', '.join(sorted(names))})")
            used.add(node.id)
        elif isinstance(node, ast.Constant) and (isinstance(node.value, (str, bytes)) or node.value is Ellipsis):
            raise FormulaError(fld, f"{text!r}: only numeric literals are allowed, got {node.value!r}")
        elif isinstance(node, ast.Attribute) and node.attr not in ATTRIBUTES:
            raise FormulaError(fld, f"{text!r}: attribute '{node.attr}' is not allowed "
                                    f"(allowed: {', '.join(sorted(ATTRIBUTES))})")
        elif isinstance(node, ast.Subscript) and _int_literal(node.slice) is None:
            raise FormulaError(fld, f"{text!r}: subscripts take an integer literal (grads[0], x.shape[-1])")
    return tree.body, frozenset(calls), frozenset(used)


def _int_literal(node):
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_literal(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _is_callee(tree, name_node) -> bool:
    return any(isinstance(n, ast.Call) and n.func is name_node for n in ast.walk(tree))


def check_calls(derivative: Derivative, signatures) -> None:
    """FormulaError naming the field when a formula calls something that is neither prim nor helper,
    or calls a prim with arguments its schema does not take. ``signatures``: prim name -> its
    ``arg_defaults`` ((name, has_default, default) in schema order)."""
    for f in derivative.formulas:
        unknown = sorted(c for c in f.calls if c not in signatures and c not in HELPERS)
        if unknown:
            raise FormulaError(f"derivative.{f.arg}", f"{f.text!r} calls {', '.join(unknown)}, which is neither "
                                                      f"a prim nor a helper ({', '.join(sorted(HELPERS))})")
        for call in ast.walk(f.tree) if f.tree is not None else ():
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in signatures \
                    and call.func.id not in HELPERS:
                problem = _arity_problem(signatures[call.func.id], call)
                if problem:
                    raise FormulaError(f"derivative.{f.arg}", f"{f.text!r}: {call.func.id}(...) {problem}")


def _arity_problem(arg_defaults, call) -> str | None:
    names = [n for n, _, _ in arg_defaults]
    required = [n for n, has_default, _ in arg_defaults if not has_default]
    given = names[:len(call.args)]
    if len(call.args) > len(names):
        return f"takes at most {len(names)} arguments ({', '.join(names)}), got {len(call.args)}"
    keywords = [k.arg for k in call.keywords]
    unknown = [k for k in keywords if k not in names]
    if unknown:
        return f"has no argument {unknown[0]!r} (it takes {', '.join(names)})"
    missing = [n for n in required if n not in given and n not in keywords]
    if missing:
        return f"misses argument {missing[0]!r} (it takes {', '.join(names)})"
    return None


def may_be_differentiable(dtypes, params) -> bool:
    """Whether a prim can have a floating or complex output: some inexact dtype, and no fixed
    bool/integer output dtype."""
    out = params.get("out_dtype")
    fixed_exact = isinstance(out, str) and (out == "bool" or out.startswith("int") or out.startswith("uint"))
    fixed_exact = fixed_exact and not params.get("with_values")   # (values, indices): out_dtype is the indices' dtype
    return not fixed_exact and any(d.is_floating_point or d.is_complex for d in dtypes)


# --- evaluation ------------------------------------------------------------------------------------

_BINOPS = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y, ast.Mult: lambda x, y: x * y,
           ast.Div: lambda x, y: x / y if y != 0 else math.copysign(math.inf, x) if x != 0 else math.nan}


def evaluate(prim_name, node, env):
    """Value of a parsed formula node; ``env`` maps argument and grad/result names to values."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [evaluate(prim_name, e, env) for e in node.elts]
    if isinstance(node, ast.UnaryOp):
        return -_number(prim_name, evaluate(prim_name, node.operand, env))
    if isinstance(node, ast.BinOp):
        x, y = (_number(prim_name, evaluate(prim_name, n, env)) for n in (node.left, node.right))
        return _BINOPS[type(node.op)](x, y)
    if isinstance(node, ast.Attribute):
        x = evaluate(prim_name, node.value, env)
        return {"shape": lambda: list(x.shape), "dtype": lambda: x.dtype, "ndim": x.dim}[node.attr]()
    if isinstance(node, ast.Subscript):
        return evaluate(prim_name, node.value, env)[_int_literal(node.slice)]
    fn_name = node.func.id
    args = [evaluate(prim_name, a, env) for a in node.args]
    kwargs = {k.arg: evaluate(prim_name, k.value, env) for k in node.keywords}
    if fn_name in HELPERS:
        return HELPERS[fn_name](*args, **kwargs)
    op = getattr(torch.ops.primkit, fn_name).default
    return op(*_wrap_literals(op, args), **kwargs)


def _number(prim_name, x):
    if isinstance(x, torch.Tensor):
        raise TypeError(f"primkit.{prim_name}: derivative formula applies + - * / to a tensor; "
                        f"use the prims add, sub, mul, div")
    return x


def _wrap_literals(op, args):
    """Numbers in Tensor arguments -> tensors full of them, like the first non-bool tensor argument."""
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    like = next((t for t in tensors if t.dtype != torch.bool), tensors[0] if tensors else None)
    out = []
    for a, spec in zip(args, op._schema.arguments):
        number = isinstance(a, (int, float, complex)) and not isinstance(a, bool)
        if number and str(spec.type) == "Tensor" and like is not None:
            a = torch.ops.primkit.full.default(list(like.shape), a, dtype=like.dtype, device=like.device)
        out.append(a)
    return out


# --- registration -----------------------------------------------------------------------------------

REGISTERED: dict = {}       # prim name -> Derivative registered with torch.library


def register(prim, derivative: Derivative, lib) -> None:
    """Register ``derivative`` as the autograd rule of ``prim`` (a PrimDef), once per process."""
    if prim.name in REGISTERED:
        raise RuntimeError(f"primkit.{prim.name}: a derivative is already registered")
    schema = torch._C.parse_schema(f"primkit::{prim.schema}")
    arg_names = [a.name for a in schema.arguments]
    multi = len(schema.returns) > 1
    saved = [n for n in arg_names if n in derivative.values]
    save_result = bool({"result", "results"} & derivative.values)
    by_arg = {f.arg: f for f in derivative.formulas}

    def setup_context(ctx, inputs, output):
        # Tensors go through save_for_backward (checked against in-place changes); a Tensor[] is
        # flattened and its length kept; other arguments are plain values.
        tensors, layout = [], []
        for name in saved:
            value = inputs[arg_names.index(name)]
            if isinstance(value, torch.Tensor):
                layout.append((name, "tensor", len(tensors)))
                tensors.append(value)
            elif isinstance(value, (list, tuple)) and value and all(isinstance(v, torch.Tensor) for v in value):
                layout.append((name, "list", (len(tensors), len(value))))
                tensors.extend(value)
            else:
                layout.append((name, "value", value))
        if save_result:
            outs = list(output) if multi else [output]
            layout.append(("results" if multi else "result", "outputs", (len(tensors), len(outs))))
            tensors.extend(outs)
        ctx.save_for_backward(*tensors)
        ctx.layout = layout

    def backward(ctx, *grads):
        saved_tensors = ctx.saved_tensors
        env = {"grads": list(grads)} if multi else {"grad": grads[0]}
        for name, kind, where in ctx.layout:
            if kind == "tensor":
                env[name] = saved_tensors[where]
            elif kind == "value":
                env[name] = where
            else:
                start, n = where
                values = list(saved_tensors[start:start + n])
                env[name] = values if kind == "list" or multi else values[0]
        out = []
        for name, needed in zip(arg_names, ctx.needs_input_grad):
            f = by_arg.get(name)
            if isinstance(needed, (list, tuple)):   # a Tensor[] argument: one flag per tensor
                if not any(needed) or f is None:
                    out.append([None] * len(needed))
                    continue
            if not needed or f is None:
                out.append(None)
            elif f.tree is None:
                raise NotDifferentiableError(f"primkit.{prim.name}: not differentiable"
                                             + (f" in '{name}'" if len(derivative.formulas) > 1 else ""))
            else:
                out.append(evaluate(prim.name, f.tree, env))
        return tuple(out)

    def not_differentiable(ctx, *grads):
        raise NotDifferentiableError(f"primkit.{prim.name}: not differentiable")

    def constant_setup(ctx, inputs, output):
        outs = output if isinstance(output, (tuple, list)) else (output,)
        ctx.mark_non_differentiable(*(o for o in outs if isinstance(o, torch.Tensor)))

    def constant(ctx, *grads):      # never reached: no output requires grad
        return (None,) * len(arg_names)

    if derivative.constant:
        torch.library.register_autograd(f"primkit::{prim.name}", constant, setup_context=constant_setup, lib=lib)
    elif derivative.formulas:
        torch.library.register_autograd(f"primkit::{prim.name}", backward, setup_context=setup_context, lib=lib)
    else:
        torch.library.register_autograd(f"primkit::{prim.name}", not_differentiable, lib=lib)
    REGISTERED[prim.name] = derivative


def register_mutating(prim, lib) -> None:
    """An autograd kernel for a prim that writes into an argument (``tags: [mutates]``).

    A write has no derivative formula, and torch forbids in-place writes into the views that
    differentiable prims return; so with grad enabled, writing into a tensor that requires grad
    raises NotDifferentiableError naming the prim and the argument. Otherwise the write runs below
    autograd, as any tensor write under ``torch.no_grad()``."""
    op = getattr(torch.ops.primkit, prim.name).default
    written = [i for i, a in enumerate(op._schema.arguments) if a.alias_info is not None and a.alias_info.is_write]

    def kernel(*args, **kwargs):
        if torch.is_grad_enabled():
            for i in written:
                t = args[i]
                if isinstance(t, torch.Tensor) and (t.requires_grad or any(
                        isinstance(x, torch.Tensor) and x.requires_grad for x in args)):
                    name = op._schema.arguments[i].name
                    raise NotDifferentiableError(
                        f"primkit.{prim.name}: writes into '{name}' in place, which is not differentiable; "
                        f"run a graph with in-place writes under torch.no_grad(), or make it functional first "
                        f"(decompositions.canonicalize; trace's graphs are canonical)")
        with torch._C._AutoDispatchBelowAutograd():
            return op(*args, **kwargs)
    kernel.__name__ = f"{prim.name}_autograd"
    lib.impl(prim.name, kernel, "Autograd")


def register_all(catalog, lib) -> None:
    """Register the derivative of every catalog prim that has one (formulas or ``none``), and the
    autograd kernel of every mutating prim."""
    for prim in catalog:
        if prim.derivative is not None:
            register(prim, prim.derivative, lib)
        elif "mutates" in prim.tags:
            register_mutating(prim, lib)
