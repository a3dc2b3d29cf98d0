"""The models ``primkit bench`` times (small configurations of transformers models, batch 2) and the helpers
its sections share: a model's output as a tuple of tensors, and a timed call."""
from __future__ import annotations

import statistics
import time

import torch

BATCH = 2


def _tokens(seq=64, vocab=512):
    g = torch.Generator().manual_seed(0)
    ids = torch.randint(1, vocab, (BATCH, seq), generator=g)
    return {"input_ids": ids, "attention_mask": torch.ones(BATCH, seq, dtype=torch.long)}


def _decoder_sizes(**extra):
    return dict(vocab_size=512, hidden_size=256, intermediate_size=512, num_hidden_layers=4, num_attention_heads=8,
                **extra)


def _models():
    """name -> builder of (model, keyword inputs)."""
    import transformers as tf

    def gpt2():
        return tf.GPT2Model(tf.GPT2Config(vocab_size=512, n_positions=128, n_embd=256, n_layer=4, n_head=8)), _tokens()

    def bert():
        return tf.BertModel(tf.BertConfig(vocab_size=512, hidden_size=256, num_hidden_layers=4, num_attention_heads=8,
                                          intermediate_size=512), add_pooling_layer=False), _tokens()

    def llama():
        return tf.LlamaModel(tf.LlamaConfig(**_decoder_sizes())), _tokens()

    def mistral():
        return tf.MistralModel(tf.MistralConfig(**_decoder_sizes(num_key_value_heads=2))), _tokens()

    def t5_encoder():
        return tf.T5EncoderModel(tf.T5Config(vocab_size=512, d_model=256, d_kv=32, d_ff=512, num_layers=4,
                                             num_heads=8)), _tokens()

    def vit():
        config = tf.ViTConfig(hidden_size=256, num_hidden_layers=4, num_attention_heads=8, intermediate_size=512,
                              image_size=64, patch_size=8)
        return tf.ViTModel(config, add_pooling_layer=False), {"pixel_values": torch.randn(BATCH, 3, 64, 64)}

    def resnet():
        config = tf.ResNetConfig(embedding_size=32, hidden_sizes=[32, 64, 128, 256], depths=[1, 1, 1, 1])
        return tf.ResNetModel(config), {"pixel_values": torch.randn(BATCH, 3, 64, 64)}

    def convnext():
        config = tf.ConvNextConfig(hidden_sizes=[32, 64, 128, 256], depths=[1, 1, 2, 1])
        return tf.ConvNextModel(config), {"pixel_values": torch.randn(BATCH, 3, 64, 64)}

    def whisper_encoder():
        config = tf.WhisperConfig(d_model=256, encoder_layers=4, encoder_attention_heads=8, encoder_ffn_dim=512,
                                  decoder_layers=1, decoder_attention_heads=8, decoder_ffn_dim=512,
                                  num_mel_bins=80, max_source_positions=100)
        return tf.WhisperModel(config).get_encoder(), {"input_features": torch.randn(BATCH, 80, 200)}

    return {f.__name__.replace("_", "-"): f for f in
            (gpt2, bert, llama, mistral, t5_encoder, vit, resnet, convnext, whisper_encoder)}


class _Outputs(torch.nn.Module):
    """model with its output as a tuple of tensors (a transformers cache object is not a graph output)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, **inputs):
        return _tensors(self.model(**inputs))


def _positional(model, inputs):
    """(fn, args): model(**inputs) as a function of the input tensors, for make_fx."""
    names = list(inputs)

    def fn(*values):
        return model(**dict(zip(names, values)))
    return fn, [inputs[n] for n in names]


def _tensors(out) -> tuple:
    """The tensors of a model's output (a ModelOutput, tuple, or transformers cache), which make_fx
    can return (it cannot return a cache object)."""
    if isinstance(out, torch.Tensor):
        return (out,)
    if hasattr(out, "layers") and all(hasattr(layer, "keys") for layer in out.layers):
        return tuple(t for layer in out.layers for t in (layer.keys, layer.values))
    if isinstance(out, dict):
        out = tuple(out.values())
    if isinstance(out, (tuple, list)):
        return tuple(t for o in out for t in _tensors(o))
    return ()


def _timed(fn, device):
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start


def interleaved_times(runs: dict, repeat: int, device) -> dict:
    """name -> the times of ``repeat`` calls of each run, interleaved, the order reversed in every other
    repetition (each run follows the same neighbour in every other one: a run that evicts the caches, as
    through_prims does, slows its follower alike)."""
    times = {k: [] for k in runs}
    order = list(runs)
    for _ in range(repeat):
        for k in order:
            times[k].append(_timed(runs[k], device))
        order.reverse()
    return times


def paired_ratio(times: dict, k, base) -> float:
    """The median of the per-repetition ratios: each repetition's two times are taken seconds apart,
    so the machine's drift over the run (its speed moves by 10-30% over minutes) cancels in each."""
    return statistics.median(a / b for a, b in zip(times[k], times[base], strict=True))
