"""OpInfo entries of the matrix products (decompositions/linalg/products.py, einsum.py): mm, bmm, matmul,
the add* family, addr, inner, tensordot, einsum and the out_dtype overloads. Samples are operand shape
lists; each shape list also runs with transposed operands.
"""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from primkit.opinfo.definitions.common import make_f32
from primkit.opinfo.definitions.linalg.common import F32, F64, _linalg_entry, aten
from primkit.opinfo.definitions.shape.common import cases, errors
from primkit.opinfo.dtypes import ALL, FLOATING, INTEGRAL, NUMERIC
from primkit.opinfo.samples import make


# Integer products run on CPU only: eager's CUDA matmul kernels take floating dtypes.
DTYPES = FLOATING | INTEGRAL


def _transposed(t):
    """The same values laid out column-major in the last two dims."""
    return t.mT.contiguous().mT if t.dim() >= 2 else t


def _products(shape_lists):
    """Knob-free generator of samples from operand shape lists, each also with transposed operands."""
    def gen(op, device, dtype):
        for shapes in shape_lists:
            operands = [make(s, device, dtype) for s in shapes]
            yield SampleInput(operands[0], tuple(operands[1:]), name=f"{shapes}")
            if any(len(s) >= 2 for s in shapes):
                yield SampleInput(_transposed(operands[0]), tuple(_transposed(t) for t in operands[1:]),
                                  name=f"{shapes} transposed")
            if all(len(s) >= 1 and min(s, default=1) > 1 for s in shapes):
                noncontig = [make(s, device, dtype, noncontiguous=True) for s in shapes]
                yield SampleInput(noncontig[0], tuple(noncontig[1:]), name=f"{shapes} noncontiguous")
    return gen


def _scaled(shape_lists):
    """add* ops: the products above, then beta/alpha variants; beta=0 ignores a nan input."""
    products = _products(shape_lists)

    def gen(op, device, dtype):
        yield from products(op, device, dtype)
        shapes = shape_lists[0]
        operands = [make(s, device, dtype) for s in shapes]
        floating = dtype.is_floating_point
        yield SampleInput(operands[0], tuple(operands[1:]), {"beta": 0.5 if floating else 3,
                                                              "alpha": 2 if floating else -2}, name="beta, alpha")
        if floating:
            nan_input = torch.full(shapes[0], float("nan"), device=device, dtype=dtype)
            yield SampleInput(nan_input, tuple(operands[1:]), {"beta": 0}, name="beta=0 ignores nan input")
    return gen


def _errors(cases):
    def gen(op, device):
        for shapes, dtypes, error, match in cases:
            dtypes = dtypes or (torch.float32,) * len(shapes)
            operands = [make(s, device, d) for s, d in zip(shapes, dtypes)]
            yield ErrorInput(SampleInput(operands[0], tuple(operands[1:])), error, match)
    return gen


def _product(name, op, shape_lists, *, aten=None, errors=(), inplace=None, supports_out=True, scaled=False,
             dtypes=DTYPES, tolerances=None, xfails=()):
    return OpInfo(name=name, op=op, aten=aten or (f"aten::{name}",),
                  sample_inputs=(_scaled if scaled else _products)(shape_lists), error_inputs=_errors(errors),
                  dtypes=frozenset(dtypes), dtypes_cuda=FLOATING, inplace=inplace, supports_out=supports_out,
                  tolerances=tolerances or {}, xfails=tuple(xfails), family="linalg")


MATMUL_SHAPES = (
    [(4,), (4,)], [(3, 4), (4,)], [(3, 4), (4, 5)], [(2, 3, 4), (4,)], [(4,), (2, 4, 5)],
    [(2, 3, 4), (4, 5)], [(3, 4), (2, 4, 5)], [(2, 3, 4), (2, 4, 5)], [(2, 1, 3, 4), (5, 4, 6)],
    [(0, 3, 4), (4, 5)], [(3, 0), (0, 5)], [(1, 1), (1, 1)],
)
# add* ops with float16/bfloat16 round once after scaling (eager) or after the product and
# again after scaling (where a backend's kernel differs): allow one more rounding.
SCALED_TOLERANCES = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (2e-2, 2e-2)}

