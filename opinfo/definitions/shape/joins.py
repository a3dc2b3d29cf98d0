"""OpInfo entries: splits and joins (split, split_with_sizes, unbind, cat, stack)."""
from __future__ import annotations

import torch

from primkit.opinfo.core import ErrorInput, SampleInput, XFail
from primkit.opinfo.definitions.shape.common import (_packet_entry, _split_samples, _split_sizes_samples, cases,
    entry, errors, tensor_lists)
from primkit.opinfo.samples import make


CAT_ERRORS = (
    ([(2, 3), (2, 4)], (0,), RuntimeError, "Sizes of tensors must match"),
    ([(2, 3), (2, 3, 1)], (0,), RuntimeError, "Tensors must have same number of dimensions"),
    ([(2, 3), (2, 3)], (2,), IndexError, "Dimension out of range"),
    ([(), ()], (0,), RuntimeError, "zero-dimensional tensor"),
    ([], (0,), ValueError, "expected a non-empty list of Tensors"),
)
STACK_ERRORS = (
    ([(2, 3), (2, 4)], (0,), RuntimeError, "stack expects each tensor to be equal size"),
    ([(2, 3), (2, 3)], (3,), IndexError, "Dimension out of range"),
    ([], (0,), RuntimeError, "stack expects a non-empty TensorList"),
)


def list_errors(rows):
    def gen(op, device):
        for shapes, args, exc, match in rows:
            yield ErrorInput(SampleInput([make(s, device, torch.float32) for s in shapes], args, name=match), exc,
                             match)
    return gen


ENTRIES = [
    entry("split", torch.split, ["aten::split.Tensor"], _split_samples,
          errs=errors(((4,), (-1,), RuntimeError, "split_size be non-negative"),
                      ((4,), (0,), RuntimeError, "split_size can only be 0"), ((), (1,), RuntimeError, ""))),
    entry("split_with_sizes", torch.split, ["aten::split_with_sizes"], _split_sizes_samples,
          errs=errors(((4,), ([1, 2],), RuntimeError, "to sum exactly to 4"),
                      ((4,), ([5, -1],), RuntimeError, "non-negative entries"))),
    entry("unsafe_split", torch.unsafe_split, ["aten::unsafe_split.Tensor"], _split_samples),
    entry("unsafe_split_with_sizes", torch.unsafe_split_with_sizes, ["aten::unsafe_split_with_sizes"],
          _split_sizes_samples),
    entry("unbind", torch.unbind, ["aten::unbind.int"], cases(((3, 4), ()), ((2, 3, 4, 5), (-1,)), ((0, 3), (1,)),
                                                             ((1,), ())),
          errs=errors(((), (), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
                      ((2, 3), (2,), IndexError, "Dimension out of range"))),
    entry("cat", torch.cat, ["aten::cat", "aten::cat.out"],
          tensor_lists(([(2, 3), (4, 3)], (0,)), ([(2, 3), (2, 1), (2, 0)], (-1,)), ([(2, 3), (0,)], (0,)),
                       ([(0,), (0,)], (0,)), ([(2, 3, 4)], (1,))),
          errs=list_errors(CAT_ERRORS), out=True),
    entry("stack", torch.stack, ["aten::stack", "aten::stack.out"],
          tensor_lists(([(2, 3), (2, 3)], (0,)), ([(2, 3), (2, 3), (2, 3)], (-1,)), ([(), ()], (0,)),
                       ([(0, 3)], (1,)), ([(2, 3, 4)], (3,))),
          errs=list_errors(STACK_ERRORS), out=True, xfails=[XFail(
              "strides", "eager's cat lays out unsqueezed channels-last inputs in their own dim order "
              "(strides (120, 3, 1, 30, 6) for two (2, 3, 4, 5) inputs along dim 1); the cat prim's meta rule "
              "gives a 5-d result contiguous strides", raises=AssertionError)]),
    _packet_entry("split", torch.ops.aten.split.sizes, _split_sizes_samples, entry_name="split.sizes", out=False,
                  aten_names=["aten::split.sizes"],
                  errs=errors(((4,), ([1, 2],), RuntimeError, "to sum exactly to 4"),
                              ((4,), ([5, -1],), RuntimeError, "non-negative entries"))),
]
