// The `onednn` environment's runtime: the C++ text every program with oneDNN tasklets carries in
// `namespace dcw_env_onednn` (Environments.cpp), plus its init and teardown.
//
// Why: a oneDNN primitive costs far more to create than to run on small tensors, and weights reordered
// into the layout a primitive prefers (blocked nChw16c, OIhw16i16o, …) are the same on every run. So
// each oneDNN tasklet owns one `Call` (or a few variants of it, the fastest kept: see Tuned), made on
// its first run and kept while the program is loaded:
// the primitive, and for each buffer operand the user's plain buffer plus, when the primitive wants
// another layout, a reorder into (inputs) or out of (outputs) a scratch buffer in that layout.
// Constant inputs (the model's initializers: DCW passes the same immutable buffer on every run of a
// loaded program) are reordered once, and again only when the call sees another buffer or another
// program was loaded since (every dcw_init counts in `bindings`): a second program loaded from the same
// library shares these calls, and its constants may sit where a freed program's did. No per-run check
// reads the buffer (a sample of a large weight is as many cache and TLB misses: 6 us a weight, 0.3 ms a
// run of a 60-convolution model). Calls that pack one constant buffer into one layout share the packed
// copy (packedConstants): torch's exporter deduplicates identical initializers, and a model whose layers
// share their weights (12 encoder layers exported from one seeded layer: 340 MB of packed copies of 28 MB)
// then holds one copy.
// An operand whose layout differs by more than strides (an ONNX LSTM's gates in another order, a bias
// that is the sum of two, an output whose halves lie apart) is moved in pieces (Call::addPieces): one
// reorder per block into or out of a plain staged memory, constant ones again once.
// `generation` changes at every init, so calls made under an earlier engine are rebuilt; teardown
// releases every call before the engine goes.
// Threads: oneDNN's OpenMP runtime reads the caller's omp_get_max_threads() when a primitive is made
// (its work split) and run, so the call sets it to the program's thread count (dcw_set_threads,
// `--threads`) first, and a call made for another count is made again. A small call (its buffers
// 512 KiB or less: a squeeze-and-excitation block's convolutions on one pixel, a global pooling)
// spends more on waking the other threads than on its work, so it also gets a variant of each of
// its variants made and run on one thread, and the first run's timing keeps what is faster (Tuned);
// the program's count is put back after such a call.
// Concurrent branches (codegen/ConcurrentBranches.h): a group's threads run their calls at the same
// time, each call on its own thread (useProgramThreads is 1 inside a parallel region). So a call is
// never run by two threads at once (each Tuned has its lock), each thread executes on a stream of its
// own (threadStream), and a call's primitives run on the thread that made them: oneDNN's library
// scratchpad is per thread (Debian's oneDNN is built without DNNL_ENABLE_CONCURRENT_EXEC), so a
// primitive must not move between threads. A tasklet keeps a Tuned per thread count and thread (see
// call()); the threads of OpenMP's pool are the same on every run, so each is made once.
// The lock `runLock` guards what calls share: making calls, the list of releases, the packed copies.
#include "core/expansions/onednn/OneDnnRuntime.h"

