"""The catalog loader: every defect fails with one message naming file, prim and field."""
from __future__ import annotations

import re
import textwrap

import pytest
import torch

from primkit import prims
from primkit.prims import kinks
from primkit.prims.errors import CatalogError
from primkit.prims.loader import load_catalog

GOOD_ENTRY = """\
  - name: {name}
    signature: (Tensor a) -> Tensor
    doc: A test prim.
    dtypes: [integral]
    meta: elementwise
    impl: torch.abs
    constraints:
      - {{id: C1, text: same shape}}
      - {{id: C2, text: same dtype}}
      - {{id: C3, text: dtype allowed}}
      - {{id: C4, text: same device}}
"""


def write(tmp_path, body, name="fam.yaml"):
    (tmp_path / name).write_text("family: fam\nprims:\n" + textwrap.dedent(body))
    return tmp_path


def test_good_catalog_loads(tmp_path):
    (p,) = load_catalog(write(tmp_path, GOOD_ENTRY.format(name="foo")))
    assert p.name == "foo" and p.family == "fam" and torch.int64 in p.dtypes and p.arg_names == ("a",)


@pytest.mark.parametrize("edit,field", [
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    colour: red\n"), "colour"),
    (lambda s: s.replace("    doc: A test prim.\n", ""), "doc"),
    (lambda s: s.replace("dtypes: [integral]", "dtypes: [floaty]"), "dtypes"),
    (lambda s: s.replace("dtypes: [integral]", "dtypes: float"), "dtypes"),
    (lambda s: s.replace("(Tensor a) -> Tensor", "(Tensor a -> Tensor"), "signature"),
    (lambda s: s.replace("meta: elementwise", "meta: no_such_rule"), "meta"),
    (lambda s: s.replace("impl: torch.abs", "impl: torch.no_such_function"), "impl"),
    (lambda s: s.replace("      - {id: C4, text: same device}\n", ""), "constraints"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    params: {nope: 1}\n"), "params.nope"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    doc: Again.\n"), "doc"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    tags: [{a: 1}]\n"), "tags"),
    (lambda s: s.replace("impl: torch.abs", "impl: [torch.abs]"), "impl"),
    (lambda s: s.replace("impl: torch.abs", "impl: torch.os.system"), "impl"),
    (lambda s: s.replace("impl: torch.abs", "impl: torch.load"), "impl"),
    (lambda s: s.replace("(Tensor a) -> Tensor", ".out(Tensor a) -> Tensor"), "signature"),
    (lambda s: s.replace("(Tensor a) -> Tensor", "(Tensor(a!) a) -> Tensor"), "signature"),
    (lambda s: s.replace("(Tensor a) -> Tensor", "(Tensor a) -> (Tensor, Tensor)"), "signature"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    params: {out_dtype: floaty}\n"),
     "params.out_dtype"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    params: {arg_dtypes: {a: nope}}\n"),
     "params.arg_dtypes"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    layout: sideways\n"), "layout"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    layout: [contiguous]\n"), "layout"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    commutative: yes please\n"), "commutative"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    commutative: true\n"), "commutative"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    domain: {x: [0, 1]}\n"), "domain.x"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    domain: {a: [1, 0]}\n"), "domain.a"),
    (lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n    domain: {a: [0]}\n"), "domain.a"),
], ids=["unknown key", "missing field", "unknown dtype class", "dtypes not a list", "unparsable signature", "unknown meta rule",
        "unresolvable impl", "constraint the rule cites is missing", "unknown rule parameter", "duplicate key",
        "tag not a name", "impl not a string", "impl outside tensor namespaces", "impl not a tensor function",
        "overload name", "mutable alias annotation", "return the rule cannot produce", "param value not a dtype class",
        "arg_dtypes value not a dtype class", "unknown layout", "layout not a name", "commutative not a flag",
        "commutative with one operand", "domain of no tensor argument", "empty domain", "domain not a pair"])
def test_defect_names_file_prim_and_field(tmp_path, edit, field):
    write(tmp_path, edit(GOOD_ENTRY.format(name="foo")))
    with pytest.raises(CatalogError) as info:
        load_catalog(tmp_path)
    e = info.value
    assert (e.file, e.prim, e.field) == ("fam.yaml", "foo", field)
    assert str(e).startswith(f"fam.yaml: prim 'foo': field '{field}': ")


