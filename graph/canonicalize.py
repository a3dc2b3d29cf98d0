"""Canonical prim graphs: many spellings of one computation reach one graph.

``canonicalize(gm)`` runs these passes, in order (each documented in docs/tracing.md, "Canonical form"):

1. functional: uses of a ``copy_to`` result read its source; input mutations stay as an
   epilogue of ``copy_to`` nodes at the end, the only side effects left;
2. explicit arguments: every prim argument explicit (defaults filled), in schema order;
3. no-op removal: casts to the same dtype, reshapes/broadcasts to the same shape, identity
   permutes, empty squeezes/expand_dims/revs, full slices, zero pads, one-tensor cats;
4. constant folding: elementwise prims on scalar constants become one scalar constant;
5. commutative operands in a canonical order (only where the output layout stays the same);
6. common subexpressions merged (deterministic, non-mutating prims only; generator prims never merge;
   module state is keyed by name, not by its value at trace time);
7. dead code removed;
8. nodes in a deterministic topological order with deterministic names (generator prims keep their order).

``graph_hash(gm)`` hashes the canonical graph's function from inputs to returned values.
Every pass keeps ``node.meta`` (``nn_module_stack`` included) on the nodes it keeps or creates.
"""
from __future__ import annotations

import collections
import copy
import hashlib
import heapq
import operator
from dataclasses import dataclass

import torch
import torch.fx as fx

from primkit import prims
from primkit.prims.layout import (
    elementwise_strides, is_non_overlapping_and_dense, itemsize, maybe, same_sizes, surely)

P = torch.ops.primkit

ELEMENTWISE_RULE = "elementwise"


def _prim(node) -> prims.PrimDef | None:
    return prims.def_of(node.target) if node.op == "call_function" else None


def _val(node):
    return node.meta.get("val") if isinstance(node, fx.Node) else None


# 1. functional ---------------------------------------------------------------------------------

def _is_view(node) -> bool:
    prim = _prim(node)
    return prim is not None and ("view" in prim.tags or prim.name == "reshape")


def _view_of_input(node) -> bool:
    """Whether node is a view (through view prims) of a graph input: a write there changes the input."""
    if not _is_view(node):
        return False
    while _is_view(node):
        node = node.args[0]
    return node.op == "placeholder"


def _aliased(root) -> bool:
    """Whether a view of root (or of a write into it) exists: then writes must stay in place."""
    seen, stack = set(), [root]
    while stack:
        n = stack.pop()
        for u in n.users:
            if u.target is P.copy_to.default and u.args[0] is n and u not in seen:
                seen.add(u)
                stack.append(u)
            elif _is_view(u) and u.args[0] is n:
                return True
    return False


def _same_layout(a, b) -> bool:
    """Both values have one shape and the same significant strides (so one can stand for the other)."""
    va, vb = _val(a), _val(b)
    if not isinstance(va, torch.Tensor) or not isinstance(vb, torch.Tensor) or not same_sizes(va.shape, vb.shape):
        return False
    if surely(va.numel() == 0):
        return True
    return all(surely(x == y) for n, x, y in zip(va.shape, va.stride(), vb.stride()) if maybe(n != 1))


def _read_attributes_after_writes(g):
    """One node per attribute (make_fx emits a get_attr for every read of a constant or module
    state), and a read after a write into it reads that write: the write then moves to the
    epilogue like an input's, and the reads must not see the old value."""
    first, latest = {}, {}
    for node in list(g.nodes):
        if node.op == "get_attr":
            if node.target in latest:
                node.replace_all_uses_with(latest[node.target])
                g.erase_node(node)
            elif node.target in first:
                node.replace_all_uses_with(first[node.target])
                g.erase_node(node)
            else:
                first[node.target] = node
        elif node.op == "call_function" and node.target is P.copy_to.default:
            dst = _written_root(node)
            if dst.op == "get_attr":
                latest[dst.target] = node