namespace dcw::expansions::onednn {

const char* runtimeGlobals() {
  return R"(dnnl::engine engine;
// The attributes of each tasklet's make function (OneDnnCall.h's callCode): it runs once per load, so
// it is compiled for size and, with g++, without optimization; the oneDNN wrappers it calls are
// compiled once, out of line. Most of a program's compile time went into these functions (DenseNet-121,
// 188 calls: 19.5 s with g++ -O3, 11.4 s so).
#if defined(__GNUC__) && !defined(__clang__)
#define DCW_ONEDNN_MAKE __attribute__((cold, optimize("O0")))
#else
#define DCW_ONEDNN_MAKE __attribute__((cold))
#endif
inline unsigned& generation() { static unsigned g = 0; return g; }
inline unsigned& bindings() { static unsigned b = 0; return b; }
inline std::mutex& runLock() { static std::mutex m; return m; }
inline std::vector<std::function<void()>>& releases() { static std::vector<std::function<void()>> r; return r; }
// The calling thread's stream on the engine, made on its first use (see "Concurrent branches" above);
// all go at teardown. Each thread remembers its own for the environment it was made in (generation),
// so a call's run finds it without the lock.
struct ThreadStream {
  std::thread::id thread;
  std::unique_ptr<dnnl::stream> stream;
};
inline std::vector<ThreadStream>& threadStreams() { static std::vector<ThreadStream> s; return s; }
inline dnnl::stream& threadStream() {
  thread_local dnnl::stream* mine = nullptr;
  thread_local unsigned mineMade = 0;
  if (mine && mineMade == generation()) return *mine;
  static std::mutex lock;
  std::lock_guard<std::mutex> guard(lock);
  const std::thread::id self = std::this_thread::get_id();
  mine = nullptr;
  for (auto& t : threadStreams())
    if (t.thread == self) mine = t.stream.get();
  if (!mine) {
    threadStreams().push_back({self, std::make_unique<dnnl::stream>(engine)});
    mine = threadStreams().back().stream.get();
  }
  mineMade = generation();
  return *mine;
}
// The program's thread count made oneDNN's (see the header of OneDnnRuntime.cpp).
// Inside a parallel region (a branch of a group of concurrent branches), one thread: the call's own.
inline int useProgramThreads() {
#ifdef _OPENMP
  const int n = omp_in_parallel() ? 1 : dcw_rt::num_threads();
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
  return n;
#else
  return dcw_rt::num_threads();
#endif
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
// Channels in blocks (an array BlockedLayout stores as nChw16c and its kin).
inline dnnl::memory::desc blocked(const dims& d, tag t) { return dnnl::memory::desc(d, dt::f32, t); }
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
  bool passive = false;        // not the primitive's: a buffer only `then` reads or writes (Call::pass)
  bool apart = false;          // read while the primitive writes its dst: must not be that memory (Call::apartFromDst)
  const void* pointer = nullptr; // the buffer of the current run
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
  std::shared_ptr<dnnl::memory> packed; // a constant's packed copy, shared with other calls (packedConstant)
  const void* cachedFrom = nullptr;
  unsigned cachedBinding = 0;
};

// The packed copies of constant buffers, shared by the calls that pack one buffer, read alike, into one layout under
// one binding (see "Constant inputs" above). The calls own the copies; the list only finds them, so the
// copy of a call that goes (a variant the first run's timing left out, whose kernel wanted the weights
// in another layout) is freed with it. An entry of an earlier binding, or whose copy is gone, goes at
// the next lookup.
struct Packed {
  const void* from = nullptr;
  dnnl::memory::desc user, want; // how the buffer is read, and the layout it is packed into
  unsigned binding = 0;
  std::weak_ptr<dnnl::memory> copy;
};
inline std::vector<Packed>& packedConstants() { static std::vector<Packed> p; return p; }
// The copy of constant buffer `user` (bound to its data) in layout `want`, packed by `reorder` the first time.
inline std::shared_ptr<dnnl::memory> packedConstant(dnnl::memory user, const dnnl::memory::desc& want, const dnnl::reorder& reorder) {
  std::lock_guard<std::mutex> guard(runLock());
  auto& all = packedConstants();
  all.erase(std::remove_if(all.begin(), all.end(), [](const Packed& p) { return p.binding != bindings() || p.copy.expired(); }), all.end());
  const void* from = user.get_data_handle();
  for (const Packed& p : all)
    if (p.from == from && p.user == user.get_desc() && p.want == want)
      if (auto copy = p.copy.lock()) return copy;
  auto copy = std::make_shared<dnnl::memory>(want, engine);
  reorder.execute(threadStream(), user, *copy);
  all.push_back(Packed{from, user.get_desc(), want, bindings(), copy});
  return copy;
}

// One primitive with its operands in the order run() receives the buffers.
struct Call {
  int variant = 0; // which of the tasklet's variants this is (its index before any was left out)
  int threads = 0; // 0: the program's thread count; 1: made and run on one thread (a small call)
  dnnl::primitive prim;
  std::vector<Operand> ops;
  std::unordered_map<int, dnnl::memory> args;
  // Work of DCW's own after the primitive, on the same run's buffers (an LSTM's recurrence over the
  // input gates the primitive computed for every step): it reads `ops[k].pointer` and `args`.
  std::function<void(Call&)> then;
  // Work on the outputs once they are in the user's buffers (a pass of SiLU over Y where another
  // variant applies it in its kernel, so that the first run's timing compares like with like).
  std::function<void(Call&)> finish;
  // An input of `then` alone, in the layout `want` (reordered on every run, or once when constant, as
  // add does); `then` reads it at ops[k].inner.
  void addOwn(const dnnl::memory::desc& user, const dnnl::memory::desc& want, bool constant) {
    add(-1, user, want, false, constant);
    args.erase(-1);
  }
  // A buffer of the tasklet the primitive does not take, for `then` (kept in the buffers' order).
  void pass() {
    Operand o;
    o.passive = true;
    ops.push_back(std::move(o));
  }
  // `user`: the layout of the buffer the program passes; `want`: the primitive's.
  void add(int arg, const dnnl::memory::desc& user, const dnnl::memory::desc& want, bool output, bool constant = false) {
    Operand o;
    o.arg = arg;
    o.output = output;
    o.constant = constant;
    o.user = dnnl::memory(user, engine, DNNL_MEMORY_NONE);
    if (want != user) {
      // A constant's packed copy comes from packedConstant on the first run (shared with other calls).
      o.inner = constant && !output ? dnnl::memory(want, engine, DNNL_MEMORY_NONE) : dnnl::memory(want, engine);
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
  // The operand added last is read by the primitive while it writes its dst (a binary_add post-op's Z):
  // its buffer must not be the one the primitive writes. Where the program gave Y Z's storage
  // (ir::Tasklet::inPlace), the first run leaves out the variants that would (Tuned::run); the sum
  // variant adds in place instead.
  void apartFromDst() { ops.back().apart = true; }
  // Whether `buffers` put an operand marked apart where the primitive writes (the dst operand's own
  // buffer when it is not reordered).
  bool apartAliased(std::initializer_list<const void*> buffers) const {
    const void* dst = nullptr;
    size_t k = 0;
    for (const void* p : buffers) {
      const Operand& o = ops.at(k++);
      if (!o.passive && o.output && o.arg == DNNL_ARG_DST && !o.reordered && o.pieces.empty()) dst = p;
    }
    k = 0;
    for (const void* p : buffers)
      if (ops.at(k++).apart && dst && p == dst) return true;
    return false;
  }
  // The output a sum post-op adds into in place (its Z is the output's buffer) and its bytes, or
  // {nullptr, 0}: a run then changes its own input, so the first run's timing puts the buffer back
  // before each turn.
  std::pair<void*, size_t> inPlaceOutput(std::initializer_list<const void*> buffers) const {
    const std::vector<const void*> at(buffers);
    for (size_t k = 0; k < ops.size() && k < at.size(); ++k) {
      const int dst = ops[k].sumInto;
      if (!ops[k].passive && dst >= 0 && size_t(dst) < at.size() && at[k] == at[size_t(dst)])
        return {const_cast<void*>(at[size_t(dst)]), ops[size_t(dst)].user.get_desc().get_size()};
    }
    return {nullptr, 0};
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
  // The bytes of the buffers the program passes (what decides whether a call is small).
  size_t bufferBytes() const {
    size_t n = 0;
    for (const auto& o : ops)
      if (!o.passive && o.user) n += o.user.get_desc().get_size();
    return n;
  }
  void run(std::initializer_list<const void*> buffers) {
    dnnl::stream& stream = threadStream();
    // A one-thread call runs so and leaves the program's count behind it, even when oneDNN throws.
    const int program = useProgramThreads();
    struct Team {
      int program, own;
      ~Team() {
#ifdef _OPENMP
        if (own != program) omp_set_num_threads(program);
#endif
      }
    } team{program, threads > 0 ? threads : program};
#ifdef _OPENMP
    if (team.own != team.program) omp_set_num_threads(team.own);
#endif
    if (apartAliased(buffers))
      throw std::logic_error("a oneDNN call would read a post-op operand from the memory it writes (Y in Z's storage); this variant "
                             "cannot run in place");
    size_t k = 0;
    for (const void* p : buffers) {
      Operand& o = ops.at(k++);
      o.pointer = p;
      if (o.passive) continue;
      o.user.set_data_handle(const_cast<void*>(p));
      for (auto& m : o.pieces) m.user.set_data_handle(const_cast<void*>(p));
      if ((!o.reordered && o.pieces.empty()) || o.output || o.sumInto >= 0) continue;
      if (o.constant) {
        if (o.cachedFrom == p && o.cachedBinding == bindings()) continue;
        o.cachedFrom = p;
        o.cachedBinding = bindings();
      }
      for (auto& m : o.pieces) m.reorder.execute(stream, m.user, m.staged);
      if (o.constant && o.reordered && o.pieces.empty()) {
        o.packed = packedConstant(o.user, o.inner.get_desc(), o.reorder);
        o.inner = *o.packed;
        if (args.count(o.arg)) args[o.arg] = o.inner;
      } else if (o.reordered) {
        o.reorder.execute(stream, o.pieces.empty() ? o.user : o.staged, o.inner);
      }
    }
    for (auto& o : ops) {
      if (o.passive || o.sumInto < 0) continue;
      Operand& dst = ops[size_t(o.sumInto)];
      if (!dst.reordered && dst.user.get_data_handle() == o.user.get_data_handle()) continue;
      o.reorder.execute(stream, o.user, dst.inner);
    }
    if (prim) prim.execute(stream, args); // a variant of DCW's own kernel alone has none
    if (then) {
      stream.wait();
      then(*this);
    }
    for (auto& o : ops) {
      if (o.passive || !o.output) continue;
      if (o.reordered) o.reorder.execute(stream, o.inner, o.pieces.empty() ? o.user : o.staged);
      for (auto& m : o.pieces) m.reorder.execute(stream, m.staged, m.user);
    }
    stream.wait();
    if (finish) finish(*this);
  }
};

// e^x for the LSTM gate functions and the activation passes below, written so that the compiler
// vectorizes the loops that call it
// (Cephes' expf: x = n ln2 + r, a degree-6 polynomial for e^r, 2^n from the exponent bits; about one
// ulp, over the float range clamped where e^x stays finite and normal).
inline float fastExp(float x) {
  x = x < -87.0f ? -87.0f : (x > 88.0f ? 88.0f : x);
  // n = x log2(e) rounded to nearest by adding and taking away 1.5 * 2^23 (floorf would keep GCC from
  // vectorizing the loop under the program's default, trapping, floating-point semantics).
  const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
  const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  return p * __builtin_bit_cast(float, (static_cast<int>(n) + 127) << 23);
}
#ifdef __AVX512F__
// fastExp on 16 lanes (the same polynomial; 2^n by scalef).
inline __m512 fastExp16(__m512 x) {
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-87.0f)), _mm512_set1_ps(88.0f));
  const __m512 n = _mm512_roundscale_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(1.44269504088896341f), _mm512_set1_ps(0.5f)),
                                        _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(_mm512_mul_ps(p, r), r, _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}
#endif

// The activations that oneDNN 2.6's eltwise post-ops compute slowly on AVX-512 (its swish post-op adds
// about 0.3 ns an element with 2 threads, twice this pass), as a pass over a dense output after the
// call (PostOps.h): SiLU x / (1 + e^-x) and GELU 0.5 x (1 + erf(x / sqrt 2)), in place over `n`
// consecutive floats on the program's threads. Both are rational functions as Eigen computes them for
// float (ONNX Runtime's MLAS uses the same), because the passes are bound by arithmetic, not memory,
// and a rational function takes fewer operations than one through e^x:
// - the logistic function: an odd degree-9 over an even degree-10 polynomial on x clamped to [-18, 18]
//   (|error| about 6e-8, float's rounding at 1/2; floored at 0, within that error of the logistic below
//   -18); 14% faster than 1 / (1 + e^-x). EfficientNet-B0 computes 6.2 million SiLU values a run.
// - erf: an odd degree-13 over an even degree-8 polynomial on x clamped to [-4, 4] (a few ulp; erf is
//   1 in float beyond); 1.6x as fast as Abramowitz and Stegun 7.1.26 with e^-x^2 (1.2 million GELU
//   values, 2 threads: 0.20 against 0.31 ms), GELU within 1e-6 of max(1, |y|). ConvNeXt-T computes 8.6
//   million GELU values a run, BERT-base at sequence 128 4.7 million.
// Eigen's coefficients, highest degree first: the logistic function's odd numerator and even
// denominator in x^2, erf's likewise.
constexpr float kLogisticP[] = {4.37031012579801e-11f, 1.15627324459942e-07f, 6.08574864600143e-05f, 8.51377133304701e-03f,
                                2.48287947061529e-01f};
constexpr float kLogisticQ[] = {6.10247389755681e-13f, 5.76102136993427e-09f, 6.29106785017040e-06f, 1.70198817374094e-03f,
                                1.16817656904453e-01f, 9.93151921023180e-01f};
constexpr float kErfP[] = {-2.72614225801306e-10f, 2.77068142495902e-08f, -2.10102402082508e-06f, -5.69250639462346e-05f,
                           -7.34990630326855e-04f, -2.95459980854025e-03f, -1.60960333262415e-02f};
constexpr float kErfQ[] = {-1.45660718464996e-05f, -2.13374055278905e-04f, -1.68282697438203e-03f, -7.37332916720468e-03f,
                           -1.42647390514189e-02f};
template <size_t N> inline float horner(const float (&c)[N], float x) {
  float p = c[0];
  for (size_t k = 1; k < N; ++k) p = p * x + c[k];
  return p;
}
inline float logisticOf(float x) {
  const float v = x < -18.0f ? -18.0f : (x > 18.0f ? 18.0f : x), v2 = v * v;
  const float s = horner(kLogisticP, v2) * v / horner(kLogisticQ, v2) + 0.5f;
  return s < 0.0f ? 0.0f : s;
}
inline float siluOf(float x) { return x * logisticOf(x); }
inline float erfOf(float x) {
  const float z = x < -4.0f ? -4.0f : (x > 4.0f ? 4.0f : x), z2 = z * z;
  return z * horner(kErfP, z2) / horner(kErfQ, z2);
}
inline float geluOf(float x) { return 0.5f * x * (1.0f + erfOf(x * 0.707106781186547524f)); }
#ifdef __AVX512F__
template <size_t N> inline __m512 horner16(const float (&c)[N], __m512 x) {
  __m512 p = _mm512_set1_ps(c[0]);
  for (size_t k = 1; k < N; ++k) p = _mm512_fmadd_ps(p, x, _mm512_set1_ps(c[k]));
  return p;
}
inline __m512 silu16(__m512 x) {
  const __m512 v = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(-18.0f)), _mm512_set1_ps(18.0f));
  const __m512 v2 = _mm512_mul_ps(v, v);
  const __m512 s = _mm512_add_ps(_mm512_div_ps(_mm512_mul_ps(horner16(kLogisticP, v2), v), horner16(kLogisticQ, v2)), _mm512_set1_ps(0.5f));
  return _mm512_mul_ps(x, _mm512_max_ps(s, _mm512_setzero_ps()));
}
inline __m512 gelu16(__m512 x) {
  const __m512 z = _mm512_min_ps(_mm512_max_ps(_mm512_mul_ps(x, _mm512_set1_ps(0.707106781186547524f)), _mm512_set1_ps(-4.0f)),
                                 _mm512_set1_ps(4.0f));
  const __m512 z2 = _mm512_mul_ps(z, z);
  const __m512 erf = _mm512_div_ps(_mm512_mul_ps(z, horner16(kErfP, z2)), horner16(kErfQ, z2));
  const __m512 half = _mm512_mul_ps(_mm512_set1_ps(0.5f), x);
  return _mm512_fmadd_ps(half, erf, half);
}
#endif
// `f` (siluOf, geluOf) over y[0, n) in place; `f16` its 16-lane form where there is AVX-512.
template <class F, class F16> inline void activationInPlace(float* y, long n, F f, F16 f16) {
#ifdef __AVX512F__
  const long blocks = n / 16;
#pragma omp parallel for schedule(static) if (n >= 32768)
  for (long b = 0; b < blocks; ++b) _mm512_storeu_ps(y + 16 * b, f16(_mm512_loadu_ps(y + 16 * b)));
  for (long k = 16 * blocks; k < n; ++k) y[k] = f(y[k]);
#else
  (void)f16;
#pragma omp parallel for simd schedule(static) if (n >= 32768)
  for (long k = 0; k < n; ++k) y[k] = f(y[k]);
#endif
}
#ifdef __AVX512F__
inline void siluInPlace(float* y, long n) { activationInPlace(y, n, siluOf, silu16); }
inline void geluInPlace(float* y, long n) { activationInPlace(y, n, geluOf, gelu16); }
#else
inline void siluInPlace(float* y, long n) { activationInPlace(y, n, siluOf, 0); }
inline void geluInPlace(float* y, long n) { activationInPlace(y, n, geluOf, 0); }
#endif
// One LSTM layer's recurrence (one direction, ONNX gate order i o f c, default activations) over the
// input gates `xw` [T, B, 4H] that a matmul computed for every step at once (X W^T + Wb): per step,
// the gates g = xw[t] + Rb + h(t-1) R^T for each batch entry, then c = f c + i tanh(g_c), h = o tanh(c).
// `rp` is R packed in panels of 16 hidden units, [H/16, H, 4, 16] (rp[jb][k][q][u] = R[q H + 16 jb + u][k];
// reordered once from a constant R; H a multiple of 16), so a step streams each panel once, into 16
// sums of each gate at a time (no horizontal sums, no strided rows); the hidden units are split among the program's
// threads, each keeping its columns of R in its core's cache, with one barrier a step (h is
// double-buffered). `h0`, `c0`, `rb`: null for zeros; `y` [T, B, H], `yh`, `yc` [B, H]: null when not
// wanted. `scratch` holds 3 B H floats.
inline void lstmRecurrence(const float* xw, const float* rp, const float* rb, const float* h0, const float* c0, float* y, float* yh,
                           float* yc, long T, long B, long H, bool reverse, float* scratch) {
  float* hbuf[2] = {scratch, scratch + B * H};
  float* c = scratch + 2 * B * H;
  for (long k = 0; k < B * H; ++k) {
    hbuf[0][k] = h0 ? h0[k] : 0.0f;
    c[k] = c0 ? c0[k] : 0.0f;
  }
  const int threads = dcw_rt::num_threads();
  const long blocks = (H + 15) / 16, G = 4 * H;
#pragma omp parallel num_threads(threads)
  {
#ifdef _OPENMP
    const long me = omp_get_thread_num(), team = omp_get_num_threads();
#else
    const long me = 0, team = 1;
#endif
    const long j0 = std::min(H, blocks * me / team * 16), j1 = std::min(H, blocks * (me + 1) / team * 16);
    for (long s = 0; s < T; ++s) {
      const long t = reverse ? T - 1 - s : s;
      const float* hp = hbuf[s & 1];
      float* hn = hbuf[(s + 1) & 1];
      for (long b = 0; b < B; ++b) {
        const float* hb = hp + b * H;
        const float* in = xw + (t * B + b) * G;
        for (long jb = j0; jb < j1; jb += 16) {
          const long n = std::min<long>(16, j1 - jb);
          float* cb = c + b * H + jb;
          float* hnb = hn + b * H + jb;
#ifdef __AVX512F__
          if (n == 16) {
            __m512 acc[4];
            for (long q = 0; q < 4; ++q) {
              acc[q] = _mm512_loadu_ps(in + q * H + jb);
              if (rb) acc[q] = _mm512_add_ps(acc[q], _mm512_loadu_ps(rb + q * H + jb));
            }
            const float* r = rp + jb * 4 * H;
            for (long k = 0; k < H; ++k, r += 64) {
              const __m512 hk = _mm512_set1_ps(hb[k]);
              acc[0] = _mm512_fmadd_ps(hk, _mm512_loadu_ps(r), acc[0]);
              acc[1] = _mm512_fmadd_ps(hk, _mm512_loadu_ps(r + 16), acc[1]);
              acc[2] = _mm512_fmadd_ps(hk, _mm512_loadu_ps(r + 32), acc[2]);
              acc[3] = _mm512_fmadd_ps(hk, _mm512_loadu_ps(r + 48), acc[3]);
            }
            const __m512 one = _mm512_set1_ps(1.0f), two = _mm512_set1_ps(2.0f);
            auto sigmoid = [&](__m512 v) { return _mm512_div_ps(one, _mm512_add_ps(one, fastExp16(_mm512_sub_ps(_mm512_setzero_ps(), v)))); };
            auto tanh = [&](__m512 v) { return _mm512_sub_ps(one, _mm512_div_ps(two, _mm512_add_ps(fastExp16(_mm512_mul_ps(two, v)), one))); };
            const __m512 cn = _mm512_fmadd_ps(sigmoid(acc[2]), _mm512_loadu_ps(cb), _mm512_mul_ps(sigmoid(acc[0]), tanh(acc[3])));
            _mm512_storeu_ps(cb, cn);
            _mm512_storeu_ps(hnb, _mm512_mul_ps(sigmoid(acc[1]), tanh(cn)));
            if (y) _mm512_storeu_ps(y + (t * B + b) * H + jb, _mm512_loadu_ps(hnb));
            continue;
          }
#endif
          for (long u = 0; u < n; ++u) {
            float gq[4];
            for (long q = 0; q < 4; ++q) {
              const long col = q * H + jb + u;
              float acc = in[col] + (rb ? rb[col] : 0.0f);
              for (long k = 0; k < H; ++k) acc += hb[k] * rp[(jb * H + k * 16) * 4 + q * 16 + u];
              gq[q] = acc;
            }
            const float i = 1.0f / (1.0f + fastExp(-gq[0])), o = 1.0f / (1.0f + fastExp(-gq[1]));
            const float f = 1.0f / (1.0f + fastExp(-gq[2]));
            const float z = 1.0f - 2.0f / (fastExp(2.0f * gq[3]) + 1.0f);
            const float cn = f * cb[u] + i * z;
            cb[u] = cn;
            hnb[u] = o * (1.0f - 2.0f / (fastExp(2.0f * cn) + 1.0f));
          }
          if (y)
            for (long u = 0; u < n; ++u) y[(t * B + b) * H + jb + u] = hnb[u];
        }
      }
#pragma omp barrier
    }
  }
  const float* hl = hbuf[T & 1];
  for (long k = 0; k < B * H; ++k) {
    if (yh) yh[k] = hl[k];
    if (yc) yc[k] = c[k];
  }
}
// Max pooling of channels-last (NHWC) float32, 2 spatial dims, per output row and block of 16 channels
// in registers, each output vector written once. Where the windows overlap along the row (3x3 of stride
// 1), as a separable max: first the max over the window's rows of each input column (kept per thread,
// in L1), then each output pixel's max over its window's columns of those, 3 + 3 loads per output
// vector instead of 9; else (3x3 of stride 2) each output pixel's window directly. Window positions in
// the padding are skipped. oneDNN 2.6 pools channels-last arrays through per-thread transposes to its
// blocked layout: GoogLeNet's 3x3 max poolings of stride 1 ran 1.4-2.4x as long as ONNX Runtime's.
// Timed against the primitive on the first run (the faster kept).
// The taps [lo, hi) of a window whose first tap is at `first` (`step` apart, `taps` of them) that fall
// inside [0, extent).
inline void tapsInside(long first, long step, long taps, long extent, long& lo, long& hi) {
  lo = first >= 0 ? 0 : (-first + step - 1) / step;
  hi = first > extent - 1 ? 0 : std::min(taps, (extent - 1 - first) / step + 1);
  if (hi < lo) hi = lo;
}
inline void maxPoolChannelsLast(const float* x, float* y, long n, long c, long h, long w, long oh, long ow, long kh, long kw,
                                long sh, long sw, long dh, long dw, long ph, long pw) {
  constexpr long V = 16;
  constexpr float lowest = -std::numeric_limits<float>::infinity();
  const long blocks = (c + V - 1) / V;
  // Loads per output vector: kh * sw + kw separable (a row's columns are about sw per output), kh * kw
  // directly.
  const bool separable = kh * sw + kw + 1 < kh * kw;
  // The input columns the output columns read.
  const long q0 = std::max(0L, -pw), q1 = std::min(w, (ow - 1) * sw - pw + (kw - 1) * dw + 1);
#pragma omp parallel if (n * oh * ow * c >= 16384)
  {
    thread_local std::vector<float> columns;
    if (separable && columns.size() < size_t(w * V)) columns.resize(size_t(w * V));
    float* col = columns.data();
#pragma omp for collapse(3) schedule(static)
    for (long b = 0; b < n; ++b)
      for (long i = 0; i < oh; ++i)
        for (long cb = 0; cb < blocks; ++cb) {
          const long c0 = cb * V, cw = std::min(V, c - c0), r0 = i * sh - ph;
          long ulo, uhi;
          tapsInside(r0, dh, kh, h, ulo, uhi);
          const float* in = x + b * h * w * c + c0;
          float* out = y + (b * oh + i) * ow * c + c0;
#ifdef __AVX512F__
          const __mmask16 m = __mmask16((1u << cw) - 1u);
          if (separable)
            for (long q = q0; q < q1; ++q) {
              __m512 acc = _mm512_set1_ps(lowest);
              for (long u = ulo; u < uhi; ++u) acc = _mm512_max_ps(acc, _mm512_maskz_loadu_ps(m, in + ((r0 + u * dh) * w + q) * c));
              _mm512_storeu_ps(col + q * V, acc);
            }
          for (long j = 0; j < ow; ++j) {
            long vlo, vhi;
            tapsInside(j * sw - pw, dw, kw, w, vlo, vhi);
            __m512 acc = _mm512_set1_ps(lowest);
            if (separable)
              for (long v = vlo; v < vhi; ++v) acc = _mm512_max_ps(acc, _mm512_loadu_ps(col + (j * sw - pw + v * dw) * V));
            else
              for (long u = ulo; u < uhi; ++u) {
                const float* row = in + (r0 + u * dh) * w * c;
                for (long v = vlo; v < vhi; ++v) acc = _mm512_max_ps(acc, _mm512_maskz_loadu_ps(m, row + (j * sw - pw + v * dw) * c));
              }
            _mm512_mask_storeu_ps(out + j * c, m, acc);
          }
#else
          auto fold = [cw](float* acc, const float* p) {
#pragma omp simd
            for (long k = 0; k < cw; ++k) acc[k] = p[k] > acc[k] ? p[k] : acc[k];
          };
          if (separable)
            for (long q = q0; q < q1; ++q) {
              std::fill(col + q * V, col + q * V + cw, lowest);
              for (long u = ulo; u < uhi; ++u) fold(col + q * V, in + ((r0 + u * dh) * w + q) * c);
            }
          for (long j = 0; j < ow; ++j) {
            long vlo, vhi;
            tapsInside(j * sw - pw, dw, kw, w, vlo, vhi);
            float* o = out + j * c;
            std::fill(o, o + cw, lowest);
            for (long v = vlo; v < vhi; ++v) {
              const long q = j * sw - pw + v * dw;
              if (separable)
                fold(o, col + q * V);
              else
                for (long u = ulo; u < uhi; ++u) fold(o, in + ((r0 + u * dh) * w + q) * c);
            }
          }
#endif
        }
  }
}

