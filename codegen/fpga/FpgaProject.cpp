#include "codegen/fpga/FpgaProject.h"

#include "codegen/cpu/Runtime.h"
#include "codegen/cpu/TaskletPrinter.h"
#include "core/ir/DType.h"

namespace dcw::codegen {

namespace {
constexpr std::string_view kXrtHost = R"DCWXRT(// dcw_xrt.h: the host's device layer of a DCW FPGA program on XRT's native C++ API.
#ifndef DCW_XRT_H
#define DCW_XRT_H
#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace dcw_xrt {

// Global memory as the host sees it: page-aligned host memory, and for each memory group (bank) a
// kernel argument reads it from, a buffer object over that same memory, made at the first launch that
// needs it (xrt::kernel::group_id gives the bank the link configuration connected the argument to).
struct HostBuffer {
  void* p = nullptr;
  size_t bytes = 0;
  std::map<int, xrt::bo> byGroup;
};

struct Context {
  xrt::device device;
  xrt::uuid uuid;
  std::map<const void*, HostBuffer> buffers; // host pointer -> its memory and buffer objects
  std::map<std::string, xrt::kernel> kernels;
};
inline std::unique_ptr<Context>& context() { static std::unique_ptr<Context> c; return c; }

// Opens device `index` and loads the bitstream; before dcw_program.
inline void open(const std::string& xclbin, unsigned index = 0) {
  auto c = std::make_unique<Context>();
  c->device = xrt::device(index);
  c->uuid = c->device.load_xclbin(xclbin);
  context() = std::move(c);
}

template <class T> struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(int64_t n) {
    if (!context()) throw std::runtime_error("dcw_xrt::open was not called before the program");
    const size_t bytes = (static_cast<size_t>(n > 0 ? n : 1) * sizeof(T) + 4095) / 4096 * 4096;
    p = static_cast<T*>(std::aligned_alloc(4096, bytes));
    if (!p) throw std::bad_alloc();
    context()->buffers.emplace(p, HostBuffer{p, bytes, {}});
  }
  ~DeviceBuffer() {
    if (context()) context()->buffers.erase(p);
    std::free(p);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

inline xrt::kernel& kernel(const char* name) {
  auto& ks = context()->kernels;
  auto it = ks.find(name);
  if (it == ks.end()) it = ks.emplace(name, xrt::kernel(context()->device, context()->uuid, name)).first;
  return it->second;
}

// The buffer object of host memory `p` in the bank of argument `index` of `k`.
inline xrt::bo& bufferFor(xrt::kernel& k, int index, const void* p) {
  auto it = context()->buffers.find(p);
  if (it == context()->buffers.end()) throw std::runtime_error("a kernel argument is not in device memory");
  HostBuffer& h = it->second;
  const int group = k.group_id(index);
  auto b = h.byGroup.find(group);
  if (b == h.byGroup.end()) b = h.byGroup.emplace(group, xrt::bo(context()->device, h.p, h.bytes, group)).first;
  return b->second;
}

template <class A> auto toDevice(xrt::kernel& k, int index, A a) {
  if constexpr (std::is_pointer_v<A>) {
    xrt::bo& bo = bufferFor(k, index, a);
    bo.sync(XCL_BO_SYNC_BO_TO_DEVICE);
    return bo;
  } else {
    return a;
  }
}
template <class A> void fromDevice(xrt::kernel& k, int index, A a) {
  if constexpr (std::is_pointer_v<A>) bufferFor(k, index, a).sync(XCL_BO_SYNC_BO_FROM_DEVICE);
}

template <class... A, size_t... I> void launchArgs(xrt::kernel& k, std::index_sequence<I...>, A... args) {
  auto run = k(toDevice(k, int(I), args)...);
  run.wait();
  (fromDevice(k, int(I), args), ...);
}

// One kernel run: its buffers go to the device (each to its argument's bank), it runs, they come back
// (host code may read them).
template <class... A> void launch(const char* name, A... args) {
  launchArgs(kernel(name), std::index_sequence_for<A...>{}, args...);
}

} // namespace dcw_xrt
#endif
)DCWXRT";
} // namespace

std::string_view xrtHostRuntimeSource() { return kXrtHost; }

