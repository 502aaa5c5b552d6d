#include "codegen/fpga/FpgaDevice.h"

namespace dcw::codegen {

const std::vector<FpgaDevice>& fpgaDevices() {
  static const std::vector<FpgaDevice> list = [] {
    std::vector<FpgaDevice> v;
    FpgaDevice u250;
    u250.name = "u250";
    u250.part = "Alveo U250 (xcu250-figd2104-2L-e)";
    u250.clockMHz = 300;
    u250.available = {12288, 1728000, 3456000, 2 * 2688, 1280};
    for (int k = 0; k < 4; ++k) u250.banks.push_back({"DDR[" + std::to_string(k) + "]", 19.25});
    v.push_back(u250);
    FpgaDevice u280;
    u280.name = "u280";
    u280.part = "Alveo U280 (xcu280-fsvh2892-2L-e)";
    u280.clockMHz = 300;
    u280.available = {9024, 1304000, 2607000, 2 * 2016, 960};
    for (int k = 0; k < 32; ++k) u280.banks.push_back({"HBM[" + std::to_string(k) + "]", 14.375});
    for (int k = 0; k < 2; ++k) u280.banks.push_back({"DDR[" + std::to_string(k) + "]", 19.25});
    v.push_back(u280);
    return v;
  }();
  return list;
}

const FpgaDevice* findFpgaDevice(std::string_view name) {
  for (auto& d : fpgaDevices())
    if (d.name == name) return &d;
  return nullptr;
}

const FpgaDevice& defaultFpgaDevice() { return fpgaDevices().front(); }

} // namespace dcw::codegen