// DCW's direct convolution for few input channels (FewChannelConv; Conv's own variant, timed against
// oneDNN's on the first run): the first convolution of an image network, 1 to 4 input channels read
// where they lie (the model's row-major input), each output pixel's channels written once (channels
// contiguous: channels-last), the bias and the activation applied while the sums are in registers.
// oneDNN 2.6 wants those few channels interleaved, so its call reorders the image on every run, and
// SiLU or GELU then costs a pass over the output: EfficientNet-B0's stem (3 -> 32, 3x3 of stride 2, SiLU)
// took 0.28 ms against ONNX Runtime's 0.11 inside the model (2 threads).
// Each output row, by blocks of P pixels and up to 64 output channels (V vectors of 16; the last one
// stored masked where the channels run out): every tap (channel, kernel row, kernel column) loads its V
// weight vectors (FewChannelWeights) and broadcasts P input values, P x V fused multiply-adds; the
// pixels whose window reaches into the padding take the taps inside only.
struct FewChannelConv {
  long n, c, h, w, m, oh, ow, kh, kw, sh, sw, dh, dw, ph, pw;
  long mp = 0;            // m rounded up to whole vectors of 16 (the packed weights' row)
  long xs[4], ys[4];      // X's strides (N, C, H, W) and Y's (N, C, H, W; Y's C stride is 1), in floats
  float a0 = 0, a1 = 0;   // the activation's parameters
};
// The activation (convFewChannels' template argument): 0 none, 1 Relu, 2 LeakyRelu(a0), 3 Clip(a0, a1),
// 4 HardSigmoid(a0, a1), 5 HardSwish, 6 Silu, 7 Gelu.
#ifdef __AVX512F__
template <int Act> inline __m512 fewChannelActivation(const FewChannelConv& g, __m512 v) {
  const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
  if constexpr (Act == 1) return _mm512_max_ps(v, zero);
  else if constexpr (Act == 2) return _mm512_mask_mul_ps(v, _mm512_cmp_ps_mask(v, zero, _CMP_LT_OQ), v, _mm512_set1_ps(g.a0));
  else if constexpr (Act == 3) return _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(g.a0)), _mm512_set1_ps(g.a1));
  else if constexpr (Act == 4) return _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(v, _mm512_set1_ps(g.a0), _mm512_set1_ps(g.a1)), zero), one);
  else if constexpr (Act == 5)
    return _mm512_mul_ps(v, _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(v, _mm512_set1_ps(1.0f / 6), _mm512_set1_ps(0.5f)), zero), one));
  else if constexpr (Act == 6) return silu16(v);
  else if constexpr (Act == 7) return gelu16(v);
  else return v;
}
// P pixels from output column j0 of output row i of image b, channels [m0, m0 + 16 V) (`last`: the
// lanes of the last vector that are channels); `Edge`: pixels whose windows may reach into the padding.
template <int Act, int V, int P, bool Edge>
inline void fewChannelBlock(const FewChannelConv& g, const float* x, const float* wp, const float* bias, float* y, long i, long j0, long m0,
                            __mmask16 last) {
  const long c = g.c, kh = g.kh, kw = g.kw, mp = g.mp, dh = g.dh, dw = g.dw, xc = g.xs[1], xh = g.xs[2], xw = g.xs[3];
  const long step = g.sw * g.xs[3];
  const long r0 = i * g.sh - g.ph, q0 = j0 * g.sw - g.pw;
  long ulo, uhi, vlo = 0, vhi = kw;
  tapsInside(r0, dh, kh, g.h, ulo, uhi);
  if (Edge) tapsInside(q0, dw, kw, g.w, vlo, vhi);
  __m512 acc[P][V];
  for (int t = 0; t < V; ++t) {
    const __m512 b = bias ? _mm512_maskz_loadu_ps(t == V - 1 ? last : __mmask16(0xFFFF), bias + m0 + 16 * t) : _mm512_setzero_ps();
    for (int p = 0; p < P; ++p) acc[p][t] = b;
  }
  // Plain loads in the taps' loop (the weights are zero-padded to whole vectors): with a masked load
  // there, GCC 12 stores every sum to memory on every step.
  for (long ch = 0; ch < c; ++ch)
    for (long u = ulo; u < uhi; ++u) {
      const float* xr = x + ch * xc + (r0 + u * dh) * xh;
      const float* wr = wp + ((ch * kh + u) * kw) * mp + m0;
      for (long v = vlo; v < vhi; ++v) {
        __m512 wv[V];
        for (int t = 0; t < V; ++t) wv[t] = _mm512_loadu_ps(wr + v * mp + 16 * t);
        const float* xv = xr + (q0 + v * dw) * xw;
        for (int p = 0; p < P; ++p) {
          const __m512 xb = _mm512_set1_ps(xv[p * step]);
          for (int t = 0; t < V; ++t) acc[p][t] = _mm512_fmadd_ps(wv[t], xb, acc[p][t]);
        }
      }
    }
  // Plain stores where the vector is whole: a masked store to a line not in the cache is slow.
  for (int p = 0; p < P; ++p) {
    float* yp = y + i * g.ys[2] + (j0 + p) * g.ys[3] + m0;
    for (int t = 0; t < V; ++t) {
      const __m512 r = fewChannelActivation<Act>(g, acc[p][t]);
      if (t < V - 1 || last == __mmask16(0xFFFF)) _mm512_storeu_ps(yp + 16 * t, r);
      else _mm512_mask_storeu_ps(yp + 16 * t, last, r);
    }
  }
}
// One output row's channels [m0, m0 + 16 V): the columns [jlo, jhi) whose windows lie inside the row by
// blocks of P (the rest one by one), the others as edge pixels.
template <int Act, int V, int P>
inline void fewChannelRow(const FewChannelConv& g, const float* x, const float* wp, const float* bias, float* y, long i, long m0,
                          __mmask16 last, long jlo, long jhi) {
  for (long j = 0; j < jlo; ++j) fewChannelBlock<Act, V, 1, true>(g, x, wp, bias, y, i, j, m0, last);
  long j = jlo;
  for (; j + P <= jhi; j += P) fewChannelBlock<Act, V, P, false>(g, x, wp, bias, y, i, j, m0, last);
  for (; j < jhi; ++j) fewChannelBlock<Act, V, 1, false>(g, x, wp, bias, y, i, j, m0, last);
  for (j = std::max(jhi, jlo); j < g.ow; ++j) fewChannelBlock<Act, V, 1, true>(g, x, wp, bias, y, i, j, m0, last);
}
#endif
// W [M][C][KH][KW] packed [C][KH][KW][mp] with zeros past M, kept by the call (its `then`): packed once
// per buffer and program load when W is constant (a model's initializer), else on every run.
struct FewChannelWeights {
  std::vector<float> packed;
  const void* from = nullptr;
  unsigned binding = 0;
  const float* get(const float* w, const FewChannelConv& g, bool constant) {
    if (constant && from == w && binding == bindings()) return packed.data();
    packed.assign(size_t(g.c * g.kh * g.kw * g.mp), 0.0f);
    for (long o = 0; o < g.m; ++o)
      for (long k = 0; k < g.c * g.kh * g.kw; ++k) packed[size_t(k * g.mp + o)] = w[o * g.c * g.kh * g.kw + k];
    from = w;
    binding = bindings();
    return packed.data();
  }
};
// Y = act(X * W + B) as above; `wp` is W packed by FewChannelWeights, `bias` null for none. The rows of all
// images are shared out among the program's threads.
template <int Act> inline void convFewChannels(const float* x, const float* wp, const float* bias, float* y, const FewChannelConv& g) {
#ifdef __AVX512F__
  long jlo = 0, jhi = g.ow;
  while (jlo < g.ow && jlo * g.sw - g.pw < 0) ++jlo;
  while (jhi > jlo && (jhi - 1) * g.sw - g.pw + (g.kw - 1) * g.dw >= g.w) --jhi;
#pragma omp parallel for collapse(2) schedule(static) if (g.n * g.oh * g.ow * g.m >= 16384)
  for (long b = 0; b < g.n; ++b)
    for (long i = 0; i < g.oh; ++i)
      for (long m0 = 0; m0 < g.m; m0 += 64) {
        const long mc = std::min(64L, g.m - m0), vs = (mc + 15) / 16;
        const __mmask16 last = __mmask16((1u << (mc - 16 * (vs - 1))) - 1u);
        const float* xb = x + b * g.xs[0];
        float* yb = y + b * g.ys[0];
        switch (vs) {
        case 4: fewChannelRow<Act, 4, 6>(g, xb, wp, bias, yb, i, m0, last, jlo, jhi); break;
        case 3: fewChannelRow<Act, 3, 8>(g, xb, wp, bias, yb, i, m0, last, jlo, jhi); break;
        case 2: fewChannelRow<Act, 2, 12>(g, xb, wp, bias, yb, i, m0, last, jlo, jhi); break;
        default: fewChannelRow<Act, 1, 12>(g, xb, wp, bias, yb, i, m0, last, jlo, jhi); break;
        }
      }
#else
  (void)x, (void)wp, (void)bias, (void)y, (void)g;
  throw std::logic_error("DCW's few-channel convolution needs AVX-512");
#endif
}
// Softmax (or log-softmax) of `rows` contiguous rows of n floats (Softmax's second variant, where the
// axis is the innermost dim): per row the max, e^(x - max) and its sum, then the scale (or x - max -
// log sum). Rows are shared out among the threads. oneDNN 2.6's softmax spends about twice as long on
// BERT's attention rows (12 x 128 rows of 128, 2 threads: 0.082 against 0.038 ms), so the first run
// times the two and keeps the faster.
inline void softmaxRows(const float* x, float* y, long rows, long n, bool log) {
#pragma omp parallel for schedule(static) if (rows * n >= 16384)
  for (long r = 0; r < rows; ++r) {
    const float* a = x + r * n;
    float* b = y + r * n;
    long k = 0;
    float mx = -std::numeric_limits<float>::infinity(), sum = 0.0f;
#ifdef __AVX512F__
    __m512 m16 = _mm512_set1_ps(mx);
    for (; k + 16 <= n; k += 16) m16 = _mm512_max_ps(m16, _mm512_loadu_ps(a + k));
    mx = _mm512_reduce_max_ps(m16);
#endif
    for (; k < n; ++k) mx = a[k] > mx ? a[k] : mx;
    k = 0;
#ifdef __AVX512F__
    const __m512 mv = _mm512_set1_ps(mx);
    __m512 s16 = _mm512_setzero_ps();
    for (; k + 16 <= n; k += 16) {
      const __m512 e = fastExp16(_mm512_sub_ps(_mm512_loadu_ps(a + k), mv));
      if (!log) _mm512_storeu_ps(b + k, e);
      s16 = _mm512_add_ps(s16, e);
    }
    sum = _mm512_reduce_add_ps(s16);
#endif
    for (; k < n; ++k) {
      const float e = fastExp(a[k] - mx);
      if (!log) b[k] = e;
      sum += e;
    }
    if (log) {
      const float shift = mx + std::log(sum);
      for (k = 0; k < n; ++k) b[k] = a[k] - shift;
    } else {
      const float inv = 1.0f / sum;
      for (k = 0; k < n; ++k) b[k] *= inv;
    }
  }
}