# eager's addbmm rounds to float16/bfloat16 after each batch's product; the decomposition
# accumulates the batch in float32 and rounds once.
ADDBMM_TOLERANCES = {torch.float16: (1e-2, 1e-2), torch.bfloat16: (5e-2, 5e-2)}

ENTRIES = [
    _product("mm", torch.mm, [[(3, 4), (4, 5)], [(0, 4), (4, 5)], [(3, 0), (0, 5)], [(1, 1), (1, 1)]],
             errors=[([(3,), (4, 5)], None, RuntimeError, "self must be a matrix"),
                     ([(3, 4), (3, 4)], None, RuntimeError, "cannot be multiplied"),
                     ([(3, 4), (4, 5)], (F32, F64), RuntimeError, "same dtype"),
                     ([(3, 4), (4, 5)], (torch.bool, torch.bool), RuntimeError, "")]),
    _product("bmm", torch.bmm, [[(2, 3, 4), (2, 4, 5)], [(0, 3, 4), (0, 4, 5)], [(2, 3, 0), (2, 0, 5)]],
             errors=[([(3, 4), (4, 5)], None, RuntimeError, "must be a 3D tensor"),
                     ([(2, 3, 4), (3, 4, 5)], None, RuntimeError, "Expected size for first two dimensions")]),
    _product("matmul", torch.matmul, MATMUL_SHAPES, aten=("aten::matmul",),
             errors=[([(), (3, 4)], None, RuntimeError, "need to be at least 1D"),
                     ([(3, 4), (3, 4)], None, RuntimeError, "cannot be multiplied"),
                     ([(2, 3, 4), (3, 4, 5)], None, RuntimeError, "must match the size")]),
    _product("nn.functional.linear", torch.nn.functional.linear,
             [[(3, 4), (5, 4), (5,)], [(2, 3, 4), (5, 4), (5,)], [(2, 3, 4), (5, 4)],
              [(0, 4), (5, 4), (5,)]],
             aten=("aten::linear",), supports_out=False,
             # bfloat16: the decomposition rounds x @ w.T to bfloat16 before adding the bias, eager's addmm
             # adds it first (one rounding); measured 0.0176 on a result near 0 (bias cancels the product)
             tolerances={torch.bfloat16: (2e-2, 1.6e-2)},
             errors=[([(3, 4), (5, 3)], None, RuntimeError, "cannot be multiplied")]),
    # vector @ matrix: eager's CompositeImplicit matmul ends in an in-place squeeze_ (the table's matmul
    # entry runs instead; see decompositions.composite).
    _product("matmul_vector_matrix", torch.matmul, [[(4,), (4, 5)], [(0,), (0, 5)]], aten=("aten::matmul",)),
    _product("nn.functional.linear_vector_input", torch.nn.functional.linear, [[(4,), (5, 4), (5,)], [(4,), (5, 4)]],
             aten=("aten::linear",), supports_out=False),
    _product("dot", torch.dot, [[(5,), (5,)], [(0,), (0,)], [(1,), (1,)]],
             errors=[([(3, 4), (3, 4)], None, RuntimeError, "1D tensors expected"),
                     ([(3,), (4,)], None, RuntimeError, "inconsistent tensor size"),
                     ([(3,), (3,)], (F32, F64), RuntimeError, "same dtype")]),
    _product("vdot", torch.vdot, [[(5,), (5,)], [(0,), (0,)]],
             errors=[([(3,), (4,)], None, RuntimeError, "inconsistent tensor size")]),
    _product("mv", torch.mv, [[(3, 4), (4,)], [(0, 4), (4,)], [(3, 0), (0,)]],
             errors=[([(3,), (3,)], None, RuntimeError, "vector \\+ matrix @ vector expected"),
                     ([(3, 4), (3,)], None, RuntimeError, "size mismatch")]),
    _product("outer", torch.outer, [[(3,), (4,)], [(0,), (4,)], [(1,), (1,)]], aten=("aten::outer",),
             errors=[([(3, 1), (3,)], None, RuntimeError, "Expected 1-D argument")]),
    _product("addmm", torch.addmm, [[(3, 5), (3, 4), (4, 5)], [(5,), (3, 4), (4, 5)], [(1, 5), (3, 4), (4, 5)],
                                    [(), (3, 4), (4, 5)], [(3, 5), (3, 0), (0, 5)]],
             scaled=True, inplace=torch.Tensor.addmm_, tolerances=SCALED_TOLERANCES,
             errors=[([(4,), (3, 4), (4, 5)], None, RuntimeError, "The expanded size"),
                     ([(3, 5), (3, 4), (3, 5)], None, RuntimeError, "cannot be multiplied")]),
    _product("addmv", torch.addmv, [[(3,), (3, 4), (4,)], [(), (3, 4), (4,)], [(3,), (3, 0), (0,)]],
             scaled=True, inplace=torch.Tensor.addmv_, tolerances=SCALED_TOLERANCES,
             errors=[([(3,), (3, 4), (3,)], None, RuntimeError, "size mismatch")]),
    _product("baddbmm", torch.baddbmm, [[(2, 3, 5), (2, 3, 4), (2, 4, 5)], [(3, 5), (2, 3, 4), (2, 4, 5)],
                                        [(5,), (2, 3, 4), (2, 4, 5)]],
             scaled=True, inplace=torch.Tensor.baddbmm_, tolerances=SCALED_TOLERANCES,
             errors=[([(2, 3, 5), (2, 3, 4), (3, 4, 5)], None, RuntimeError, "")]),
    _product("addbmm", torch.addbmm, [[(3, 5), (2, 3, 4), (2, 4, 5)], [(3, 5), (0, 3, 4), (0, 4, 5)]],
             scaled=True, inplace=torch.Tensor.addbmm_, tolerances=ADDBMM_TOLERANCES,
             errors=[([(3, 5), (2, 3, 4), (3, 4, 5)], None, RuntimeError, "")]),
    _product("addbmm_broadcast_input", torch.addbmm, [[(5,), (2, 3, 4), (2, 4, 5)]], aten=("aten::addbmm",),
             inplace=torch.Tensor.addbmm_, tolerances=ADDBMM_TOLERANCES,
             xfails=[XFail("inplace", "eager's addbmm_ resizes a broadcastable self of shape (5,) to the product's "
                                      "(3, 5); primkit does not resize in-place or out= tensors", raises=RuntimeError)]),
    OpInfo(name="einsum", op=lambda equation, *operands: torch.einsum(equation, *operands), aten=("aten::einsum",),
           sample_inputs=lambda op, device, dtype: (
               SampleInput(eq, tuple(make(s, device, dtype) for s in shapes), name=eq) for eq, shapes in (
                   ("ij,jk->ik", [(3, 4), (4, 5)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
                   ("i,j->ij", [(3,), (4,)]), ("ij->ji", [(3, 4)]), ("bij,bkj->bik", [(2, 3, 4), (2, 5, 4)]),
                   ("ij,ij->ij", [(3, 4), (3, 4)]))),
           dtypes=FLOATING, family="linalg"),
    _product("tensordot", lambda a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1])),
             [[(2, 3, 4), (3, 4, 5)]], aten=("aten::tensordot",), supports_out=False),
]


