"""``trace``: a torch program -> a GraphModule holding only prims, under fake tensors; ``requirements``:
what a program needs of a backend, from one trace."""
from __future__ import annotations

import collections
import contextlib
import functools
import gc
import operator
import os
import re
import sys
import threading

import torch
import torch.utils._pytree as pytree
from torch._subclasses.functional_tensor import FunctionalTensor, FunctionalTensorMode
from torch.fx import traceback as fx_traceback
from torch.fx.experimental.proxy_tensor import get_proxy_mode, make_fx
from torch.overrides import TorchFunctionMode
from torch.utils._mode_utils import no_dispatch
from torch.utils._python_dispatch import TorchDispatchMode, _disable_current_modes

from primkit import prims
from primkit.graph import dispatch_tracer, guards, targets
from primkit.graph.canonicalize import canonicalize_graph
from primkit.prims.layout import contiguous_strides, same_sizes
from primkit.decompositions.common import out_names
from primkit.decompositions.composite import composites
from primkit.decompositions.lowering import prim_set
from primkit.decompositions.nn.embedding import SparseGradients
from primkit.decompositions.random import SeedWatch
from primkit.decompositions.registry import DecompositionError, kept_ops
from primkit.decompositions.table import get_decompositions, without_host_reads

# Non-prim targets a prim graph may hold: tuple indexing and SymInt bookkeeping.
SYM_OPS = {
    operator.getitem, operator.add, operator.sub, operator.mul, operator.floordiv, operator.truediv,
    operator.mod, operator.neg, operator.pow, operator.eq, operator.ne, operator.lt, operator.le,
    operator.gt, operator.ge, torch.sym_max, torch.sym_min, torch.sym_ite, torch.sym_not, torch.sym_float,
    torch.sym_int, torch.sym_sum, operator.and_, operator.or_,
    torch.ops.aten.sym_size.int, torch.ops.aten.sym_stride.int, torch.ops.aten.sym_numel.default,
    torch.ops.aten.sym_storage_offset.default,
    # checks on symbolic numbers (torch._check, torch._check_is_size, torch.export's range asserts): they take
    # and give no tensor, and raise where the graph runs if the number breaks them
    torch.ops.aten._assert_scalar.default, torch.ops.aten.sym_constrain_range.default,
    torch.ops.aten.sym_constrain_range_for_size.default,
}


def is_allowed_target(target) -> bool:
    return prims.is_prim(target) or target in SYM_OPS


def non_prim_ops(gm: torch.fx.GraphModule, allowed=()) -> list[str]:
    """Names of the call targets in gm that are neither prims nor bookkeeping (nor in ``allowed``:
    ATen ops kept whole)."""
    bad = []
    for node in gm.graph.nodes:
        if node.op == "call_function" and not is_allowed_target(node.target) and node.target not in allowed:
            t = node.target
            bad.append(t.name() if isinstance(t, torch._ops.OpOverload) else getattr(t, "__name__", str(t)))
        elif node.op in ("call_method", "call_module"):
            bad.append(f"{node.op}:{node.target}")
    return sorted(set(bad))


def check_prim_only(gm: torch.fx.GraphModule, context: str = "", note: str = "", allowed=()) -> torch.fx.GraphModule:
    bad = non_prim_ops(gm, allowed)
    if bad:
        error = DecompositionError(bad, context)
        if note:
            error.add_note(note)
        raise error
    return gm


def _frame_text(f) -> str:
    return f"{f.filename}:{f.lineno} in {f.name} ({(f.line or '').strip()})"


def _dir_of(module) -> str:
    return os.path.dirname(os.path.abspath(module.__file__)) + os.sep


# the decompositions' folder (that of composite.py, one of its modules: the package itself imports this one),
# and every folder whose frames are not the user's program
_FAMILIES = _dir_of(sys.modules[composites.__module__])
_NOT_USER = (_dir_of(torch), _dir_of(prims), _FAMILIES, os.path.dirname(os.path.abspath(__file__)) + os.sep)


def _user_frame(tb) -> str:
    """The innermost frame of the traceback outside torch and primkit: the user's line."""
    import traceback
    frames = [f for f in traceback.extract_tb(tb) if not f.filename.startswith(_NOT_USER)]
    return _frame_text(frames[-1]) if frames else "an unknown place"