def functional(gm):
    """Reads after a copy_to see its source; the last write into each graph input moves to
    the end (an epilogue). Writes into a view of an input, or into a tensor that has views, stay where they are (``trace``
    functionalizes programs that write into views of inputs), and so do
    writes into a fresh tensor whose layout differs from the source's: there the copy is what
    sets the result's strides (clone(memory_format=...), empty(...).zero_())."""
    g = gm.graph
    _read_attributes_after_writes(g)
    writes = [n for n in g.nodes if n.op == "call_function" and n.target is P.copy_to.default]
    roots = {}
    for node in writes:   # resolve every destination before any rewrite changes it
        dst = node.args[0]
        roots[node] = roots.get(dst, dst)
    aliased = {r: _aliased(r) for r in set(roots.values())}
    last_write, returned = {}, collections.defaultdict(list)
    for node in writes:
        root = roots[node]
        persistent = root.op in ("placeholder", "get_attr")   # an input, or module state read by reference
        if aliased[root] or _view_of_input(root) or (not persistent and not _same_layout(root, node.args[1])):
            continue
        src = node.args[1]
        if persistent:
            # A returned write is the input itself (x.relu_() returns x, in x's layout): it becomes
            # the epilogue's write, not the value written.
            node.replace_all_uses_with(src, delete_user_cb=lambda user: user.op != "output")
            last_write[root] = (src, node.meta)
            if node.users:
                returned[root].append(node)
                continue
        else:
            node.replace_all_uses_with(src)
        g.erase_node(node)
    out = next(n for n in g.nodes if n.op == "output")
    for root, (src, meta) in last_write.items():
        with g.inserting_before(out):
            write = g.call_function(P.copy_to.default, (root, src))
            write.meta = copy.copy(meta)
        for node in returned[root]:
            node.replace_all_uses_with(write)
            g.erase_node(node)
    return gm


# 2. explicit arguments -----------------------------------------------------------------------

def explicit_arguments(gm):
    for node in gm.graph.nodes:
        prim = _prim(node)
        if prim is None:
            continue
        bound = prim.bind(node.args, node.kwargs)
        schema = prim.op._schema.arguments
        args = tuple(_canon(v) for v, a in zip(bound, schema) if not a.kwarg_only)
        kwargs = {a.name: _canon(v) for v, a in zip(bound, schema) if a.kwarg_only}
        if args != node.args or kwargs != node.kwargs:    # (setting them re-links the node's inputs)
            node.args, node.kwargs = args, kwargs
        if prim.name in ("scalar_tensor", "full"):   # the literal as its dtype holds it: 2 -> 2.0
            i = 0 if prim.name == "scalar_tensor" else 1
            value = node.args[i]
            if not isinstance(value, fx.Node) and isinstance(value, (bool, int, float, complex)):
                cast = _PY_TYPE.get(_kind(node.kwargs["dtype"]), lambda v: v)
                node.args = node.args[:i] + (cast(value),) + node.args[i + 1:]
    return gm


def _kind(dtype) -> str:
    return "bool" if dtype == torch.bool else "complex" if dtype.is_complex else \
        "float" if dtype.is_floating_point else "int"


_PY_TYPE = {"bool": bool, "int": int, "float": float, "complex": complex}


def _canon(v):
    if isinstance(v, tuple):
        return [_canon(x) for x in v]
    if isinstance(v, list):
        return [_canon(x) for x in v]
    if isinstance(v, str) and v in ("cpu", "cuda"):
        return torch.device(v)
    return v


# 3. no-ops -------------------------------------------------------------------------------------

def _same_shape(node, shape):
    """node's value has this shape (known equal, as ``same_sizes``)."""
    v = _val(node)
    return v is not None and same_sizes(v.shape, shape)


NOOPS = {
    "convert_element_type": lambda n: _val(n.args[0]) is not None and _val(n.args[0]).dtype == n.args[1],
    "reshape": lambda n: _same_shape(n.args[0], n.args[1]),
    "broadcast_in_dim": lambda n: _same_shape(n.args[0], n.args[1]) and list(n.args[2]) == list(range(len(n.args[1]))),
    "permute": lambda n: list(n.args[1]) == list(range(len(n.args[1]))),
    "squeeze": lambda n: len(n.args[1]) == 0,
    "expand_dims": lambda n: len(n.args[1]) == 0,
    "rev": lambda n: len(n.args[1]) == 0,
    "slice": lambda n: all(surely(s == 0) for s in n.args[1]) and _same_shape(n.args[0], n.args[2])
    and all(surely(s == 1) for s in n.args[3]),
    "pad": lambda n: all(surely(x == 0) for x in (*n.args[2], *n.args[3], *n.args[4])),
    "cat": lambda n: len(n.args[0]) == 1,
    # A clone of a dense tensor has its strides (preserve_format): in a functional graph, the tensor.
    "clone": lambda n: _val(n.args[0]) is not None and is_non_overlapping_and_dense(
        _val(n.args[0]).shape, _val(n.args[0]).stride()),
}


