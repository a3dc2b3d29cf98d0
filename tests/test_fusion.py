"""The re-fusion passes of ``primkit_inductor`` (runtime/fusion): what reaches Inductor, and that a training step
through it equals eager's. (The patterns the primkit backend's executor runs are in test_compile.py.)"""
from __future__ import annotations

import collections
import copy

import pytest
import torch
import torch.nn as nn

pytest.importorskip("torch._inductor")


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _inductor_graphs(monkeypatch):
    """The ATen graphs primkit_inductor hands to Inductor (forward, then backward), recorded into the returned
    list as to_aten gives them without Inductor's decompositions (which its table then applies)."""
    from primkit.runtime import backends
    real, graphs = backends.to_aten, []

    def to_aten(gm, example_inputs, **kwargs):
        graphs.append(real(gm, example_inputs))
        return real(gm, example_inputs, **kwargs)
    monkeypatch.setattr(backends, "to_aten", to_aten)
    return graphs


def _two_steps_graphs(monkeypatch, model, x):
    """The ATen graphs primkit_inductor hands Inductor for model's forward and backward, after two steps whose
    outputs, gradients and buffers (running statistics) equal eager's."""
    graphs = _inductor_graphs(monkeypatch)
    eager, compiled = model, copy.deepcopy(model)
    run = torch.compile(compiled, backend="primkit_inductor")
    for _ in range(2):
        outs = [m(x) for m in (eager, run)]
        for out in outs:
            out.square().sum().backward()
        torch.testing.assert_close(outs[1], outs[0])
    for (name, p), q in zip(eager.named_parameters(), compiled.parameters(), strict=True):
        torch.testing.assert_close(q.grad, p.grad, msg=lambda m, name=name: f"{name}.grad: {m}")
    for (name, b), c in zip(eager.named_buffers(), compiled.buffers(), strict=True):
        torch.testing.assert_close(c, b, msg=lambda m, name=name: f"{name}: {m}")
    return graphs


def _calls(gm, target):
    return [n for n in gm.graph.nodes if n.op == "call_function" and n.target is target]


class _TwoConvs(nn.Module):
    """Two convolutions of one input (a residual block's convolution and its projection shortcut): the
    backward's change of the input's layout for their weight gradients is one node, read by both."""

    def __init__(self):
        super().__init__()
        self.conv, self.shortcut = nn.Conv2d(4, 6, 3, padding=1), nn.Conv2d(4, 6, 1, bias=False)

    def forward(self, x):
        return self.conv(x) * self.shortcut(x)