def _decomposition_frame(tb):
    """The innermost frame of one of primkit's decompositions, where it is deeper than the program's own
    frames: the decomposition, not the program, asked for the value (None where the program did)."""
    import traceback
    frames = traceback.extract_tb(tb)
    user = max((i for i, f in enumerate(frames) if not f.filename.startswith(_NOT_USER)), default=-1)
    # (composite.py runs torch's composites for the tracer: machinery, not a decomposition)
    inner = max((i for i, f in enumerate(frames) if f.filename.startswith(_FAMILIES)
                 and os.path.basename(f.filename) != "composite.py"), default=-1)
    return frames[inner] if inner > user else None


# Tensor -> Python number conversions: Python requires each to return a plain int or float, never a
# symbolic one, so one of a tensor's value read from data cannot be traced (.item() can: a SymInt or SymFloat)
_CONVERSIONS = {torch.Tensor.__int__: "int()", torch.Tensor.__float__: "float()", torch.Tensor.__complex__: "complex()",
                torch.Tensor.__index__: "an index (range(t), a list index, a slice bound)"}


class _NumberConversions(TorchFunctionMode):
    """Names the conversion (``int(t)``, ``float(t)``, ``range(t)``) on the error when one of a tensor's
    value read from data fails, for _data_dependence_named."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        try:
            return func(*args, **(kwargs or {}))
        except Exception as e:
            if func in _CONVERSIONS and not hasattr(e, "primkit_conversion"):
                e.primkit_conversion = _CONVERSIONS[func]
            raise


@contextlib.contextmanager
def _data_dependence_named(name):
    """Data-dependent control flow (``if t.sum() > 0:``) or a Python number made of data (``int(t)``,
    ``float(t.item())``) ends make_fx in torch's guard error on an unbacked symbol; say instead which op read
    data and where the program branched on it or made it a plain number."""
    from torch._subclasses.fake_tensor import DataDependentOutputException
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode
    try:
        yield
    except (GuardOnDataDependentSymNode, DataDependentOutputException) as e:
        where = _user_frame(e.__traceback__)
        conversion = getattr(e, "primkit_conversion", None)
        if conversion is None and "Could not extract specialized" in str(e):   # int(n) of n = t.item()
            conversion = "int()"
        inside = _decomposition_frame(e.__traceback__)
        if inside is not None:
            what = (f"which the program passes to an op at {where}, whose decomposition in primkit asks for its value "
                    f"at {_frame_text(inside)}: a limitation of that decomposition (please report it)")
        elif conversion is not None:
            what = (f"and the program makes it a plain Python number with {conversion} at {where}: Python holds "
                    f"such a number as a constant, never a symbolic one, so a graph would hold the traced value for "
                    f"every input. Use t.item() as the number instead (x * t.item(), torch.full((3,), t.item()), "
                    f"t.item() + 1, torch.zeros(t.item())): the graph reads it at each call; or keep it in tensors")
        else:
            what = (f"and the program branches on it at {where}: a graph holds one path for every input, so "
                    f"data-dependent control flow (if, while, bool(t)) cannot be traced. Keep the decision in tensors "
                    f"(torch.where, masks)")
        error = DecompositionError(
            ["aten::_local_scalar_dense"], f"trace({name}): ",
            f"read a tensor's value on the host, {what}, or run the program eagerly through prims, op by op on real "
            f"tensors: `with primkit.runtime.eager.through_prims(): ...`")
        error.add_note(f"torch said: {str(e).splitlines()[0]}")
        raise error from e


def _runtime_asserts(gm, name):
    """What the trace assumed of a number read from data is checked where the graph runs: torch._check(n < 10),
    torch._check_is_size(n) in the program, and what ops needed of it (torch.zeros(n): n >= 0), recorded by the
    ShapeEnv as deferred runtime asserts, become ``aten._assert_scalar`` nodes (``sym_constrain_range_for_size``
    for a size), as torch.export inserts them. A graph without a value read from data (.item(), nonzero's
    count) is left as it is."""
    from torch._guards import detect_fake_mode
    from torch.fx.passes.runtime_assert import insert_deferred_runtime_asserts
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
    if not any(free_unbacked_symbols(n.meta.get("val")) for n in gm.graph.nodes):
        return
    mode = detect_fake_mode([n.meta.get("val") for n in gm.graph.nodes if n.op == "placeholder"])
    if mode is not None and mode.shape_env is not None:
        insert_deferred_runtime_asserts(gm, mode.shape_env, f"trace({name})")


def items_as_prims(gm: torch.fx.GraphModule) -> None:
    """Each host read (``aten._local_scalar_dense``: ``.item()``, ``int(t)``) becomes the item prim.

    The read stays ATen while make_fx traces, so that make_fx folds a read of a constant to its value
    (only a read of data reaches the graph); its value is an unbacked SymInt, SymFloat or SymBool, on which
    the program may compute sizes (``torch.zeros(n.item())``) as long as it does not branch on it. (The
    prim's dtypes are eager's: a complex read is refused by the fake kernel before it reaches a graph.)
    Rewrites the graph only: the caller recompiles gm."""
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is torch.ops.aten._local_scalar_dense.default:
            node.target = prims.get("item").op


def _writes_through_views(gm) -> list[str]:
    """The view prims through which gm writes (copy_to) into another tensor (``x[0].add_(1)``,
    ``y[:, 1] = v``): prims own their storage, so such a write would not reach the base."""
    copy_to = prims.get("copy_to").op
    views = set()
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is copy_to:
            dst = node.args[0]
            while dst.op == "call_function" and prims.is_prim(dst.target) and \
                    "view" in prims.get(dst.target._opname).tags:
                views.add(dst.target._opname)
                dst = dst.args[0]
    return sorted(views)


def _mark_module_state(gm, module):
    """``node.meta["module_state"] = name`` on the get_attr nodes that read the module's parameters
    and buffers (by reference: each call reads their current values). Canonicalization never folds
    them, and a write into one (a buffer update) stays in the graph as an epilogue."""
    names = {id(t): n for n, t in [*module.named_parameters(remove_duplicate=False),
                                   *module.named_buffers(remove_duplicate=False)]}
    for node in gm.graph.nodes:
        if node.op == "get_attr" and id(getattr(gm, node.target, None)) in names:
            node.meta["module_state"] = names[id(getattr(gm, node.target))]


@contextlib.contextmanager
def _module_scopes(module: torch.nn.Module):
    """Record on every node the module calls it happens in, as torch.export does:
    ``node.meta["nn_module_stack"] = {path: (path, qualified type name)}``, outermost first.
    Forward hooks keep FX's current node meta up to date; FX copies it onto each node it creates."""
    stack: dict = {}
    handles = []

    def enter(path):
        def hook(mod, args):
            stack[path] = (path, f"{type(mod).__module__}.{type(mod).__qualname__}")
            fx_traceback.current_meta["nn_module_stack"] = dict(stack)
        return hook

    def leave(path):
        def hook(mod, args, out):
            stack.pop(path, None)
            fx_traceback.current_meta["nn_module_stack"] = dict(stack)
        return hook

    for path, mod in module.named_modules():
        handles.append(mod.register_forward_pre_hook(enter(path)))
        handles.append(mod.register_forward_hook(leave(path)))
    try:
        with fx_traceback.preserve_node_meta():
            yield
    finally:
        for h in handles:
            h.remove()


