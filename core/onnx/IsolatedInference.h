// IsolatedInference: runs a piece of work that reads and rewrites an ONNX model (the importer's shape
// inference and shape-arithmetic folding) in a child process, and brings the rewritten model back.
// ONNX 1.12's own inference functions index declared shapes without checking their rank: Gemm-6 reads
// dimension 1 of an input declared with rank 0 and ends the process with SIGSEGV (found by the
// fuzzer). Run in the importing process, such a model would take the GUI down with the user's unsaved
// work; run in a child, it becomes a warning and the import goes on with the shapes the model declares.
#pragma once

#include <onnx/onnx_pb.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace dcw::onnx {

struct IsolatedOutcome {
  enum class Kind {
    Finished, // the work ran to its end; `model` holds its result
    Stopped,  // the work stopped with an error message (`message`); `model` holds what it had done
    Crashed,  // the child ended by a signal or without an answer (`message` says how); `model` unchanged
    TimedOut, // the child ran past the limit and was killed; `model` unchanged
  };
  Kind kind = Kind::Finished;
  std::string message;
  bool isolated = true; // false when no child could be started and the work ran in this process
};

// Runs `work(model)` in a fork()ed child. `work` returns nullopt when it finished, or the message of
// the error that stopped it. When fork() fails (no memory for the child, a process limit), the work
// runs here instead, unprotected, and `isolated` says so. The model's contents are replaced by the
// child's answer: pointers and references into it taken before the call no longer point into it.
IsolatedOutcome runIsolated(::onnx::ModelProto& model,
                            const std::function<std::optional<std::string>(::onnx::ModelProto&)>& work,
                            std::chrono::seconds limit);

} // namespace dcw::onnx