def _conv_cases():
    """name -> (model, input, whether the input's gradient is asked for); float64."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 4, 9, 9, generator=g, dtype=torch.float64)
    return {
        "stride-padding-dilation": (nn.Conv2d(4, 6, 3, stride=2, padding=1, dilation=2), x, True),
        "groups-no-bias": (nn.Conv2d(4, 6, (3, 2), groups=2, bias=False), x, True),
        "depthwise": (nn.Conv2d(4, 8, 3, padding=1, groups=4), x, True),
        "conv1d": (nn.Conv1d(4, 6, 3, stride=2), x[:, :, 0], True),
        "conv3d": (nn.Conv3d(4, 2, 2, padding=(1, 0, 1)), x[:, :, :4, :4].unsqueeze(2).expand(2, 4, 3, 4, 4), True),
        "input-without-grad": (nn.Conv2d(4, 6, 7, stride=2, padding=3), x, False),   # a network's first layer
        "shared-input": (_TwoConvs(), x, True),
        "channels-last": (nn.Conv2d(4, 6, 3, padding=1), x.contiguous(memory_format=torch.channels_last), True),
    }


@pytest.mark.parametrize("case", list(_conv_cases()))
def test_conv_backward_reaches_inductor_as_one_op(monkeypatch, case):
    # primkit_inductor hands Inductor each convolution's backward as one aten.convolution_backward (the op its own
    # path gets) with the input, weight and bias gradients the step reads, where the decomposition gave a
    # transposed convolution, a convolution with the output gradient as kernel (the input's layout changed for
    # it, the result cut and copied back) and a sum; the output and gradients equal eager's.
    model, x, input_grad = _conv_cases()[case]
    model = model.double()
    graphs = _inductor_graphs(monkeypatch)
    eager, compiled = model, torch.compile(copy.deepcopy(model), backend="primkit_inductor")
    xs = [x.clone().requires_grad_(input_grad) for _ in range(2)]
    outs = [m(xi) for m, xi in zip((eager, compiled), xs)]
    for out in outs:
        out.square().sum().backward()
    torch.testing.assert_close(outs[1], outs[0])
    if input_grad:
        torch.testing.assert_close(xs[1].grad, xs[0].grad)
        assert xs[1].grad.stride() == xs[0].grad.stride()
    for (name, p), q in zip(eager.named_parameters(), compiled.parameters(), strict=True):
        torch.testing.assert_close(q.grad, p.grad, msg=lambda m, name=name: f"{name}.grad: {m}")
    backward = graphs[-1]
    convs = [m for m in model.modules() if isinstance(m, nn.modules.conv._ConvNd)]
    calls = _calls(backward, torch.ops.aten.convolution_backward.default)
    assert not _calls(backward, torch.ops.aten.convolution.default)
    assert sorted(c.args[-1] for c in calls) == sorted([input_grad, True, m.bias is not None] for m in convs)


def test_conv_backward_with_dynamic_shapes(monkeypatch):
    # Symbolic batch and spatial sizes (the kernel's and channels' static, as parameters' are): each backward is one
    # aten.convolution_backward, and the gradients equal eager's for each size.
    graphs = _inductor_graphs(monkeypatch)
    model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 5, 3, stride=2)).double()
    compiled = copy.deepcopy(model)
    run = torch.compile(compiled, backend="primkit_inductor", dynamic=True)
    for n in (2, 3):
        x = torch.randn(n, 3, 9 + n, 9, dtype=torch.float64)
        xs = [x.clone().requires_grad_() for _ in range(2)]
        for m, xi in zip((model, run), xs):
            m(xi).square().sum().backward()
        torch.testing.assert_close(xs[1].grad, xs[0].grad)
        for p, q in zip(model.parameters(), compiled.parameters(), strict=True):
            torch.testing.assert_close(q.grad, p.grad)
        model.zero_grad()
        compiled.zero_grad()
    backward = graphs[-1]
    assert any(isinstance(n.meta.get("val"), torch.SymInt) for n in backward.graph.nodes if n.op == "placeholder")
    assert len(_calls(backward, torch.ops.aten.convolution_backward.default)) == 2
    assert not _calls(backward, torch.ops.aten.convolution.default)


def test_conv_backward_of_the_bench_resnet(monkeypatch):
    # The bench's ResNet (transformers, train mode, its defaults) under primkit_inductor: each of its 16
    # convolutions' backward reaches Inductor as one aten.convolution_backward (the stem's weight gradient alone:
    # its input is the pixels; the first block's reads its input in the layout the forward saved); the loss and
    # gradients equal eager's.
    pytest.importorskip("transformers")
    from primkit.opinfo.tolerances import tolerance
    from primkit.tools.bench_models import _Outputs, _models
    graphs = _inductor_graphs(monkeypatch)
    torch.manual_seed(0)
    model, inputs = _models()["resnet"]()
    eager = _Outputs(model).train()
    compiled = copy.deepcopy(eager)
    losses = [m(**inputs)[0].square().mean() for m in (eager, torch.compile(compiled, backend="primkit_inductor"))]
    for loss in losses:
        loss.backward()
    atol, rtol = tolerance("training", torch.float32)
    torch.testing.assert_close(losses[1], losses[0], atol=atol, rtol=rtol)
    for (name, p), q in zip(eager.named_parameters(), compiled.parameters(), strict=True):
        torch.testing.assert_close(q.grad, p.grad, atol=atol, rtol=rtol, msg=lambda m, name=name: f"{name}: {m}")
    masks = collections.Counter(tuple(c.args[-1]) for c in
                                _calls(graphs[-1], torch.ops.aten.convolution_backward.default))
    assert masks == {(True, True, False): 15, (False, True, False): 1}
    assert not _calls(graphs[-1], torch.ops.aten.convolution.default)


def _batch_norm_cases():
    """name -> the batch norm after a convolution (and a ReLU), float64."""
    return {
        "affine": nn.BatchNorm2d(4),
        "no-affine": nn.BatchNorm2d(4, affine=False),
        "no-running-stats": nn.BatchNorm2d(4, track_running_stats=False),
        "momentum-eps": nn.BatchNorm2d(4, eps=1e-3, momentum=0.3),
    }


@pytest.mark.parametrize("case", list(_batch_norm_cases()))
def test_batch_norm_forward_reaches_inductor_as_one_op(monkeypatch, case):
    # primkit_inductor hands Inductor a training batch norm's decomposed forward (CPU) as eager's op (the one its
    # own path gets, which it decomposes its own way): its results, read by the forward's other prims, were
    # taken as aliases of the running statistics written back at the graph's end, and their copies (which
    # read storage) failed to trace. Two steps' outputs, gradients and running statistics equal eager's.
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 9, 9, generator=g, dtype=torch.float64)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), _batch_norm_cases()[case], nn.ReLU()).double().train()
    forward = _two_steps_graphs(monkeypatch, model, x)[0]
    fused = (torch.ops.aten._native_batch_norm_legit_functional.default if case != "no-running-stats"
             else torch.ops.aten._native_batch_norm_legit.no_stats)   # native_batch_norm, as make_fx records it
    assert len(_calls(forward, fused)) == 1


def _stem():
    """ResNet's stem (convolution, batch norm, ReLU, 3x3 max pooling of stride 2, padding 1) and an input, float64."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(3, 8, 7, 2, 3, bias=False), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(3, 2, 1))
    return model.double().train(), torch.randn(2, 3, 32, 32, dtype=torch.float64)


