// The `onednn` environment's runtime: the C++ text every program with oneDNN tasklets carries in
// `namespace dcw_env_onednn` (Environments.cpp), plus its init and teardown.
//
// Why: a oneDNN primitive costs far more to create than to run on small tensors, and weights reordered
// into the layout a primitive prefers (blocked nChw16c, OIhw16i16o, …) are the same on every run. So
// each oneDNN tasklet owns one `Call` (or a few variants of it, the fastest kept: see Tuned), made on
// its first run and kept while the program is loaded:
// the primitive, and for each buffer operand the user's plain buffer plus, when the primitive wants
// another layout, a reorder into (inputs) or out of (outputs) a scratch buffer in that layout.
// Constant inputs (the model's initializers: DCW passes the same immutable buffer on every run) are
// reordered once; a fingerprint of the buffer guards against another constant at the same address.
// An operand whose layout differs by more than strides (an ONNX LSTM's gates in another order, a bias
// that is the sum of two, an output whose halves lie apart) is moved in pieces (Call::addPieces): one
// reorder per block into or out of a plain staged memory, constant ones again once.
// `generation` changes at every init, so calls made under an earlier engine are rebuilt; teardown
// releases every call before the engine goes.
// Threads: oneDNN's OpenMP runtime reads the caller's omp_get_max_threads() when a primitive is made
// (its work split) and run, so the call sets it to the program's thread count (dcw_set_threads,
// `--threads`) first, and a call made for another count is made again.
// Thread-safety: runs of oneDNN calls in one process are serialised by one lock (they share the
// environment's stream).
#include "core/expansions/onednn/OneDnnRuntime.h"

