"""A training zoo of `transformers` architectures, run as users run them: AOTAutograd with
primkit's table gives prim-only forward and backward graphs, and one step equals eager (outputs,
the cache's keys and values, loss, parameter gradients, buffers; ``training.check_training``).

Each model is built from its config's defaults except sizes (hidden 32, 2 layers, 4 heads, a
vocabulary of 64, small position tables and images): the default attention implementation, the
cache on (every decoder returns its DynamicCache), tied embeddings where the default ties them,
dropout on at its default probability (eager and the graphs draw under the same seed), train mode.
Nothing in transformers or torch is patched; the trace runs inside ``decompositions.tracing()``,
primkit's public way to tell libraries that a program is traced (transformers then builds the
attention mask it builds under torch.compile, whose values are eager's).
"""
from __future__ import annotations

import pytest
import torch

from primkit.decompositions.lowering import CORE_PRIMS
from training import check_training

pytest.importorskip("transformers")
from transformers_zoo import MODELS, llama  # noqa: E402



@pytest.mark.parametrize("build", MODELS, ids=[m.__name__ for m in MODELS])
def test_transformers_training(build):
    torch.manual_seed(0)
    model, inputs = build()
    check_training(model.train(), (), inputs)


def test_tracing_is_what_the_mask_needs():
    """Without ``decompositions.tracing()`` transformers reads the attention mask's values under
    AOTAutograd (it does not recognize functional tensors over fake ones as a trace): the trace
    fails on data-dependent control flow. This is the read ``tracing()`` exists for."""
    from functorch.compile import aot_function, make_boxed_func
    from torch._subclasses.fake_tensor import DataDependentOutputException

    from primkit.decompositions import get_decompositions

    torch.manual_seed(0)
    model, inputs = llama()
    params = dict(model.named_parameters())

    def step(params, inputs):
        return torch.func.functional_call(model, params, (), inputs).loss

    compiled = aot_function(step, lambda gm, _: make_boxed_func(gm.forward), decompositions=get_decompositions())
    with pytest.raises(DataDependentOutputException, match="_local_scalar_dense"):
        compiled(params, inputs)


@pytest.mark.parametrize("build", MODELS, ids=[m.__name__ for m in MODELS])
def test_transformers_training_inside_core_set(build):
    # forward and backward graphs lowered to the core set (random draws stay: an optional family)
    torch.manual_seed(0)
    model, inputs = build()
    check_training(model.train(), (), inputs, target=CORE_PRIMS)
