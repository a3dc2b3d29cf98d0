"""Small `transformers` models as users build and call them: each from its config's defaults except
sizes (hidden 32, 2 layers, 4 heads, a vocabulary of 64, small position tables and images), so the
default attention implementation, the cache (on), tied embeddings and dropout are the defaults.
``build(labels=True) -> (model, keyword inputs)``; ``labels=False`` leaves the labels out.
"""
from __future__ import annotations

import torch
import transformers

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


def gpt2(labels=True):
    config = transformers.GPT2Config(vocab_size=VOCAB, n_positions=16, n_embd=HIDDEN, n_layer=LAYERS, n_head=HEADS)
    return transformers.GPT2LMHeadModel(config), tokens(labels)


def llama(labels=True):
    return transformers.LlamaForCausalLM(transformers.LlamaConfig(**DECODER_SIZES)), tokens(labels)


def mistral(labels=True):   # grouped-query attention: 2 key/value heads for 4 query heads
    return transformers.MistralForCausalLM(transformers.MistralConfig(**DECODER_SIZES, num_key_value_heads=2)), tokens(labels)


def qwen2(labels=True):
    return transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**DECODER_SIZES, num_key_value_heads=2)), tokens(labels)


def phi(labels=True):   # partial rotary embedding (half of each head), parallel attention and MLP
    return transformers.PhiForCausalLM(transformers.PhiConfig(**DECODER_SIZES)), tokens(labels)


def gemma(labels=True):   # one key/value head (multi-query), scaled embeddings, tied head
    config = transformers.GemmaConfig(**DECODER_SIZES, num_key_value_heads=1, head_dim=HIDDEN // HEADS)
    return transformers.GemmaForCausalLM(config), tokens(labels)


def falcon(labels=True):   # multi-query attention, parallel attention and MLP
    config = transformers.FalconConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                                       num_attention_heads=HEADS)
    return transformers.FalconForCausalLM(config), tokens(labels)


def gpt_neox(labels=True):   # rotary embedding on a quarter of each head
    return transformers.GPTNeoXForCausalLM(transformers.GPTNeoXConfig(**DECODER_SIZES)), tokens(labels)


def opt(labels=True):
    config = transformers.OPTConfig(vocab_size=VOCAB, hidden_size=HIDDEN, ffn_dim=FFN, num_hidden_layers=LAYERS,
                                    num_attention_heads=HEADS, max_position_embeddings=16, word_embed_proj_dim=HIDDEN)
    return transformers.OPTForCausalLM(config), tokens(labels)


def bloom(labels=True):   # ALiBi position biases
    config = transformers.BloomConfig(vocab_size=VOCAB, hidden_size=HIDDEN, n_layer=LAYERS, n_head=HEADS)
    return transformers.BloomForCausalLM(config), tokens(labels)