# No-ops that make a copy: with in-place writes left in the graph, the copy may be written to.
COPYING_NOOPS = frozenset({"convert_element_type", "clone", "pad", "cat", "rev"})


def remove_noops(gm):
    writes = has_inplace_writes(gm)
    for node in list(gm.graph.nodes):
        prim = _prim(node)
        if prim is None or (writes and prim.name in COPYING_NOOPS):
            continue
        rule = NOOPS.get(prim.name)
        if rule is not None and rule(node):
            source = node.args[0][0] if prim.name == "cat" else node.args[0]
            if prim.name in COPYING_NOOPS and not _same_layout(node, source):
                continue   # the copy sets the result's layout (e.g. pad and cat give contiguous outputs)
            node.replace_all_uses_with(source)
            gm.graph.erase_node(node)
    return gm


# 4. constant folding ---------------------------------------------------------------------------

def scalar_constant(node, gm=None):
    """(value, dtype, device, shape) if node is a scalar constant or a splat of one, else None."""
    if not isinstance(node, fx.Node):
        return None
    if node.op == "get_attr" and gm is not None:
        if "module_state" in node.meta or any(u.target is P.copy_to.default and u.args[0] is node for u in node.users):
            return None     # a module's parameter or buffer, or a written tensor: it changes between calls
        t = getattr(gm, node.target, None)
        if isinstance(t, torch.Tensor) and t.dim() == 0 and not isinstance(t, torch.nn.Parameter):
            return t.item(), t.dtype, t.device, ()
        return None
    if node.op != "call_function":
        return None
    if node.target is P.scalar_tensor.default and not isinstance(node.args[0], fx.Node):
        return node.args[0], node.kwargs["dtype"], node.kwargs["device"], ()
    if node.target is P.broadcast_in_dim.default and len(node.args[2]) == 0:
        inner = scalar_constant(node.args[0], gm)
        if inner is not None and all(not isinstance(s, fx.Node) for s in node.args[1]):
            return inner[0], inner[1], inner[2], tuple(node.args[1])
    return None


def fold_constants(gm):
    g = gm.graph
    for node in list(g.nodes):
        prim = _prim(node)
        if prim is None or prim.meta != ELEMENTWISE_RULE or "nondeterministic" in prim.tags:
            continue
        tensor_args = [a for a in node.args if isinstance(a, fx.Node)]
        consts = [scalar_constant(a, gm) for a in tensor_args]
        if not tensor_args or any(c is None for c in consts):
            continue
        shapes = {c[3] for c in consts}
        if len(shapes) != 1:
            continue
        shape = shapes.pop()
        args = [torch.tensor(scalar_constant(a, gm)[0], dtype=scalar_constant(a, gm)[1])
                if isinstance(a, fx.Node) else a for a in node.args]
        value = node.target(*args, **node.kwargs)
        device = consts[0][2]
        with g.inserting_before(node):
            scalar = g.call_function(P.scalar_tensor.default, (value.item(),),
                                     {"dtype": value.dtype, "device": device})
            scalar.meta = copy.copy(node.meta)
            scalar.meta["val"] = _fake_like(node, ())
            new = scalar
            if shape:
                new = g.call_function(P.broadcast_in_dim.default, (scalar, list(shape), []))
                new.meta = copy.copy(node.meta)
        node.replace_all_uses_with(new)
        g.erase_node(node)
    return gm


def _fake_like(node, shape):
    v = _val(node)
    if v is None:
        return None
    return v.new_empty(shape)


# 5. commutative operand order ------------------------------------------------------------------

def _layout_neutral_swap(a, b) -> bool:
    """Swapping the operands leaves the output strides unchanged (eager's layout rule reads
    the operands in order)."""
    va, vb = _val(a), _val(b)
    if va is None or vb is None:
        return False
    ops = [(va.stride(), itemsize(va.dtype)), (vb.stride(), itemsize(vb.dtype))]
    return elementwise_strides(va.shape, ops) == elementwise_strides(va.shape, ops[::-1])


