// HostCpu: what /proc/cpuinfo says about the machine's processor — its model name and its feature
// flags. A program compiled with -march=native is only valid on a CPU with the same features, so the
// build cache and the measured machine peaks are keyed on them: a cache folder shared between machines
// (a home directory on NFS, a copied cache, a cloud image moved to another instance type) must not hand
// an AVX-512 program to a CPU without it. Two CPUs with one model name ("AMD EPYC" under a hypervisor)
// can still differ in their flags.
#pragma once

#include <string>

namespace dcw {

// The first processor's model name ("unknown CPU" when /proc/cpuinfo has none).
std::string hostCpuModel();

// The model name and the first processor's feature flags ("flags" on x86, "Features" on Arm), one
// line each; empty flags where /proc/cpuinfo has none. Read once per process.
const std::string& hostCpuIdentity();

} // namespace dcw
