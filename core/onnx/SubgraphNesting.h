// SubgraphNesting: how deeply an ONNX model nests graphs inside graphs (If/Loop/Scan bodies: the
// graph attributes of nodes), and the one limit DCW puts on it.
//
// Why a limit: everything that walks a model — protobuf's parser, ONNX's checker and shape inference,
// the importer, validation, serialization, analysis, code generation, the app's views — recurses once
// or more per level, so past some depth the stack runs out and the process dies. kMaxSubgraphNesting
// is chosen so that import (the deepest recursion: ~5 KiB per level) stays inside a default 8 MiB
// stack. A deeper model is refused up front with one message naming its depth and the
// limit, whether or not protobuf could parse it.
//
// Depth: the main graph (and a model-local function's body) is level 0; a body of a node in a graph
// at level d is at level d + 1. A chain of 1,000 Ifs, each in the then-branch of the one before,
// nests 1,000 deep.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace onnx {
class ModelProto;
}

namespace dcw::onnx {

// Measured (Release build, `dcw inspect` of an If nest): import needs about 5 KiB of stack per level
// (1,000 levels run in 6 MiB, not in 4 MiB; 2,000 overflow 8 MiB), so 1,000 leaves headroom in the
// default 8 MiB of the main thread and of the app's worker threads.
constexpr int kMaxSubgraphNesting = 1000;

// Protobuf counts nested messages, three per level (GraphProto -> NodeProto -> AttributeProto ->
// GraphProto), plus room for types nested in types: the recursion limit the parser gets.
constexpr int kProtobufRecursionLimit = 3 * kMaxSubgraphNesting + 200;

// The deepest level in a parsed model. A call of a model-local function counts as one level more
// (its body becomes a subgraph of the calling node at import), plus what the body nests and calls.
// Iterative: safe at any depth.
int subgraphNesting(const ::onnx::ModelProto& model);

// A model-local function that calls itself, directly or through others ("domain::name"): ONNX's
// shape inference would recurse without end on it. Iterative.
std::optional<std::string> recursiveFunction(const ::onnx::ModelProto& model);

// The same, read straight from the protobuf wire format of a ModelProto without parsing it (for
// bytes the parser refused): ModelProto.graph (7) / .functions (25) -> GraphProto.node (1) /
// FunctionProto.node (7) -> NodeProto.attribute (5) -> AttributeProto.g (6) / .graphs (11).
// Iterative, one pass. nullopt when the bytes are not well-formed along that path.
std::optional<int> scanSubgraphNesting(std::string_view bytes);

// "the model nests subgraphs N deep; DCW supports up to kMaxSubgraphNesting"
std::string nestingTooDeepMessage(int depth);

} // namespace dcw::onnx