def bert(labels=True):   # encoder, masked-LM head tied to the embedding
    config = transformers.BertConfig(vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=LAYERS,
                                     num_attention_heads=HEADS, intermediate_size=FFN, max_position_embeddings=16)
    inputs = tokens(labels)
    token_type_ids = torch.zeros(BATCH, SEQ, dtype=torch.long)
    token_type_ids[:, SEQ // 2:] = 1   # a sentence pair
    return transformers.BertForMaskedLM(config), {**inputs, "token_type_ids": token_type_ids}


def t5(labels=True):   # encoder-decoder, relative position buckets, an EncoderDecoderCache
    config = transformers.T5Config(vocab_size=VOCAB, d_model=HIDDEN, d_kv=HIDDEN // HEADS, d_ff=FFN,
                                   num_layers=LAYERS, num_heads=HEADS)
    inputs = tokens(labels)
    # T5Config's defaults name no decoder start token: the decoder's inputs are given, the tokens
    # shifted right behind the pad token (0), as T5 shifts its labels.
    decoder_input_ids = torch.cat([torch.zeros(BATCH, 1, dtype=torch.long), inputs["input_ids"][:, :-1]], dim=1)
    return transformers.T5ForConditionalGeneration(config), {**inputs, "decoder_input_ids": decoder_input_ids}


def bart(labels=True):   # encoder-decoder, learned positions, labels shifted into the decoder's inputs by the model
    config = transformers.BartConfig(vocab_size=VOCAB, d_model=HIDDEN, encoder_layers=LAYERS, decoder_layers=LAYERS,
                                     encoder_attention_heads=HEADS, decoder_attention_heads=HEADS,
                                     encoder_ffn_dim=FFN, decoder_ffn_dim=FFN, max_position_embeddings=16)
    return transformers.BartForConditionalGeneration(config), tokens(labels)


# The seq2seq sizes of BART and the models built like it (Marian, Pegasus, Whisper's decoder).
SEQ2SEQ_SIZES = dict(vocab_size=VOCAB, d_model=HIDDEN, encoder_layers=LAYERS, decoder_layers=LAYERS,
                     encoder_attention_heads=HEADS, decoder_attention_heads=HEADS, encoder_ffn_dim=FFN,
                     decoder_ffn_dim=FFN)


def seq2seq_tokens(labels, decoder_start):
    """tokens(labels); without labels (from which the model makes its decoder's inputs, shifting
    them right behind the decoder's start token), the decoder's inputs shifted so."""
    inputs = tokens(labels)
    if labels:
        return inputs
    start = torch.full((BATCH, 1), decoder_start, dtype=torch.long)
    return {**inputs, "decoder_input_ids": torch.cat([start, inputs["input_ids"][:, :-1]], dim=1)}


def marian(labels=True):   # BART's layout, sinusoidal positions; the pad token (the decoder's start) is the last token
    config = transformers.MarianConfig(**SEQ2SEQ_SIZES, max_position_embeddings=16, pad_token_id=VOCAB - 1,
                                       decoder_start_token_id=VOCAB - 1)
    return transformers.MarianMTModel(config), seq2seq_tokens(labels, VOCAB - 1)


def pegasus(labels=True):   # pre-norm encoder-decoder, sinusoidal positions, the pad token starts the decoder
    config = transformers.PegasusConfig(**SEQ2SEQ_SIZES, max_position_embeddings=16)
    return transformers.PegasusForConditionalGeneration(config), seq2seq_tokens(labels, config.decoder_start_token_id)


def whisper(labels=True):   # speech encoder (two convolutions over 8 mel bins, 32 frames), text decoder
    # The special tokens are the last of the (small) vocabulary, as in Whisper's own.
    config = transformers.WhisperConfig(**SEQ2SEQ_SIZES, num_mel_bins=8, max_source_positions=16,
                                        max_target_positions=16, pad_token_id=VOCAB - 3, bos_token_id=VOCAB - 3,
                                        eos_token_id=VOCAB - 3, decoder_start_token_id=VOCAB - 2,
                                        begin_suppress_tokens=None)
    text = seq2seq_tokens(labels, VOCAB - 2)
    text = {"labels": text["labels"]} if labels else {"decoder_input_ids": text["decoder_input_ids"]}
    return transformers.WhisperForConditionalGeneration(config), {"input_features": torch.randn(BATCH, 8, 32), **text}


def vit(labels=True):   # 16x16 patches of a 32x32 image, a class token, a classifier
    config = transformers.ViTConfig(hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
                                    intermediate_size=FFN, image_size=32)
    inputs = {"pixel_values": torch.randn(BATCH, 3, 32, 32)}
    return transformers.ViTForImageClassification(config), {**inputs, "labels": torch.tensor([0, 1])} if labels else inputs


MODELS = [gpt2, llama, mistral, qwen2, phi, gemma, falcon, gpt_neox, opt, bloom, bert, t5, bart, marian, pegasus,
          whisper, vit]
