"""Loads ``prims/catalog/*.yaml`` into frozen PrimDefs, strictly.

A catalog file holds one family:

    family: elementwise_unary
    doc: what the family is
    defaults: {signature: ..., meta: ..., dtypes: [...], constraints: [...], params: {...}}
    prims:
      - {name: abs, doc: ..., impl: torch.abs, dtypes: [numeric], params: {out_dtype: real}}

An entry inherits every default it does not set. Any defect — unknown key, missing field,
unknown dtype class, duplicate name, unparsable signature, unknown meta rule or parameter,
an impl that does not resolve, a malformed derivative formula (see prims/autograd.py) — raises
``CatalogError`` naming file, prim and field.

Derivatives: every prim that takes a tensor and can have a floating or complex output needs a
``derivative`` (formulas, ``none`` or ``constant``), so no prim falls back to torch's autograd of its reference
implementation; exempt are prims tagged ``mutates`` (prims/autograd.register_mutating) and
prims without tensor inputs (creation and random numbers from sizes: nothing to differentiate).
"""
from __future__ import annotations

import functools
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import torch
import yaml

from primkit.prims import autograd
from primkit.prims import dtypes as dt
from primkit.prims.errors import CatalogError
from primkit.prims.meta import RULES

CATALOG_DIR = Path(__file__).parent / "catalog"

FILE_KEYS = {"family", "doc", "defaults", "prims"}
ENTRY_KEYS = {"name", "signature", "doc", "dtypes", "meta", "impl", "constraints", "params", "tags", "example",
              "derivative", "layout", "commutative", "domain", "core", "optional", "kinks", "first_order_only"}
REQUIRED = ("name", "signature", "doc", "dtypes", "meta", "impl")
TAGS = {"view", "mutates", "nondeterministic", "data_dependent", "random", "stateful", "collective"}
# `layout`: the output layout registration gives the reference's results (the meta rule states it too):
# contiguous, or elementwise (torch's elementwise layout for the operands, of at most two tensors);
# absent, the reference lays its results out itself.
LAYOUTS = {"contiguous", "elementwise"}
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_CID = re.compile(r"^C[1-9][0-9]*$")


@dataclass(frozen=True)
class Constraint:
    id: str
    text: str


@dataclass(frozen=True)
class Kink:
    """A point set (prims/kinks.POINT_SETS) over tensor arguments where the prim has no derivative."""
    at: str
    args: tuple
    why: str


@dataclass(frozen=True)
class PrimDef:
    """One prim of the catalog. ``op`` is its ``torch.ops.primkit.<name>.default``."""
    name: str
    family: str
    signature: str
    doc: str
    dtypes: frozenset
    constraints: tuple
    meta: str
    impl: str
    params: dict = field(default_factory=dict, hash=False, compare=False)
    tags: frozenset = frozenset()
    example: str | None = None
    commutative: bool = False       # its two operands may be swapped (canonical form orders them)
    layout: str | None = None       # one of LAYOUTS: the layout registration gives the reference's results
    domain: dict = field(default_factory=dict, hash=False, compare=False)   # tensor arg -> (low, high), None: unbounded
    derivative: object = field(default=None, hash=False, compare=False)   # autograd.Derivative or None
    core: bool = False              # in the core set a backend implements (decompositions.lowering.CORE_PRIMS)
    optional: str | None = None     # why a backend may leave it out (decompositions.lowering.OPTIONAL_SPECIAL)
    kinks: tuple = ()               # Kinks: where it has no derivative (the gradient tests leave them out)
    first_order_only: str | None = None   # the `none` prim its formulas reach: second order raises
    file: str = ""
    arg_names: tuple = ()
    arg_defaults: tuple = ()        # (name, has_default, default) in schema order
    op: object = field(default=None, hash=False, compare=False)

    @property
    def schema(self) -> str:
        return f"{self.name}{self.signature}"

    def bind(self, args, kwargs) -> tuple:
        """The call's arguments in schema order, defaults filled in."""
        out = list(args)
        for name, has_default, default in self.arg_defaults[len(args):]:
            if name in kwargs:
                out.append(kwargs[name])
            elif has_default:
                out.append(default)
            else:
                raise TypeError(f"primkit.{self.name}: missing argument '{name}'")
        return tuple(out)


def _fail(file, prim, fld, msg):
    raise CatalogError(file, prim, fld, msg)


