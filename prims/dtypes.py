"""Dtype classes as data: the names a catalog entry may use in its ``dtypes`` field."""
from __future__ import annotations

import math

import torch

_BY_NAME = {
    "bool": torch.bool,
    "uint8": torch.uint8, "int8": torch.int8, "int16": torch.int16,
    "int32": torch.int32, "int64": torch.int64,
    "float16": torch.float16, "bfloat16": torch.bfloat16,
    "float32": torch.float32, "float64": torch.float64,
    "complex64": torch.complex64, "complex128": torch.complex128,
    "float8_e4m3fn": torch.float8_e4m3fn, "float8_e5m2": torch.float8_e5m2,
}
NAMES = frozenset(_BY_NAME)

# Each class is a set of dtype names or other classes.
CLASSES: dict[str, tuple[str, ...]] = {
    "int": ("uint8", "int8", "int16", "int32", "int64"),
    "signed": ("int8", "int16", "int32", "int64"),
    "float": ("float16", "bfloat16", "float32", "float64"),
    "complex": ("complex64", "complex128"),
    "real": ("int", "float"),
    "numeric": ("int", "float", "complex"),
    "integral": ("bool", "int"),
    "inexact": ("float", "complex"),
    "all": ("bool", "int", "float", "complex"),
    # storage formats for low-precision matmuls (_scaled_mm): only converted from and to
    "float8": ("float8_e4m3fn", "float8_e5m2"),
}

FLOAT = frozenset({torch.float16, torch.bfloat16, torch.float32, torch.float64})
COMPLEX = frozenset({torch.complex64, torch.complex128, torch.complex32})
INT = frozenset({torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64})

# complex <-> real counterparts (abs/real/imag of complex give the real counterpart).
REAL_OF = {torch.complex32: torch.float16, torch.complex64: torch.float32, torch.complex128: torch.float64}
COMPLEX_OF = {**{v: k for k, v in REAL_OF.items()}, torch.bfloat16: torch.complex64}


def resolve(names) -> frozenset:
    """Expand dtype names and class names to a frozenset of torch dtypes; KeyError on unknown."""
    out: set = set()
    for n in names:
        if n in _BY_NAME:
            out.add(_BY_NAME[n])
        elif n in CLASSES:
            out |= resolve(CLASSES[n])
        else:
            raise KeyError(n)
    return frozenset(out)


def by_name(name: str) -> torch.dtype:
    return _BY_NAME[name]


def short(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


# eager's C++ names of dtypes, as its error messages spell them
EAGER_NAMES = {torch.bool: "Bool", torch.uint8: "Byte", torch.int8: "Char", torch.int16: "Short", torch.int32: "Int",
               torch.int64: "Long", torch.float16: "Half", torch.bfloat16: "BFloat16", torch.float32: "Float",
               torch.float64: "Double", torch.complex64: "ComplexFloat", torch.complex128: "ComplexDouble"}


def eager_name(dtype: torch.dtype) -> str:
    return EAGER_NAMES.get(dtype, short(dtype))


def is_float(dtype) -> bool:
    return dtype in FLOAT


def is_complex(dtype) -> bool:
    return dtype in COMPLEX


def is_int(dtype) -> bool:
    return dtype in INT


def to_real(dtype):
    return REAL_OF.get(dtype, dtype)


def to_complex(dtype):
    return COMPLEX_OF.get(dtype, dtype)


def lowest(dtype) -> float | int | bool:
    """The smallest value of ``dtype`` (-inf for a floating dtype, False for bool): max's identity."""
    if dtype == torch.bool:
        return False
    return -math.inf if dtype.is_floating_point else torch.iinfo(dtype).min


def highest(dtype) -> float | int | bool:
    """The largest value of ``dtype`` (inf for a floating dtype, True for bool): min's identity."""
    if dtype == torch.bool:
        return True
    return math.inf if dtype.is_floating_point else torch.iinfo(dtype).max