def _module_state(program) -> tuple[dict, list]:
    """A module's parameters and buffers: ({name: index}, tensors), each tensor once (tied weights
    share an index); nothing for a function."""
    if not isinstance(program, torch.nn.Module):
        return {}, []
    where, index, tensors = {}, {}, []
    for name, t in [*program.named_parameters(remove_duplicate=False), *program.named_buffers(remove_duplicate=False)]:
        if id(t) not in index:
            index[id(t)] = len(tensors)
            tensors.append(t)
        where[name] = index[id(t)]
    return where, tensors


def _symbolic_mode():
    """The fake mode of a ``dynamic=True`` trace (make_fx's symbolic tracing adopts it), made as make_fx makes
    its own but with ``export=True``: torch's fake mode otherwise reads the value of a 0-d integer (or
    float64) tensor argument when it fakes it, so that ``.item()`` of it is a backed symbol specialized on
    that value (``int(n)`` in the program gives the traced value, checked by no guard: the graph would
    return it for every n). With export=True its ``.item()`` is an unbacked symbol, as of any other tensor."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import ShapeEnv
    # the settings of the mode make_fx's symbolic tracing makes for itself
    return FakeTensorMode(allow_fallback_kernels=False, allow_non_fake_inputs=True, shape_env=ShapeEnv(),
                          export=True)


def _static_fakes(mode, tensors):
    """Fake copies of the module's state with static sizes, in the fake mode of a symbolic trace: only the
    program's arguments have symbolic sizes (as under torch.export)."""
    return [mode.from_tensor(t, static_shapes=True) for t in tensors]


