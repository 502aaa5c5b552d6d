#pragma once
// How long the OpenMP threads of a compiled program spin before they sleep between parallel regions.
//
// libgomp spins 300,000 rounds by default (about a millisecond). That suits a machine whose cores are
// all the program's: a thread that finished its share keeps its core and starts the next region at
// once. Where another process wants those cores, the spinning threads use up their time slices, and the
// scheduler puts one aside for a whole slice; oneDNN's primitives split work statically, so every
// region then waits for that thread. ONNX Runtime's own thread pool does not suffer this.
//
// Measured on a 2-core host with one core kept busy by `yes`, 2 threads, medians (ONNX Runtime in the
// same run): ResNet-50 225-306 ms with libgomp's default, 70-82 ms with 10,000 rounds (ORT 57-69);
// MobileNetV2 98-179 ms against 20-21 (ORT 8-9); BERT-base 293-365 against 196-201 (ORT 218-233). With
// the cores free, 10,000 rounds and the default time every model alike within noise; 1,000 rounds or
// OMP_WAIT_POLICY=passive cost 12-50% there (threads asleep between a network's many small layers:
// MobileNetV2 4.0-4.4 against 2.9 ms with 1,000 rounds, BERT-base 90 against 80 ms passive).
//
// useModerateOpenMpSpin() sets GOMP_SPINCOUNT=10000 unless the user set GOMP_SPINCOUNT or
// OMP_WAIT_POLICY (theirs is kept). libgomp reads it when it is loaded, so it takes effect only in a
// process that has not loaded libgomp yet: dcw before it loads a program or oneDNN, dcw-worker before it
// loads its program. Call it while the process has one thread (it changes the environment).

namespace dcw {

inline constexpr const char* kModerateOpenMpSpin = "10000";

// Returns true when it set GOMP_SPINCOUNT, false when the user's setting stands.
bool useModerateOpenMpSpin();

} // namespace dcw