def _with(field_lines):
    return lambda s: s.replace("    doc: A test prim.\n", "    doc: A test prim.\n" + field_lines)


@pytest.mark.parametrize("edit,field,message", [
    (_with("    core: yes please\n"), "core", "expected bool, got str"),
    (_with("    optional: 3\n"), "optional", "expected str, got int"),
    (_with('    optional: "  "\n'), "optional", "expected the reason a backend may leave the prim out"),
    (_with("    core: true\n    optional: eager's numerics\n"), "optional", "a prim of the core set"),
    (_with("    kinks: {at: zero}\n"), "kinks", "expected list, got dict"),
    (_with("    kinks: [{at: zero, args: [a]}]\n"), "kinks[0]", "expected {at: <point set>"),
    (_with("    kinks: [{at: nowhere, args: [a], why: x}]\n"), "kinks[0].at", "unknown point set 'nowhere'"),
    (_with("    kinks: [{at: equal, args: [a], why: x}]\n"), "kinks[0].args", "'equal' takes 2 tensor argument"),
    (_with("    kinks: [{at: zero, args: [q], why: x}]\n"), "kinks[0].args", "'q' is not a tensor argument"),
    (_with('    kinks: [{at: zero, args: [a], why: ""}]\n'), "kinks[0].why", "expected the reason"),
    (_with("    first_order_only: foo\n"), "first_order_only", "the prim has no derivative formulas"),
], ids=["core not a flag", "optional not a reason", "optional empty", "core and optional", "kinks not a list",
        "kink without reason", "kink at unknown point set", "kink of wrong arity", "kink of no tensor argument",
        "kink with empty reason", "first_order_only without derivative"])
def test_fact_defect_names_file_prim_and_field(tmp_path, edit, field, message):
    """The per-prim facts (core-set membership, kinks, first_order_only): each bad value is refused with
    its reason (the message, not only the field: an unknown key would name the same field)."""
    write(tmp_path, edit(GOOD_ENTRY.format(name="foo")))
    with pytest.raises(CatalogError, match=re.escape(message)) as info:
        load_catalog(tmp_path)
    assert (info.value.file, info.value.prim, info.value.field) == ("fam.yaml", "foo", field)


def test_duplicate_name_across_files(tmp_path):
    write(tmp_path, GOOD_ENTRY.format(name="foo"), "a.yaml")
    write(tmp_path, GOOD_ENTRY.format(name="foo"), "b.yaml")
    with pytest.raises(CatalogError, match=r"b.yaml: prim 'foo': field 'name': duplicate: already defined in a.yaml"):
        load_catalog(tmp_path)


def test_unknown_top_level_key(tmp_path):
    (tmp_path / "x.yaml").write_text("family: x\nprims: []\nextra: 1\n")
    with pytest.raises(CatalogError, match=r"x.yaml: field 'extra': unknown key"):
        load_catalog(tmp_path)


@pytest.mark.parametrize("text, message", [
    ("family: x\ndefaults: [1, 2]\nprims: []\n", r"x.yaml: field 'defaults': expected a mapping"),
    ("family: x\nprims: []\nfamily: y\n", r"x.yaml: field 'family': given twice in one mapping \(line 3\)"),
    (b"family: x\nprims: []\n# caf\xe9\n", r"x.yaml: not UTF-8 text: byte 0xe9 at offset 25"),
    ("a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
     "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
     r"x.yaml: more than 200000 YAML nodes once aliases are expanded"),
], ids=["list defaults", "duplicate top-level key", "not utf-8", "nested anchors"])
def test_file_defects(tmp_path, text, message):
    path = tmp_path / "x.yaml"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(CatalogError, match=message):
        load_catalog(tmp_path)


def test_loader_uses_safe_load(tmp_path):
    (tmp_path / "x.yaml").write_text("family: !!python/object/apply:os.system ['true']\nprims: []\n")
    with pytest.raises(CatalogError, match="not valid YAML"):
        load_catalog(tmp_path)