def _state_as_attributes(gm, placeholders, tensors, where) -> None:
    """The graph reads the module's state by reference, as make_fx reads a module's tensors: each
    state placeholder becomes a get_attr of the module's own tensor (named after its path), and
    the epilogue's write into it (a buffer update) writes the module's buffer. Rewrites the graph only:
    the caller recompiles gm."""
    names = {}
    for name, i in where.items():
        names.setdefault(i, name)
    first = next(n for n in gm.graph.nodes if n.op != "placeholder")
    for i, node in enumerate(placeholders):
        attr = base = re.sub(r"\W", "_", names[i])
        suffix = 0
        while hasattr(gm, attr):
            suffix += 1
            attr = f"{base}_{suffix}"
        if isinstance(tensors[i], torch.nn.Parameter):
            gm.register_parameter(attr, tensors[i])
        else:
            gm.register_buffer(attr, tensors[i], persistent=False)
        with gm.graph.inserting_before(first):
            get = gm.graph.get_attr(attr)
        get.meta.update(node.meta)
        node.replace_all_uses_with(get)
        gm.graph.erase_node(node)


def _distinct(inputs, state):
    """The graph inputs, each its own tensor object: a tensor passed twice (or a parameter passed as an
    argument) is traced as two inputs, as the graph takes them (the fake of a tensor is memoized by the
    object, so both would be one value in the trace, and a write into one would be lost to the
    graph's other input). A call whose arguments share memory where the program reads one after
    writing the other is refused by the graph's guard."""
    seen = {id(t) for t in state}
    out = []
    for value in inputs:
        if isinstance(value, torch.Tensor):
            if id(value) in seen:
                value = value.detach().requires_grad_(value.requires_grad)
            seen.add(id(value))
        out.append(value)
    return out


class _WriteOrder(TorchFunctionMode):
    """What the program does to its tensor arguments, seen on their functional storages after
    each torch call: ``written_at[i]``, the position the graph being traced had reached when the
    program first wrote into argument i (a write into any view of it counts), and ``resized``,
    the calls that changed an argument's sizes or strides in place (x.t_())."""

    def __init__(self):
        super().__init__()
        self.inputs, self.counts, self.written_at, self.resized = {}, {}, {}, []
        self.resized_to = {}    # argument index -> (shape, strides) an out= call gave it (common.resize_output)

    @contextlib.contextmanager
    def watching(self, inputs: dict):
        self.inputs = inputs
        self.counts = {i: torch._functionalize_mutation_counter(t.elem) for i, t in inputs.items()}
        with self:
            yield

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for i, t in self.inputs.items():
            if i not in self.written_at and torch._functionalize_mutation_counter(t.elem) != self.counts[i]:
                self.written_at[i] = len(get_proxy_mode().tracer.graph.nodes)
            # an out= tensor of another shape than its result is resized (common.resize_output), written back
            if not self.resized and torch._functionalize_has_metadata_mutation(t.elem) and "out" not in (kwargs or {}):
                self.resized.append(getattr(func, "__name__", str(func)))
        return out


def _resized_argument(order, index, value, shape, strides):
    """make_fx's path: the argument ``value`` that an out= call resized takes ``shape`` and ``strides`` before
    the epilogue writes into it, out of the graph (its placeholder keeps the traced geometry); the traced
    module resizes the real tensor so after each call (``_resized_written_back``)."""
    if index < 0:
        raise DecompositionError(["aten.resize_"], "trace: ", "resize a parameter or buffer of the module")
    # sizes read from data, or a symbolic tensor (dynamic=True): resize_ takes ints only and a tensor of ints
    # (C++ asks the symbolic tensor's storage_offset()), as_strided_ asserts a bound
    from torch.fx.experimental.symbolic_shapes import free_symbols   # (sympy: loaded where symbols are made)
    if free_symbols((shape, value.shape, value.stride())):
        with _disable_current_modes():
            value.set_(value.new_empty_strided(shape, strides))
    else:
        with torch.fx.experimental.proxy_tensor.disable_proxy_modes_tracing():
            value.resize_(shape)
            if strides != value.stride():
                value.as_strided_(shape, strides)
    order.resized_to[index] = (tuple(shape), tuple(strides))


def _resized_written_back(gm, n_state, resized):
    """The epilogue's writes into the arguments an out= call resized leave the graph: the graph returns
    (its outputs, [each new value]) and the traced module resizes each argument, then copies its value in
    (``guards.CallGuard.write_back``), since the graph's input keeps the traced shape, which it may read."""
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"][n_state:]
    copy_to = prims.get("copy_to").op
    values = []
    for k in sorted(resized):
        writes = [u for u in placeholders[k].users if u.target is copy_to and u.args[0] is placeholders[k]]
        if len(writes) != 1:
            raise DecompositionError(["aten.resize_"], "trace: ", f"resize argument {k} (written {len(writes)} "
                                     f"times in the graph's epilogue, where one write was expected)")
        write = writes[0]
        write.replace_all_uses_with(write.args[1])
        values.append(write.args[1])
        gm.graph.erase_node(write)
    output = next(n for n in gm.graph.nodes if n.op == "output")
    output.args = ((output.args[0], values),)
    gm.graph.eliminate_dead_code()


