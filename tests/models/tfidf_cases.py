#!/usr/bin/python3
"""Writes TfIdfVectorizer models over integer tokens (opset 17) that the ONNX node suite does not
cover: IDF and TFIDF modes with weights, trigrams, skips, an output index that is a permutation and
output slots no n-gram fills, a single row [C] and a batch [N, C]. The pool's tokens lie in 0..9, as
`dcw run --random` draws integers, so most n-grams occur. The ctest compare_tfidf_with_onnxruntime runs
them through `dcw run` against ONNX Runtime.

usage: tfidf_cases.py OUTDIR
"""
import os
import sys

import onnx
from onnx import TensorProto, helper

POOL = [1, 2, 3, 7,          # unigrams
        1, 2, 3, 4, 5, 5,    # bigrams (1 2), (3 4), (5 5)
        2, 3, 4, 0, 9, 8]    # trigrams (2 3 4), (0 9 8)
COUNTS = [0, 4, 10]
INDEXES = [8, 0, 5, 2, 7, 1, 3, 9, 6]  # 9 n-grams into 10 outputs (max + 1; slot 4 stays 0)
WEIGHTS = [0.5, 1.5, 2.0, 0.25, 3.0, 1.0, 0.75, 4.0, 2.5]


def case(name, mode, shape, min_n, max_n, skip, weights=True):
    attrs = dict(mode=mode, min_gram_length=min_n, max_gram_length=max_n, max_skip_count=skip,
                 ngram_counts=COUNTS, ngram_indexes=INDEXES, pool_int64s=POOL)
    if weights:
        attrs["weights"] = WEIGHTS
    node = helper.make_node("TfIdfVectorizer", ["X"], ["Y"], **attrs)
    x = helper.make_tensor_value_info("X", TensorProto.INT64, shape)
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, shape[:-1] + [10])
    m = helper.make_model(helper.make_graph([node], name, [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(m)
    return name, m


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, m in [
        case("tfidf_idf_batch_skip2", "IDF", [3, 24], 1, 3, 2),
        case("tfidf_tfidf_batch_skip1", "TFIDF", [2, 30], 1, 3, 1),
        case("tfidf_tf_row_bigrams_up", "TF", [40], 2, 3, 3, weights=False),
        case("tfidf_idf_row_unweighted", "IDF", [17], 1, 2, 0, weights=False),
    ]:
        onnx.save(m, os.path.join(out, name + ".onnx"))


if __name__ == "__main__":
    main()
