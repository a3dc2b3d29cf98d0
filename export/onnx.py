"""Prim graphs to ONNX: ``to_onnx(model_or_fn, args)`` traces the program into the core prims
(``trace`` with the lowerings of ``get_decompositions(target=CORE_PRIMS)``) and translates each
prim with the table of ``export/onnx_table.py`` (one translator per core prim, opset ``OPSET``).

What an exported graph keeps: values, dtypes and shapes (symbolic sizes as named dynamic dims).
What it drops: strides and aliasing (an ONNX value has neither), so ``clone`` and ``copy_strided``
are identities; a write into an input or a buffer becomes an extra output named ``<name>.out``.
"""
from __future__ import annotations

import ctypes
import importlib
import inspect

import torch
import torch.utils._pytree as pytree

try:
    import onnx
    from onnx import TensorProto, helper
except ImportError as e:   # the optional dependency: pip install "primkit[onnx]"
    raise ImportError("primkit.export.onnx needs the onnx package: pip install \"primkit[onnx]\"") from e

import primkit
from primkit import prims
from primkit.decompositions.lowering import CORE_PRIMS
from primkit.export import onnx_subgraphs, onnx_table
from primkit.export.onnx_table import DTYPES, OPSET, ORT_DTYPES, WIDER


class ExportError(TypeError):
    """A program the exporter cannot translate: names the prim, its dtype and the module it came from."""


def to_onnx(model_or_fn, args, path=None, dynamic: bool = False, *, kwargs=None, name=None) -> onnx.ModelProto:
    """The ONNX model of ``model_or_fn(*args, **kwargs)``: traced into the core prims and translated
    prim by prim, checked with ``onnx.checker`` (full check), written to ``path`` if given.
    ``dynamic=True`` traces with symbolic sizes and keeps them as named dynamic dims of the inputs
    and outputs. Raises ExportError naming the prim, dtype and module for what ONNX cannot hold
    (a prim outside the core set, such as a random draw in training mode; a complex value)."""
    args = tuple(args) if isinstance(args, (tuple, list)) else (args,)
    kwargs = dict(kwargs or {})
    table = primkit.get_decompositions(target=CORE_PRIMS)
    # no target= check here: a prim left outside the core set is reported by the translator, with its dtype
    gm = primkit.trace(model_or_fn, *args, dynamic=dynamic, decompositions=table, **kwargs)
    names = _input_names(model_or_fn, args, kwargs)
    graph = _Translation(gm, names).run(name or getattr(model_or_fn, "__name__", type(model_or_fn).__name__))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="primkit", producer_version=primkit.__version__)
    model.ir_version = 8     # opset 18's IR version: the oldest that every onnxruntime taking opset 18 reads
    onnx.checker.check_model(model, full_check=True)
    if path is not None:
        onnx.save(model, str(path))
    return model