@functools.lru_cache(maxsize=None)
def _entry_first(func) -> bool:
    """Writes (in-place and out= overloads) and effectful ops: see _EntriesFirst."""
    from torch._higher_order_ops.effects import has_effects
    return func._schema.is_mutable or has_effects(func)


class _EntriesFirst(TorchDispatchMode):
    """Writes that the table decomposes run their entry before functionalization: the entry
    checks as eager does (an int tensor cannot take logit_'s float result; an out= tensor of
    another shape is refused), computes, then writes with copy_to, which functionalizes. Torch's
    own functionalization of a write would instead check it on meta tensors with torch's
    reference implementations (which cast silently, resize out= tensors and refuse a generator),
    then cast the result into the written tensor. An effectful op (``_linalg_check_errors``)
    runs its entry too: torch threads effect tokens through it, which a prim graph does not hold.
    A mode of the user's kind runs before torch's functionalization mode."""

    def __init__(self, table):
        super().__init__()
        self.table = table

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if _entry_first(func):
            entry = self.table.get(func)
            if entry is not None:
                with _DataSizedResize() if out_names(func) else contextlib.nullcontext():
                    return entry(*args, **kwargs)
        return func(*args, **kwargs)


class _DataSizedResize(TorchDispatchMode):
    """An entry's resize_ (and as_strided_) of an out= tensor to sizes its result reads from data (bincount,
    nonzero: unbacked sizes; ``common.resize_output``), which torch's functionalization refuses (resize_ takes
    ints only; as_strided_ would make a view). The tensor is replaced by an empty one of that geometry, as
    torch's functionalization of an out= op replaces its out tensor (the entry's copy_to that follows writes
    every element; aten.resize's keeping of the old elements that fit would branch on the sizes), and its
    Python wrapper takes the new geometry. A view keeps its sizes, assumed to be the data's."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        from torch.fx.experimental.symbolic_shapes import free_symbols
        kwargs = kwargs or {}
        if func not in (torch.ops.aten.resize_.default, torch.ops.aten.as_strided_.default) or \
                not isinstance(args[0], FunctionalTensor) or \
                not free_symbols((args[1:3], args[0].shape, args[0].stride())):
            return func(*args, **kwargs)
        t, size = args[0], args[1]
        if t._is_view():   # a view cannot be replaced: its sizes are assumed, and checked when the graph runs
            if len(size) != t.dim():
                raise DecompositionError(["aten.resize_"], "trace: ", f"resize a view to sizes read from data {size}")
            for new, old in zip(size, t.shape):
                torch._check(new == old, lambda: f"out= view of shape {list(t.shape)} resized to sizes read from "
                                                 f"data {list(size)}, which a traced graph cannot do")
            return t
        strides = args[2] if func is torch.ops.aten.as_strided_.default else contiguous_strides(size)
        value = torch.ops.aten.new_empty_strided.default(t, size, strides)
        torch._functionalize_replace(t.elem, torch._from_functional_tensor(value.elem))
        torch._functionalize_commit_update(t.elem)
        with no_dispatch():   # the wrapper's own geometry (as_strided_ would assert the sizes fit its storage)
            t.data = value
        return t


# make_fx keeps process-global state while it traces (torch.fx's patcher, the proxy mode's
# globals), so two traces at once in one process corrupt each other: trace runs one at a time.
_TRACE_LOCK = threading.RLock()


def _serialized(fn):
    @functools.wraps(fn)
    def serialized(*args, **kwargs):
        with _TRACE_LOCK, _collector_paused():
            return fn(*args, **kwargs)
    return serialized


@contextlib.contextmanager
def _collector_paused():
    """Python's cyclic garbage collector off while a trace runs (and back on after, where it was on): a
    trace makes many objects and keeps most of them (nodes, their metadata, fake tensors), so the
    collector's passes over them find little and cost 7-9% of a model's trace."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


