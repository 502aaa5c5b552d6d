#!/usr/bin/python3
"""Writes the fixtures of tests/data/strings: models with string ops at their edges, which the host runs
around the compiled program (codegen/run/StringStages.h), and one with a string op between computed
values, which is refused. tst_StringStages runs them; text_tfidf also against ONNX Runtime.

usage: string_models.py  (writes into tests/data/strings)
"""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "strings")


def save(nodes, name, inputs, outputs, inits=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(OUT, name + ".onnx"))


def text_numbers():
    # Words normalized (stopword dropped, upper case); numbers given as text, doubled by the program,
    # written back as text; their sum as a number.
    words = helper.make_tensor_value_info("words", TensorProto.STRING, ["n"])
    numbers = helper.make_tensor_value_info("numbers", TensorProto.STRING, ["m"])
    clean = helper.make_tensor_value_info("clean", TensorProto.STRING, [None])
    doubled = helper.make_tensor_value_info("doubled", TensorProto.STRING, ["m"])
    total = helper.make_tensor_value_info("total", TensorProto.FLOAT, [])
    nodes = [
        helper.make_node("StringNormalizer", ["words"], ["clean"], case_change_action="UPPER", stopwords=["the"]),
        helper.make_node("Cast", ["numbers"], ["x"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["x", "two"], ["x2"]),
        helper.make_node("Cast", ["x2"], ["doubled"], to=TensorProto.STRING),
        helper.make_node("ReduceSum", ["x2"], ["total"], keepdims=0),
    ]
    save(nodes, "text_numbers", [words, numbers], [clean, doubled, total], [helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])])


def string_in_the_middle():
    # Numbers to text and back inside the computation: a string op between computed values.
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [3])
    nodes = [
        helper.make_node("Relu", ["X"], ["r"]),
        helper.make_node("Cast", ["r"], ["s"], to=TensorProto.STRING),
        helper.make_node("Cast", ["s"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("Neg", ["f"], ["Y"]),
    ]
    save(nodes, "string_in_the_middle", [x], [y])


def text_tfidf():
    # Tokens counted against a pool of words and word pairs (TfIdfVectorizer with pool_strings: up to one
    # token skipped inside a pair, TFIDF weights), then doubled by the program.
    words = helper.make_tensor_value_info("words", TensorProto.STRING, ["n", 6])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["n", 5])
    nodes = [
        helper.make_node("TfIdfVectorizer", ["words"], ["counts"], name="tfidf", mode="TFIDF", min_gram_length=1,
                         max_gram_length=2, max_skip_count=1, ngram_counts=[0, 3], ngram_indexes=[0, 1, 2, 3, 4],
                         pool_strings=["a", "b", "c", "a", "b", "b", "c"], weights=[1.0, 1.0, 1.0, 2.0, 3.0]),
        helper.make_node("Add", ["counts", "counts"], ["Y"]),
    ]
    save(nodes, "text_tfidf", [words], [y])


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    text_numbers()
    string_in_the_middle()
    text_tfidf()