// Concatenation of dense pieces laid out alike (Concat's second variant): y is `outer` rows of `total`
// floats, each row piece 0's `chunk[0]` floats of its row, then piece 1's, ... (channels-last along C:
// a row per pixel; row-major along C: a row per image). The rows' pieces are shared out among the
// threads, so that even one row (row-major, batch 1) keeps both cores busy; a thread's pieces are
// consecutive, so the output is written front to back.
// `piece(o, k, offset)` for piece k of row o (offset: where it starts in the row), the rows' pieces
// shared out among the threads.
template <class Piece> inline void forEachPiece(const long* chunk, int pieces, long outer, long total, Piece&& piece) {
  std::vector<long> offset(size_t(pieces) + 1, 0);
  for (int k = 0; k < pieces; ++k) offset[size_t(k) + 1] = offset[size_t(k)] + chunk[k];
  const long tasks = outer * pieces;
#pragma omp parallel for schedule(static) if (outer * total >= 16384)
  for (long t = 0; t < tasks; ++t) piece(t / pieces, int(t % pieces), offset[size_t(t % pieces)]);
}
inline void concatRows(float* y, const float* const* x, const long* chunk, int pieces, long outer, long total) {
  forEachPiece(chunk, pieces, outer, total, [&](long o, int k, long off) {
    std::memcpy(y + o * total + off, x[k] + o * chunk[k], size_t(chunk[k]) * sizeof(float));
  });
}

