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

import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import torch
import yaml

from prims import autograd
from prims import dtypes as dt
from prims.errors import CatalogError
from prims.meta import RULES

CATALOG_DIR = Path(__file__).parent / "catalog"

FILE_KEYS = {"family", "doc", "defaults", "prims"}
ENTRY_KEYS = {"name", "signature", "doc", "dtypes", "meta", "impl", "constraints", "params", "tags", "example",
              "derivative"}
REQUIRED = ("name", "signature", "doc", "dtypes", "meta", "impl")
TAGS = {"view", "mutates", "nondeterministic", "data_dependent", "random", "stateful"}
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_CID = re.compile(r"^C[1-9][0-9]*$")


@dataclass(frozen=True)
class Constraint:
    id: str
    text: str


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
    derivative: object = field(default=None, hash=False, compare=False)   # autograd.Derivative or None
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
        import prims.reference as obj
        if len(parts) == 3:
            try:
                obj = importlib.import_module(f"prims.reference.{parts[1]}")
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
    return obj if callable(obj) else None


def _parse_signature(file, name, signature):
    try:
        schema = torch._C.parse_schema(f"primkit::{name}{signature}")
    except RuntimeError as e:
        _fail(file, name, "signature", f"cannot parse '{signature}': {str(e).splitlines()[0]}")
    return schema


def load_file(path: Path) -> list[PrimDef]:
    file = path.name
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as e:
        _fail(file, None, None, f"not valid YAML: {e}")
    if not isinstance(data, dict):
        _fail(file, None, None, "expected a mapping with keys family, doc, defaults, prims")
    unknown = set(data) - FILE_KEYS
    if unknown:
        _fail(file, None, sorted(unknown)[0], f"unknown key (allowed: {', '.join(sorted(FILE_KEYS))})")
    for k in ("family", "prims"):
        if k not in data:
            _fail(file, None, k, "missing")
    family = data["family"]
    defaults = data.get("defaults") or {}
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


def _entry(file, family, defaults, entry, index) -> PrimDef:
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
    schema = _parse_signature(file, name, e["signature"])
    try:
        dtypes = dt.resolve(e["dtypes"])
    except KeyError as k:
        _fail(file, name, "dtypes", f"unknown dtype class {k} (known: {', '.join(sorted(dt.CLASSES))} "
              f"and dtype names)")
    except TypeError:
        _fail(file, name, "dtypes", "expected a list of dtype classes")
    rule = RULES.get(e["meta"])
    if rule is None:
        _fail(file, name, "meta", f"unknown meta rule '{e['meta']}' (known: {', '.join(sorted(RULES))})")
    params = e.get("params") or {}
    if not isinstance(params, dict):
        _fail(file, name, "params", "expected a mapping")
    for p in params:
        if p not in rule.params:
            _fail(file, name, f"params.{p}", f"meta rule '{rule.name}' takes no such parameter "
                  f"(it takes: {', '.join(sorted(rule.params)) or 'none'})")
    constraints = []
    for c in e.get("constraints") or []:
        if not isinstance(c, dict) or set(c) != {"id", "text"} or not _CID.match(str(c["id"])):
            _fail(file, name, "constraints", f"each constraint is {{id: Cn, text: ...}}, got {c!r}")
        constraints.append(Constraint(c["id"], c["text"]))
    ids = [c.id for c in constraints]
    if len(set(ids)) != len(ids):
        _fail(file, name, "constraints", f"duplicate constraint id in {ids}")
    missing = [c for c in rule.constraints if c not in ids]
    if missing:
        _fail(file, name, "constraints", f"meta rule '{rule.name}' cites {missing}, which the entry does not list")
    if resolve_impl(e["impl"]) is None:
        _fail(file, name, "impl", f"'{e['impl']}' does not name a torch function or a prims.reference function")
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
        example=e.get("example"), derivative=derivative, file=file, arg_names=tuple(a.name for a in args),
        arg_defaults=tuple((a.name, a.has_default_value(), a.default_value if a.has_default_value() else None)
                           for a in args))


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
    for p in prims:     # formulas may call prims of any file: checked once all are known
        if p.derivative is not None:
            check_derivative_calls(p.file, p.name, p.derivative, seen)
    return tuple(prims)
