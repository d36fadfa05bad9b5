// What the worker records about the machine with every result: GPU, driver, runtime and library
// versions, and clocks/power/temperature through NVML (loaded at run time; absent -> omitted).
#pragma once

#include <nlohmann/json.hpp>

namespace ptxb {

/// Static facts about device `device`: name, compute capability, SMs, L2, versions, and its
/// nominal ceilings ("peak": maximum clocks, DRAM bandwidth, dense tensor-core TFLOP/s per type).
nlohmann::json device_environment(int device);

/// Current SM and memory clocks (MHz), power (W), temperature (C); {} when NVML is unavailable.
nlohmann::json clock_snapshot(int device);

}  // namespace ptxb
