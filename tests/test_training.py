"""Training graphs: AOTAutograd with primkit's table gives prim-only forward and backward graphs
for the model zoo (and small `transformers` models), and running them gives eager's loss,
gradients and updated buffers.

The fw/bw compilers record each graph, check it is prim-only and run it as is (the reference
backend). Every bookkeeping op AOTAutograd emits (detach, t, view, alias, _to_copy, zeros_like,
sum, expand, ...) has a decomposition to prims, so no cleanup pass is needed.

Models train in train mode (batch norm uses and updates batch statistics) except where train
mode draws random numbers: dropout is random in training and primkit has no random mask, so
dropout layers get p=0 (the train-mode code path, no randomness).
"""
from __future__ import annotations

import copy

import pytest
import torch
import torch.utils._pytree as pytree
from functorch.compile import aot_module, make_boxed_func

from decompositions import get_decompositions, non_prim_ops
from models import GPT2, zoo

# float32 on CPU. The graphs sum in another order than eager's kernels (matmul, convolution
# gradients as convolutions, reductions over the batch in batch norm's backward): a few ulps of
# values of magnitude ~1, accumulated over a handful of layers.
ATOL, RTOL = 1e-5, 1e-4


def _no_random_dropout(model):
    for m in model.modules():
        if isinstance(m, torch.nn.Dropout):
            m.p = 0.0
    return model.train()


def _cotangents(outputs, seed=0):
    """Fixed random weights for every floating output, so the loss reaches every output with a
    non-trivial gradient (a plain sum of a softmax has gradient zero)."""
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(o.shape, generator=gen, dtype=o.dtype) if o.is_floating_point() else None
            for o in pytree.tree_leaves(outputs)]


def _loss(outputs, cotangents):
    terms = [(o * c).sum() for o, c in zip(pytree.tree_leaves(outputs), cotangents) if c is not None]
    return torch.stack(terms).sum()


def _step(model, args, kwargs, cotangents):
    """(loss, {param name: grad}, {buffer name: value}) after one forward and backward."""
    model.zero_grad(set_to_none=True)
    loss = _loss(model(*args, **kwargs), cotangents)
    loss.backward()
    grads = {n: p.grad for n, p in model.named_parameters() if p.requires_grad}
    return loss.detach(), grads, {n: b.clone() for n, b in model.named_buffers()}


def _recording_compiler(graphs, kind):
    def compiler(gm, example_inputs):
        graphs[kind] = gm
        return make_boxed_func(gm.forward)
    return compiler


def check_training(model, args, kwargs=None):
    kwargs = kwargs or {}
    eager_model, aot_model = model, copy.deepcopy(model)
    with torch.no_grad():
        cotangents = _cotangents(eager_model(*args, **kwargs))
    # The no_grad probe above ran in train mode: restore the buffers it updated (batch norm).
    eager_model.load_state_dict(aot_model.state_dict())
    expected = _step(eager_model, args, kwargs, cotangents)

    graphs = {}
    compiled = aot_module(aot_model, fw_compiler=_recording_compiler(graphs, "forward"),
                          bw_compiler=_recording_compiler(graphs, "backward"), decompositions=get_decompositions())
    aot_model.zero_grad(set_to_none=True)
    loss = _loss(compiled(*args, **kwargs), cotangents)
    loss.backward()
    actual = (loss.detach(), {n: p.grad for n, p in aot_model.named_parameters() if p.requires_grad},
              {n: b.clone() for n, b in aot_model.named_buffers()})   # batch norm updated its running stats

    assert set(graphs) == {"forward", "backward"}
    for kind, gm in graphs.items():
        assert non_prim_ops(gm) == [], f"{kind} graph holds non-prim ops: {non_prim_ops(gm)}"
    torch.testing.assert_close(actual[0], expected[0], atol=ATOL, rtol=RTOL, msg=lambda m: f"loss: {m}")
    assert set(actual[1]) == set(expected[1])
    for name, grad in expected[1].items():
        assert actual[1][name] is not None, f"no gradient for {name}"
        torch.testing.assert_close(actual[1][name], grad, atol=ATOL, rtol=RTOL,
                                   msg=lambda m, name=name: f"grad of {name}: {m}")
    for name, buffer in expected[2].items():
        torch.testing.assert_close(actual[2][name], buffer, atol=ATOL, rtol=RTOL,
                                   msg=lambda m, name=name: f"buffer {name}: {m}")


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
    check_training(_no_random_dropout(copy.deepcopy(model)), args)


# ----------------------------------------------------------------------------- transformers


def _transformers():
    return pytest.importorskip("transformers")


def _gpt2():
    t = _transformers()
    config = t.GPT2Config(vocab_size=64, n_positions=16, n_embd=32, n_layer=2, n_head=4, bos_token_id=0,
                          eos_token_id=0, use_cache=False, resid_pdrop=0.0,
                          # Untied: aot_module's functional_call refuses one tensor under two names.
                          tie_word_embeddings=False, embd_pdrop=0.0, attn_pdrop=0.0,
                          attn_implementation="sdpa")
    ids = torch.randint(1, 64, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[1, 5:] = 0   # the second sequence is right-padded
    return t.GPT2LMHeadModel(config), {"input_ids": ids, "attention_mask": mask, "labels": ids}


def _bert():
    t = _transformers()
    config = t.BertConfig(vocab_size=64, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                          intermediate_size=64, max_position_embeddings=16, pad_token_id=0, hidden_dropout_prob=0.0,
                          attention_probs_dropout_prob=0.0, attn_implementation="eager")
    ids = torch.randint(1, 64, (2, 8))
    mask = torch.ones(2, 8, dtype=torch.long)
    mask[1, 5:] = 0
    types = torch.zeros(2, 8, dtype=torch.long)
    types[:, 4:] = 1
    return t.BertModel(config), {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def _resnet():
    t = _transformers()
    config = t.ResNetConfig(num_channels=3, embedding_size=8, hidden_sizes=[16, 32], depths=[1, 1],
                            layer_type="bottleneck", num_labels=10)
    return t.ResNetForImageClassification(config), {"pixel_values": torch.randn(2, 3, 32, 32),
                                                    "labels": torch.tensor([1, 7])}


class _Outputs(torch.nn.Module):
    """A transformers model returning a tuple (its ModelOutput's tensors), for aot_module."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, **kwargs):
        out = self.model(**kwargs, return_dict=True)
        return tuple(v for v in out.values() if isinstance(v, torch.Tensor))


@pytest.mark.parametrize("build", [_gpt2, _bert, _resnet], ids=["gpt2", "bert", "resnet"])
def test_transformers_training(build, monkeypatch):
    # transformers reads the attention mask's values (to drop a mask that hides nothing, to find
    # packed sequences) unless it sees a tracer; AOTAutograd's functional tensors over fake tensors
    # are not one it recognizes, so the read is data-dependent control flow. Tell it it is tracing:
    # it then always builds the explicit mask, which is what eager computes as well.
    masking_utils = pytest.importorskip("transformers.masking_utils")
    monkeypatch.setattr(masking_utils, "is_tracing", lambda *args: True)
    torch.manual_seed(0)
    model, kwargs = build()
    check_training(_no_random_dropout(_Outputs(model)), (), kwargs)
