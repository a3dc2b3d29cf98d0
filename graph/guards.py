"""What a traced graph was specialized on, checked on every call.

``trace`` flattens the program's positional and keyword arguments. Tensors (keyword tensors too) are
graph inputs, and so are Python ints under ``dynamic=True`` (make_fx makes them symbolic). Every
other value (a float, a bool, an int in static mode, a list's entries, a numpy array, None) was
read as a constant: ``TracedGraphModule`` checks on each call that it is unchanged and raises
``SpecializationError`` naming the argument otherwise. It also checks each tensor's dtype,
device, rank and the sizes the graph was specialized on (all of them in static mode; under
``dynamic=True`` the sizes 0 and 1, which symbolic tracing never makes symbolic), and the strides and
storage offset of a tensor whose storage the graph reads (as_strided of it or of a view of it: the
graph holds the storage positions the trace computed from them). Inputs that
share memory are refused where the program read one after writing the other, since the graph's
writes happen at its end (prims are functional) and eager would have read the written values.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

import torch
import torch.fx as fx
import torch.utils._pytree as pytree

from primkit import prims
from primkit.decompositions.common import resize_output
from primkit.prims.layout import is_non_overlapping_and_dense


class SpecializationError(ValueError):
    """A call differs from the traced one in something the graph was specialized on."""


@dataclass(frozen=True)
class Leaf:
    path: str           # how the user names it: "s", "x", "kwargs['w']", "dims[1]"
    kind: str           # "tensor" or "symint" (graph inputs) or "constant"
    value: Any = None   # a constant's traced value


def refuse_unsupported_tensor(name: str, path: str, t: torch.Tensor):
    kind = ("a sparse tensor" if t.layout in (torch.sparse_coo, torch.sparse_csr, torch.sparse_csc,
                                              torch.sparse_bsr, torch.sparse_bsc)
            else "a quantized tensor" if t.is_quantized
            else "a nested tensor" if t.is_nested
            else f"a tensor of layout {t.layout}" if t.layout != torch.strided else None)
    if kind is not None:
        raise TypeError(f"trace({name}): argument {path} is {kind}; primkit's prims take dense strided "
                        f"tensors only (convert it first, e.g. .to_dense() or .dequantize())")


def _arg_names(fn, n_args: int) -> list[str]:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(n_args):
        p = params[i] if i < len(params) else None
        named = p is not None and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        names.append(p.name if named else f"args[{i}]")
    return names


def flatten_call(fn, name: str, args, kwargs, dynamic: bool):
    """(leaves, spec, the values of the graph inputs in order) for fn(*args, **kwargs)."""
    heads = _arg_names(fn, len(args))
    with_path, spec = pytree.tree_flatten_with_path((tuple(args), dict(kwargs)))
    leaves, inputs = [], []
    for keypath, value in with_path:
        top, first, rest = keypath[0].idx, keypath[1], keypath[2:]
        head = heads[first.idx] if top == 0 else first.key
        path = head + pytree.keystr(rest)
        if isinstance(value, torch.Tensor):
            refuse_unsupported_tensor(name, path, value)
            leaves.append(Leaf(path, "tensor"))
            inputs.append(value)
        elif dynamic and type(value) is int:
            leaves.append(Leaf(path, "symint"))
            inputs.append(value)
        else:
            leaves.append(Leaf(path, "constant", value))
    return leaves, spec, inputs


def rebuild(leaves, spec, inputs):
    """args, kwargs with the graph inputs put back among the constants."""
    it = iter(inputs)
    values = [next(it) if leaf.kind != "constant" else leaf.value for leaf in leaves]
    args, kwargs = pytree.tree_unflatten(values, spec)
    return args, kwargs


def _same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if type(a).__module__ == "numpy" and hasattr(a, "shape"):
        import numpy as np
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b, equal_nan=True))
    if isinstance(a, float) and a != a:
        return b != b
    try:
        return bool(a == b)
    except Exception:   # a value without a usable ==: only itself is the same
        return a is b


def _storage(t):
    return t.untyped_storage()._cdata


def read_after_write_pairs(gm: fx.GraphModule, inputs: list, written_at: dict) -> frozenset:
    """(i, j) for graph inputs i != j where the program reads input j (or a view of it) after a
    write into input i: if i and j share memory at a call, eager's read sees the write and the
    graph's does not. ``inputs``: the placeholders of the tensor arguments; ``written_at[i]``: the
    position of the first node traced after the program's first write into input i. Computed on
    the raw (functionalized) trace, whose node order is the program's: its writes into inputs
    are the ``copy_to`` epilogue, which reads only its source."""
    copy_to = prims.get("copy_to").op
    base = _input_bases(gm, inputs)
    pairs = set()
    for position, node in enumerate(gm.graph.nodes):
        if node.op != "call_function":
            continue
        read = node.args[1:2] if node.target is copy_to else node.all_input_nodes
        reads = {base[a] for a in read if isinstance(a, fx.Node) and a in base}
        pairs.update((w, r) for w, at in written_at.items() if position >= at for r in reads if r != w)
    return frozenset(pairs)


def _input_bases(gm: fx.GraphModule, inputs: list, also=frozenset()) -> dict:
    """node -> the index of the input (among ``inputs``, placeholders) it is, or is a view of (through view
    prims, and the prims named in ``also``)."""
    base = {n: k for k, n in enumerate(inputs)}
    for node in gm.graph.nodes:
        if node.op != "call_function" or not prims.is_prim(node.target) or not node.args or node.args[0] not in base:
            continue
        name = node.target._opname
        if name in also or "view" in prims.get(name).tags:
            base[node] = base[node.args[0]]
    return base


# ATen ops whose values depend on where their operand lies in its storage (its strides and storage offset), not
# only on its elements: a decomposition of one computes storage positions from the operand's geometry.
STORAGE_READERS = frozenset({"as_strided", "as_strided_copy", "as_strided_scatter", "_reshape_alias",
                             "_reshape_alias_copy"})


def storage_read_inputs(gm: fx.GraphModule, inputs: list) -> frozenset:
    """The indices (among ``inputs``, the placeholders of the tensor arguments) of the inputs whose storage the
    graph reads: an operand of an as_strided prim, or of a node traced from an op of STORAGE_READERS, is the
    input or a view of it (a reshape may be one)."""
    base = _input_bases(gm, inputs, also={"reshape"})
    as_strided = prims.get("as_strided").op
    out = set()
    for node in gm.graph.nodes:
        original = node.meta.get("original_aten")
        if node.target is as_strided or getattr(original, "_opname", None) in STORAGE_READERS:
            out.update(base[a] for a in node.all_input_nodes if a in base)
    return frozenset(out)


class TracedGraphModule(fx.GraphModule):
    """A prim graph made by ``trace``: called as the traced program is (the same positional and
    keyword arguments), it checks what the graph was specialized on and passes the graph inputs."""

    def __call__(self, *args, **kwargs):
        inputs = self._primkit_bind(args, kwargs)
        self.__dict__["_primkit_guard"].check_gradient(inputs, self.parameters())
        out = super().__call__(*inputs)
        guard = self.__dict__["_primkit_guard"]
        if guard.resized:
            out, values = out
            guard.write_back(inputs, values)
        return out

    def _primkit_bind(self, args, kwargs):
        guard = self.__dict__["_primkit_guard"]
        return guard.bind(args, kwargs)


class CallGuard:
    def __init__(self, name, leaves, spec, input_vals, dynamic, read_after_write, storage_read=frozenset(),
                 resized=None, sparse_gradient=()):
        self.name, self.leaves, self.spec, self.dynamic = name, leaves, spec, dynamic
        self.sparse_gradient = tuple(sparse_gradient)   # ops that asked for a sparse gradient (sparse=True)
        self.read_after_write = read_after_write
        # graph input index -> the strides an out= call gives it (None where symbolic: sizes read from data)
        self.resized = {k: _static_or_none(strides) for k, (_, strides) in (resized or {}).items()}
        # per graph input: (path, dtype, device, sizes with None where symbolic, place) or None for a SymInt;
        # place: (strides, storage offset), each None where symbolic, for an input in storage_read, else None
        self.geometry = []
        inputs = [leaf for leaf in leaves if leaf.kind != "constant"]
        for k, (leaf, val) in enumerate(zip(inputs, input_vals)):
            if isinstance(val, torch.Tensor):
                sizes = _static_or_none(val.shape)
                place = (_static_or_none(val.stride()), _static_or_none([val.storage_offset()])[0]) \
                    if k in storage_read else None
                self.geometry.append((leaf.path, val.dtype, val.device.type, sizes, place))
            else:
                self.geometry.append(None)

    def _fail(self, message):
        raise SpecializationError(f"trace({self.name}) graph called with {message}")

    def bind(self, args, kwargs):
        with_path, spec = pytree.tree_flatten_with_path((tuple(args), dict(kwargs)))
        if spec != self.spec:
            self._fail(f"arguments of another structure than traced: expected {self._signature()}, "
                       f"got {len(args)} positional and keywords {sorted(kwargs)}")
        inputs = []
        for leaf, (_, value) in zip(self.leaves, with_path):
            if leaf.kind == "constant":
                if not _same(value, leaf.value):
                    self._fail(f"{leaf.path}={_short(value)}, but the graph was traced with {leaf.path}="
                               f"{_short(leaf.value)} and computes with that value (a non-tensor argument is a "
                               f"constant of the graph{_INT_HINT if type(leaf.value) is int else ''}): "
                               f"pass {_short(leaf.value)} or trace again")
                continue
            if leaf.kind == "tensor" and not isinstance(value, torch.Tensor):
                self._fail(f"{leaf.path} of type {type(value).__name__}, but it was a tensor when traced")
            if leaf.kind == "symint" and type(value) is not int:
                self._fail(f"{leaf.path} of type {type(value).__name__}, but it was an int when traced")
            inputs.append(value)
        for (path, dtype, device, sizes, place), value in ((g, v) for g, v in zip(self.geometry, inputs) if g is not None):
            self._check_tensor(path, dtype, device, sizes, value)
            if place is not None:
                self._check_place(path, place, value)
        self._check_aliasing(inputs)
        return inputs

    def check_gradient(self, inputs, parameters):
        """A call that could form a gradient (grad enabled, a tensor requiring grad) where the program asked for a
        sparse one: refused, since the graph's gradient, made of prims, would be dense where eager's is sparse."""
        if not self.sparse_gradient or not torch.is_grad_enabled():
            return
        if any(isinstance(t, torch.Tensor) and t.requires_grad for t in [*inputs, *parameters]):
            ops = " and ".join(self.sparse_gradient)
            raise NotImplementedError(
                f"trace({self.name}): {ops} with sparse=True asks for a sparse gradient of its 'weight', which "
                f"this graph of prims cannot give (no prim models a sparse layout: its gradient would be dense); "
                f"call the graph under torch.no_grad() (inference), pass sparse=False for a dense gradient, or train "
                f"with torch.compile(backend=\"primkit\"), which gives eager's sparse gradient")

    def write_back(self, inputs, values):
        """The arguments the program passes as out= tensors of another shape than their results, resized as
        eager resizes them (``common.resize_output``: its warning where one had elements) to the sizes of the
        values the graph computed for them (sizes read from data may turn out to be out's own: then no
        resize), then given those values (prims are functional: no prim resizes a tensor)."""
        for k, value in zip(sorted(self.resized), values, strict=True):
            if inputs[k].shape != value.shape:
                strides = self.resized[k]
                if None in strides:   # symbolic: the value's, where dense (as common.write_into gives them)
                    strides = value.stride() if is_non_overlapping_and_dense(value.shape, value.stride()) else None
                resize_output(inputs[k], value.shape, strides)
            inputs[k].copy_(value)

    def _check_tensor(self, path, dtype, device, sizes, t):
        if t.dtype != dtype or t.device.type != device:
            self._fail(f"{path} of dtype {t.dtype} on {t.device.type}, but it was traced as {dtype} on {device}")
        if t.dim() != len(sizes):
            self._fail(f"{path} of rank {t.dim()}, but it was traced with rank {len(sizes)}")
        for d, (traced, got) in enumerate(zip(sizes, t.shape)):
            if traced is not None and traced != got:
                why = ("which dynamic=True specializes (sizes 0 and 1 are never symbolic): trace with an example "
                       "whose size there is at least 2" if self.dynamic else
                       "and a graph traced with dynamic=False holds its sizes as constants: trace again, or trace "
                       "with dynamic=True")
                self._fail(f"{path} of shape {list(t.shape)}: dim {d} has size {got}, but it was traced with size "
                           f"{traced} there, {why}")

    def _check_place(self, path, place, t):
        strides, offset = place
        # a dim of one element has no second position: its stride reads nothing
        if any(s is not None and s != g and n > 1 for s, g, n in zip(strides, t.stride(), t.shape)) or \
                offset not in (None, t.storage_offset()):
            traced = [s if s is not None else "?" for s in strides]
            self._fail(f"{path} of strides {list(t.stride())} and storage offset {t.storage_offset()}, but it was "
                       f"traced with strides {traced} and storage offset {offset if offset is not None else '?'}, and "
                       f"the graph reads its storage (as_strided, as_strided_scatter or _reshape_alias of it or of a "
                       f"view of it) at the positions those gave: pass a tensor of the traced strides and "
                       f"storage offset, or trace again")

    def _check_aliasing(self, inputs):
        if not self.read_after_write:
            return
        by_storage: dict = {}
        for k, v in enumerate(inputs):
            if isinstance(v, torch.Tensor):
                by_storage.setdefault(_storage(v), []).append(k)
        paths = [leaf.path for leaf in self.leaves if leaf.kind != "constant"]
        for group in by_storage.values():
            for i in group:
                for j in group:
                    if (i, j) in self.read_after_write:
                        self._fail(f"{paths[i]} and {paths[j]} sharing memory: the program reads {paths[j]} after "
                                   f"writing into {paths[i]}, and the graph makes its writes at the end; pass "
                                   f"distinct tensors (e.g. {paths[j]}.clone())")

    def _signature(self):
        return ", ".join(leaf.path for leaf in self.leaves)


_INT_HINT = "; with dynamic=True an int argument is a symbolic graph input instead"


def _static_or_none(values) -> tuple:
    return tuple(v if type(v) is int else None for v in values)


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def wrap(gm: fx.GraphModule, guard: CallGuard) -> TracedGraphModule:
    """gm as a TracedGraphModule (same graph and attributes, the module state by reference)."""
    out = TracedGraphModule(gm, gm.graph, class_name=type(gm).__name__)
    out.__dict__["_primkit_guard"] = guard
    out.meta = getattr(gm, "meta", {})
    return out