def _addr_samples(op, device, dtype):
    v1, v2 = make((3,), device, dtype), make((4,), device, dtype)
    for shape in ((3, 4), (4,), (1, 4), ()):
        yield SampleInput(make(shape, device, dtype), (v1, v2), name=f"input {shape}")
    yield SampleInput(make((4, 3), device, dtype).T, (v1, v2), name="transposed input")
    yield SampleInput(make((3, 4), device, dtype), (v1, make((8,), device, dtype)[::2]), name="strided vec2")
    yield SampleInput(make((0, 4), device, dtype), (make((0,), device, dtype), v2), name="empty")
    if dtype == torch.bool:
        yield SampleInput(make((3, 4), device, dtype), (v1, v2), {"beta": False, "alpha": True}, name="beta=False")
        yield SampleInput(make((3, 4), device, dtype), (v1, v2), {"beta": True, "alpha": False}, name="alpha=False")
        return
    integral = dtype in INTEGRAL
    yield SampleInput(make((3, 4), device, dtype), (v1, v2), {"beta": 3 if integral else 0.5,
                                                               "alpha": -2 if integral else 1.5}, name="beta, alpha")
    if not integral:
        yield SampleInput(torch.full((3, 4), float("nan"), device=device, dtype=dtype), (v1, v2), {"beta": 0},
                          name="beta=0 ignores nan input")
        yield SampleInput(make((3, 4), device, torch.int64), (v1, v2), name="int64 input, float vectors")