def order_commutative(gm, keys):
    for node in gm.graph.nodes:
        prim = _prim(node)
        if prim is None or not prim.commutative:     # catalog field `commutative`
            continue
        a, b = node.args[0], node.args[1]
        if keys[b] < keys[a] and _layout_neutral_swap(a, b):
            node.args = (b, a, *node.args[2:])
    return gm


# Structural keys (a Merkle hash per node) -------------------------------------------------------

def _literal(v, keys) -> str:
    if isinstance(v, fx.Node):
        return keys[v]
    if isinstance(v, (list, tuple)):
        if all(type(x) is int for x in v):     # sizes and dims, most arguments: repr as below, at once
            return "[" + ",".join(map(repr, v)) + "]"
        return "[" + ",".join(_literal(x, keys) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}={_literal(x, keys)}" for k, x in sorted(v.items())) + "}"
    if isinstance(v, float):
        return repr(v) + "f"
    if isinstance(v, torch.SymInt):
        return f"sym({v.node.expr})"
    return repr(v)


def _placeholder_key(node, index) -> str:
    """An input by position, shape, dtype, device and strides (a graph's result strides follow its
    inputs' layout, so a transposed input makes another program)."""
    v = _val(node)
    if isinstance(v, torch.Tensor):
        strides = tuple(str(s) for s in v.stride()) if v.layout == torch.strided else None
        return f"in{index}:{tuple(str(s) for s in v.shape)}:{v.dtype}:{v.device.type}:{strides}"
    return f"in{index}:{type(v).__name__}"


def _state_key(name, attr) -> str:
    """Module state (a parameter or buffer, read by reference) by its name and geometry, not its value:
    the next call may read other values, so two states equal at trace time are still two values."""
    if not isinstance(attr, torch.Tensor):
        return f"state:{name}"
    return f"state:{name}:{tuple(attr.shape)}:{attr.dtype}:{tuple(attr.stride())}"


def _constant_key(attr) -> str:
    """A tensor constant by its value (two programs differing only in a constant's values differ)."""
    if not isinstance(attr, torch.Tensor):
        return repr(attr)
    try:
        data = attr.detach().cpu().contiguous()
        if data.is_complex():
            data = torch.view_as_real(data)
        content = hashlib.sha256(data.reshape(-1).view(torch.uint8).numpy().tobytes()).hexdigest()
    except (RuntimeError, NotImplementedError):   # a tensor without data (fake, meta)
        content = "no-data"
    return f"{tuple(attr.shape)}:{attr.dtype}:{tuple(attr.stride())}:{content}"


# Tags of prims whose place in the program is part of it, each kind in a sequence of its own: a draw reads
# and advances a generator (its value is not a function of its arguments); a collective is a communication
# every rank makes in the same order (two equal calls are two communications, and one nothing reads is
# still made).
SEQUENCED_TAGS = {"stateful": "draw", "collective": "collective"}    # tag -> the word in a node's key


def _sequence(node) -> str | None:
    """The sequence (a tag of SEQUENCED_TAGS) the node's prim keeps its place in, or None."""
    prim = _prim(node)
    return next((t for t in SEQUENCED_TAGS if t in prim.tags), None) if prim is not None else None


def structural_keys(gm, constants: dict | None = None) -> dict:
    """node -> its key. ``constants`` (attribute name -> key) keeps the keys of gm's attributes between
    calls on one graph, so that each constant's data is hashed once."""
    keys, index, calls = {}, 0, dict.fromkeys(SEQUENCED_TAGS, 0)
    constants = {} if constants is None else constants
    for node in gm.graph.nodes:
        if node.op == "placeholder":
            keys[node] = _digest(_placeholder_key(node, index))
            index += 1
        elif node.op == "get_attr":
            if node.target not in constants:
                attr = getattr(gm, node.target, None)
                state = node.meta.get("module_state")
                constants[node.target] = _digest(f"attr:{_state_key(state, attr)}" if state is not None
                                                 else f"attr:{_constant_key(attr)}")
            keys[node] = constants[node.target]
        elif node.op == "call_function":
            name = node.target.name() if isinstance(node.target, torch._ops.OpOverload) else \
                getattr(node.target, "__name__", str(node.target))
            call = f"{name}({_literal(list(node.args), keys)};{_literal(dict(node.kwargs), keys)})"
            sequence = _sequence(node)
            if sequence:    # the k-th draw (or collective): two equal calls draw different numbers
                call = f"{call}#{SEQUENCED_TAGS[sequence]}{calls[sequence]}"
                calls[sequence] += 1
            keys[node] = _digest(call)
        elif node.op == "output":
            keys[node] = _digest("out" + _literal(list(node.args), keys))
    return keys


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