// concatRows with a batch normalization (inference) folded in (ConcatBatchNormalization's second
// variant): each float of channel c is written as x * a[c] + b[c] with a = scale / sqrt(var + eps) and
// b = B - mean * a, then max(., 0) when `relu`; a row holds channels of `inner` consecutive floats, or
// with `block` (channels in blocks) blocks of `inner` positions of `block` channels.
inline void concatNormRows(float* y, const float* const* x, const long* chunk, int pieces, long outer, long total, long inner,
                           const float* scale, const float* shift, const float* mean, const float* var, float eps, bool relu,
                           std::vector<float>& ab, int block = 0) {
  const long channels = total / inner;
  ab.resize(size_t(2 * channels));
  float* a = ab.data();
  float* b = a + channels;
  for (long c = 0; c < channels; ++c) {
    a[c] = scale[c] / std::sqrt(var[c] + eps);
    b[c] = shift[c] - mean[c] * a[c];
  }
  forEachPiece(chunk, pieces, outer, total, [&](long o, int k, long off) {
    float* out = y + o * total + off;
    const float* in = x[k] + o * chunk[k];
    const long n = chunk[k], c0 = off / inner;
    if (block > 0) { // channels in blocks: `inner` positions of `block` channels each, block after block
      for (long cb = 0; cb < n / (inner * block); ++cb) {
        const float* ak = a + c0 + cb * block;
        const float* bk = b + c0 + cb * block;
        const float* src = in + cb * inner * block;
        float* dst = out + cb * inner * block;
        for (long p = 0; p < inner; ++p) {
          if (relu) {
#pragma omp simd
            for (long l = 0; l < block; ++l) dst[p * block + l] = std::max(src[p * block + l] * ak[l] + bk[l], 0.0f);
          } else {
#pragma omp simd
            for (long l = 0; l < block; ++l) dst[p * block + l] = src[p * block + l] * ak[l] + bk[l];
          }
        }
      }
    } else if (inner == 1) {
      const float* ak = a + c0;
      const float* bk = b + c0;
      if (relu) {
#pragma omp simd
        for (long j = 0; j < n; ++j) out[j] = std::max(in[j] * ak[j] + bk[j], 0.0f);
      } else {
#pragma omp simd
        for (long j = 0; j < n; ++j) out[j] = in[j] * ak[j] + bk[j];
      }
    } else {
      for (long c = 0; c < n / inner; ++c) {
        const float av = a[c0 + c], bv = b[c0 + c];
        const float* src = in + c * inner;
        float* dst = out + c * inner;
        if (relu) {
#pragma omp simd
          for (long j = 0; j < inner; ++j) dst[j] = std::max(src[j] * av + bv, 0.0f);
        } else {
#pragma omp simd
          for (long j = 0; j < inner; ++j) dst[j] = src[j] * av + bv;
        }
      }
    }
  });
}