def test_public_api():
    cat = prims.catalog()
    assert len(cat) >= 100 and len({p.name for p in cat}) == len(cat)
    assert prims.NAMESPACE == "primkit"
    assert prims.get("add").op is torch.ops.primkit.add.default
    assert prims.is_prim(torch.ops.primkit.add) and prims.is_prim(torch.ops.primkit.add.default)
    assert not prims.is_prim(torch.ops.aten.add.Tensor) and not prims.is_prim(torch.add)
    with pytest.raises(KeyError, match="did you mean"):
        prims.get("ad")


@pytest.mark.parametrize("prim", prims.catalog(), ids=lambda p: p.name)
def test_every_prim_is_complete(prim):
    assert prim.doc and prim.dtypes and prim.signature
    assert prim.op is getattr(torch.ops.primkit, prim.name).default
    assert prim.op._schema.name == f"primkit::{prim.name}"


def test_strict_under_real_and_fake():
    from torch._subclasses.fake_tensor import FakeTensorMode
    for mode in (None, FakeTensorMode()):
        with (mode or torch.no_grad()):
            a, b = torch.ones(2, 3), torch.ones(3)
            with pytest.raises(prims.PrimConstraintError, match=r"^add: C1: operand 'b' has shape \(3,\)"):
                torch.ops.primkit.add(a, b)
            with pytest.raises(prims.PrimConstraintError, match=r"^add: C2: .*prims do not promote"):
                torch.ops.primkit.add(a, a.double())


# --- derivative formulas (prims/autograd.py) ---------------------------------------------------

# GOOD_ENTRY is integral (no derivative needed); the derivative tests use its floating twin.
FLOAT_ENTRY = GOOD_ENTRY.replace("dtypes: [integral]", "dtypes: [float]")


def with_derivative(value, entry=None):
    return (entry or FLOAT_ENTRY.format(name="foo")) + f"    derivative: {value}\n"


def test_derivative_formulas_load(tmp_path):
    write(tmp_path, with_derivative('{a: "foo(foo(grad))"}') + FLOAT_ENTRY.format(name="bar") + "    derivative: none\n")
    foo, bar = load_catalog(tmp_path)
    assert foo.derivative.differentiable and foo.derivative.calls == {"foo"}
    assert bar.derivative is not None and not bar.derivative.differentiable


@pytest.mark.parametrize("value,field,message", [
    ('{a: "foo(grad,"}', "derivative.a", "cannot parse formula"),
    ('{a: "no_such_prim(grad)"}', "derivative.a", "calls no_such_prim, which is neither a prim nor a helper"),
    ('{a: "foo(q)"}', "derivative.a", "unknown name 'q'"),
    ('{z: "grad"}', "derivative.z", "the prim has no argument 'z'"),
    ('{a: "(lambda: grad)()"}', "derivative.a", "only prims and helpers can be called, by name"),
    ('{a: "lambda: grad"}', "derivative.a", "Lambda is not allowed"),
    ('{a: "grad.__class__"}', "derivative.a", "attribute '__class__' is not allowed"),
    ('{a: "foo(\'os\')"}', "derivative.a", "only numeric literals"),
    ('{a: "__import__(grad)"}', "derivative.a", "calls __import__, which is neither"),
    ("3", "derivative", "expected `none`, `constant` or a mapping"),
    ("{a: 3}", "derivative.a", "expected a formula string or `none`"),
    ('{a: "foo(grad, grad)"}', "derivative.a", r"foo\(...\) takes at most 1 arguments \(a\), got 2"),
    ('{a: "foo()"}', "derivative.a", r"foo\(...\) misses argument 'a'"),
    ('{a: "foo(b=grad)"}', "derivative.a", r"foo\(...\) has no argument 'b'"),
    ("[grad]", "derivative", "expected `none`, `constant` or a mapping"),
], ids=["syntax", "unknown prim", "unknown name", "no such argument", "called lambda", "lambda",
        "dunder attribute", "string", "builtin call", "not a mapping", "formula not a string", "too many arguments",
        "missing argument", "unknown keyword", "a list"])
def test_malformed_derivative_names_file_prim_and_field(tmp_path, value, field, message):
    write(tmp_path, with_derivative(value))
    with pytest.raises(CatalogError, match=message) as info:
        load_catalog(tmp_path)
    assert (info.value.file, info.value.prim, info.value.field) == ("fam.yaml", "foo", field)