def _addr_errors(op, device):
    yield ErrorInput(SampleInput(make_f32((3, 4), device), (make_f32((1, 3), device), make_f32((4,), device))), RuntimeError,
                     "Expected 1-D argument vec1")
    yield ErrorInput(SampleInput(make_f32((3, 4), device, torch.int64), (make_f32((3,), device, torch.int64),
                                                                    make_f32((4,), device, torch.int64)), {"beta": 0.5}),
                     RuntimeError, "must not be a floating point number")
    yield ErrorInput(SampleInput(make_f32((3, 4), device), (make_f32((3,), device), make_f32((4,), device)), {"beta": True}),
                     RuntimeError, "Boolean beta only supported for Boolean results")


def _inner_samples(op, device, dtype):
    for sa, sb in (((2, 3), (4, 3)), ((3,), (3,)), ((), (4, 3)), ((2, 3), ()), ((3,), (2, 4, 3)), ((2, 1, 3), (4, 3)),
                   ((0, 3), (4, 3)), ((2, 0), (4, 0))):
        yield SampleInput(make(sa, device, dtype), (make(sb, device, dtype),), name=f"{sa} {sb}")
    yield SampleInput(make((3, 2), device, dtype).T, (make((3, 4), device, dtype).T,), name="transposed")


def _inner_errors(op, device):
    yield ErrorInput(SampleInput(make_f32((2, 3), device), (make_f32((4, 2), device),)), RuntimeError,
                     "the last dimension must match")
    yield ErrorInput(SampleInput(make_f32((2, 3), device), (make_f32((4, 3), device, F64),)), RuntimeError, "same dtype")


def _tensordot_samples(op, device, dtype):
    for sa, sb, dims in (((2, 3, 4), (3, 4, 5), 2), ((3, 4), (4, 5), 1), ((3, 4), (5, 6), 0),
                         ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])), ((2, 3, 4), (5, 3), ([-2], [-1])),
                         ((2, 1, 4), (3, 4), ([1, 2], [0, 1])), ((2, 3), (1, 5), ([1], [0])),
                         ((0, 3), (3, 2), 1), ((2, 3), (3, 0), 1)):
        yield SampleInput(make(sa, device, dtype), (make(sb, device, dtype),), {"dims": dims},
                          name=f"{sa} {sb} dims={dims}")
    yield SampleInput(make((4, 3), device, dtype).T, (make((5, 4), device, dtype).T,), {"dims": 1}, name="transposed")


def _tensordot_errors(op, device):
    yield ErrorInput(SampleInput(make_f32((2, 3), device), (make_f32((3, 4), device),), {"dims": ([1], [0, 1])}), RuntimeError,
                     "same length")
    yield ErrorInput(SampleInput(make_f32((2, 3), device), (make_f32((3, 4), device, F64),), {"dims": 1}), RuntimeError,
                     "same dtype")
    yield ErrorInput(SampleInput(make_f32((2, 3), device), (make_f32((4, 4), device),), {"dims": 1}), RuntimeError,
                     "contracted dimensions need to match")


EINSUM_CASES = (
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("iij->ji", [(3, 3, 4)]), ("ij->", [(3, 4)]), ("ij->j", [(3, 4)]),
    ("...i->...", [(2, 3, 4)]), ("i...->...", [(2, 3, 4)]), ("ij,jk", [(3, 4), (4, 5)]),
    ("ij,jk->ki", [(3, 4), (4, 5)]), ("i,i->", [(3,), (3,)]), ("ijk,jk->ik", [(2, 3, 4), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]), ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]), ("i,i->i", [(1,), (3,)]), ("ab,cd->cadb", [(2, 3), (4, 5)]),
    ("Ab,bA->", [(2, 3), (3, 2)]), ("ij,jk->ik", [(0, 4), (4, 5)]), ("ij,jk->ik", [(3, 0), (0, 5)]),
    ("b i j , b j k -> b k", [(2, 3, 4), (2, 4, 5)]),
)


