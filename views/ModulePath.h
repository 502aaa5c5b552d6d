// ModulePath: the module an ONNX node came from, read from its name as exporters write it — torch's
// `/encoder/layer.3/attention/self/MatMul` and `layers.0.self_attn.MatMul` (the last part is the op;
// a numeric part belongs to the one before it: `layers.0`) — so the canvas can draw the model's module
// hierarchy as collapsible groups (VisualGraph) the way Model Explorer does. Names without a module
// (`Conv_12`, `p2o.Conv.0` from paddle2onnx, which numbers ops rather than modules) give none.
#pragma once

#include <QStringList>

#include <string_view>

namespace dcw::views {

QStringList modulePath(std::string_view nodeName);

} // namespace dcw::views