def test_derivative_of_a_non_tensor_argument(tmp_path):
    entry = GOOD_ENTRY.format(name="foo").replace("(Tensor a) -> Tensor", "(Tensor a, int k) -> Tensor")
    write(tmp_path, with_derivative('{a: grad, k: grad}', entry))
    with pytest.raises(CatalogError, match="argument 'k' is not a tensor") as info:
        load_catalog(tmp_path)
    assert info.value.field == "derivative.k"


def test_every_tensor_argument_needs_a_formula_or_none(tmp_path):
    entry = GOOD_ENTRY.format(name="foo").replace("(Tensor a) -> Tensor", "(Tensor a, Tensor b) -> Tensor")
    write(tmp_path, with_derivative('{a: grad}', entry))
    with pytest.raises(CatalogError, match=r"field 'derivative': tensor argument\(s\) b need a formula or `none`"):
        load_catalog(tmp_path)


def test_missing_derivative_is_an_error(tmp_path):
    write(tmp_path, FLOAT_ENTRY.format(name="bar"))
    with pytest.raises(CatalogError, match="prim 'bar': field 'derivative': missing"):
        load_catalog(tmp_path)


def test_prim_without_tensor_inputs_needs_no_derivative(tmp_path):
    write(tmp_path, FLOAT_ENTRY.format(name="bar").replace("(Tensor a) -> Tensor", "(int n) -> Tensor"))
    (p,) = load_catalog(tmp_path)
    assert p.derivative is None


def test_formula_for_a_bool_output_prim(tmp_path):
    entry = GOOD_ENTRY.format(name="foo").replace("    doc: A test prim.\n",
                                                  "    doc: A test prim.\n    params: {out_dtype: bool}\n")
    write(tmp_path, with_derivative('{a: grad}', entry))
    with pytest.raises(CatalogError, match="field 'derivative': the prim's outputs are never floating or complex"):
        load_catalog(tmp_path)


def test_facts_are_read_from_the_catalog():
    """commutative, domain and layout are entry fields (a family may set them in defaults), read through PrimDef."""
    assert prims.get("add").commutative and prims.get("maximum").commutative and not prims.get("sub").commutative
    assert prims.get("take").layout == "contiguous" and prims.get("take").impl == "torch.take"   # indexing's default
    assert prims.get("ldexp").layout == "elementwise" and prims.get("add").layout is None
    assert prims.get("acosh").domain == {"a": (1, None)} and prims.get("xlogy").domain == {"b": (0, None)}
    assert prims.get("add").core and not prims.get("atan").core and prims.get("lgamma").optional
    assert [(k.at, k.args) for k in prims.get("clamp").kinks] == [("equal", ("a", "min")), ("equal", ("a", "max")),
                                                                  ("equal", ("min", "max"))]


@pytest.mark.parametrize("bar,message", [
    ("none", None),
    ("{a: grad}", "'bar' is differentiable in every argument"),
], ids=["reaches a none prim", "reaches a differentiable prim"])
def test_first_order_only_names_a_none_prim_the_formulas_call(tmp_path, bar, message):
    write(tmp_path, with_derivative('{a: "bar(grad)"}') + "    first_order_only: bar\n"
          + with_derivative(bar, FLOAT_ENTRY.format(name="bar")))
    if message is None:
        assert load_catalog(tmp_path)[0].first_order_only == "bar"
        return
    with pytest.raises(CatalogError, match=message) as info:
        load_catalog(tmp_path)
    assert (info.value.prim, info.value.field) == ("foo", "first_order_only")


def test_first_order_only_names_a_prim_the_formulas_call(tmp_path):
    write(tmp_path, with_derivative('{a: "foo(grad)"}') + "    first_order_only: bar\n"
          + with_derivative("none", FLOAT_ENTRY.format(name="bar")))
    with pytest.raises(CatalogError, match="'bar' is not a prim the derivative formulas call"):
        load_catalog(tmp_path)


def test_kinks_are_touched_by_name(tmp_path):
    """prims/kinks.touches reads a kink's arguments by name: clamp's bound tie is found whatever a is."""
    clamp = prims.get("clamp")
    a, lo = torch.tensor([5.0]), torch.tensor([0.0])
    assert kinks.touches(clamp, (a, lo, lo.clone())) == "the bounds tie: a kink"
    assert kinks.touches(clamp, (a, lo, lo + 1)) is None
    assert kinks.touches(prims.get("add"), (a, a)) is None