def _einsum_samples(op, device, dtype):
    for equation, shapes in EINSUM_CASES:
        yield SampleInput(equation, tuple(make(s, device, dtype) for s in shapes), name=f"{equation} {shapes}")
    yield SampleInput("ij,jk->ik", (make((4, 3), device, dtype).T, make((5, 4), device, dtype).T), name="transposed")


def _einsum_errors(op, device):
    yield ErrorInput(SampleInput("i,i->i", (make_f32((2,), device), make_f32((3,), device))), RuntimeError,
                     "does not broadcast with previously seen size")
    yield ErrorInput(SampleInput("ij->i", (make_f32((3,), device),)), RuntimeError, "does not match the number of dimensions")
    yield ErrorInput(SampleInput("ii->i", (make_f32((2, 3), device),)), RuntimeError, "is repeated for operand 0")
    yield ErrorInput(SampleInput("i->j", (make_f32((3,), device),)), RuntimeError, "does not appear in the equation")


OUT_DTYPE_CUDA = frozenset({torch.float16, torch.bfloat16, F32, F64})


def _out_dtype_samples(shapes, *, scaled=False):
    def gen(op, device, dtype):
        for out_dtype in {dtype, F32} if dtype in (torch.float16, torch.bfloat16) else {dtype}:
            operands = [make(s, device, dtype) for s in shapes]
            yield SampleInput(operands[0], tuple(operands[1:]), {"out_dtype": out_dtype},
                              name=f"{shapes} -> {out_dtype}")
            if scaled:
                yield SampleInput(operands[0], tuple(operands[1:]), {"out_dtype": out_dtype, "beta": 0.5, "alpha": 2},
                                  name=f"beta, alpha -> {out_dtype}")
    return gen


def _out_dtype_errors(shapes):
    def gen(op, device):
        operands = [make_f32(s, device, torch.float16) for s in shapes]
        if device == "cpu":
            yield ErrorInput(SampleInput(operands[0], tuple(operands[1:]), {"out_dtype": F32}), NotImplementedError,
                             "CPU")
        else:
            yield ErrorInput(SampleInput(operands[0], tuple(operands[1:]), {"out_dtype": F64}), RuntimeError,
                             "out_dtype must be the same as input dtype or fp32")
    return gen


def _out_dtype_entry(name, op, shapes, *, scaled=False):
    return _linalg_entry(f"{name}_out_dtype", op, (f"aten::{name}.dtype", f"aten::{name}.dtype_out"),
                 _out_dtype_samples(shapes, scaled=scaled), dtypes=frozenset(), dtypes_cuda=OUT_DTYPE_CUDA,
                 supports_out=True, errors=_out_dtype_errors(shapes), supports_autograd=False)


ENTRIES += [
    _linalg_entry("addr", torch.addr, ("aten::addr", "aten::addr.out", "aten::addr_"), _addr_samples, dtypes=ALL,
                  inplace=torch.Tensor.addr_, supports_out=True, errors=_addr_errors),
    _linalg_entry("inner", torch.inner, ("aten::inner", "aten::inner.out"), _inner_samples, dtypes=NUMERIC, supports_out=True,
                  errors=_inner_errors),
    _linalg_entry("tensordot_dims", torch.tensordot, ("aten::tensordot", "aten::tensordot.out"), _tensordot_samples,
                  dtypes=NUMERIC, supports_out=True, errors=_tensordot_errors),
    _linalg_entry("einsum_labels", lambda equation, *operands: torch.einsum(equation, *operands), ("aten::einsum",),
                  _einsum_samples, dtypes=NUMERIC, errors=_einsum_errors),
    _out_dtype_entry("mm", torch.mm, [(3, 4), (4, 5)]),
    _out_dtype_entry("bmm", torch.bmm, [(2, 3, 4), (2, 4, 5)]),
    _out_dtype_entry("addmm", torch.addmm, [(3, 5), (3, 4), (4, 5)], scaled=True),
    _out_dtype_entry("baddbmm", torch.baddbmm, [(2, 3, 5), (2, 3, 4), (2, 4, 5)], scaled=True),
]
