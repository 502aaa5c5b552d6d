// The `systolic` implementations (target fpga; not differentiable: streams): MatMul, Gemm and Conv (2-D, one group,
// on im2col patches) as a linear systolic array of processing elements joined by streams, in a dataflow state of its nested SDFG
// (core/expansions/fpga/Systolic.cpp says how). registerSystolic registers them.
#pragma once

namespace dcw::expansions {
class ExpansionRegistry;
}

namespace dcw::expansions::fpga {

void registerSystolic(ExpansionRegistry& r);

} // namespace dcw::expansions::fpga