# 6. common subexpressions ---------------------------------------------------------------------

def _pure(node) -> bool:
    prim = _prim(node)
    if prim is not None:
        return not ({"mutates", "nondeterministic", "random", "collective"} & prim.tags)
    return node.op == "call_function" and node.target is operator.getitem


def has_inplace_writes(gm) -> bool:
    """A copy_to that is not part of the trailing epilogue (writes into graph inputs and module state):
    reads around it must keep their order, and a copying no-op before it must stay a copy. A trailing
    write into a tensor the graph made (x.clone().index_put_(...)) is not an epilogue."""
    nodes = [n for n in gm.graph.nodes if n.op != "output"]
    tail = len(nodes)
    while tail > 0 and nodes[tail - 1].target is P.copy_to.default and _writes_persistent(nodes[tail - 1]):
        tail -= 1
    return any(n.target is P.copy_to.default for n in nodes[:tail])


def _written_root(write):
    """The tensor a copy_to writes, through chained copy_tos (copy_to(copy_to(x, a), b) writes x)."""
    dst = write.args[0]
    while dst.op == "call_function" and dst.target is P.copy_to.default:
        dst = dst.args[0]
    return dst


def _writes_persistent(write) -> bool:
    """Whether a copy_to writes a graph input or module state."""
    return _written_root(write).op in ("placeholder", "get_attr")


def eliminate_common_subexpressions(gm, constants: dict | None = None, keys: dict | None = None):
    """Merges pure nodes of equal keys. ``keys``: gm's structural keys, where the caller has them (they stay
    valid after: a merged node's users read one of the same key, so theirs are unchanged)."""
    if has_inplace_writes(gm):
        return gm   # two reads of a tensor around a write are not the same value
    keys = structural_keys(gm, constants) if keys is None else keys
    first = {}
    for node in list(gm.graph.nodes):
        if not _pure(node):
            continue
        k = keys[node]
        if k in first:
            node.replace_all_uses_with(first[k])
            gm.graph.erase_node(node)
        else:
            first[k] = node
    return gm


# 8. order and names ----------------------------------------------------------------------------

