"""OpInfo entries: matrix products. Samples are operand shape lists; each shape list also runs
with transposed operands."""
from __future__ import annotations

import torch

from opinfo.core import ErrorInput, OpInfo, SampleInput, XFail
from opinfo.dtypes import FLOATING, INTEGRAL
from opinfo.samples import make

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


F32, F64 = torch.float32, torch.float64
MATMUL_SHAPES = (
    [(4,), (4,)], [(3, 4), (4,)], [(3, 4), (4, 5)], [(2, 3, 4), (4,)], [(4,), (2, 4, 5)],
    [(2, 3, 4), (4, 5)], [(3, 4), (2, 4, 5)], [(2, 3, 4), (2, 4, 5)], [(2, 1, 3, 4), (5, 4, 6)],
    [(0, 3, 4), (4, 5)], [(3, 0), (0, 5)], [(1, 1), (1, 1)],
)
# add* ops with float16/bfloat16 round once after scaling (eager) or after the product and
# again after scaling (where a backend's kernel differs): allow one more rounding.
SCALED_TOLERANCES = {torch.float16: (2e-3, 2e-3), torch.bfloat16: (2e-2, 2e-2)}

SQUEEZE_INPLACE = "the trace reaches aten::squeeze_.dim (matmul's 1-d left operand), which has no decomposition yet"
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
             xfails=[XFail("out", "eager's CompositeImplicit matmul.out calls mm.out on a view of out and relies on "
                                  "the alias; the decomposed mm.out returns a new tensor (copy_to), so the trace "
                                  "copies a (6, 5) result into the (2, 3, 5) out")],
             errors=[([(), (3, 4)], None, RuntimeError, "need to be at least 1D"),
                     ([(3, 4), (3, 4)], None, RuntimeError, "cannot be multiplied"),
                     ([(2, 3, 4), (3, 4, 5)], None, RuntimeError, "must match the size")]),
    _product("nn.functional.linear", torch.nn.functional.linear,
             [[(3, 4), (5, 4), (5,)], [(2, 3, 4), (5, 4), (5,)], [(2, 3, 4), (5, 4)],
              [(0, 4), (5, 4), (5,)]],
             aten=("aten::linear",), supports_out=False,
             errors=[([(3, 4), (5, 3)], None, RuntimeError, "cannot be multiplied")]),
    # vector @ matrix: eager's CompositeImplicit matmul ends in an in-place squeeze_.
    _product("matmul_vector_matrix", torch.matmul, [[(4,), (4, 5)], [(0,), (0, 5)]], aten=("aten::matmul",),
             xfails=[XFail(t, SQUEEZE_INPLACE) for t in ("values", "strides", "out")]),
    _product("nn.functional.linear_vector_input", torch.nn.functional.linear, [[(4,), (5, 4), (5,)], [(4,), (5, 4)]],
             aten=("aten::linear",), supports_out=False,
             xfails=[XFail(t, SQUEEZE_INPLACE) for t in ("values", "strides")]),
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
                                      "(3, 5); primkit does not resize in-place or out= tensors")]),
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