def test_pooled_relu_is_not_read_by_as_strided(monkeypatch):
    # A training forward's pooled ReLU was read by an alias prim (the backward's mask reads it through one),
    # lowered as the reference implementation's as_strided, which pins its input to its meta strides (Inductor
    # lays an as_strided's input out as its meta value says): NCHW, where Inductor's own path lays a
    # convolution's consumers out channels-last, and the pooling loaded each window element by element. alias
    # and stop_gradient reach Inductor as aten.alias: no as_strided reads the pooled input.
    graphs = _two_steps_graphs(monkeypatch, *_stem())
    pooled = [n.args[0] for gm in graphs for n in _calls(gm, torch.ops.aten.max_pool2d_with_indices.default)]
    assert pooled and all(u.target is not torch.ops.aten.as_strided.default for x in pooled for u in x.users)


def test_relu_mask_recomputed_in_the_backward(monkeypatch):
    # The partitioner recomputes no prim: the forward computed ReLU's gradient mask (relu <= 0) and returned it
    # to the backward as a bool tensor, which Inductor's CPU kernels store and load ~10x slower than a float. As
    # on Inductor's own path, the backward recomputes it from what it compares: the forward returns no bool
    # tensor, the backward compares.
    forward, backward = _two_steps_graphs(monkeypatch, *_stem())
    returned = [o.meta.get("val") for o in forward.graph.output_node().args[0] if isinstance(o, torch.fx.Node)]
    assert returned and not any(isinstance(v, torch.Tensor) and v.dtype == torch.bool for v in returned)
    assert any(n.op == "call_function" and n.target.__name__.startswith("le.") for n in backward.graph.nodes)