def load(spec: str):
    """The object named ``package.module:attr`` (a dotted attribute path after the colon)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected package.module:attr, got {spec!r}")
    obj = importlib.import_module(module_name)
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{spec}: {getattr(obj, '__name__', obj)!s} has no attribute {part!r}")
        obj = getattr(obj, part)
    return obj


def export_module(model_spec: str, inputs_spec: str, path, dynamic: bool = False) -> onnx.ModelProto:
    """``primkit export-onnx``: the module named ``model_spec`` (an nn.Module or a callable making
    one) on the example arguments ``inputs_spec``'s callable returns (a tuple, or a dict of keyword
    arguments), exported in eval mode to ``path``."""
    model = load(model_spec)
    if not isinstance(model, torch.nn.Module):
        model = model()
    if not isinstance(model, torch.nn.Module):
        raise ValueError(f"{model_spec} is not an nn.Module, nor a callable returning one")
    example = load(inputs_spec)()
    args, kwargs = ((), example) if isinstance(example, dict) else (tuple(example) if isinstance(example, (tuple, list)) else (example,), {})
    return to_onnx(model.eval(), args, path, dynamic=dynamic, kwargs=kwargs)


def session(model: onnx.ModelProto):
    """An onnxruntime CPU session of ``model`` (needs onnxruntime: ``pip install "primkit[onnx]"``)."""
    try:
        import onnxruntime
    except ImportError as e:
        raise ImportError("running an exported model needs onnxruntime: pip install \"primkit[onnx]\"") from e
    onnxruntime.set_default_logger_severity(3)     # errors come back as exceptions; no log on stderr
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    return onnxruntime.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def run(model_or_session, *tensors) -> list[torch.Tensor]:
    """Run an exported model on CPU with onnxruntime: torch tensors in (the graph's inputs, in order),
    torch tensors out (bfloat16 too, which numpy does not hold)."""
    import onnxruntime
    sess = model_or_session if isinstance(model_or_session, onnxruntime.InferenceSession) else session(model_or_session)
    feeds = {}
    for info, t in zip(sess.get_inputs(), tensors):
        t = torch.as_tensor(t).detach().cpu().contiguous()
        raw = t.view(torch.int16).numpy() if t.dtype == torch.bfloat16 else t.numpy()
        feeds[info.name] = onnxruntime.OrtValue.ortvalue_from_numpy_with_onnx_type(raw, DTYPES[t.dtype])
    outs = sess.run_with_ort_values([o.name for o in sess.get_outputs()], feeds)
    return [_to_torch(v) for v in outs]


def _to_torch(value) -> torch.Tensor:
    kind = value.data_type()     # "tensor(float)"
    if kind != "tensor(bfloat16)":
        return torch.from_numpy(value.numpy().copy())
    out = torch.empty(value.shape(), dtype=torch.bfloat16)
    ctypes.memmove(out.data_ptr(), value.data_ptr(), out.numel() * 2)
    return out


def _input_names(fn, args, kwargs) -> list[str]:
    """The graph inputs' names: the forward's parameter names, with a leaf index for nested arguments."""
    try:
        params = list(inspect.signature(fn.forward if isinstance(fn, torch.nn.Module) else fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    named = []
    for i, a in enumerate(args):
        p = params[min(i, len(params) - 1)] if params else None
        if p is None or (p.kind != p.VAR_POSITIONAL and i >= len(params)):
            base = f"input_{i}"
        else:
            base = f"{p.name}_{i - params.index(p)}" if p.kind == p.VAR_POSITIONAL else p.name
        named.append((base, a))
    names = []
    for base, value in [*named, *kwargs.items()]:
        leaves = [v for v in pytree.tree_leaves(value) if isinstance(v, torch.Tensor)]
        names += [base] if len(leaves) == 1 else [f"{base}_{j}" for j in range(len(leaves))]
    return names


def module_path(node) -> str:
    """The module a node came from (``layers.0.attn``), '' at the top."""
    stack = node.meta.get("nn_module_stack") or {}
    return list(stack)[-1] if stack else ""


def _where(node) -> str:
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return "the top level"
    path, kind = list(stack.values())[-1]
    return f"module '{path}' ({kind.rsplit('.', 1)[-1]})" if path else f"the top module ({kind.rsplit('.', 1)[-1]})"


class _Translation:
    """One fx graph of core prims -> one onnx GraphProto."""

    def __init__(self, gm, input_names):
        self.gm, self.input_names = gm, input_names
        self.nodes, self.inits, self.values, self.symbols = [], [], {}, {}
        self.used, self.scope, self.node, self.written = set(), "", None, []

    # --- names, constants, ops ---------------------------------------------------------------
    def fresh(self, base: str) -> str:
        base = base.replace("/", ".") or "v"
        name, i = base, 1
        while name in self.used:
            name, i = f"{base}_{i}", i + 1
        self.used.add(name)
        return name

    def op(self, op_type: str, *inputs, outputs: int = 1, **attrs):
        """Append one ONNX node (named after the fx node and its module path); its output name(s)."""
        outs = [self.fresh(f"{self.scope}{op_type}") for _ in range(outputs)]
        where = module_path(self.node) if self.node is not None else ""
        node = helper.make_node(op_type, [i if i is not None else "" for i in inputs], outs,
                                name=self.fresh(f"{where + '/' if where else ''}{op_type}"),
                                doc_string=f"{self.node.target} at {where or '<top>'}" if self.node is not None else "size",
                                **{k: v for k, v in attrs.items() if v is not None})
        self.nodes.append(node)
        return outs[0] if outputs == 1 else outs

    def tensor(self, t: torch.Tensor, base: str = "const") -> str:
        """An initializer holding ``t``'s values (contiguous, its dtype)."""
        name = self.fresh(base)
        t = t.detach().cpu().contiguous()
        raw = (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy().tobytes()
        self.inits.append(helper.make_tensor(name, DTYPES[t.dtype], list(t.shape), raw, raw=True))
        return name

    def scalar(self, value, dtype) -> str:
        return self.tensor(torch.tensor(value, dtype=dtype), "scalar")

    def ints(self, values) -> str:
        """A 1-d int64 tensor of ``values`` (ints and SymInts)."""
        if all(isinstance(v, int) for v in values):
            return self.tensor(torch.tensor(list(values), dtype=torch.int64), "ints")
        return self.op("Concat", *[self.op("Unsqueeze", self.sym(v), self.ints([0])) for v in values], axis=0)

    def sym(self, value) -> str:
        """A 0-d int64 tensor of ``value``: an int, or a SymInt's expression over the input sizes."""
        expr = sym_expr_of(value) if isinstance(value, torch.SymInt) else value
        return onnx_subgraphs.sym_expr(self, expr)

    def cast(self, name: str, dtype) -> str:
        return self.op("Cast", name, to=DTYPES[dtype])

    def ort_dtypes(self, op_type: str) -> frozenset:
        return ORT_DTYPES.get(op_type, frozenset(DTYPES))

    def compute(self, op_type: str, inputs, dtype, out_dtype, extra=(), produces=None, **attrs) -> str:
        """``op_type`` on ``inputs`` (all of ``dtype``; ``extra`` inputs such as axes as they are), in
        ``WIDER[dtype]`` where onnxruntime's CPU provider has no kernel at ``dtype``; the result (of
        ``produces``, default the dtype computed in; bool for comparisons) cast to ``out_dtype``."""
        at = dtype
        if dtype not in self.ort_dtypes(op_type):
            at = WIDER.get(dtype)
            if at is None or at not in self.ort_dtypes(op_type):
                raise self.error(f"onnxruntime's {op_type} has no kernel for {dtype} and no exact wider type")
            inputs = [self.cast(i, at) for i in inputs]
        out = self.op(op_type, *inputs, *extra, **attrs)
        produced = produces or (torch.bool if op_type in _COMPARISONS else at)
        return out if produced == out_dtype else self.cast(out, out_dtype)

    def error(self, why: str, dtype=None) -> ExportError:
        """ExportError naming the current node's prim, ``dtype`` (default: its first tensor's) and module."""
        n = self.node
        if n is None:
            return ExportError(f"to_onnx: {why}")
        vals = [v.meta.get("val") for v in n.all_input_nodes] + pytree.tree_leaves(n.meta.get("val"))
        dtype = dtype or next((v.dtype for v in vals if isinstance(v, torch.Tensor)), "no tensor")
        name = f"primkit.{prims.def_of(n.target).name}" if n is not None and prims.is_prim(n.target) else str(n.target)
        return ExportError(f"to_onnx: {name} ({dtype}) at {_where(n)}: {why}")

    # --- the graph -----------------------------------------------------------------------------
    def run(self, graph_name: str):
        graph = self.gm.graph
        placeholders = [n for n in graph.nodes if n.op == "placeholder"]
        inputs = []
        for i, n in enumerate(placeholders):
            name = self.fresh(self.input_names[i] if i < len(self.input_names) else f"input_{i}")
            self.values[n] = name
            inputs.append(self._input(n, name))
        (out_tree,) = next(n for n in graph.nodes if n.op == "output").args
        live = _live(graph)
        for n in graph.nodes:
            if n.op == "get_attr":
                state = n.meta.get("module_state") or n.target
                self.values[n] = self.tensor(getattr(self.gm, n.target), state)
            elif n.op == "call_function" and n in live and (prims.is_prim(n.target)
                                                             or isinstance(n.meta.get("val"), torch.Tensor)):
                self.node, self.scope = n, ""
                self.values[n] = self._call(n)
        self.node = None
        outputs = []
        for i, leaf in enumerate(x for x in pytree.tree_leaves(out_tree) if x is not None):   # None: no output
            if not isinstance(leaf, torch.fx.Node) or not isinstance(leaf.meta.get("val"), torch.Tensor):
                raise ExportError(f"to_onnx: output {i} is {leaf!r}, not a tensor: ONNX outputs are tensors")
            outputs.append(self._output(leaf, f"output_{i}" if i else "output"))
        for dst, value in self.written:
            outputs.append(self._output(value, f"{self.values_name(dst)}.out"))
        if not outputs:
            raise ExportError(f"to_onnx: {graph_name} returns no tensor: an ONNX graph has at least one output")
        return helper.make_graph(self.nodes, graph_name, inputs, outputs, self.inits)

    def values_name(self, node) -> str:
        return node.meta.get("module_state") or self.values[node]

    def _input(self, n, name):
        val = n.meta.get("val")
        if isinstance(val, torch.SymInt) or isinstance(val, int):
            self.symbols.setdefault(sym_expr_of(val) if isinstance(val, torch.SymInt) else val, name)
            return helper.make_tensor_value_info(name, TensorProto.INT64, [])
        if not isinstance(val, torch.Tensor):
            raise ExportError(f"to_onnx: input {name} is {type(val).__name__}: ONNX inputs are tensors")
        self._check_dtype(val.dtype, f"input {name}")
        dims = []
        for d, size in enumerate(val.shape):
            if isinstance(size, torch.SymInt) and getattr(sym_expr_of(size), "is_Symbol", False):
                self.symbols.setdefault(sym_expr_of(size), (name, d))
            dims.append(_dim(size))
        return helper.make_tensor_value_info(name, DTYPES[val.dtype], dims)

    def _output(self, node, name):
        name = self.fresh(name)
        self.node = node if node.op == "call_function" else None
        self.nodes.append(helper.make_node("Identity", [self.values[node]], [name], name=self.fresh(f"{name}.identity")))
        val = node.meta["val"]
        return helper.make_tensor_value_info(name, DTYPES[val.dtype], [_dim(s) for s in val.shape])

    def _check_dtype(self, dtype, what):
        if dtype not in DTYPES:
            why = "a complex value, which ONNX Runtime cannot compute on" if dtype.is_complex else \
                f"an exported graph holds {', '.join(sorted(str(d)[6:] for d in DTYPES))}"
            raise ExportError(f"to_onnx: {what} ({dtype}): {why}")

    def _call(self, n):
        if not prims.is_prim(n.target):
            raise self.error("not a prim")
        name = prims.def_of(n.target).name
        translate = _TRANSLATORS.get(name)
        if translate is None:
            raise self.error("not in the core set after lowering, and no ONNX translator"
                             + (" (a random draw: export the model in eval mode)" if prims.get(name).family == "random" else ""))
        for v in pytree.tree_leaves((n.args, n.kwargs, n.meta.get("val"))):
            val = v.meta.get("val") if isinstance(v, torch.fx.Node) else v
            if isinstance(val, torch.Tensor) and val.dtype not in DTYPES:
                raise self.error("a complex value, which ONNX Runtime cannot compute on" if val.dtype.is_complex
                                 else f"a {val.dtype} value, which an exported graph cannot hold", val.dtype)
        args = pytree.tree_map_only(torch.fx.Node, self._arg, n.args)
        kwargs = pytree.tree_map_only(torch.fx.Node, self._arg, n.kwargs)
        return translate(self, n, *args, **kwargs)

    def _arg(self, node):
        val = node.meta.get("val")
        return val if isinstance(val, (torch.SymInt, int)) else self.values[node]

    def dtype(self, node_or_none=None):
        """The dtype of the current node's result."""
        return (node_or_none or self.node).meta["val"].dtype

    def arg_dtype(self, i: int = 0):
        return self.node.args[i].meta["val"].dtype

    def shape(self, node=None):
        return list((node or self.node).meta["val"].shape)


def sym_expr_of(size: torch.SymInt):
    """A SymInt's expression as traced, over the input sizes' symbols: not ``node.expr``, which
    rewrites it with the shape environment's replacements (a size the program's Python compared
    with a constant after the trace, such as a translator's check, would become that constant)."""
    return size.node._expr


def _dim(size):
    if isinstance(size, torch.SymInt):
        expr = sym_expr_of(size)
        return int(expr) if expr.is_number else str(expr)
    return int(size)


_COMPARISONS = frozenset({"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"})


def _live(graph) -> set:
    """The nodes an output or a write (copy_to) depends on."""
    roots = [n for n in graph.nodes if n.op == "output" or n.target == torch.ops.primkit.copy_to.default]
    live, todo = set(), list(roots)
    while todo:
        n = todo.pop()
        if n in live:
            continue
        live.add(n)
        todo += n.all_input_nodes
    return live


def _translators() -> dict:
    """prim name -> translator(translation, node, *args), one per core prim."""
    out = {name: onnx_subgraphs.elementwise(name, op) for name, op in onnx_table.ELEMENTWISE.items()}
    out.update({name: onnx_subgraphs.reduction(op) for name, op in onnx_table.REDUCTIONS.items()})
    out.update({name: onnx_subgraphs.arg_reduction(op) for name, op in onnx_table.ARG_REDUCTIONS.items()})
    out.update({name: onnx_subgraphs.identity for name in onnx_table.IDENTITY})
    out.update({name: onnx_subgraphs.complex_value for name in onnx_table.COMPLEX_ONLY})
    out.update({name: getattr(onnx_subgraphs, name) for name in onnx_table.SUBGRAPHS})
    return out


_TRANSLATORS = _translators()
TRANSLATORS = frozenset(_TRANSLATORS)
"""The prims with a translator: the core set, no more (tests/test_onnx.py checks it)."""
