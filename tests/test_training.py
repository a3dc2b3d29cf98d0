"""Training graphs: AOTAutograd with primkit's table gives prim-only forward and backward graphs
for the model zoo, and running them gives eager's loss, gradients and updated buffers
(``training.check_training``; transformers models: ``test_transformers_training.py``).

Every bookkeeping op AOTAutograd emits (detach, t, view, alias, _to_copy, zeros_like, sum,
expand, ...) has a decomposition to prims, so no cleanup pass is needed. Models train in train
mode as users train them: batch norm uses and updates batch statistics, dropout draws its mask
(the graphs draw what eager draws under the same seed).
"""
from __future__ import annotations

import copy

import pytest
import torch

from models import GPT2, zoo
from training import check_training


def _activations_mlp():
    """Each activation whose backward ATen op has its own decomposition, in one small MLP."""
    torch.manual_seed(0)
    nn = torch.nn
    layers = [nn.Linear(6, 6)]
    for act in (nn.ELU(), nn.ELU(inplace=True), nn.SELU(), nn.CELU(0.5), nn.Hardsigmoid(), nn.Hardswish(),
                nn.Softplus(beta=2.0, threshold=1.0), nn.Softshrink(0.3), nn.Hardshrink(0.3), nn.Mish(),
                nn.GELU(), nn.SiLU(), nn.LeakyReLU(0.1), nn.Hardtanh(-0.5, 0.5)):
        layers += [act, nn.Linear(6, 6)]
    return nn.Sequential(*layers)


class _BCEHead(torch.nn.Module):
    """A linear layer, sigmoid and binary cross entropy (weighted, mean): binary_cross_entropy_backward."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(6, 3)
        self.register_buffer("weight", torch.rand(3) + 0.5)

    def forward(self, x, target):
        return torch.nn.functional.binary_cross_entropy(torch.sigmoid(self.linear(x)), target, self.weight)


ZOO = zoo() + [("gpt2_toy", GPT2().eval(), (torch.randint(0, 64, (2, 7)),)),
               ("activations_mlp", _activations_mlp(), (torch.randn(5, 6),)),
               ("bce_head", _BCEHead(), (torch.randn(5, 6), torch.rand(5, 3)))]


@pytest.mark.parametrize("name,model,args", ZOO, ids=[m[0] for m in ZOO])
def test_zoo_training(name, model, args):
    torch.manual_seed(0)
    check_training(copy.deepcopy(model).train(), args)


@pytest.mark.parametrize("name,model,args", ZOO, ids=[m[0] for m in ZOO])
def test_zoo_training_inside_core_set(name, model, args):
    """The same training step with forward and backward lowered to the core set (issue 18: a backend that
    implements CORE_PRIMS trains the zoo; dropout's random draws stay, an optional family)."""
    from primkit.decompositions.lowering import CORE_PRIMS
    torch.manual_seed(0)
    check_training(copy.deepcopy(model).train(), args, target=CORE_PRIMS)
