"""The ONNX translation table of the core prims, as data: which ONNX op each prim becomes, and the
dtypes onnxruntime's CPU provider computes that op in.

Prims have strict semantics (operands of one shape and one dtype, no implicit promotion), so an
elementwise prim is one ONNX op on the same operands. Where the CPU provider has no kernel for the
operand dtype, the translator computes in the wider type of ``WIDER`` and casts the result back:
exact, because eager computes float16 and bfloat16 elementwise ops in float32 on CPU and rounds
once, and an integer op modulo 2**32 keeps its value modulo 2**8 or 2**16 (eager's wraparound).
A dtype with no exact wider type (float64 convolution) is an error, never an approximation.

Prims that no single ONNX op matches are written as small subgraphs in ``export/onnx_subgraphs.py``
(``SUBGRAPHS`` names them); together the two tables hold one translator per core prim.
"""
from __future__ import annotations

import torch
from onnx import TensorProto

OPSET = 18
"""The ONNX opset of every exported model (BitwiseAnd, ReduceMax's axes input and ScatterElements'
reduction attribute need 18)."""

DTYPES = {
    torch.bool: TensorProto.BOOL, torch.uint8: TensorProto.UINT8, torch.int8: TensorProto.INT8,
    torch.int16: TensorProto.INT16, torch.int32: TensorProto.INT32, torch.int64: TensorProto.INT64,
    torch.float16: TensorProto.FLOAT16, torch.bfloat16: TensorProto.BFLOAT16,
    torch.float32: TensorProto.FLOAT, torch.float64: TensorProto.DOUBLE,
}
"""torch dtype -> ONNX element type: every dtype an exported graph holds (ONNX has complex types,
but onnxruntime runs no arithmetic on them: complex values are an export error)."""

WIDER = {torch.float16: torch.float32, torch.bfloat16: torch.float32, torch.int8: torch.int32,
         torch.int16: torch.int32, torch.uint8: torch.int32, torch.bool: torch.int32}
"""Where an op has no CPU kernel for a dtype, it computes in this one (exact: see the module doc)."""

_F = frozenset({torch.float32, torch.float64})
_FI = _F | {torch.int32, torch.int64}
_ALL = frozenset(DTYPES)

ORT_DTYPES = {
    "Add": _FI, "Sub": _FI, "Mul": _FI, "Div": _FI, "Pow": _FI, "Max": _FI, "Min": _FI, "Abs": _FI, "Neg": _FI,
    "Exp": _F, "Log": _F, "Sqrt": _F, "Erf": frozenset({torch.float32}), "Sin": _F, "Cos": _F, "Floor": _F, "Ceil": _F, "Round": _F,
    "Atan": frozenset({torch.float32}),
    "Equal": _FI | {torch.bool}, "Less": _FI, "LessOrEqual": _FI, "Greater": _FI,
    "Where": _FI | {torch.uint8},
    "ReduceSum": _FI, "ReduceProd": _F, "ReduceMax": _FI | {torch.int8, torch.uint8},
    "ReduceMin": _FI | {torch.int8, torch.uint8}, "ArgMax": _F | {torch.int32}, "ArgMin": _F | {torch.int32},
    "MatMul": _FI, "Expand": _ALL - {torch.bfloat16}, "Pad": _ALL - {torch.bfloat16}, "Conv": frozenset({torch.float32}), "ConvTranspose": frozenset({torch.float32}),
}
"""ONNX op -> the operand dtypes onnxruntime's CPU provider computes it in; ops not listed (data
movement: Reshape, Transpose, Gather, Cast, ...) take every dtype of ``DTYPES``."""

ELEMENTWISE = {
    # prim: ONNX op (operands of the prim's dtype; the result in the prim's output dtype)
    "add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "pow": "Pow", "maximum": "Max", "minimum": "Min",
    "neg": "Neg", "abs": "Abs", "exp": "Exp", "log": "Log", "sqrt": "Sqrt", "erf": "Erf", "sin": "Sin",
    "cos": "Cos", "floor": "Floor", "round": "Round",
    "eq": "Equal", "lt": "Less", "le": "LessOrEqual",
    "bitwise_and": "BitwiseAnd", "bitwise_or": "BitwiseOr", "bitwise_xor": "BitwiseXor", "bitwise_not": "BitwiseNot",
    "matmul": "MatMul",
}

BOOLEAN = {"mul": "And", "maximum": "Or", "minimum": "And", "bitwise_and": "And", "bitwise_or": "Or",
           "bitwise_xor": "Xor", "bitwise_not": "Not"}
"""On bool operands these prims are logic ops (ONNX's arithmetic ops take no bool)."""

REDUCTIONS = {"sum": "ReduceSum", "prod": "ReduceProd", "amax": "ReduceMax", "amin": "ReduceMin"}
"""prim(a, dims) -> ONNX reduction over ``dims`` (keepdims=0); an empty ``dims`` is the identity."""

ARG_REDUCTIONS = {"argmax": "ArgMax", "argmin": "ArgMin"}

IDENTITY = ("clone", "copy_strided")
"""Prims that change only a layout (strides), which an ONNX value does not have."""

COMPLEX_ONLY = ("real", "imag", "complex")
"""Prims whose operand or result is complex: ONNX Runtime has no complex arithmetic, so their
translator raises (the export error names the prim, its dtype and the module)."""

SUBGRAPHS = (
    "atan2", "trunc_divide", "logical_not", "logical_and", "logical_or", "shift_left", "shift_right_arithmetic",
    "where", "convert_element_type", "broadcast_in_dim", "reshape", "permute", "squeeze", "expand_dims", "slice",
    "rev", "pad", "cat", "as_strided", "convolution", "gather", "scatter", "scatter_add", "index_select", "full",
    "iota", "scalar_tensor", "copy_to",
)
"""Prims translated by a function of ``export/onnx_subgraphs.py`` of the same name."""