def resolve_impl(path: str):
    """'torch.<attr>...', 'reference.<name>' or 'reference.<module>.<name>' (prims/reference)
    -> the callable, or None."""
    parts = path.split(".")
    if parts[0] == "reference":
        from primkit.prims import reference as obj
        if len(parts) == 3:
            try:
                obj = importlib.import_module(f"primkit.prims.reference.{parts[1]}")
            except ImportError:
                return None
            parts = parts[1:]
    elif parts[0] == "torch":
        obj = torch
    else:
        return None
    for part in parts[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    if parts[0] == "torch" and not _is_tensor_function(obj):
        return None
    return obj if callable(obj) else None


@functools.lru_cache(maxsize=1)
def _tensor_functions() -> frozenset:
    """torch's tensor functions: those __torch_function__ dispatches (torch.*, torch.linalg.*,
    torch.special.*, torch.fft.*, torch.nn.functional.*, Tensor methods) and the builtins of
    torch._C._VariableFunctions. Not torch.load, torch.save or a module reached through torch."""
    from torch.overrides import get_overridable_functions
    return frozenset(f for fs in get_overridable_functions().values() for f in fs)


def _is_tensor_function(obj) -> bool:
    try:
        if obj in _tensor_functions():
            return True
    except TypeError:   # unhashable
        return False
    name = getattr(obj, "__name__", None)
    return name is not None and getattr(torch._C._VariableFunctions, name, None) is obj


def _parse_signature(file, name, signature):
    try:
        schema = torch._C.parse_schema(f"primkit::{name}{signature}")
    except RuntimeError as e:
        _fail(file, name, "signature", f"cannot parse '{signature}': {str(e).splitlines()[0]}")
    return schema


class _DuplicateKey(Exception):
    def __init__(self, key, line):
        self.key, self.line = key, line


class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):   # libyaml's parser where present: 5x faster
    """yaml.safe_load that refuses a key given twice in one mapping (safe_load keeps the last)."""


def _strict_mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            duplicate = key in seen
        except TypeError:
            raise yaml.constructor.ConstructorError(None, None, f"unhashable key {key!r}", key_node.start_mark)
        if duplicate:
            raise _DuplicateKey(key, key_node.start_mark.line + 1)
        seen.add(key)
    return yaml.constructor.SafeConstructor.construct_mapping(loader, node, deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _strict_mapping)

# A catalog file's content, counted with every alias expanded: a few thousand nodes today. Nested
# anchors can make a file of a few hundred bytes stand for millions (a "billion laughs").
MAX_EXPANDED_NODES = 200_000


def _expanded_size(data, limit) -> int:
    count, stack = 0, [data]
    while stack and count <= limit:
        x = stack.pop()
        count += 1
        if isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return count


def _prim_at_line(text: str, line: int):
    """The name of the catalog entry a line belongs to (the last `name:` at or before it)."""
    names = re.findall(r"\bname:\s*([A-Za-z0-9_]+)", "\n".join(text.splitlines()[:line]))
    return names[-1] if names else None


def read_yaml(path: Path):
    """The file's YAML, strictly: UTF-8, no duplicate keys, bounded after alias expansion."""
    file = path.name
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        _fail(file, None, None, f"not UTF-8 text: byte 0x{raw[e.start]:02x} at offset {e.start}")
    try:
        data = yaml.load(text, Loader=_StrictLoader)
    except _DuplicateKey as e:
        _fail(file, _prim_at_line(text, e.line), str(e.key), f"given twice in one mapping (line {e.line})")
    except yaml.YAMLError as e:
        _fail(file, None, None, f"not valid YAML: {e}")
    if _expanded_size(data, MAX_EXPANDED_NODES) > MAX_EXPANDED_NODES:
        _fail(file, None, None, f"more than {MAX_EXPANDED_NODES} YAML nodes once aliases are expanded "
              f"(nested anchors?)")
    return data


def load_file(path: Path) -> list[PrimDef]:
    file = path.name
    data = read_yaml(path)
    if not isinstance(data, dict):
        _fail(file, None, None, "expected a mapping with keys family, doc, defaults, prims")
    unknown = set(data) - FILE_KEYS
    if unknown:
        _fail(file, None, sorted(unknown)[0], f"unknown key (allowed: {', '.join(sorted(FILE_KEYS))})")
    for k in ("family", "prims"):
        if k not in data:
            _fail(file, None, k, "missing")
    family = data["family"]
    if not isinstance(family, str) or not _NAME.match(family):
        _fail(file, None, "family", f"expected a lowercase identifier, got {family!r}")
    defaults = data.get("defaults") or {}
    if not isinstance(defaults, dict):
        _fail(file, None, "defaults", f"expected a mapping of entry fields, got {type(defaults).__name__}")
    bad = set(defaults) - (ENTRY_KEYS - {"name"})
    if bad:
        _fail(file, None, "defaults." + sorted(bad)[0], "unknown key")
    entries = data["prims"]
    if not isinstance(entries, list):
        _fail(file, None, "prims", "expected a list of entries")
    out = [_entry(file, family, defaults, e, i) for i, e in enumerate(entries)]
    for p in out:   # each prim that may be differentiable says how
        if (p.derivative is None and "mutates" not in p.tags and _takes_tensors(p.signature)
                and autograd.may_be_differentiable(p.dtypes, p.params)):
            _fail(file, p.name, "derivative", "missing: the prim has floating or complex dtypes, so it needs "
                  "a formula per tensor argument or `none`")
    return out


