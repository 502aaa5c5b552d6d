#!/usr/bin/python3
"""Writes ai.onnx.ml models as scikit-learn exports (skl2onnx) write them, for the ops DCW lowers:
Scaler, Normalizer (MAX, L1, L2), Binarizer, Imputer, ArrayFeatureExtractor, LinearRegressor,
LinearClassifier (softmax, logistic, one row for two classes), TreeEnsembleRegressor (SUM, AVERAGE, a missing-value
direction, every branch mode) and TreeEnsembleClassifier (NONE as random forests write it, SOFTMAX as
gradient boosting does, two classes), and a pipeline of a scaler, a forest and a linear model. Inputs
have a dynamic batch dim. The ctest compare_ml_with_onnxruntime runs them through `dcw run` against
ONNX Runtime (whose CPU build has the ai.onnx.ml kernels). skl2onnx is not packaged for Debian, so the
models are written with onnx.helper, attribute by attribute as the converter writes them.

usage: ml_cases.py OUTDIR
"""
import os
import sys

import onnx
from onnx import TensorProto, helper

C = 4


def model(name, nodes, outputs, inits=()):
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", C])
    g = helper.make_graph(nodes, name, [x], outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)])
    onnx.checker.check_model(m)
    return name, m


def out(name, dtype, dims):
    return helper.make_tensor_value_info(name, dtype, dims)


def ml(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, domain="ai.onnx.ml", **attrs)