@_serialized
def trace(fn, *args, dynamic: bool = False, decompositions=None, canonical: bool = True, target=None,
          keep=None, **kwargs) -> torch.fx.GraphModule:
    """Trace ``fn(*args, **kwargs)`` (a function or nn.Module) to a prim-only GraphModule.

    Runs under fake tensors (no real compute); ``dynamic=True`` keeps sizes symbolic. The graph
    is canonical (``graph.canonicalize``) unless ``canonical=False``; on a module, every
    node records the module it came from in ``node.meta["nn_module_stack"]``. ``target``: a set
    of prim names; prims outside it are lowered where they can be (``decompositions.lowering``),
    and DecompositionError names each prim the graph still needs outside it, with the ATen op and
    module it came from. ``keep``: ATen ops (OpOverloads or packets) left whole, one node each,
    carrying their decomposition in ``node.meta["decomposition"]`` (``graph.targets``).
    Every node made by a decomposition records its ATen op in ``node.meta["aten_op"]``.
    Raises DecompositionError listing every op that has no decomposition to prims.

    Two paths make the graph (``gm.meta["trace_path"]`` says which): the direct path
    (``graph.dispatch_tracer``, one dispatch mode that functionalizes writes itself), and make_fx
    over torch's FunctionalTensorMode for what it does not take (``dynamic=True``, ``keep=``, a
    program that reads a tensor's value, a write into a view it cannot scatter), where
    ``trace_path`` reads ``"make_fx: <why>"``. A program that leaves the direct path midway has run
    its Python once on it already (on fake tensors).
    """
    report_outside = kwargs.pop("_report_outside", False)   # graph.requirements: record, do not raise
    via = kwargs.pop("_via", "auto")    # tests: "make_fx" or "direct" (raising dispatch_tracer.Unsupported) alone
    if via not in ("auto", "direct", "make_fx"):
        raise ValueError(f"trace({getattr(fn, '__name__', type(fn).__name__)}): _via must be 'auto', 'direct' or "
                         f"'make_fx', got {via!r}")
    if target is not None:
        target = prim_set(target, "trace(target=...)")
    kept = kept_ops(keep)
    program = _Program(fn, args, kwargs, dynamic, *_tables(decompositions, target, kept))
    gm, path = program.trace(via, kept)
    _checked_and_marked(gm, program, kept)
    if target is not None:
        gm.graph.eliminate_dead_code()   # a prim whose value nothing uses is no requirement
        outside = targets.outside_target(gm, target)
        if outside and not report_outside:
            raise targets.target_error(program.name, outside)
        gm.meta["outside_target"] = outside
    if canonical:
        canonicalize_graph(gm)
    if program.order.resized_to:
        _resized_written_back(gm, len(program.state), program.order.resized_to)
    gm.meta["trace_path"] = path      # "direct", or "make_fx" and why the program left the direct path
    # gm's code is made once, here (guards.wrap recompiles the graph), after every rewrite above
    traced = [n.meta.get("val") for n in gm.graph.nodes if n.op == "placeholder"]
    return guards.wrap(gm, guards.CallGuard(program.name, program.leaves, program.spec, traced, dynamic,
                                            program.read_after_write, program.storage_read, program.order.resized_to,
                                            program.sparse.ops))


def _tables(decompositions, target, kept) -> tuple[dict, dict]:
    """(the decomposition table make_fx and the direct path use, the table composites run under)."""
    table = get_decompositions(target=target) if decompositions is None else decompositions
    # a host read stays aten._local_scalar_dense while make_fx traces (see items_as_prims)
    table = targets.stamped(without_host_reads({op: f for op, f in table.items() if op not in kept} if kept else table))
    return table, {**table, **targets.kept_composites(kept)}