namespace dcw::expansions::onednn {

const char* runtimeGlobals() {
  return R"(dnnl::engine engine;
dnnl::stream stream;
inline unsigned& generation() { static unsigned g = 0; return g; }
inline std::mutex& runLock() { static std::mutex m; return m; }
inline std::vector<std::function<void()>>& releases() { static std::vector<std::function<void()>> r; return r; }
// The program's thread count made oneDNN's (see the header of OneDnnRuntime.cpp).
inline int useProgramThreads() {
  const int n = dcw_rt::num_threads();
#ifdef _OPENMP
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
#endif
  return n;
}

// Size plus up to 64 evenly spaced 8-byte words (FNV-1a): tells a constant buffer from another one
// reusing its address without reading all of it on every run.
inline uint64_t fingerprint(const void* p, size_t bytes) {
  const unsigned char* b = static_cast<const unsigned char*>(p);
  uint64_t h = 1469598103934665603ull ^ bytes;
  const size_t words = bytes / 8, step = words > 64 ? words / 64 : 1;
  for (size_t w = 0; w < words; w += step) {
    uint64_t v;
    std::memcpy(&v, b + w * 8, 8);
    h = (h ^ v) * 1099511628211ull;
  }
  for (size_t k = words * 8; k < bytes; ++k) h = (h ^ b[k]) * 1099511628211ull;
  return h;
}

using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;
using dims = dnnl::memory::dims;
// Row-major float32 (the layout of every buffer DCW passes).
inline dnnl::memory::desc plain(const dims& d) {
  dims s(d.size(), 1);
  for (size_t k = d.size(); k-- > 1;) s[k - 1] = s[k] * d[k];
  return dnnl::memory::desc(d, dt::f32, s);
}
inline dnnl::memory::desc strided(const dims& d, const dims& s) { return dnnl::memory::desc(d, dt::f32, s); }
inline dnnl::memory::desc any(const dims& d) { return dnnl::memory::desc(d, dt::f32, tag::any); }
// A view into a buffer: dims and strides (in elements) from `offset` elements in (a gate's rows of a
// weight matrix, one direction's half of an output).
inline dnnl::memory::desc view(const dims& d, const dims& s, dnnl::memory::dim offset) {
  dnnl::memory::desc m(d, dt::f32, s);
  m.data.offset0 = offset;
  return m;
}

// One block of an operand moved in pieces (Call::addPieces): `user` and `staged` view the same
// elements in the user's buffer and in the staged memory; `add` sums the block into what earlier
// pieces put there (a reorder with a sum post-op) instead of overwriting it.
struct Piece {
  dnnl::memory::desc user, staged;
  bool add = false;
};

// A tasklet's connector as a buffer: arrays bind as pointers, scalars as values (DCW's C++ tasklet ABI).
inline const void* buffer(const float* p) { return p; }
inline const void* buffer(const float& v) { return &v; }

struct Operand {
  int arg = 0;
  bool output = false, constant = false, reordered = false;
  int sumInto = -1; // Z of a sum post-op: the index of the dst operand it is put into before the run
  dnnl::memory user, inner; // inner is user when the primitive takes the user's layout
  dnnl::reorder reorder;    // user <-> inner; staged <-> inner when moved in pieces
  // Moved in pieces (addPieces): each block between the user's buffer and `staged`.
  struct Moved {
    dnnl::memory user, staged;
    dnnl::reorder reorder;
  };
  std::vector<Moved> pieces;
  dnnl::memory staged;
  const void* cachedFrom = nullptr;
  uint64_t cachedPrint = 0;
};

// One primitive with its operands in the order run() receives the buffers.
struct Call {
  dnnl::primitive prim;
  std::vector<Operand> ops;
  std::unordered_map<int, dnnl::memory> args;
  // `user`: the layout of the buffer the program passes; `want`: the primitive's.
  void add(int arg, const dnnl::memory::desc& user, const dnnl::memory::desc& want, bool output, bool constant = false) {
    Operand o;
    o.arg = arg;
    o.output = output;
    o.constant = constant;
    o.user = dnnl::memory(user, engine, DNNL_MEMORY_NONE);
    if (want != user) {
      o.inner = dnnl::memory(want, engine);
      o.reorder = output ? dnnl::reorder(o.inner, o.user) : dnnl::reorder(o.user, o.inner);
      o.reordered = true;
    } else {
      o.inner = o.user;
    }
    args[arg] = o.inner;
    ops.push_back(std::move(o));
  }
  // An operand whose layout differs from the primitive's by more than strides (gates in another
  // order, a bias that is the sum of two, an output whose halves are apart): `user` describes the
  // whole buffer, `staged` a plain memory of the primitive's dims that the pieces fill (an input:
  // each piece in order, then staged into `want` when that differs) or are read from (an output: the
  // primitive writes `want`, which is reordered into staged when it differs, then each piece out).
  // A constant input is moved once, as in add.
  void addPieces(int arg, const dnnl::memory::desc& user, const dnnl::memory::desc& staged, const dnnl::memory::desc& want,
                 const std::vector<Piece>& pieces, bool output, bool constant = false) {
    Operand o;
    o.arg = arg;
    o.output = output;
    o.constant = constant;
    o.user = dnnl::memory(user, engine, DNNL_MEMORY_NONE);
    o.staged = dnnl::memory(staged, engine);
    if (want != staged) {
      o.inner = dnnl::memory(want, engine);
      o.reorder = output ? dnnl::reorder(o.inner, o.staged) : dnnl::reorder(o.staged, o.inner);
      o.reordered = true;
    } else {
      o.inner = o.staged;
    }
    for (const Piece& p : pieces) {
      Operand::Moved m;
      m.user = dnnl::memory(p.user, engine, DNNL_MEMORY_NONE);
      m.staged = dnnl::memory(p.staged, engine, o.staged.get_data_handle());
      dnnl::primitive_attr attr;
      if (p.add) {
        dnnl::post_ops sum;
        sum.append_sum(1.0f);
        attr.set_post_ops(sum);
      }
      m.reorder = output ? dnnl::reorder(m.staged, m.user, attr) : dnnl::reorder(m.user, m.staged, attr);
      o.pieces.push_back(std::move(m));
    }
    args[arg] = o.inner;
    ops.push_back(std::move(o));
  }
  // Memory the primitive needs but the program does not pass (an output the node does not have, such
  // as an RNN's Y when only Y_h is used; with `zero`, an input the node leaves out that the kernel
  // still reads, such as a zero bias): allocated here, in the primitive's layout.
  void scratch(int arg, const dnnl::memory::desc& want, bool zero = false) {
    dnnl::memory m(want, engine);
    if (zero) std::memset(m.get_data_handle(), 0, want.get_size());
    args[arg] = m;
  }
  // Z of a sum post-op (dst = primitive result + dst): before the primitive runs, Z (the user's plain
  // buffer) is reordered into the memory the primitive writes — its own layout when dst is reordered,
  // else the output buffer itself, a copy skipped when Z is that buffer (in place). Add it after DST.
  void addSum(const dnnl::memory::desc& user) {
    int dst = -1;
    for (size_t k = 0; k < ops.size(); ++k)
      if (ops[k].arg == DNNL_ARG_DST && ops[k].output) dst = int(k);
    if (dst < 0) throw std::logic_error("a sum operand needs the DST operand added first");
    Operand o;
    o.sumInto = dst;
    o.user = dnnl::memory(user, engine, DNNL_MEMORY_NONE);
    o.reorder = dnnl::reorder(o.user, ops[size_t(dst)].inner);
    ops.push_back(std::move(o));
  }
  void run(std::initializer_list<const void*> buffers) {
    std::lock_guard<std::mutex> guard(runLock());
    useProgramThreads();
    size_t k = 0;
    for (const void* p : buffers) {
      Operand& o = ops.at(k++);
      o.user.set_data_handle(const_cast<void*>(p));
      for (auto& m : o.pieces) m.user.set_data_handle(const_cast<void*>(p));
      if ((!o.reordered && o.pieces.empty()) || o.output || o.sumInto >= 0) continue;
      if (o.constant) {
        const uint64_t print = fingerprint(p, o.user.get_desc().get_size());
        if (o.cachedFrom == p && o.cachedPrint == print) continue;
        o.cachedFrom = p;
        o.cachedPrint = print;
      }
      for (auto& m : o.pieces) m.reorder.execute(stream, m.user, m.staged);
      if (o.reordered) o.reorder.execute(stream, o.pieces.empty() ? o.user : o.staged, o.inner);
    }
    for (auto& o : ops) {
      if (o.sumInto < 0) continue;
      Operand& dst = ops[size_t(o.sumInto)];
      if (!dst.reordered && dst.user.get_data_handle() == o.user.get_data_handle()) continue;
      o.reorder.execute(stream, o.user, dst.inner);
    }
    prim.execute(stream, args);
    for (auto& o : ops) {
      if (!o.output) continue;
      if (o.reordered) o.reorder.execute(stream, o.inner, o.pieces.empty() ? o.user : o.staged);
      for (auto& m : o.pieces) m.reorder.execute(stream, m.staged, m.user);
    }
    stream.wait();
  }
};

// A tasklet's call in one or more variants (e.g. activations in their plain layout, or in the one
// the primitive prefers with reorders in and out): with several, the first run times each on the
// real buffers and keeps the fastest (each computes the same result, so whichever ran last left a
// correct output); the others are released.
struct Tuned {
  std::vector<std::unique_ptr<Call>> variants;
  int chosen = -1;
  int threads = 0;
  void run(std::initializer_list<const void*> buffers) {
    if (chosen < 0 && variants.size() == 1) chosen = 0;
    if (chosen >= 0) return variants[size_t(chosen)]->run(buffers);
    double best = 0;
    for (size_t k = 0; k < variants.size(); ++k) {
      variants[k]->run(buffers); // the first run also reorders constant weights
      const auto t0 = std::chrono::steady_clock::now();
      variants[k]->run(buffers);
      variants[k]->run(buffers);
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (chosen < 0 || t < best) chosen = int(k), best = t;
    }
    for (size_t k = 0; k < variants.size(); ++k)
      if (int(k) != chosen) variants[k].reset();
  }
};

// The tasklet's call: `make(call, variant)` fills each of `count` variants on first use, and again
// after the environment was set up anew or the thread count changed.
template <class Make> Tuned& call(std::unique_ptr<Tuned>& slot, unsigned& made, int count, Make&& make) {
  std::lock_guard<std::mutex> guard(runLock());
  const int threads = useProgramThreads();
  if (!slot || made != generation() || slot->threads != threads) {
    if (!slot) releases().push_back([&slot] { slot.reset(); });
    auto t = std::make_unique<Tuned>();
    t->threads = threads;
    // A variant oneDNN cannot make (e.g. a post-op one of its kernels lacks) is left out; the call
    // fails only when no variant can be made.
    for (int v = 0; v < count; ++v) {
      auto c = std::make_unique<Call>();
      try {
        make(*c, v);
      } catch (const std::exception&) {
        if (v + 1 == count && t->variants.empty()) throw;
        continue;
      }
      t->variants.push_back(std::move(c));
    }
    slot = std::move(t);
    made = generation();
  }
  return *slot;
}
)";
}

const char* runtimeInit() {
  return "engine = dnnl::engine(dnnl::engine::kind::cpu, 0);\nstream = dnnl::stream(engine);\n++generation();\n";
}

const char* runtimeTeardown() {
  return "for (auto& r : releases()) r();\nreleases().clear();\nstream = dnnl::stream();\nengine = dnnl::engine();\n";
}

} // namespace dcw::expansions::onednn
