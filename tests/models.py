"""The model zoo: small torch.nn models that every layer of primkit must handle end to end."""
from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(16, 32), nn.Linear(32, 32), nn.Linear(32, 4)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        x = self.drop(F.relu(self.fc1(x)))
        x = F.gelu(self.fc2(x))
        return self.fc3(F.silu(x))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1d = nn.Conv1d(3, 3, 3, padding=1)
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, stride=2, groups=2)
        self.bn2 = nn.BatchNorm2d(8)
        self.head = nn.Linear(8 * 2 * 2, 5)

    def forward(self, x):
        n, c, h, w = x.shape
        x = self.conv1d(x.reshape(n, c, h * w)).reshape(n, c, h, w)
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.avg_pool2d(F.relu(self.bn2(self.conv2(x))), 2, stride=1, padding=1)
        x = F.adaptive_avg_pool2d(x, (2, 2))
        return self.head(torch.flatten(x, 1))


class Attention(nn.Module):
    def __init__(self, dim, heads, causal):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.qkv, self.out = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.heads, d // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        return self.out(y.transpose(1, 2).reshape(b, s, d))


class RMSNorm(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return F.rms_norm(x, (x.shape[-1],), self.weight, eps=1e-6)


class EncoderBlock(nn.Module):
    """Token embedding, post-norm attention and MLP, a classification head with cross entropy."""
    def __init__(self, vocab=50, dim=32, heads=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.attn, self.ln1 = Attention(dim, heads, causal=False), nn.LayerNorm(dim)
        self.mlp, self.ln2 = nn.Sequential(nn.Linear(dim, 64), nn.GELU(), nn.Linear(64, dim)), nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, ids, targets):
        x = self.emb(ids)
        x = self.ln1(x + self.attn(x))
        x = self.ln2(x + self.mlp(x))
        logits = self.head(x)
        return F.cross_entropy(logits.flatten(0, 1), targets.flatten()), F.log_softmax(logits, -1)


class DecoderBlock(nn.Module):
    """Pre-norm (RMSNorm) causal attention and a SiLU MLP; softmax over the vocabulary."""
    def __init__(self, vocab=50, dim=32, heads=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.n1, self.attn = RMSNorm(dim), Attention(dim, heads, causal=True)
        self.n2, self.up, self.down = RMSNorm(dim), nn.Linear(dim, 64, bias=False), nn.Linear(64, dim, bias=False)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids):
        x = self.emb(ids)
        x = x + self.attn(self.n1(x))
        x = x + self.down(F.silu(self.up(self.n2(x))))
        return torch.softmax(self.head(x), dim=-1)


def zoo():
    """(name, model in eval mode, example args)."""
    torch.manual_seed(0)
    ids = torch.randint(0, 50, (2, 7))
    cnn = CNN()
    with torch.no_grad():   # non-trivial running statistics, so batch norm is not an identity
        for bn in (cnn.bn1, cnn.bn2):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
    return [
        ("mlp", MLP().eval(), (torch.randn(5, 16),)),
        ("cnn", cnn.eval(), (torch.randn(2, 3, 12, 12),)),
        ("encoder", EncoderBlock().eval(), (ids, torch.randint(0, 50, (2, 7)))),
        ("decoder", DecoderBlock().eval(), (ids,)),
    ]


class GPT2Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln_1, self.attn = nn.LayerNorm(dim), Attention(dim, heads, causal=True)
        self.ln_2 = nn.LayerNorm(dim)
        self.c_fc, self.c_proj = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT2(nn.Module):
    """GPT-2's architecture at toy size: token and position embeddings, pre-norm causal blocks."""
    def __init__(self, vocab=64, positions=32, dim=32, heads=4, layers=2):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, dim), nn.Embedding(positions, dim)
        self.h = nn.ModuleList(GPT2Block(dim, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(dim)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1], device=ids.device)
        x = self.wte(ids) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        return self.ln_f(x)
