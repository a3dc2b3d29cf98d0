"""``trace``'s direct path: a program traced to prims by one dispatch mode over fake tensors.

make_fx stacks three layers on every op a program calls: torch's FunctionalTensorMode (which
``trace`` needs for writes through views), a proxy mode (which tracks every tensor, SymInt and
object it meets, and pytree-maps each call's arguments several times) and a FakeTensorMode (which
runs each op's fake kernel through its own dispatch). With static sizes, one mode can do all of it:

- an ATen op runs its table entry (or, CompositeImplicitAutograd, its composite) with the mode
  still active, as make_fx's decomposition does, so the ops the entry calls come back here;
- a prim runs its meta rule (through the fake kernel's cache) and becomes one graph node, its
  result a FakeTensor built around a meta tensor (``registration.fake_result``);
- writes are functionalized here (``_DirectMode``): the ``copy_to`` prim that every in-place and
  out= entry ends in rebinds the written tensor to the node of its new value; a write into a view
  is scattered into the view's parent, up to its root, and the root's other views are made again
  when next read; the arguments and module state written into are written back at the end (the
  epilogue), as make_fx's trace of ``trace``'s functionalized program writes them.

The graph is made as make_fx would make it: placeholders ``arg<i>_1``, nodes named after the op,
``val`` / ``tensor_meta`` and the node meta that torch.fx copies from the current meta
(``nn_module_stack``, the decomposition stamps in ``custom``, ``original_aten``); a real tensor the
program holds or makes (``torch.tensor(...)``) is a ``_tensor_constant<n>`` attribute. ``trace``
then treats it exactly as it treats make_fx's graph.

What it does not take raises ``Unsupported`` saying what, and ``trace`` traces the program through
make_fx instead: a prim whose result sizes depend on data (``nonzero``, ``.item()``: unbacked sizes
need make_fx's ShapeEnv), a write into a view it has no scatter for, an in-place view op (``t_``),
a write into a tensor that is not the program's (a closure's), an op without a decomposition (make_fx
then reports it). The program has then run on the direct path up to that point: its Python runs
twice, on fake tensors (no data is read or written).
"""
from __future__ import annotations

import copy
import functools
import operator

import torch
import torch.utils._pytree as pytree
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
from torch.fx import traceback as fx_traceback
from torch.fx.passes.shape_prop import _extract_tensor_metadata
from torch.fx.proxy import _COPY_META_FIELDS, GraphAppendingTracer
from torch.utils._python_dispatch import TorchDispatchMode

from primkit import prims
from primkit.decompositions.composite import is_composite
from primkit.prims import registration
from primkit.prims.derivative_helpers.shape import inverse_permutation
from primkit.prims.meta import TensorMeta
from primkit.prims.layout import is_non_overlapping_and_dense


class Unsupported(Exception):
    """The program left the direct path; the message says where. ``trace`` runs it through make_fx."""


@functools.lru_cache(maxsize=None)
def _returns_alias(func) -> bool:
    """Whether a result of the ATen op ``func`` is a view of its first argument (``Tensor(a) self ->
    Tensor(a)``), as functionalization sees it. A view prim is not: its result is a value of its own
    (a prim's result owns its storage), here as under torch's FunctionalTensorMode."""
    return any(r.alias_info is not None and not r.alias_info.is_write for r in func._schema.returns)


@functools.lru_cache(maxsize=None)
def _returns_fresh(func) -> tuple:
    """The results that the schema says are new tensors (neither a view nor a written argument)."""
    return tuple(r.alias_info is None for r in func._schema.returns)


_DEVICE = torch.ops.prim.device.default
aten = torch.ops.aten
# torch.tensor(...) in a program: its value enters the trace as a constant, and the result is a tensor of
# the program's own, not a view of the constant (make_fx turns lift_fresh into lift_fresh_copy)
_LIFTS = (aten.lift_fresh.default, aten.lift_fresh_copy.default, aten.lift.default)
_RESIZE = aten.resize_.default    # an out= tensor of another shape than its result (``_DirectMode._resize``)
_RESTRIDE = aten.as_strided_.default


@functools.lru_cache(maxsize=None)
def _exact_strides(op) -> bool:
    from torch.fx.experimental.proxy_tensor import _should_save_eager_input_vals
    return _should_save_eager_input_vals(op, None)


def _split_bounds(sizes, index):
    start = sum(sizes[:index])
    return start, start + sizes[index]