# Two trees over 4 features. Tree 0: depth 2 with LEQ/LT splits; tree 1: GTE/GT/EQ/NEQ splits, one of
# them sending a missing value to the true branch. Leaves 3..6 of tree 0 and 2, 4, 5, 6 of tree 1.
TREES = dict(
    nodes_treeids=[0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1],
    nodes_nodeids=[0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6],
    nodes_featureids=[0, 1, 2, 0, 0, 0, 0, 3, 2, 0, 1, 0, 0, 0],
    nodes_values=[0.0, -0.3, 0.4, 0, 0, 0, 0, 0.1, -0.2, 0, 0.25, 0, 0, 0],
    nodes_modes=["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "LEAF", "LEAF", "LEAF", "LEAF",
                 "BRANCH_GT", "BRANCH_NEQ", "LEAF", "BRANCH_GTE", "LEAF", "LEAF", "LEAF"],
    nodes_truenodeids=[1, 3, 5, 0, 0, 0, 0, 1, 3, 0, 5, 0, 0, 0],
    nodes_falsenodeids=[2, 4, 6, 0, 0, 0, 0, 2, 4, 0, 6, 0, 0, 0],
    nodes_missing_value_tracks_true=[0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
)
LEAVES = [(0, 3), (0, 4), (0, 5), (0, 6), (1, 2), (1, 4), (1, 5), (1, 6)]


def leaf_weights(prefix, outputs, positive=False):
    # positive: every weight > 0 and the first class's the larger, so two classes' labels follow the
    # second score's sign (as ONNX Runtime decides them), not the larger score.
    t, n, i, w = [], [], [], []
    for k, (tree, node) in enumerate(LEAVES):
        for o in range(outputs):
            t.append(tree)
            n.append(node)
            i.append(o)
            w.append(round(0.3 + 0.1 * k if o == 0 else 0.05 * (k % 3), 3) if positive else
                     round(0.1 * (k + 1) * (1 if o % 2 == 0 else -0.5) + 0.05 * o, 3))
    return {prefix + "_treeids": t, prefix + "_nodeids": n, prefix + "_ids": i, prefix + "_weights": w}


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    F = TensorProto.FLOAT
    I = TensorProto.INT64
    cases = [
        model("scaler", [ml("Scaler", ["X"], ["Y"], offset=[0.1, -0.2, 0.3, 0.0], scale=[2.0, 0.5, -1.0, 3.0])], [out("Y", F, ["N", C])]),
        model("scaler_one_value", [ml("Scaler", ["X"], ["Y"], offset=[0.5], scale=[4.0])], [out("Y", F, ["N", C])]),
        model("binarizer", [ml("Binarizer", ["X"], ["Y"], threshold=0.2)], [out("Y", F, ["N", C])]),
        model("imputer", [ml("Imputer", ["X"], ["Y"], imputed_value_floats=[1.0, 2.0, 3.0, 4.0], replaced_value_float=float("nan"))],
              [out("Y", F, ["N", C])]),
        model("array_feature_extractor", [ml("ArrayFeatureExtractor", ["X", "which"], ["Y"])], [out("Y", F, ["N", 2])],
              [helper.make_tensor("which", I, [2], [2, 0])]),
        model("linear_regressor", [ml("LinearRegressor", ["X"], ["Y"], targets=2,
                                      coefficients=[0.5, -1.0, 0.25, 2.0, 1.5, 0.0, -0.75, 0.1], intercepts=[0.3, -0.2])],
              [out("Y", F, ["N", 2])]),
        model("linear_classifier_softmax", [ml("LinearClassifier", ["X"], ["label", "probabilities"], classlabels_ints=[0, 1, 2],
                                               coefficients=[0.5, -1.0, 0.25, 2.0, 1.5, 0.0, -0.75, 0.1, -0.4, 0.8, 0.6, -1.2],
                                               intercepts=[0.3, -0.2, 0.1], multi_class=1, post_transform="SOFTMAX")],
              [out("label", I, ["N"]), out("probabilities", F, ["N", 3])]),
        model("linear_classifier_binary", [ml("LinearClassifier", ["X"], ["label", "probabilities"], classlabels_ints=[3, 7],
                                              coefficients=[-0.5, 1.0, -0.25, -2.0, 0.5, -1.0, 0.25, 2.0], intercepts=[-0.1, 0.1],
                                              post_transform="LOGISTIC")],
              [out("label", I, ["N"]), out("probabilities", F, ["N", 2])]),
        model("linear_classifier_one_row", [ml("LinearClassifier", ["X"], ["label", "probabilities"], classlabels_ints=[0, 1],
                                               coefficients=[0.5, -1.0, 0.25, 2.0], intercepts=[0.1])],
              [out("label", I, ["N"]), out("probabilities", F, ["N", 2])]),
        model("linear_classifier_one_row_logistic", [ml("LinearClassifier", ["X"], ["label", "probabilities"], classlabels_ints=[4, 9],
                                                        coefficients=[0.5, -1.0, 0.25, 2.0], intercepts=[-0.2], post_transform="LOGISTIC")],
              [out("label", I, ["N"]), out("probabilities", F, ["N", 2])]),
        model("tree_regressor_sum", [ml("TreeEnsembleRegressor", ["X"], ["Y"], n_targets=2, aggregate_function="SUM",
                                        base_values=[0.5, -0.5], **TREES, **leaf_weights("target", 2))],
              [out("Y", F, ["N", 2])]),
        model("tree_regressor_average", [ml("TreeEnsembleRegressor", ["X"], ["Y"], n_targets=1, aggregate_function="AVERAGE",
                                            **TREES, **leaf_weights("target", 1))],
              [out("Y", F, ["N", 1])]),
        model("random_forest_classifier", [ml("TreeEnsembleClassifier", ["X"], ["label", "probabilities"], classlabels_int64s=[0, 1, 2],
                                              **TREES, **leaf_weights("class", 3))],
              [out("label", I, ["N"]), out("probabilities", F, ["N", 3])]),
        model("boosting_classifier_softmax", [ml("TreeEnsembleClassifier", ["X"], ["label", "probabilities"], classlabels_int64s=[10, 20, 30],
                                                 post_transform="SOFTMAX", base_values=[0.1, 0.0, -0.1], **TREES, **leaf_weights("class", 3))],
              [out("label", I, ["N"]), out("probabilities", F, ["N", 3])]),
        model("forest_two_classes", [ml("TreeEnsembleClassifier", ["X"], ["label", "probabilities"], classlabels_int64s=[0, 1],
                                        **TREES, **leaf_weights("class", 2))],
              [out("label", I, ["N"]), out("probabilities", F, ["N", 2])]),
        model("forest_two_classes_positive", [ml("TreeEnsembleClassifier", ["X"], ["label", "probabilities"], classlabels_int64s=[0, 1],
                                                 **TREES, **leaf_weights("class", 2, positive=True))],
              [out("label", I, ["N"]), out("probabilities", F, ["N", 2])]),
    ]
    for norm in ["MAX", "L1", "L2"]:
        cases.append(model("normalizer_" + norm.lower(), [ml("Normalizer", ["X"], ["Y"], norm=norm)], [out("Y", F, ["N", C])]))
    # A pipeline: scale, then a forest's class scores, then a linear model on them.
    cases.append(model("pipeline", [
        ml("Scaler", ["X"], ["scaled"], offset=[0.1, -0.2, 0.3, 0.0], scale=[2.0, 0.5, -1.0, 3.0]),
        ml("TreeEnsembleRegressor", ["scaled"], ["leaves"], n_targets=2, **TREES, **leaf_weights("target", 2)),
        ml("LinearRegressor", ["leaves"], ["Y"], targets=1, coefficients=[1.5, -2.0], intercepts=[0.25]),
    ], [out("Y", F, ["N", 1])]))
    for name, m in cases:
        onnx.save(m, os.path.join(outdir, name + ".onnx"))


if __name__ == "__main__":
    main()
