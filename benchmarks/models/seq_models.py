"""Sequence benchmark models for export.py: a BERT-style encoder, a GRU and an LSTM.

All weights come from PyTorch's default initialisation under the caller's fixed
seed (plus the perturbation below); nothing is downloaded. Each make_inputs_*
returns the example inputs as a tuple, in the order the model's forward takes them.
"""
import math

import torch
import torch.nn as nn

# BERT-style encoder: small enough for a quick test, shaped like the real thing.
BERT_VOCAB = 4000
BERT_SEQ = 64
BERT_HIDDEN = 128
BERT_HEADS = 4
BERT_FFN = 512
BERT_LAYERS = 3
BERT_VALID = 50  # tokens 50..63 are padding, hidden by the attention mask


class SelfAttention(nn.Module):
    """Multi-head self-attention written the way Hugging Face's BERT is, so the
    export has the same Q/K/V MatMuls, head reshapes, scaling, additive mask and
    Softmax."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, hidden)

    def split(self, x):
        # [B, S, H] -> [B, heads, S, head_dim], with the size taken from x like
        # BERT does, so the exporter emits its Shape/Gather/Concat chains.
        new_shape = x.size()[:-1] + (self.heads, self.head_dim)
        return x.view(new_shape).permute(0, 2, 1, 3)

    def forward(self, x, mask_bias):
        q = self.split(self.query(x))
        k = self.split(self.key(x))
        v = self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        probs = torch.softmax(scores + mask_bias, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(ctx.size()[:-2] + (self.heads * self.head_dim,))
        return self.out(ctx)


class EncoderLayer(nn.Module):
    def __init__(self, hidden, heads, ffn):
        super().__init__()
        self.attn = SelfAttention(hidden, heads)
        self.norm1 = nn.LayerNorm(hidden, eps=1e-12)
        self.ff1 = nn.Linear(hidden, ffn)
        self.act = nn.GELU()  # exact GELU: exported through Erf
        self.ff2 = nn.Linear(ffn, hidden)
        self.norm2 = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x, mask_bias):
        x = self.norm1(x + self.attn(x, mask_bias))
        return self.norm2(x + self.ff2(self.act(self.ff1(x))))


class BertEncoder(nn.Module):
    """Token ids + attention mask -> last layer's per-token hidden states."""

    def __init__(self):
        super().__init__()
        self.word = nn.Embedding(BERT_VOCAB, BERT_HIDDEN)
        self.position = nn.Embedding(BERT_SEQ, BERT_HIDDEN)
        self.register_buffer("position_ids", torch.arange(BERT_SEQ).unsqueeze(0))
        self.norm = nn.LayerNorm(BERT_HIDDEN, eps=1e-12)
        self.layers = nn.ModuleList(
            [EncoderLayer(BERT_HIDDEN, BERT_HEADS, BERT_FFN) for _ in range(BERT_LAYERS)])

    def forward(self, input_ids, attention_mask):
        seq = input_ids.size(1)
        positions = self.position_ids[:, :seq]
        x = self.norm(self.word(input_ids) + self.position(positions))
        # [B, S] of 1/0 -> additive bias [B, 1, 1, S]: 0 where attended, -1e4 on padding.
        mask = attention_mask[:, None, None, :].to(x.dtype)
        mask_bias = (1.0 - mask) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        return x


def make_bert():
    model = BertEncoder()
    gen = torch.Generator().manual_seed(99)
    with torch.no_grad():
        # LayerNorm defaults (1, 0) would hide a wrong affine; make them count.
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):
                m.weight.copy_(torch.rand(m.weight.shape, generator=gen) * 0.5 + 0.75)
                m.bias.copy_((torch.rand(m.bias.shape, generator=gen) - 0.5) * 0.2)
    return model


def make_inputs_bert(gen):
    ids = torch.randint(0, BERT_VOCAB, (1, BERT_SEQ), generator=gen, dtype=torch.int64)
    mask = torch.zeros(1, BERT_SEQ, dtype=torch.int64)
    mask[:, :BERT_VALID] = 1
    ids[:, BERT_VALID:] = 0  # the pad token
    return ids, mask


# Recurrent models: a feature sequence in, a Linear on the last time step out.
RNN_STEPS = 32
RNN_FEATURES = 40
RNN_HIDDEN = 128
RNN_CLASSES = 10


class GruClassifier(nn.Module):
    """Batch-first, 2 layers, bidirectional GRU; [1, T, F] -> [1, classes]."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(RNN_FEATURES, RNN_HIDDEN, num_layers=2, batch_first=True,
                          bidirectional=True)
        self.head = nn.Linear(2 * RNN_HIDDEN, RNN_CLASSES)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y[:, -1, :])


class LstmClassifier(nn.Module):
    """Sequence-first, 2 layers, unidirectional LSTM; [T, 1, F] -> [1, classes]."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(RNN_FEATURES, RNN_HIDDEN, num_layers=2)
        self.head = nn.Linear(RNN_HIDDEN, RNN_CLASSES)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y[-1])


def make_inputs_randn(shape):
    def make(gen):
        return (torch.randn(*shape, generator=gen, dtype=torch.float32),)
    return make


# name -> (constructor, inputs maker, input names, opset)
SEQ_MODELS = {
    "bert": (make_bert, make_inputs_bert, ["input_ids", "attention_mask"], 13),
    # The same encoder at opset 17, where LayerNormalization is a single op.
    "bert_op17": (make_bert, make_inputs_bert, ["input_ids", "attention_mask"], 17),
    "gru": (GruClassifier, make_inputs_randn((1, RNN_STEPS, RNN_FEATURES)), ["input"], 13),
    "lstm": (LstmClassifier, make_inputs_randn((RNN_STEPS, 1, RNN_FEATURES)), ["input"], 13),
}