class _Program:
    """The traced program, its arguments as graph inputs, and the two paths that trace it.

    One trace, functionalized from the start, as torch.export and AOTAutograd trace (torch's
    FunctionalTensorMode under make_fx): a write into a view (x[0].add_(1), y[:, 1] = v) needs
    aliasing that prims do not have (each prim's result owns its storage), so the graph computes
    each written tensor anew, and writes an argument or a buffer back in an epilogue at its end.
    The module's parameters and buffers are functionalized with the arguments
    (torch.func.functional_call), then read by reference again (_state_as_attributes)."""

    def __init__(self, fn, args, kwargs, dynamic, table, composite_table):
        self.fn, self.dynamic, self.table, self.composite_table = fn, dynamic, table, composite_table
        self.name = getattr(fn, "__name__", type(fn).__name__)
        # Tensors (keyword tensors too) and, with dynamic=True, ints are graph inputs; every other
        # argument is a constant of the graph, checked on each call (graph.guards).
        self.leaves, self.spec, inputs = guards.flatten_call(fn.forward if isinstance(fn, torch.nn.Module) else fn,
                                                             self.name, args, kwargs, dynamic)
        self.where, self.state = _module_state(fn)
        self.inputs = _distinct(inputs, self.state)
        self.order = _WriteOrder()
        self.read_after_write = self.storage_read = None

    def scopes(self):
        return _module_scopes(self.fn) if isinstance(self.fn, torch.nn.Module) else fx_traceback.preserve_node_meta()

    def call(self, state_values, args):
        a, k = guards.rebuild(self.leaves, self.spec, args)
        return (torch.func.functional_call(self.fn, {n: state_values[i] for n, i in self.where.items()}, a, k)
                if self.state else self.fn(*a, **k))

    def functional(self, *values):
        """The program under FunctionalTensorMode, its writes into arguments replayed in an epilogue."""
        n = len(self.state)
        with FunctionalTensorMode():
            wrapped = [FunctionalTensor.to_functional(v) if isinstance(v, torch.Tensor) else v for v in values]
            tensors = {i: v for i, v in enumerate(wrapped[n:]) if isinstance(v, torch.Tensor)}
            with self.order.watching(tensors), _EntriesFirst(self.table), _NumberConversions():
                out = self.call(wrapped[:n], wrapped[n:])
            # an argument the program returns (x.relu_(), an out= tensor) is returned as itself, after the
            # epilogue's write, in its own layout (not as the value written into it)
            returned_args = {id(w): v for v, w in zip(values, wrapped, strict=True) if isinstance(v, torch.Tensor)}
            out = pytree.tree_map_only(FunctionalTensor, lambda t: t if id(t) in returned_args
                                       else FunctionalTensor.from_functional(t), out)
            for i, (value, functional_value) in enumerate(zip(values, wrapped, strict=True)):
                if isinstance(value, torch.Tensor):
                    torch._sync(functional_value)
                    if torch._functionalize_has_data_mutation(functional_value.elem):
                        written = functional_value.from_functional()
                        if not same_sizes(written.shape, value.shape):    # an out= argument resized (resize_output)
                            _resized_argument(self.order, i - n, value, written.shape, written.stride())
                        value.copy_(written)   # the epilogue
            out = pytree.tree_map_only(FunctionalTensor, lambda t: returned_args[id(t)], out)
        return out

    def trace(self, via, kept):
        """(graph, path): the direct path first (graph.dispatch_tracer: one dispatch mode that functionalizes
        writes itself, about six times faster) where the program allows it; make_fx's functionalized trace
        where it does not."""
        gm, path = None, "make_fx"
        self.seeds = SeedWatch(self.name)   # a seed set inside the program: refused where a draw follows it
        self.sparse = SparseGradients()     # ops asking for a sparse gradient: the graph's call refuses to form one
        if via == "make_fx":
            pass
        elif self.dynamic or kept:
            reason = "dynamic=True" if self.dynamic else "keep="
            path = f"make_fx: {reason}"
            if via == "direct":
                raise dispatch_tracer.Unsupported(f"trace({self.name}): {reason} takes make_fx's path")
        else:
            try:
                gm, path = self.via_direct(), "direct"
            except Exception as e:    # anything the direct path cannot do, make_fx's path does (or raises as before)
                if via == "direct":
                    raise
                path = f"make_fx: {e}" if isinstance(e, dispatch_tracer.Unsupported) else \
                    f"make_fx: the direct path raised {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        gm = gm if gm is not None else self.via_make_fx()
        self.seeds.finish()
        return gm, path

    def via_direct(self):
        n = len(self.state)
        with torch.no_grad(), self.scopes(), composites(self.composite_table), tracing(), self.seeds, self.sparse:
            gm, written = dispatch_tracer.trace_direct(
                lambda *values: self.call(values[:n], values[n:]), [*self.state, *self.inputs], self.table)
        self.order.written_at = {i - n: at for i, at in written.items() if i >= n}
        self.order.resized_to = {i - n: shape for i, shape in gm.meta.pop("resized").items() if i >= n}
        return gm

    def via_make_fx(self):
        fake_mode = _symbolic_mode() if self.dynamic else None
        traced_state = _static_fakes(fake_mode, self.state) if self.dynamic else self.state
        try:
            with torch.no_grad(), self.scopes(), composites(self.composite_table), _data_dependence_named(self.name), \
                    tracing(), torch._guards.tracing(torch._guards.TracingContext(fake_mode) if self.dynamic else None), \
                    self.seeds, self.sparse:
                gm = make_fx(self.functional, decomposition_table=self.table,
                             tracing_mode="symbolic" if self.dynamic else "fake",
                             _allow_non_fake_inputs=True)(*traced_state, *self.inputs)
            _runtime_asserts(gm, self.name)
        except RuntimeError as e:
            if "mutating a non-functional tensor" not in str(e):
                raise
            raise TypeError(f"trace({self.name}): the program writes into a tensor that is neither one of its "
                            f"arguments nor a parameter or buffer of the traced module (a global, a closure's tensor, "
                            f"or the state of a module that a traced function calls): pass it as an argument, or "
                            f"trace the module") from e
        return gm