Expected<std::vector<int64_t>> argumentBytes(const ProgramSignature& sig, const std::string& where) {
  std::vector<int64_t> bytes;
  for (auto& a : sig.args) {
    sym::Expr n(1);
    for (auto& d : a.shape) n = n * d;
    auto v = n.constantValue();
    if (!v)
      return fail(where, "argument '" + a.name + "' has the dynamic shape size " + n.str() + ", which an FPGA program cannot allocate",
                  "specialize the model's dynamic dims (--dim NAME=VALUE)");
    bytes.push_back(*v * int64_t(ir::dtypeSize(a.dtype)));
  }
  return bytes;
}

Expected<std::string> hostMainSource(const ProgramSignature& sig, const std::string& where, HostMain kind) {
  DCW_TRY(std::vector<int64_t> bytes, argumentBytes(sig, where));
  std::string sizes, roles;
  for (size_t k = 0; k < sig.args.size(); ++k) {
    sizes += (k ? ", " : "") + std::to_string(bytes[k]) + "LL";
    roles += (k ? ", " : "") + std::string(sig.args[k].role == ProgramArg::Role::Output ? "1" : "0");
  }
  const bool xrt = kind == HostMain::Xrt;
  const std::string n = std::to_string(sig.args.size()), ns = std::to_string(sig.symbols.size());
  const std::string first = xrt ? "2" : "1"; // argv index of the first argument file
  std::string s = "\n#include <cstdint>\n#include <cstdio>\n#include <fstream>\n#include <iostream>\n#include <string>\n#include <vector>\n\n";
  if (!xrt)
    s += "extern \"C\" int dcw_program(void* const* args, const int64_t* symbols, char* error, size_t errorSize);\n"
         "// Defined by a program that reports after the run (the RTL co-simulation's cycle counts).\n"
         "extern \"C\" void dcw_after_run() __attribute__((weak));\n\n";
  s += xrt ? "// ./host kernels.xclbin FILE... [SYMBOL...]: one raw file per argument (README.md), then symbol values.\n"
           : "// ./program FILE... [SYMBOL...]: one raw file per argument (inputs read, outputs written), then symbol values.\n";
  s += "int main(int argc, char** argv) {\n"
       "  const int args = " + n + ", symbols = " + ns + ", first = " + first + ";\n"
       "  const long long bytes[] = {" + (sizes.empty() ? std::string("0") : sizes) + "};\n"
       "  const int output[] = {" + (roles.empty() ? std::string("0") : roles) + "};\n"
       "  if (argc != first + args + symbols) {\n"
       "    std::cerr << \"usage: \" << argv[0] << \"" + (xrt ? " kernels.xclbin" : "") +
       " \" << args << \" argument files, \" << symbols << \" symbol values\\n\";\n"
       "    return 2;\n  }\n";
  if (xrt)
    s += "  try {\n    dcw_xrt::open(argv[1]);\n  } catch (const std::exception& e) {\n"
         "    std::cerr << argv[1] << \": \" << e.what() << \"\\n\";\n    return 1;\n  }\n";
  s += "  std::vector<std::vector<char>> data(args);\n  std::vector<void*> pointers(args);\n"
       "  for (int k = 0; k < args; ++k) {\n"
       "    data[k].resize(static_cast<size_t>(bytes[k]) + 1);\n    pointers[k] = data[k].data();\n"
       "    if (output[k]) continue;\n"
       "    std::ifstream in(argv[first + k], std::ios::binary);\n"
       "    if (!in.read(data[k].data(), bytes[k]) || in.peek() != EOF) {\n"
       "      std::cerr << argv[first + k] << \": expected exactly \" << bytes[k] << \" bytes\\n\";\n      return 1;\n    }\n  }\n"
       "  std::vector<int64_t> values(symbols + 1);\n"
       "  for (int k = 0; k < symbols; ++k) values[k] = std::stoll(argv[first + args + k]);\n"
       "  char error[1024] = {};\n"
       "  if (dcw_program(pointers.data(), values.data(), error, sizeof error) != 0) {\n"
       "    std::cerr << \"error: \" << error << \"\\n\";\n    return 1;\n  }\n"
       "  for (int k = 0; k < args; ++k)\n"
       "    if (output[k] && !std::ofstream(argv[first + k], std::ios::binary).write(data[k].data(), bytes[k])) {\n"
       "      std::cerr << argv[first + k] << \": cannot write\\n\";\n      return 1;\n    }\n";
  if (!xrt) s += "  if (dcw_after_run) dcw_after_run();\n";
  return s + "  return 0;\n}\n";
}

