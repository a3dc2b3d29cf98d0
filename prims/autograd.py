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
- the helpers of the modules of ``prims.derivative_helpers`` (``HELPERS`` here; each
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
from torch._library.autograd import Info, make_autograd_impl   # torch.library.register_autograd's steps
from torch._library.utils import has_kwarg_only_tensors, is_functional_schema

from primkit.prims import derivative_helpers

NOT_DIFFERENTIABLE = "none"
CONSTANT = "constant"


class NotDifferentiableError(RuntimeError):
    """A gradient was asked of a prim (or one of its arguments) whose catalog entry says ``none``."""


class FormulaError(ValueError):
    """A malformed formula; ``field`` is ``derivative`` or ``derivative.<arg>``."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


# --- helpers a formula may call: prims.derivative_helpers, one module per family ----------------

HELPERS = derivative_helpers.collect()
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
    nodes = list(ast.walk(tree))
    callees = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    for node in nodes:
        if not isinstance(node, _NODES):
            raise FormulaError(fld, f"{text!r}: {type(node).__name__} is not allowed in a formula (calls of "
                                    f"prims and helpers, names, numbers and lists only)")
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise FormulaError(fld, f"{text!r}: only prims and helpers can be called, by name")
            calls.add(node.func.id)
        elif isinstance(node, ast.Name) and id(node) not in callees:
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
        _register_autograd(lib, prim.name, schema, constant, constant_setup)
    elif derivative.formulas:
        _register_autograd(lib, prim.name, schema, backward, setup_context)
    else:
        _register_autograd(lib, prim.name, schema, not_differentiable, None)
    REGISTERED[prim.name] = derivative


def _register_autograd(lib, name, schema, backward, setup_context) -> None:
    """``torch.library.register_autograd(f"primkit::{name}", backward, setup_context=..., lib=lib)``, with
    torch's kernel built on the op's first call through autograd: building it (an autograd.Function and
    a dataclass per op) for every prim was a third of ``import primkit``. The kernel sits at the key
    register_autograd uses, so dispatch is the same, and register_autograd's checks run here, at import."""
    if not is_functional_schema(schema) or has_kwarg_only_tensors(schema):
        raise RuntimeError(f"primkit.{name}: a derivative needs a functional signature without keyword-only "
                           f"tensors (torch.library.register_autograd's rule), got {schema}")
    kernel = op = None
    below = torch._C._after_autograd_keyset

    def autograd(keyset, *args, **kwargs):
        nonlocal kernel, op
        if kernel is None:
            op = getattr(torch.ops.primkit, name).default
            kernel = make_autograd_impl(op, Info(backward, setup_context))
        if not torch.is_grad_enabled():    # what torch's kernel does then, without building its call's metadata
            with torch._C._AutoDispatchBelowAutograd():
                return op.redispatch(keyset & below, *args, **kwargs)
        return kernel(keyset, *args, **kwargs)
    autograd.__name__ = f"{name}_autograd"
    lib.impl(name, autograd, "Autograd", with_keyset=True)


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
                        f"(graph.canonicalize; trace's graphs are canonical)")
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
