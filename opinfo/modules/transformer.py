"""Attention and transformer layers: MultiheadAttention, the encoder and decoder layers, the stacks
and Transformer. Their default dropout (0.1) makes them random in train mode."""
import torch
from torch import nn

from primkit.opinfo.module_db import ModuleInfo, T, f, fwd, variant


def _causal(gen, dtype):
    return torch.triu(torch.ones(3, 3, dtype=torch.bool), 1)     # True: not attended, as the padding mask


def _padding_mask(gen, dtype):
    return torch.tensor([[False, False, True], [False, False, False]])


CAUSAL, PADDING = T((3, 3), _causal), T((2, 3), _padding_mask)
E = 4   # embedding size, 2 heads


def _layer(cls, *v):
    return ModuleInfo(cls, tuple(v), family="transformer", random_in_train=True)


MODULES = [
    _layer(nn.MultiheadAttention,
           variant("default", E, 2, forwards=[fwd("batched", f(3, 2, E), f(3, 2, E), f(3, 2, E)),
                                              fwd("no_batch", f(3, E), f(3, E), f(3, E))]),
           variant("dropout_batch_first_masks", E, 2, dropout=0.1, batch_first=True, forwards=[
               fwd("masks", f(2, 3, E), f(2, 3, E), f(2, 3, E), key_padding_mask=PADDING, attn_mask=CAUSAL,
                   average_attn_weights=False)]),
           variant("kdim_vdim_bias_kv", E, 2, kdim=3, vdim=5, add_bias_kv=True, add_zero_attn=True,
                   forwards=[fwd("batched", f(3, 2, E), f(2, 2, 3), f(2, 2, 5), need_weights=False)])),
    _layer(nn.TransformerEncoderLayer,
           variant("default", E, 2, 8, forwards=[fwd("batched", f(3, 2, E)), fwd("no_batch", f(3, E))]),
           variant("batch_first_norm_first_gelu_masks", E, 2, 8, batch_first=True, norm_first=True,
                   activation="gelu", forwards=[fwd("masks", f(2, 3, E), src_mask=CAUSAL,
                                                    src_key_padding_mask=PADDING)]),
           variant("batch_first", E, 2, 8, batch_first=True, forwards=[fwd("batched", f(2, 3, E))])),
    _layer(nn.TransformerDecoderLayer,
           variant("default", E, 2, 8, forwards=[fwd("batched", f(3, 2, E), f(5, 2, E)),
                                                 fwd("no_batch", f(3, E), f(5, E))]),
           variant("batch_first_norm_first_causal", E, 2, 8, batch_first=True, norm_first=True, forwards=[
               fwd("masks", f(2, 3, E), f(2, 5, E), tgt_mask=CAUSAL, tgt_is_causal=True)])),
    # one encoder and one decoder layer: the layers' own paths are the records above
    _layer(nn.Transformer,
           variant("1_1_layers_batch_first_causal", E, 2, 1, 1, 8, batch_first=True, forwards=[
               fwd("masks", f(2, 5, E), f(2, 3, E), tgt_mask=CAUSAL, tgt_is_causal=True)])),
]