def _takes_tensors(signature) -> bool:
    schema = torch._C.parse_schema(f"primkit::p{signature}")
    return any(isinstance(a.type, (torch.TensorType, torch.OptionalType, torch.ListType)) and "Tensor" in str(a.type)
               for a in schema.arguments)


def _tensor_arguments(schema) -> list:
    return [a for a in schema.arguments if isinstance(a.type, torch.TensorType)]


def _entry(file, family, defaults, entry, index) -> PrimDef:
    name, e = _merged(file, defaults, entry, index)
    schema = _parse_signature(file, name, e["signature"])
    _check_functional(file, name, schema, e.get("tags") or ())
    dtypes = _dtypes(file, name, e["dtypes"])
    rule, params = _rule_and_params(file, name, e, schema)
    constraints = _constraints(file, name, e.get("constraints") or [], rule)
    if resolve_impl(e["impl"]) is None:
        _fail(file, name, "impl", f"'{e['impl']}' does not name a tensor function of torch (torch.*, torch.linalg.*, "
              f"torch.special.*, torch.fft.*, torch.nn.functional.*) or a function of prims.reference")
    tags = frozenset(e.get("tags") or ())
    if not tags <= TAGS:
        _fail(file, name, "tags", f"unknown tags {sorted(tags - TAGS)} (known: {', '.join(sorted(TAGS))})")
    derivative = None
    if "derivative" in e:
        derivative = parse_derivative(file, name, e["derivative"], schema, dtypes, params)
    args = schema.arguments
    return PrimDef(
        name=name, family=family, signature=e["signature"], doc=str(e["doc"]).strip(), dtypes=dtypes,
        constraints=tuple(constraints), meta=e["meta"], impl=e["impl"], params=params, tags=tags,
        example=e.get("example"), **_facts(file, name, e, schema), derivative=derivative, file=file,
        arg_names=tuple(a.name for a in args),
        arg_defaults=tuple((a.name, a.has_default_value(), a.default_value if a.has_default_value() else None)
                           for a in args))


def _merged(file, defaults, entry, index):
    """(name, the entry with the family's defaults filled in), its keys and field types checked."""
    if not isinstance(entry, dict):
        _fail(file, f"#{index}", None, "expected a mapping")
    name = entry.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        _fail(file, name or f"#{index}", "name", "missing or not a lowercase identifier")
    unknown = set(entry) - ENTRY_KEYS
    if unknown:
        _fail(file, name, sorted(unknown)[0], f"unknown key (allowed: {', '.join(sorted(ENTRY_KEYS))})")
    e = {**defaults, **entry}
    if "params" in defaults and "params" in entry:
        e["params"] = {**defaults["params"], **entry["params"]}
    for k in REQUIRED:
        if k not in e or e[k] in (None, ""):
            _fail(file, name, k, "missing")
    for k, types in FIELD_TYPES.items():
        if k in e and e[k] is not None and not isinstance(e[k], types):
            expected = " or ".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
            _fail(file, name, k, f"expected {expected}, got {type(e[k]).__name__} {e[k]!r}")
    for k in ("tags", "dtypes"):
        bad_items = [t for t in e.get(k) or () if not isinstance(t, str)]
        if bad_items:
            _fail(file, name, k, f"expected a list of names, got {bad_items[0]!r} in it")
    return name, e


def _dtypes(file, name, spec) -> frozenset:
    try:
        return dt.resolve(spec)
    except KeyError as k:
        _fail(file, name, "dtypes", f"unknown dtype class {k} (known: {', '.join(sorted(dt.CLASSES))} "
              f"and dtype names)")
    except TypeError:
        _fail(file, name, "dtypes", "expected a list of dtype classes")


