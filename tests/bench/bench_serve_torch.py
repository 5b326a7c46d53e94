#!/usr/bin/env python3
"""The runtime model's serving forward in PyTorch, for `hetplan-bench serve` to time beside ours.

The same architecture as docs/runtime-model.md ("Architecture": RMSNorm, grouped-query causal
attention with RoPE, SwiGLU or GELU MLP, untied head, no biases) at the shapes given on the
command line, fp32, on as many threads as asked (the bench asks for one, as its BLAS runs).
Weights are random: only the time is measured. Prints one line per figure, "name seconds":
prefill of one prompt (logits of its last token), and one decode step of a batch at a context of
one prompt, reading and extending a preallocated KV cache. Wall time is the median of the calls,
CPU time the mean (time.process_time).
"""

import argparse
import math
import statistics
import time

import torch


def rms_norm(x, gain):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * gain


def rope(x, positions, head_dim):
    # x: [batch, heads, tokens, head_dim]; feature pairs (2i, 2i+1) rotate by position / 10000^(2i/d)
    inv = 1.0 / (10000 ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    angles = positions.to(torch.float32)[:, None] * inv[None, :]
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


class Model:
    def __init__(self, a):
        self.a = a
        self.head_dim = a.hidden // a.heads
        g = torch.Generator().manual_seed(1)

        def w(rows, cols):
            return torch.randn(rows, cols, generator=g) / math.sqrt(cols)

        kv = a.kv_heads * self.head_dim
        self.embedding = torch.randn(a.vocab, a.hidden, generator=g) * 0.02
        self.layers = []
        for _ in range(a.layers):
            layer = {
                "attn_norm": torch.ones(a.hidden),
                "q": w(a.hidden, a.hidden), "k": w(kv, a.hidden), "v": w(kv, a.hidden),
                "o": w(a.hidden, a.hidden), "mlp_norm": torch.ones(a.hidden),
                "up": w(a.ffn, a.hidden), "down": w(a.hidden, a.ffn),
            }
            if a.mlp == "swiglu":
                layer["gate"] = w(a.ffn, a.hidden)
            self.layers.append(layer)
        self.final_norm = torch.ones(a.hidden)
        self.head = w(a.vocab, a.hidden)
        shape = (a.layers, a.batch, a.kv_heads, a.prompt + 1, self.head_dim)
        self.keys = torch.zeros(shape)
        self.values = torch.zeros(shape)

    def forward(self, slots, tokens, start):
        """Tokens [len(slots), n] at positions start..start+n-1 of each slot's sequence; returns
        the logits of each sequence's last token."""
        a, d = self.a, self.head_dim
        b, n = tokens.shape
        positions = torch.arange(start, start + n)
        # Consecutive slots as a slice: a view of the cache, where a list would copy it.
        consecutive = slots == list(range(slots[0], slots[-1] + 1))
        rows = slice(slots[0], slots[-1] + 1) if consecutive else slots
        x = self.embedding[tokens]
        for l, layer in enumerate(self.layers):
            h = rms_norm(x, layer["attn_norm"])
            q = (h @ layer["q"].T).view(b, n, a.heads, d).transpose(1, 2)
            k = (h @ layer["k"].T).view(b, n, a.kv_heads, d).transpose(1, 2)
            v = (h @ layer["v"].T).view(b, n, a.kv_heads, d).transpose(1, 2)
            q, k = rope(q, positions, d), rope(k, positions, d)
            self.keys[l, rows, :, start:start + n] = k
            self.values[l, rows, :, start:start + n] = v
            keys = self.keys[l, rows, :, :start + n]
            values = self.values[l, rows, :, :start + n]
            group = a.heads // a.kv_heads
            if group > 1:
                keys = keys.repeat_interleave(group, dim=1)
                values = values.repeat_interleave(group, dim=1)
            scores = q @ keys.transpose(-1, -2) / math.sqrt(d)
            if n > 1:
                mask = torch.ones(n, start + n, dtype=torch.bool).tril(start)
                scores = scores.masked_fill(~mask, float("-inf"))
            attended = (scores.softmax(-1) @ values).transpose(1, 2).reshape(b, n, a.hidden)
            x = x + attended @ layer["o"].T
            h = rms_norm(x, layer["mlp_norm"])
            up = h @ layer["up"].T
            if a.mlp == "swiglu":
                up = torch.nn.functional.silu(h @ layer["gate"].T) * up
            else:
                up = torch.nn.functional.gelu(up, approximate="tanh")
            x = x + up @ layer["down"].T
        return rms_norm(x[:, -1], self.final_norm) @ self.head.T


def timed(step, wall_calls=3, cpu_calls=5):
    step()  # warm-up
    walls = []
    for _ in range(wall_calls):
        begin = time.perf_counter()
        step()
        walls.append(time.perf_counter() - begin)
    begin = time.process_time()
    for _ in range(cpu_calls):
        step()
    return statistics.median(walls), (time.process_time() - begin) / cpu_calls


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "prompt", "batch"):
        p.add_argument("--" + name.replace("_", "-"), dest=name, type=int, required=True)
    p.add_argument("--mlp", choices=("swiglu", "gelu"), default="swiglu")
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    model = Model(a)
    with torch.inference_mode():
        prompt = (torch.arange(a.prompt) * 7 % a.vocab).view(1, a.prompt)
        for slot in range(a.batch):
            model.forward([slot], prompt, 0)
        prefill_wall, prefill_cpu = timed(lambda: model.forward([0], prompt, 0))
        slots = list(range(a.batch))
        step = (torch.arange(a.batch) % a.vocab).view(a.batch, 1)
        decode_wall, decode_cpu = timed(lambda: model.forward(slots, step, a.prompt))
    print("torch", torch.__version__)
    print("prefill_wall_s", prefill_wall)
    print("prefill_cpu_s", prefill_cpu)
    print("decode_wall_s", decode_wall)
    print("decode_cpu_s", decode_cpu)


if __name__ == "__main__":
    main()
