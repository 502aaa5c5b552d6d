// FpgaDevice: the FPGA boards DCW estimates against — their resources, kernel clock and memory banks,
// from the vendors' data sheets (Alveo U250: DS962; U280: DS963; bank bandwidths from UG1393: 19.25
// GB/s per DDR4 channel, 14.375 GB/s per HBM pseudo channel). Estimates say which board they are for.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dcw::codegen {

struct FpgaResources {
  int64_t dsp = 0;
  int64_t lut = 0;
  int64_t ff = 0;
  int64_t bram18k = 0; // 18 Kb block RAM halves (a 36 Kb block is two)
  int64_t uram = 0;    // 288 Kb UltraRAM blocks
  FpgaResources& operator+=(const FpgaResources& o) {
    dsp += o.dsp, lut += o.lut, ff += o.ff, bram18k += o.bram18k, uram += o.uram;
    return *this;
  }
};

struct FpgaDevice {
  std::string name;         // "u250", as --device takes it
  std::string part;         // "Alveo U250 (xcu250)"
  double clockMHz = 300;    // the usual kernel clock of its Vitis platform
  FpgaResources available;
  struct Bank {
    std::string name;       // "DDR[0]", "HBM[3]" (as a Vitis link configuration names it)
    double gbPerSecond = 0;
  };
  std::vector<Bank> banks;
};

const std::vector<FpgaDevice>& fpgaDevices();
// nullptr when there is no device of that name.
const FpgaDevice* findFpgaDevice(std::string_view name);
const FpgaDevice& defaultFpgaDevice(); // u250

} // namespace dcw::codegen