def _rule_and_params(file, name, e, schema):
    """The entry's meta rule and its params, each checked by the rule; the returns it produces."""
    rule = RULES.get(e["meta"])
    if rule is None:
        _fail(file, name, "meta", f"unknown meta rule '{e['meta']}' (known: {', '.join(sorted(RULES))})")
    params = e.get("params") or {}
    if not isinstance(params, dict):
        _fail(file, name, "params", "expected a mapping")
    for p, value in params.items():
        if p not in rule.params:
            _fail(file, name, f"params.{p}", f"meta rule '{rule.name}' takes no such parameter "
                  f"(it takes: {', '.join(sorted(rule.params)) or 'none'})")
        problem = rule.params[p](value)
        if problem:
            _fail(file, name, f"params.{p}", problem)
    outputs = rule.outputs(params) if callable(rule.outputs) else rule.outputs
    if len(schema.returns) != outputs:
        _fail(file, name, "signature", f"returns {len(schema.returns)} value(s), but meta rule '{rule.name}' "
              f"produces {outputs}{' with these params' if callable(rule.outputs) else ''}")
    return rule, params


def _constraints(file, name, spec, rule) -> list:
    constraints = []
    for c in spec:
        if not isinstance(c, dict) or set(c) != {"id", "text"} or not _CID.match(str(c["id"])):
            _fail(file, name, "constraints", f"each constraint is {{id: Cn, text: ...}}, got {c!r}")
        constraints.append(Constraint(c["id"], c["text"]))
    ids = [c.id for c in constraints]
    if len(set(ids)) != len(ids):
        _fail(file, name, "constraints", f"duplicate constraint id in {ids}")
    missing = [c for c in rule.constraints if c not in ids]
    if missing:
        _fail(file, name, "constraints", f"meta rule '{rule.name}' cites {missing}, which the entry does not list")
    return constraints


def _facts(file, name, e, schema) -> dict:
    """The facts code reads about the prim: layout, commutative, domain, core-set membership, kinks."""
    layout = e.get("layout")
    if layout is not None and layout not in LAYOUTS:
        _fail(file, name, "layout", f"unknown layout {layout!r} (known: {', '.join(sorted(LAYOUTS))})")
    if layout == "elementwise" and len(_tensor_arguments(schema)) > 2:
        _fail(file, name, "layout", "elementwise layout is for prims of one or two tensor operands")
    commutative = bool(e.get("commutative", False))
    if commutative and not _swappable(schema):
        _fail(file, name, "commutative", "a commutative prim takes two Tensor operands first, whose swap is a "
              "call of the same signature")
    core, optional = bool(e.get("core", False)), e.get("optional")
    if optional is not None and not optional.strip():
        _fail(file, name, "optional", "expected the reason a backend may leave the prim out, got an empty text")
    if core and optional is not None:
        _fail(file, name, "optional", "a prim of the core set (`core: true`) is not optional")
    first_order_only = e.get("first_order_only")
    if first_order_only is not None and "derivative" not in e:
        _fail(file, name, "first_order_only", "the prim has no derivative formulas")
    return dict(layout=layout, commutative=commutative, domain=_domain(file, name, schema, e.get("domain") or {}),
                core=core, optional=optional, kinks=_kinks(file, name, schema, e.get("kinks") or []),
                first_order_only=first_order_only)


def _kinks(file, name, schema, spec) -> tuple:
    """``kinks: [{at: <point set>, args: [tensor args], why: ...}]`` -> (Kink, ...)."""
    from primkit.prims.kinks import POINT_SETS
    tensors = [a.name for a in schema.arguments if "Tensor" in str(a.type)]
    out = []
    for i, k in enumerate(spec):
        where = f"kinks[{i}]"
        if not isinstance(k, dict) or set(k) != {"at", "args", "why"}:
            _fail(file, name, where, f"expected {{at: <point set>, args: [<tensor argument>, ...], why: <reason>}}, "
                  f"got {k!r}")
        if k["at"] not in POINT_SETS:
            _fail(file, name, f"{where}.at", f"unknown point set {k['at']!r} (known: {', '.join(sorted(POINT_SETS))})")
        args, arity = k["args"], POINT_SETS[k["at"]][0]
        if not isinstance(args, list) or not args or (arity is not None and len(args) != arity):
            _fail(file, name, f"{where}.args", f"'{k['at']}' takes {arity or 'one or more'} tensor argument(s), "
                  f"got {args!r}")
        bad = [a for a in args if a not in tensors]
        if bad:
            _fail(file, name, f"{where}.args", f"{bad[0]!r} is not a tensor argument (the prim's are: "
                  f"{', '.join(tensors)})")
        if not isinstance(k["why"], str) or not k["why"].strip():
            _fail(file, name, f"{where}.why", "expected the reason the prim has no derivative there")
        out.append(Kink(k["at"], tuple(args), k["why"]))
    return tuple(out)


