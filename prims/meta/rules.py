"""The registry of meta rules: ``meta_rule`` registers a family's rule in ``RULES`` with the YAML
``params`` it reads (each with its check) and the constraint ids it cites; ``TensorMeta`` is what a
rule returns."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class TensorMeta:
    shape: tuple
    strides: tuple
    dtype: object
    device: object
    # A view's place in its storage, as the real kernel's result has it (a copy of the operand's whole
    # storage): the offset in elements of ``dtype`` and the storage's size in bytes. None: a new tensor,
    # offset 0, its storage just large enough.
    storage_offset: object = 0
    storage_nbytes: object = None


@dataclass(frozen=True)
class MetaRule:
    name: str
    fn: Callable
    params: dict           # YAML `params` key this rule reads -> its check (value -> problem or None)
    constraints: tuple     # constraint ids this rule may raise
    outputs: object = 1    # how many results: a number, or a function of the entry's params


RULES: dict[str, MetaRule] = {}


def meta_rule(name: str, *, params=None, constraints=(), outputs=1):
    def deco(fn):
        if name in RULES:
            raise ValueError(f"meta rule '{name}' registered twice")
        RULES[name] = MetaRule(name, fn, dict(params or {}), tuple(constraints), outputs)
        return fn
    return deco


# Checks of YAML `params` values, for ``meta_rule(params={key: check})``: each returns what is
# wrong with a value, or None.
def one_of(*allowed):
    def check(value):
        if isinstance(value, (list, dict)) or value not in allowed:
            return f"expected one of {', '.join(map(str, allowed))}, got {value!r}"
        return None
    return check


def flag(value):
    return None if isinstance(value, bool) else f"expected true or false, got {value!r}"


def count(value):
    return None if type(value) is int and value >= 0 else f"expected a non-negative integer, got {value!r}"


def listed(check):
    """A value or a list of values (one per output), each passing ``check``."""
    def listed_check(value):
        for v in value if isinstance(value, list) else [value]:
            problem = check(v)
            if problem:
                return problem
        return None
    return listed_check


def dtype_class_per_argument(value):
    from primkit.prims import dtypes as dt
    if not isinstance(value, dict):
        return f"expected a mapping of argument name to dtype class, got {value!r}"
    for arg, cls in value.items():
        try:
            dt.resolve([cls])
        except (KeyError, TypeError):
            return f"argument {arg!r}: {cls!r} is not a dtype class or dtype name"
    return None


def is_tensor_like(x) -> bool:
    return hasattr(x, "shape") and hasattr(x, "dtype") and hasattr(x, "stride")