// A tasklet's call in one or more variants (e.g. activations in their plain layout, or in the one
// the primitive prefers with reorders in and out): with several, the first run times each on the
// real buffers (the best of three turns each) and keeps the fastest (each computes the same result,
// so whichever ran last left a correct output); the others are released.
// DCW_ONEDNN_TIMING=1: each call's first-run timing on stderr (its variants by index, one-thread ones
// marked), in the order the program makes its calls. Compiled as the make functions are (it runs once
// per call): it is in every program.
DCW_ONEDNN_MAKE inline void reportTiming(const std::vector<std::unique_ptr<Call>>& variants, const std::vector<double>& best, int chosen) {
  for (size_t k = 0; k < variants.size(); ++k)
    std::fprintf(stderr, "%s variant %d%s %.3f ms%s%s", k ? ";" : "dcw: oneDNN call timed:", variants[k]->variant,
                 variants[k]->threads == 1 ? ", one thread" : "", best[k] * 1e3, int(k) == chosen ? ", kept" : "", k + 1 == variants.size() ? "\n" : "");
}
struct Tuned {
  std::vector<std::unique_ptr<Call>> variants;
  int chosen = -1;
  int threads = 0;
  std::thread::id owner;      // the thread that made it, and the only one that runs it
  std::unique_ptr<Tuned> next; // the tasklet's calls for other thread counts or threads (see call())
  std::mutex lock;
  // The variant kept (its index among the tasklet's variants), once the first run chose it.
  int kept() const { return chosen >= 0 && variants[size_t(chosen)] ? variants[size_t(chosen)]->variant : -1; }
  void run(std::initializer_list<const void*> buffers) {
    std::lock_guard<std::mutex> guard(lock);
    if (chosen >= 0) return variants[size_t(chosen)]->run(buffers);
    // DCW_ONEDNN_VARIANT=k pins variant k where a call has it (tests of a variant the timing may not
    // pick; comparing variants by hand).
    static const int pinned = std::getenv("DCW_ONEDNN_VARIANT") ? std::atoi(std::getenv("DCW_ONEDNN_VARIANT")) : -1;
    bool ran = false;
    // Variants that cannot run on these buffers (a binary_add post-op whose Z is where Y goes) are left
    // out while another can.
    if (std::any_of(variants.begin(), variants.end(), [&](const auto& v) { return !v->apartAliased(buffers); }))
      variants.erase(std::remove_if(variants.begin(), variants.end(), [&](const auto& v) { return v->apartAliased(buffers); }), variants.end());
    auto pin = std::find_if(variants.begin(), variants.end(), [&](const auto& v) { return v->variant == pinned; });
    if (variants.size() == 1) chosen = 0;
    else if (pinned >= 0 && pin != variants.end()) chosen = int(pin - variants.begin());
    else {
      // Each variant's best of three runs, the variants taking turns, so that a burst of other work on
      // the machine while the first run times them does not lock in a slow variant for good. A call
      // that adds into its output in place gets the output's first contents back before each turn
      // (copied out of the timing) and runs once more at the end.
      std::pair<void*, size_t> inPlace{nullptr, 0};
      for (auto& v : variants)
        if ((inPlace = v->inPlaceOutput(buffers)).second) break;
      const auto* first = static_cast<const unsigned char*>(inPlace.first);
      const std::vector<unsigned char> saved(first, first + inPlace.second);
      auto restore = [&] {
        if (inPlace.second) std::memcpy(inPlace.first, saved.data(), saved.size());
      };
      for (auto& v : variants) { // the first run also reorders constant weights
        restore();
        v->run(buffers);
      }
      // A variant more than 4 times as slow as the fastest in the first round, by over half a
      // millisecond, is not timed again: oneDNN serves some layouts only by im2col and sgemm (a blocked Y
      // with a binary_add of a channels-last Z, a ResNet's residual: 4-17 ms against brgconv's 0.45),
      // and the rounds after the first took about 0.3 s of ResNet-50's first run.
      std::vector<double> best(variants.size(), 1e300);
      for (int round = 0; round < 3; ++round)
        for (size_t k = 0; k < variants.size(); ++k) {
          if (round > 0) {
            const double fastest = *std::min_element(best.begin(), best.end());
            if (best[k] > 4 * fastest && best[k] > fastest + 5e-4) continue;
          }
          restore();
          const auto t0 = std::chrono::steady_clock::now();
          variants[k]->run(buffers);
          best[k] = std::min(best[k], std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
      chosen = int(std::min_element(best.begin(), best.end()) - best.begin());
      static const bool report = std::getenv("DCW_ONEDNN_TIMING") != nullptr;
      if (report) reportTiming(variants, best, chosen);
      restore();
      ran = inPlace.second == 0;
    }
    for (size_t k = 0; k < variants.size(); ++k)
      if (int(k) != chosen) variants[k].reset(); // a pinned call releases the others too
    if (!ran) variants[size_t(chosen)]->run(buffers);
  }
};

// The tasklet's call: `make(call, variant)` fills each of `count` variants on first use, and again
// after the environment was set up anew. A call is made for one thread count on one thread (see the
// header of OneDnnRuntime.cpp); the slot keeps the calls made for other counts or threads behind the
// current one (a program run with another --threads, a group of concurrent branches run on one thread
// when the program's count changed), up to kKeptCalls, so that going back and forth makes nothing
// again. `make` is a plain function (each
// tasklet's captureless lambda), not a template parameter: one copy of this function serves every
// tasklet, which halves the compile time of a program with hundreds of oneDNN calls (DenseNet-121,
// 188 calls: 41.6 -> 19.3 s with g++ -O3; DCW_ONEDNN_MAKE above takes it to 11.4 s).
inline Tuned& call(std::unique_ptr<Tuned>& slot, unsigned& made, int count, void (*make)(Call&, int)) {
  std::lock_guard<std::mutex> guard(runLock());
  const int threads = useProgramThreads();
  const std::thread::id self = std::this_thread::get_id();
  if (slot && made == generation() && (slot->threads != threads || slot->owner != self)) {
    // One made earlier for this count and thread goes first.
    for (std::unique_ptr<Tuned>* p = &slot->next; *p; p = &(*p)->next)
      if ((*p)->threads == threads && (*p)->owner == self) {
        std::unique_ptr<Tuned> found = std::move(*p);
        *p = std::move(found->next);
        found->next = std::move(slot);
        slot = std::move(found);
        break;
      }
  }
  if (!slot || made != generation() || slot->threads != threads || slot->owner != self) {
    if (!slot) releases().push_back([&slot] { slot.reset(); });
    auto t = std::make_unique<Tuned>();
    t->threads = threads;
    t->owner = self;
    // The others stay behind it. Outside a parallel region, the oldest beyond kKeptCalls go: no other
    // thread runs program code then (runs of a program never overlap, its arena being one), so none
    // of them is running. Inside one (a group's branch, or a call in a parallel map), another thread
    // may be running its own call of this tasklet right now: none goes.
    if (slot && made == generation()) {
      constexpr int kKeptCalls = 4;
      t->next = std::move(slot);
#ifdef _OPENMP
      const bool alone = !omp_in_parallel();
#else
      const bool alone = true;
#endif
      if (alone) {
        std::unique_ptr<Tuned>* p = &t->next;
        for (int k = 1; *p && k < kKeptCalls; ++k) p = &(*p)->next;
        p->reset();
      }
    }
    // A variant oneDNN cannot make (e.g. a post-op one of its kernels lacks) is left out; the call
    // fails only when no variant can be made.
    for (int v = 0; v < count; ++v) {
      auto c = std::make_unique<Call>();
      try {
        c->variant = v;
        make(*c, v);
      } catch (const std::exception&) {
        if (v + 1 == count && t->variants.empty()) throw;
        continue;
      }
      t->variants.push_back(std::move(c));
    }
    // A small call: each variant again, made for one thread (see the header of OneDnnRuntime.cpp);
    // not when DCW_ONEDNN_VARIANT pins a variant by its index. DCW_ONEDNN_SMALL_CALL_THREADS pins
    // the choice for tests and comparisons by hand: `1` keeps only the one-thread variants of a small
    // call, `program` makes none.
    constexpr size_t kSmallCallBytes = 512 * 1024;
    const char* smallThreads = std::getenv("DCW_ONEDNN_SMALL_CALL_THREADS");
    const bool oneThreadOnly = smallThreads && std::strcmp(smallThreads, "1") == 0;
    const bool noOneThread = smallThreads && std::strcmp(smallThreads, "program") == 0;
    const size_t made1 = t->variants.size();
    if (threads > 1 && !noOneThread && !std::getenv("DCW_ONEDNN_VARIANT") && made1 > 0 && t->variants.front()->prim &&
        t->variants.front()->bufferBytes() <= kSmallCallBytes) {
#ifdef _OPENMP
      omp_set_num_threads(1);
#endif
      for (size_t k = 0; k < made1; ++k) {
        auto c = std::make_unique<Call>();
        try {
          c->variant = t->variants[k]->variant;
          c->threads = 1;
          make(*c, c->variant);
        } catch (const std::exception&) {
          continue;
        }
        t->variants.push_back(std::move(c));
      }
#ifdef _OPENMP
      omp_set_num_threads(threads);
#endif
      if (oneThreadOnly && t->variants.size() > made1) t->variants.erase(t->variants.begin(), t->variants.begin() + long(made1));
    }
    // A variant oneDNN can only serve with its reference implementation (e.g. a convolution with
    // activations in a plain layout its jit kernels do not take) is hundreds of times slower than a
    // jit one: timing it would make the first run take seconds, and it could never be kept. Left out
    // while another variant has a real kernel (not when DCW_ONEDNN_VARIANT pins one by its index; not
    // for recurrent primitives, whose gemm-based implementation oneDNN names "ref" too).
    auto reference = [](const Call& c) {
      if (!c.prim) return false;
      const auto pd = c.prim.get_primitive_desc();
      dnnl_primitive_kind_t kind = dnnl_undefined_primitive;
      dnnl_primitive_desc_query(pd, dnnl_query_primitive_kind, 0, &kind);
      const char* impl = nullptr;
      dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
      return kind != dnnl_rnn && impl && std::strncmp(impl, "ref", 3) == 0;
    };
    if (!std::getenv("DCW_ONEDNN_VARIANT") && std::any_of(t->variants.begin(), t->variants.end(), [&](const auto& c) { return !reference(*c); }))
      t->variants.erase(std::remove_if(t->variants.begin(), t->variants.end(), [&](const auto& c) { return reference(*c); }),
                        t->variants.end());
    slot = std::move(t);
    made = generation();
  }
  return *slot;
}
)";
}

const char* runtimeInit() {
  return "engine = dnnl::engine(dnnl::engine::kind::cpu, 0);\nthreadStreams().clear();\n++generation();\n";
}

const char* runtimeAttach() { return "++bindings();\n"; }

const char* runtimeTeardown() {
  return "for (auto& r : releases()) r();\nreleases().clear();\npackedConstants().clear();\nthreadStreams().clear();\nengine = dnnl::engine();\n";
}

} // namespace dcw::expansions::onednn