FIELD_TYPES = {"signature": str, "doc": str, "meta": str, "impl": str, "example": str, "dtypes": list,
               "tags": list, "constraints": list, "params": dict, "layout": str, "commutative": bool, "domain": dict,
               "core": bool, "optional": str, "kinks": list, "first_order_only": str}


def _domain(file, name, schema, spec) -> dict:
    """``domain: {arg: [low, high]}``: the open interval of real values of a tensor argument where the
    prim is finite and smooth (null: unbounded) -> {arg: (low, high)}."""
    tensors = [a.name for a in _tensor_arguments(schema)]
    out = {}
    for arg, bounds in spec.items():
        if arg not in tensors:
            _fail(file, name, f"domain.{arg}", f"not a tensor argument (the prim's are: {', '.join(tensors)})")
        numbers = isinstance(bounds, list) and len(bounds) == 2 and all(
            b is None or (isinstance(b, (int, float)) and not isinstance(b, bool)) for b in bounds)
        if not numbers or None not in bounds and bounds[0] >= bounds[1]:
            _fail(file, name, f"domain.{arg}", f"expected [low, high] with low < high (null: unbounded), got {bounds!r}")
        out[arg] = tuple(bounds)
    return out


def _swappable(schema) -> bool:
    args = schema.arguments
    return len(args) >= 2 and all(a in _tensor_arguments(schema) and a.alias_info is None for a in args[:2])


def _check_functional(file, name, schema, tags):
    """A prim's schema has no overload name, and writes into an argument only if tagged `mutates`."""
    if schema.overload_name:
        _fail(file, name, "signature", f"has an overload name '.{schema.overload_name}': a prim is one "
              f"overload, write the signature as '(args) -> returns'")
    written = [a.name for a in schema.arguments if a.alias_info is not None and a.alias_info.is_write]
    if written and "mutates" not in tags:
        _fail(file, name, "signature", f"writes into {', '.join(written)} (a mutable alias annotation), but the "
              f"prim is not tagged `mutates`: prims are functional")


def parse_derivative(file, name, spec, schema, dtypes, params):
    """A ``derivative`` value -> autograd.Derivative; CatalogError naming file, prim and field."""
    try:
        derivative = autograd.parse_derivative(spec, schema)
    except autograd.FormulaError as e:
        _fail(file, name, e.field, str(e))
    if derivative.differentiable and not autograd.may_be_differentiable(dtypes, params):
        _fail(file, name, "derivative", "the prim's outputs are never floating or complex, so it is not "
              "differentiable: drop the formulas (or say `none`)")
    return derivative


def check_derivative_calls(file, name, derivative, prim_names):
    """CatalogError when a formula calls a name that is neither a prim nor a helper."""
    try:
        autograd.check_calls(derivative, prim_names)
    except autograd.FormulaError as e:
        _fail(file, name, e.field, str(e))


def load_catalog(directory: Path = CATALOG_DIR) -> tuple[PrimDef, ...]:
    prims, seen = [], {}
    files = sorted(Path(directory).glob("*.yaml"))
    if not files:
        _fail(str(directory), None, None, "no catalog files (*.yaml)")
    for path in files:
        for p in load_file(path):
            if p.name in seen:
                _fail(path.name, p.name, "name", f"duplicate: already defined in {seen[p.name]}")
            seen[p.name] = path.name
            prims.append(p)
    signatures = {p.name: p.arg_defaults for p in prims}
    for p in prims:     # formulas may call prims of any file: checked once all are known
        if p.derivative is not None:
            check_derivative_calls(p.file, p.name, p.derivative, signatures)
        if p.first_order_only is not None:
            _check_first_order_only(p, {q.name: q for q in prims})
    return tuple(prims)


def _check_first_order_only(p, by_name):
    """``first_order_only: <prim>``: a prim the formulas call that is not differentiable in some argument
    (so the formulas' own backward, second order, raises)."""
    other = by_name.get(p.first_order_only)
    if other is None or p.first_order_only not in p.derivative.calls:
        _fail(p.file, p.name, "first_order_only", f"'{p.first_order_only}' is not a prim the derivative formulas "
              f"call (they call: {', '.join(sorted(p.derivative.calls)) or 'none'})")
    if other.derivative is not None and all(f.tree is not None for f in other.derivative.formulas) \
            and other.derivative.differentiable:
        _fail(p.file, p.name, "first_order_only", f"'{other.name}' is differentiable in every argument: "
              f"second order does not raise")