def _checked_and_marked(gm, program, kept) -> None:
    """The traced graph's checks (no in-place resize, no write through a view, prims only) and its
    bookkeeping: the module's state as attributes, reads after writes, host reads as prims, stamps."""
    name = program.name
    if program.order.resized:
        raise DecompositionError(program.order.resized, f"trace({name}): ",
                                 "change an input's sizes or strides in place, which a graph of prims cannot do "
                                 "(prims are functional); apply the op out of place (t() rather than t_())")
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    n = len(program.state)
    program.read_after_write = guards.read_after_write_pairs(gm, placeholders[n:], program.order.written_at)
    program.storage_read = guards.storage_read_inputs(gm, placeholders[n:])
    _state_as_attributes(gm, placeholders[:n], program.state, program.where)
    views = _writes_through_views(gm)
    if views:
        raise DecompositionError([f"primkit.{v}" for v in views], f"trace({name}): ",
                                 "are still written through after functionalization")
    items_as_prims(gm)
    if isinstance(program.fn, torch.nn.Module):
        _mark_module_state(gm, program.fn)
    targets.take_stamps(gm)
    targets.mark_kept(gm, kept)
    check_prim_only(gm, f"trace({name}): ", allowed=kept)


@contextlib.contextmanager
def tracing():
    """Tell libraries that the program is being traced, as torch.compile and torch.export do.

    Libraries ask ``torch.compiler.is_compiling()`` (torch's public query, "a graph is traced as
    part of torch.compile() or torch.export()") before reading a tensor's values in Python.
    transformers 5.x does so in ``masking_utils`` (``utils.import_utils.is_tracing``: dynamo,
    jit tracing, an FX proxy or a FakeTensor): it checks ``torch.all(attention_mask == 1)`` to drop
    a mask that hides nothing, and looks for packed sequences, unless it sees a trace. make_fx in
    fake mode hands it FakeTensors, which it recognizes; AOTAutograd (``aot_function``,
    ``aot_module``) and ``torch.func.functionalize`` hand it functional tensors over fake ones,
    which it does not, so the read is data-dependent control flow and the trace fails. ``trace``
    runs inside this context, since it functionalizes every program from the start (as
    torch.export does, which holds the same flag over its non-strict trace). Inside this context
    ``is_compiling()`` is true (the flag torch.compile holds over its compile session and
    torch.export over its trace),
    so a library takes the path it takes under torch.compile (transformers always builds the
    explicit mask, whose values are eager's)::

        compiled = aot_module(model, fw, bw, decompositions=get_decompositions())
        with decompositions.tracing():
            loss = compiled(**inputs).loss      # AOTAutograd traces forward and backward here
        loss.backward()

    Only the trace needs it: the compiled graphs do not run Python model code.
    """
    saved = torch.compiler._is_compiling_flag
    torch.compiler._is_compiling_flag = True
    try:
        yield
    finally:
        torch.compiler._is_compiling_flag = saved


# -- what a program needs ------------------------------------------------------------------------

def requirements(fn, *args, target=None, keep=None, **kwargs) -> dict:
    """What ``fn(*args, **kwargs)`` needs of a backend, from one trace (lowered to ``target`` where
    given): {"prims": {prim: node count}, "kept": {ATen op: node count}, "missing": [{prim, dtype,
    aten, module}]} where "missing" lists the prims outside ``target`` the graph still holds."""
    gm = trace(fn, *args, target=target, keep=keep, _report_outside=True, **kwargs)
    used = collections.Counter(n.target._opname for n in gm.graph.nodes
                               if n.op == "call_function" and prims.is_prim(n.target))
    kept = collections.Counter(n.target.name() for n in gm.graph.nodes
                               if n.op == "call_function" and "decomposition" in n.meta)
    return {"prims": dict(sorted(used.items())), "kept": dict(sorted(kept.items())),
            "missing": gm.meta.get("outside_target", [])}