def _scatter(func, parent, value, args, kwargs, index):
    """parent's new value after ``value`` is written into its view ``func(parent, *args, **kwargs)[index]``
    (the view's inverse, as functionalization has one per view op), or None where there is none here."""
    a = dict(zip((arg.name for arg in func._schema.arguments[1:]), args))
    a.update(kwargs)
    if func in (aten.alias.default, aten.detach.default) or \
            func is aten.expand.default and tuple(value.shape) == tuple(parent.shape):   # (an expand that broadcasts nothing)
        return value
    if func is aten.select.int:
        return aten.select_scatter.default(parent, value, a["dim"], a["index"])
    if func is aten.slice.Tensor:
        return aten.slice_scatter.default(parent, value, a.get("dim", 0), a.get("start"), a.get("end"),
                                          a.get("step", 1))
    if func is aten.diagonal.default:
        return aten.diagonal_scatter.default(parent, value, a.get("offset", 0), a.get("dim1", 0), a.get("dim2", 1))
    if func in (aten.view.default, aten._reshape_alias.default, aten.squeeze.default, aten.squeeze.dim,
                aten.squeeze.dims, aten.unsqueeze.default):
        return aten.reshape.default(value, list(parent.shape))
    if func is aten.permute.default:
        return aten.permute.default(value, inverse_permutation(a["dims"]))
    if func is aten.transpose.int:
        return aten.transpose.int(value, a["dim0"], a["dim1"])
    if func is aten.t.default:
        return aten.t.default(value)
    if func in (aten.split.Tensor, aten.split_with_sizes.default):
        dim = a.get("dim", 0)
        size = parent.shape[dim]
        sizes = (a["split_sizes"] if func is aten.split_with_sizes.default else
                 [min(a["split_size"], size - i) for i in range(0, size, a["split_size"])] or [0])
        start, end = _split_bounds(list(sizes), index)
        return aten.slice_scatter.default(parent, value, dim, start, end, 1)
    if func is aten.unbind.int:
        return aten.select_scatter.default(parent, value, a.get("dim", 0), index)
    return None


class _View:
    """How a view was made: ``func(parent, *args, **kwargs)[index]``, a view of ``root``."""
    __slots__ = ("root", "parent", "func", "args", "kwargs", "index")

    def __init__(self, root, parent, func, args, kwargs, index):
        self.root, self.parent, self.func, self.args, self.kwargs, self.index = root, parent, func, args, kwargs, index