def canonical_order(gm, constants: dict | None = None, keys: dict | None = None):
    g = gm.graph
    if has_inplace_writes(gm):
        return _rename(gm, [n for n in g.nodes if n.op == "placeholder"],
                       [n for n in g.nodes if n.op not in ("placeholder", "output")])
    keys = structural_keys(gm, constants) if keys is None else keys
    nodes = list(g.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    body = [n for n in nodes if n.op not in ("placeholder", "output")]
    epilogue = [n for n in body if n.target is P.copy_to.default]
    body = [n for n in body if n.target is not P.copy_to.default]
    in_body = set(body)     # membership in a list made this quadratic in the graph's size
    position = {n: i for i, n in enumerate(nodes)}
    pending = {n: sum(1 for d in n.all_input_nodes if d in in_body) for n in body}
    users = {n: [u for u in n.users if u in pending] for n in body}
    for sequence in SEQUENCED_TAGS:     # draws keep their order (each advances the generator), collectives theirs
        ordered = [n for n in body if _sequence(n) == sequence]
        for before, after in zip(ordered, ordered[1:]):
            users[before].append(after)
            pending[after] += 1
    ready = [(keys[n], position[n], n) for n, c in pending.items() if c == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, _, n = heapq.heappop(ready)
        order.append(n)
        for u in users[n]:
            pending[u] -= 1
            if pending[u] == 0:
                heapq.heappush(ready, (keys[u], position[u], u))
    anchor = placeholders[-1] if placeholders else None
    for n in order + epilogue:
        if anchor is None:
            next(iter(g.nodes)).prepend(n)
        else:
            anchor.append(n)
        anchor = n
    return _rename(gm, placeholders, order + epilogue)


def _rename(gm, placeholders, body):
    counts: dict = {}
    for i, n in enumerate(placeholders):
        n.name = n.target = f"arg{i}"
    for n in body:
        base = n.target._opname if isinstance(n.target, torch._ops.OpOverload) else \
            "constant" if n.op == "get_attr" else getattr(n.target, "__name__", "node")
        counts[base] = counts.get(base, -1) + 1
        n.name = f"{base}_{counts[base]}"
    return gm


def canonicalize(gm: fx.GraphModule, *, inplace: bool = False) -> fx.GraphModule:
    """A canonical copy of a prim graph (see the module doc for the passes); ``inplace=True``
    rewrites gm itself."""
    if not inplace:
        gm = fx.GraphModule(gm, copy.deepcopy(gm.graph))
    canonicalize_graph(gm)
    gm.recompile()   # fx appends suffixes on clashes; the code matches the names
    return gm


def canonicalize_graph(gm: fx.GraphModule) -> None:
    """canonicalize(gm, inplace=True) without its final recompile: gm's graph becomes canonical and its
    code is stale until the caller recompiles it (``trace`` does, once, as it wraps the graph)."""
    for i, node in enumerate(gm.graph.nodes):   # call order, for group_by_module (first stamp wins)
        node.meta.setdefault("call_index", i)
    functional(gm)
    explicit_arguments(gm)
    remove_noops(gm)
    fold_constants(gm)
    constants: dict = {}    # each tensor constant hashed once, not once per pass
    order_commutative(gm, structural_keys(gm, constants))
    keys = structural_keys(gm, constants)   # after the swaps; still right after CSE and dead-code removal
    eliminate_common_subexpressions(gm, constants, keys)
    gm.graph.eliminate_dead_code()
    canonical_order(gm, constants, keys)
    gm.graph.lint()


def graph_hash(gm: fx.GraphModule) -> str:
    """Equal for programs that canonicalize to the same function from inputs to outputs."""
    canon = canonicalize(gm)
    keys = structural_keys(canon)
    output = next(n for n in canon.graph.nodes if n.op == "output")
    placeholders = [keys[n] for n in canon.graph.nodes if n.op == "placeholder"]
    returned = fx.map_arg(output.args, _value_returned)     # x.add_(y) returns what x + y does
    return hashlib.sha256((",".join(placeholders) + "|" + _literal(list(returned), keys)).encode()).hexdigest()


def _value_returned(node):
    """A returned write into an input (the epilogue of x.add_(y)) returns the value it wrote, in the
    input's layout: the same tensor as that value where the layouts agree."""
    while node.op == "call_function" and node.target is P.copy_to.default and _same_layout(*node.args[:2]):
        node = node.args[1]
    return node


# Module scopes ---------------------------------------------------------------------------------

@dataclass
class ModuleGroup:
    path: str            # "" for the root module
    nodes: list
    inputs: list         # values from outside the group it reads, in order of first use
    outputs: list        # its values read outside the group (or returned), in node order


def module_path(node) -> str:
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return ""
    path = list(stack.values())[-1][0]
    return path if isinstance(path, str) else str(path)


def group_by_module(gm) -> list[ModuleGroup]:
    """The prim nodes grouped by the innermost module call they came from, in call order (the
    order the program ran them in, which canonicalize records as ``meta["call_index"]``)."""
    position = {n: i for i, n in enumerate(gm.graph.nodes)}
    order = lambda n: n.meta.get("call_index", position[n])  # noqa: E731
    groups: dict = {}
    for node in sorted((n for n in gm.graph.nodes if n.op == "call_function"), key=order):
        groups.setdefault(module_path(node), []).append(node)
    out = []
    for path, nodes in groups.items():
        members = set(nodes)
        inputs, outputs = [], []
        for n in nodes:
            for d in sorted(n.all_input_nodes, key=lambda d: (d.op != "placeholder", order(d))):
                if d not in members and d not in inputs:
                    inputs.append(d)
            if any(u not in members for u in n.users):
                outputs.append(n)
        out.append(ModuleGroup(path, nodes, inputs, outputs))
    return out
