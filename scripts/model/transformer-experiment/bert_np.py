"""A faithful numpy forward pass of a BERT encoder (HF BertModel layout, post-LN, exact GELU),
weights from model.safetensors, tokenisation from tokenizer.json (HF `tokenizers`)."""
import json, os
import numpy as np
from scipy.special import erf
from safetensors.numpy import load_file
from tokenizers import Tokenizer


class Bert:
    def __init__(self, d, max_len=512, pooling="mean", prefix_strip=""):
        cfg = json.load(open(os.path.join(d, "config.json")))
        self.cfg = cfg
        w = load_file(os.path.join(d, "model.safetensors"))
        # some exports prefix every name with "bert." or "model."
        norm = {}
        for k, v in w.items():
            for p in ("bert.", "model."):
                if k.startswith(p):
                    k = k[len(p):]
            norm[k] = v.astype(np.float32)
        self.w = norm
        self.L = cfg["num_hidden_layers"]
        self.H = cfg["num_attention_heads"]
        self.eps = cfg.get("layer_norm_eps", 1e-12)
        self.tok = Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(max_length=max_len)
        self.pooling = pooling

    def ln(self, x, p):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + self.eps) * self.w[p + ".weight"] + self.w[p + ".bias"]

    def lin(self, x, p):
        return x @ self.w[p + ".weight"].T + self.w[p + ".bias"]

    def forward(self, ids, types):
        w = self.w
        n = len(ids)
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(n)]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = self.ln(x, "embeddings.LayerNorm")
        H = self.H
        dh = x.shape[1] // H
        for i in range(self.L):
            p = f"encoder.layer.{i}."
            q = self.lin(x, p + "attention.self.query").reshape(n, H, dh).transpose(1, 0, 2)
            k = self.lin(x, p + "attention.self.key").reshape(n, H, dh).transpose(1, 0, 2)
            v = self.lin(x, p + "attention.self.value").reshape(n, H, dh).transpose(1, 0, 2)
            s = q @ k.transpose(0, 2, 1) / np.sqrt(dh)
            s = s - s.max(-1, keepdims=True)
            a = np.exp(s)
            a /= a.sum(-1, keepdims=True)
            c = (a @ v).transpose(1, 0, 2).reshape(n, H * dh)
            x = self.ln(self.lin(c, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = self.lin(x, p + "intermediate.dense")
            h = 0.5 * h * (1.0 + erf(h / np.sqrt(2.0)))
            x = self.ln(self.lin(h, p + "output.dense") + x, p + "output.LayerNorm")
        return x

    def embed(self, text):
        e = self.tok.encode(text)
        h = self.forward(np.array(e.ids), np.array(e.type_ids))
        v = h[0] if self.pooling == "cls" else h.mean(0)
        return v / np.linalg.norm(v)