class _DirectMode(TorchDispatchMode):
    """Records the prims a program reaches into ``graph``; see the module's docstring.

    Writes are functionalized here as torch's FunctionalTensorMode does it: a tensor object is
    bound to the node holding its value now (``nodes``); a write rebinds it. A view (an ATen op
    returning ``Tensor(a)``) records how it was made (``views``); a write into it writes its
    parent's new value (the view's scatter: select -> select_scatter, ...) up to its root, and
    every view of a root written since it was bound is made again from its parent when next read
    (``bound`` against ``version``). The placeholders written into are written back at the end,
    each by copy_ (the epilogue), as make_fx's trace of ``trace``'s functionalized program does."""

    def __init__(self, table, fake_mode):
        super().__init__()
        self.table = table
        self.fake_mode = fake_mode
        self.graph = torch.fx.Graph()
        self.nodes = {}          # id(tensor) -> the node holding its value now
        self.views = {}          # id(view) -> _View
        self.version = {}        # id(root) -> how many times it was written
        self.bound = {}          # id(view) -> the root's version its node was made from
        self.inputs = {}         # id(placeholder's tensor) -> its index among the placeholders
        self.placeholders = []   # the placeholder nodes, in order
        self.written = {}        # placeholder index -> position of the first node after its first write
        self.resized = {}        # placeholder index -> (shape, strides) an out= resize gave it (``_resize``)
        self.just_resized = None     # id of the tensor the last resize_ was of (``_restride``)
        self.constants = {}      # id(real tensor) -> its get_attr node (make_fx's _tensor_constant<n>)
        self.original = None     # the outermost op being traced (make_fx's node.meta["original_aten"])
        self.epilogue = False    # copy_to emits a node (the write into a placeholder) instead of rebinding
        self.values = []         # every tensor traced, held: ids stay unique while the trace runs
        self.keys = {}           # the fake kernel cache's key memo (a tensor's geometry never changes here:
        #                          in-place view ops leave the direct path; an out= resize drops its key)

    # -- graph building

    def placeholder(self, value):
        node = self.graph.create_node("placeholder", f"arg{len(self.placeholders)}_1")
        self.placeholders.append(node)
        if isinstance(value, torch.Tensor):
            value = self._fake(value)
            self.inputs[id(value)] = len(self.inputs)
            self._track(value, node)
        else:
            node.meta["val"] = value
        return value

    def _fake(self, t):
        """A fake of the real tensor t. A plain dense one is built directly around a meta tensor of its geometry
        (storage size and offset too), as prims' results are: the fake mode's converter (which also
        memoizes, and handles every kind of tensor) costs ~100 us a tensor, 5-7% of a model's trace."""
        if type(t) not in (torch.Tensor, torch.nn.Parameter) or t.layout != torch.strided or t.is_quantized or \
                t.is_conj() or t.is_neg() or t.device.type == "meta":
            return self.fake_mode.from_tensor(t, static_shapes=True)
        storage = torch.empty(t.untyped_storage().nbytes() // t.element_size(), dtype=t.dtype, device="meta")
        meta = storage.as_strided(t.shape, t.stride(), t.storage_offset())
        fake = FakeTensor(self.fake_mode, meta, t.device)
        return fake.requires_grad_() if t.requires_grad else fake

    def _track(self, value, node):
        node.meta["val"] = value
        node.meta["tensor_meta"] = _tensor_meta(value)
        self.nodes[id(value)] = node
        self.values.append(value)

    def _arg(self, a):
        if isinstance(a, torch.Tensor):
            key = id(a)
            view = self.views.get(key)
            if view is not None and self.bound[key] != self.version.get(id(view.root), 0):
                self._remake(a, view)
            node = self.nodes.get(key)
            if node is None:
                node = self._constant(a)
            return node
        if isinstance(a, (list, tuple)):
            return type(a)(self._arg(x) for x in a)
        if isinstance(a, dict):
            return {k: self._arg(v) for k, v in a.items()}
        return a

    def _constant(self, a):
        """A real tensor the program made (torch.tensor(...) through lift_fresh) or holds (a tensor
        attribute that is no parameter or buffer): a graph constant, as make_fx interns it."""
        if isinstance(a, FakeTensor) or type(a) is not torch.Tensor:
            raise Unsupported(f"a {type(a).__name__} made outside the trace")
        name = f"_tensor_constant{len(self.constants)}"
        node = self.graph.create_node("get_attr", name)
        node.meta["val"] = self._fake(a)
        node.meta["tensor_meta"] = _tensor_meta(a)
        self.constants[id(a)] = node
        self.nodes[id(a)] = node
        self.values.append(a)
        return node

    def _node(self, target, args, kwargs, name):
        node = self.graph.create_node("call_function", target, args, kwargs, self.graph._target_to_str(name))
        if fx_traceback.has_preserved_node_meta():     # what torch.fx's tracer copies onto a node
            current = fx_traceback.get_current_meta()
            for field in _COPY_META_FIELDS:
                if field in current:
                    node.meta[field] = copy.copy(current[field])
        return node

    def finish(self, placeholders, out):
        """The epilogue (each placeholder written into takes its last value), then the output."""
        self.epilogue = True
        for obj in placeholders:
            if isinstance(obj, torch.Tensor) and self.inputs[id(obj)] in self.written:
                value = self._holding(obj, self.nodes[id(obj)])
                self.nodes[id(obj)] = self.placeholders[self.inputs[id(obj)]]
                with self:
                    written = aten.copy_.default(obj, value)
                self.nodes[id(obj)] = self.nodes[id(written)]
        tracer = GraphAppendingTracer(self.graph)
        proxies = pytree.tree_map_only(torch.Tensor, lambda t: torch.fx.Proxy(self._arg(t), tracer), out)
        self.graph.output(tracer.create_arg(proxies))

    # -- dispatch

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is _DEVICE:     # a FakeTensor's .device dispatches (its storage is on the meta device)
            return args[0].fake_device
        outermost = self.original is None and fx_traceback.has_preserved_node_meta()
        if outermost:
            self.original = fx_traceback.current_meta["original_aten"] = func
        prim = prims.def_of(func)
        try:
            out = self._dispatch(func, prim, args, kwargs)
        finally:
            if outermost:
                self.original = fx_traceback.current_meta["original_aten"] = None
        if prim is None:
            out = self._results(func, args, kwargs, out)
        return out

    def _dispatch(self, func, prim, args, kwargs):
        if func is _RESIZE:
            return self._resize(*args, **kwargs)
        if func is _RESTRIDE and args and id(args[0]) == self.just_resized:
            return self._restride(*args, **kwargs)
        if prim is None and torch.Tag.inplace_view in func.tags:
            raise Unsupported(f"{func} (changes a tensor's sizes or strides in place)")
        entry = self.table.get(func)     # a prim's entry: its lowering, where trace(target=...) asks for one
        if entry is not None:
            with self:
                out = entry(*args, **kwargs)
            if out is not NotImplemented:     # (make_fx's reading: NotImplemented keeps the op)
                return out
        if prim is not None:
            if "data_dependent" in prim.tags:
                raise Unsupported(f"{prim.name} (its result depends on data: make_fx's ShapeEnv makes its sizes)")
            if "mutates" in prim.tags and not self.epilogue:
                return self._write(prim, *prim.bind(args, kwargs))
            return self._prim(prim, args, kwargs)
        if func.namespace == "aten" and is_composite(func):
            with self:
                return func.decompose(*args, **kwargs)
        raise Unsupported(f"{func} (no decomposition)")

    def _results(self, func, args, kwargs, out):
        """An ATen op's results as the program must see them: a view records how it was made; a new
        tensor is a new object, even where the entry handed back an argument (x.contiguous()'s
        entry may return x: a write into the result must not reach x)."""
        results = out if isinstance(out, (tuple, list)) else (out,)
        if _returns_alias(func) and func not in _LIFTS:
            parent = args[0] if args and isinstance(args[0], torch.Tensor) else None
            if parent is not None:
                view = self.views.get(id(parent))
                root = view.root if view is not None else parent
                several = isinstance(out, (tuple, list))
                for i, r in enumerate(results):
                    if isinstance(r, torch.Tensor) and r is not parent and id(r) not in self.inputs:
                        self.views[id(r)] = _View(root, parent, func, args[1:], kwargs, i if several else None)
                        self.bound[id(r)] = self.version.get(id(root), 0)
            return out
        fresh = _returns_fresh(func)
        if not any(isinstance(r, torch.Tensor) and any(r is a for a in args) for r in results):
            return out
        renewed = [self._holding(r, self._arg(r)) if isinstance(r, torch.Tensor) and (fresh[i] if i < len(fresh) else True)
                   and any(r is a for a in args) else r for i, r in enumerate(results)]
        return type(out)(renewed) if isinstance(out, (tuple, list)) else renewed[0]

    def _holding(self, t, node):
        """A new tensor object of t's geometry holding node's value."""
        new = registration.materialize(TensorMeta(tuple(t.shape), t.stride(), t.dtype, t.device), self.fake_mode)
        self.nodes[id(new)] = node
        self.values.append(new)
        return new

    def _prim(self, prim, args, kwargs):
        node_args, node_kwargs = self._arg(args), self._arg(kwargs)
        out = registration.fake_result(prim, args, kwargs, self.fake_mode, self.keys)
        node = self._node(prim.op, node_args, node_kwargs, prim.name)
        if _exact_strides(prim.op):     # as make_fx records them (Inductor keeps a custom op's input strides)
            node.meta["eager_input_vals"] = torch.fx.node.map_aggregate(
                (node_args, node_kwargs), lambda a: a.meta.get("val") if isinstance(a, torch.fx.Node) else None)
        if isinstance(out, tuple):
            node.meta["val"] = out
            for i, o in enumerate(out):
                self._track(o, self._node(operator.getitem, (node, i), {}, "getitem"))
        else:
            self._track(out, node)
        return out

    def _write(self, prim, dst, src):
        """copy_to(dst, src) as functionalization makes it: dst's value becomes src's, in dst's strides
        (the prim's own checks first)."""
        self._arg((dst, src))
        if id(dst) in self.constants:
            raise Unsupported(f"{prim.name} into a tensor that is not the program's")
        registration.run_meta(prim, (dst, src), {})
        if tuple(src.stride()) != tuple(dst.stride()) and is_non_overlapping_and_dense(dst.shape, dst.stride()):
            src = self._prim(prims.get("copy_strided"), (src, list(dst.stride())), {})
        self._assign(dst, src)
        return dst

    def _assign(self, t, value):
        """t's value becomes value's (a written tensor); a view writes its parent, up to the root."""
        view = self.views.get(id(t))
        if view is None:
            if id(t) in self.constants:   # a view's write reaching a tensor the program holds but does not own
                raise Unsupported("a write into a tensor that is not the program's (through a view of it)")
            index = self.inputs.get(id(t))
            if index is not None and index not in self.written:
                self.written[index] = len(self.graph.nodes)
            self.nodes[id(t)] = self.nodes[id(value)]
            self.version[id(t)] = self.version.get(id(t), 0) + 1
            return
        with self:
            parent_value = _scatter(view.func, view.parent, value, view.args, view.kwargs, view.index)
        if parent_value is None:
            raise Unsupported(f"a write into a view made by {view.func} (no scatter for it here)")
        self._assign(view.parent, parent_value)
        self.nodes[id(t)] = self.nodes[id(value)]
        self.bound[id(t)] = self.version[id(view.root)]

    def _resize(self, t, size, memory_format=None):
        """resize_ of an out= tensor (``common.resize_output``): t takes the new, contiguous geometry and the
        value of aten.resize (its elements in order, then zeros). An argument keeps its traced geometry in
        its placeholder; its new shape (``resized``) is the traced module's to give the real tensor after the
        graph runs (``trace._resized_written_back``)."""
        if id(t) in self.views or id(t) in self.constants or any(v.root is t for v in self.views.values()):
            raise Unsupported("resize_ of a view, of a tensor with views, or of a tensor that is not the program's")
        with self:
            value = aten.resize.default(t, size, memory_format=memory_format)
        index = self.inputs.get(id(t))
        if index is not None and index not in self.resized:
            old = self._holding(t, self.placeholders[index])
            self.placeholders[index].meta.update(val=old, tensor_meta=_tensor_meta(old))
        with self.fake_mode:
            _RESIZE(t, size, memory_format=memory_format)
        self.keys.pop(id(t), None)
        if index is not None:
            self.resized[index] = (tuple(t.shape), t.stride())
        self._assign(t, value)
        self.just_resized = id(t)
        return t

    def _restride(self, t, size, stride, storage_offset=None):
        """as_strided_ right after ``_resize`` (``common.resize_output``: the strides eager's kernel gives a resized
        out): t's geometry only, since the copy_to that follows writes its whole value in these strides."""
        with self.fake_mode:
            _RESTRIDE(t, size, stride, storage_offset)
        self.keys.pop(id(t), None)
        index = self.inputs.get(id(t))
        if index is not None:
            self.resized[index] = (tuple(t.shape), t.stride())
        return t

    def _remake(self, t, view):
        """t's node made again from its parent's value, after a write into its root."""
        with self:
            made = view.func(view.parent, *view.args, **view.kwargs)
        if view.index is not None:
            made = made[view.index]
        self.nodes[id(t)] = self.nodes[id(made)]
        self.bound[id(t)] = self.version.get(id(view.root), 0)


# (sizes, strides, dtype, requires_grad) -> torch.fx's TensorMetadata, which make_fx records on each node
# (immutable; a trace meets the same geometry many times, and working out its memory format is slow)
_TENSOR_META: dict = {}


def _tensor_meta(t):
    if t.is_quantized:   # its qparams are the tensor's own
        return _extract_tensor_metadata(t)
    key = (tuple(t.shape), t.stride(), t.dtype, t.requires_grad)
    meta = _TENSOR_META.get(key)
    if meta is None:
        if len(_TENSOR_META) >= 1 << 14:
            _TENSOR_META.clear()
        meta = _TENSOR_META[key] = _extract_tensor_metadata(t)
    return meta


def trace_direct(program, values, table):
    """make_fx(program, decomposition_table=table, tracing_mode="fake")(*values) as ``trace`` makes it
    (values: the module's state, then the program's tensors; the program functionalized, its writes into
    values written back at the end), on the direct path: (the GraphModule, {index in values: the position
    of the first node after the program's first write into it}). Raises Unsupported where the program
    leaves the direct path. Call it inside ``trace``'s contexts (no grad, composites, module scopes)."""
    mode = _DirectMode(table, FakeTensorMode(allow_non_fake_inputs=True))
    fakes = [mode.placeholder(v) for v in values]
    with mode:
        out = program(*fakes)
    mode.finish(fakes, out)
    # the graph's code is generated once, by trace's last step (guards.wrap), after its rewrites
    gm = torch.fx.GraphModule(torch.nn.Module(), torch.fx.Graph())
    for value in mode.values:
        if id(value) in mode.constants:
            setattr(gm, mode.constants[id(value)].target, value)
    gm.__dict__["_graph"] = mode.graph
    mode.graph.owning_module = gm
    gm.meta["resized"] = dict(mode.resized)
    return gm, dict(mode.written)