Expected<std::vector<GeneratedFile>> fpgaProjectFiles(const HlsProgram& p, const std::string& modelName, const FpgaDevice& device) {
  std::vector<GeneratedFile> out;
  out.push_back({"dcw_math.h", "// dcw_math.h: the math helpers DCW's generated kernels call.\n#ifndef DCW_MATH_H\n#define DCW_MATH_H\n" +
                                   std::string(kernelMathSource()) + "#endif\n"});
  out.push_back({"dcw_xrt.h", std::string(kXrtHost)});
  std::string cfg = "# Generated by DCW for " + device.part + ": one compute unit per kernel, every global-memory argument in its "
                    "data's memory bank.\n[connectivity]\n";
  for (auto& k : p.kernels) cfg += "nk=" + k.function + ":1:" + k.function + "_1\n";
  for (auto& k : p.kernels)
    for (auto& a : k.args) {
      if (a.isSymbol) continue;
      if (a.memoryBank >= int(device.banks.size()))
        return fail(k.statePath, "'" + a.name + "' is in memory bank " + std::to_string(a.memoryBank) + ", which " + device.part + " lacks (" +
                                     std::to_string(device.banks.size()) + " banks)",
                    "choose a bank from 0 to " + std::to_string(device.banks.size() - 1) + " (FpgaMemoryBank)");
      cfg += "sp=" + k.function + "_1." + a.id + ":" + device.banks[size_t(a.memoryBank)].name + "\n";
    }
  out.push_back({"link.cfg", cfg});
  std::string xos, rules;
  for (auto& k : p.kernels) {
    xos += " " + k.function + ".xo";
    rules += k.function + ".xo: kernels.cpp dcw_math.h\n\tv++ -c -t $(TARGET) --platform $(PLATFORM) -k " + k.function +
             " -o $@ kernels.cpp\n\n";
  }
  std::string make = "# Generated by DCW. Needs Vitis (v++) and XRT (source their settings64.sh first).\n"
                     "PLATFORM ?= xilinx_u250_gen3x16_xdma_4_1_202210_1\n"
                     "TARGET ?= hw\n\n"
                     "all: kernels.xclbin host\n\n" +
                     rules + "kernels.xclbin:" + xos + " link.cfg\n\tv++ -l -t $(TARGET) --platform $(PLATFORM) --config link.cfg -o $@" + xos +
                     "\n\nhost: host.cpp dcw_xrt.h\n\tg++ -std=c++17 -O2 -o $@ host.cpp -I$(XILINX_XRT)/include -L$(XILINX_XRT)/lib "
                     "-lxrt_coreutil -pthread\n\n.PHONY: all\n";
  out.push_back({"Makefile", make});
  std::string args;
  for (auto& a : p.code.signature.args) {
    std::string role = a.role == ProgramArg::Role::Input ? "input" : a.role == ProgramArg::Role::Output ? "output" : "constant";
    std::string shape;
    for (auto& d : a.shape) shape += (shape.empty() ? "" : ", ") + d.str();
    args += "- `" + a.name + "` (" + role + "): " + cpu::storageType(a.dtype) + " [" + shape + "]\n";
  }
  std::string kernels;
  for (auto& k : p.kernels) kernels += "- `" + k.function + "`: state `" + k.statePath + "`\n";
  out.push_back({"README.md", "# " + modelName + " on an FPGA (generated by DCW)\n\n"
                              "Kernels in the Vitis HLS dialect (`kernels.cpp`), one per device state:\n\n" + kernels +
                              "\nBuild with Vitis and XRT (`PLATFORM` is your card's platform, `TARGET` one of sw_emu, hw_emu, hw):\n\n"
                              "    make PLATFORM=xilinx_u250_gen3x16_xdma_4_1_202210_1 TARGET=hw\n\n"
                              "Run: `./host kernels.xclbin FILE...`, one raw little-endian file per argument in this order (inputs and "
                              "constants are read, outputs written)" +
                              (p.code.signature.symbols.empty() ? std::string()
                                                                : ", then the values of the symbols " + [&] {
                                                                    std::string n;
                                                                    for (auto& x : p.code.signature.symbols) n += (n.empty() ? "" : ", ") + x;
                                                                    return n;
                                                                  }()) +
                              ":\n\n" + args +
                              "\nDCW ran these kernels in C-simulation only (`dcw run --target fpga-sim`); it has not built them with "
                              "Vitis. Its cycle and resource figures are estimates (`dcw profile --target fpga-sim`).\n"});
  return out;
}

} // namespace dcw::codegen
