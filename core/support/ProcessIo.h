// ProcessIo: what DCW's child processes (the program worker, isolated ONNX shape inference) and their
// parents share: reading and writing whole buffers on a pipe or socket, and the words for how a child
// ended. One place, so that every report of a crashed child reads the same.
#pragma once

#include <cstddef>
#include <string>

namespace dcw {

// All n bytes, retrying after signals; false when the other end closed or an error occurred. Writing
// to a socket whose reader is gone fails instead of raising SIGPIPE.
bool writeFully(int fd, const void* buf, size_t n);
bool readFully(int fd, void* buf, size_t n);

// "SIGSEGV (segmentation fault: an access outside the program's memory, e.g. an out-of-bounds index)".
std::string signalText(int sig);

} // namespace dcw
