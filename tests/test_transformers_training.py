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

from training import check_training

transformers = pytest.importorskip("transformers")

VOCAB, HIDDEN, LAYERS, HEADS, FFN, SEQ, BATCH = 64, 32, 2, 4, 64, 8, 2
# Every decoder has the same sizes; models that keep their own names for them get them mapped.
DECODER_SIZES = dict(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=FFN, num_hidden_layers=LAYERS,
                     num_attention_heads=HEADS)


def tokens(labels=True):
    input_ids = torch.randint(1, VOCAB, (BATCH, SEQ))
    attention_mask = torch.ones(BATCH, SEQ, dtype=torch.long)
    attention_mask[1, SEQ - 3:] = 0   # the second sequence is right-padded
    inputs = {"input_ids": input_ids, "attention_mask": attention_mask}
    return {**inputs, "labels": input_ids} if labels else inputs


def gpt2():
    config = transformers.GPT2Config(vocab_size=VOCAB, n_positions=16, n_embd=HIDDEN, n_layer=LAYERS, n_head=HEADS)
    return transformers.GPT2LMHeadModel(config), tokens()


def llama():
    return transformers.LlamaForCausalLM(transformers.LlamaConfig(**DECODER_SIZES)), tokens()


def mistral():   # grouped-query attention: 2 key/value heads for 4 query heads
    return transformers.MistralForCausalLM(transformers.MistralConfig(**DECODER_SIZES, num_key_value_heads=2)), tokens()


def qwen2():
    return transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**DECODER_SIZES, num_key_value_heads=2)), tokens()


def phi():   # partial rotary embedding (half of each head), parallel attention and MLP
    return transformers.PhiForCausalLM(transformers.PhiConfig(**DECODER_SIZES)), tokens()


def gemma():   # one key/value head (multi-query), scaled embeddings, tied head
    config = transformers.GemmaConfig(**DECODER_SIZES, num_key_value_heads=1, head_dim=HIDDEN // HEADS)
    return transformers.GemmaForCausalLM(config), tokens()


def falcon():   # multi-query attention, parallel attention and MLP
    config = transformers.FalconConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                                       num_attention_heads=HEADS)
    return transformers.FalconForCausalLM(config), tokens()


def gpt_neox():   # rotary embedding on a quarter of each head
    return transformers.GPTNeoXForCausalLM(transformers.GPTNeoXConfig(**DECODER_SIZES)), tokens()


def opt():
    config = transformers.OPTConfig(vocab_size=VOCAB, hidden_size=HIDDEN, ffn_dim=FFN, num_hidden_layers=LAYERS,
                                    num_attention_heads=HEADS, max_position_embeddings=16, word_embed_proj_dim=HIDDEN)
    return transformers.OPTForCausalLM(config), tokens()


def bloom():   # ALiBi position biases
    config = transformers.BloomConfig(vocab_size=VOCAB, hidden_size=HIDDEN, n_layer=LAYERS, n_head=HEADS)
    return transformers.BloomForCausalLM(config), tokens()


def bert():   # encoder, masked-LM head tied to the embedding
    config = transformers.BertConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                                     num_attention_heads=HEADS, intermediate_size=FFN, max_position_embeddings=16)
    inputs = tokens()
    token_type_ids = torch.zeros(BATCH, SEQ, dtype=torch.long)
    token_type_ids[:, SEQ // 2:] = 1   # a sentence pair
    return transformers.BertForMaskedLM(config), {**inputs, "token_type_ids": token_type_ids}


def t5():   # encoder-decoder, relative position buckets, an EncoderDecoderCache
    config = transformers.T5Config(vocab_size=VOCAB, d_model=HIDDEN, d_kv=HIDDEN // HEADS, d_ff=FFN,
                                   num_layers=LAYERS, num_heads=HEADS)
    inputs = tokens()
    # T5Config's defaults name no decoder start token: the decoder's inputs are given, as the labels
    # shifted right behind the pad token (0).
    decoder_input_ids = torch.cat([torch.zeros(BATCH, 1, dtype=torch.long), inputs["labels"][:, :-1]], dim=1)
    return transformers.T5ForConditionalGeneration(config), {**inputs, "decoder_input_ids": decoder_input_ids}


def bart():   # encoder-decoder, learned positions, labels shifted into the decoder's inputs by the model
    config = transformers.BartConfig(vocab_size=VOCAB, d_model=HIDDEN, encoder_layers=LAYERS, decoder_layers=LAYERS,
                                     encoder_attention_heads=HEADS, decoder_attention_heads=HEADS,
                                     encoder_ffn_dim=FFN, decoder_ffn_dim=FFN, max_position_embeddings=16)
    return transformers.BartForConditionalGeneration(config), tokens()


def vit():   # 16x16 patches of a 32x32 image, a class token, a classifier
    config = transformers.ViTConfig(hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                                    intermediate_size=FFN, image_size=32)
    return transformers.ViTForImageClassification(config), {"pixel_values": torch.randn(BATCH, 3, 32, 32),
                                                            "labels": torch.tensor([0, 1])}


MODELS = [gpt2, llama, mistral, qwen2, phi, gemma, falcon, gpt_neox, opt, bloom, bert, t5, bart, vit]


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

    from decompositions import get_decompositions

    torch.manual_seed(0)
    model, inputs = llama()
    params = dict(model.named_parameters())

    def step(params, inputs):
        return torch.func.functional_call(model, params, (), inputs).loss

    compiled = aot_function(step, lambda gm, _: make_boxed_func(gm.forward), decompositions=get_decompositions())
    with pytest.raises(DataDependentOutputException, match="_local_scalar_dense"):
        compiled(params, inputs)
