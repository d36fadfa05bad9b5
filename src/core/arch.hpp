// The GPU architectures PTXBench judges code for, as one table (the only place in src/ that spells
// an architecture): name, task folder, nvcc target, the compute capability that runs it, whether
// the evidence control kernels exist for it, and nominal per-SM rates. Everything else looks an
// architecture up here instead of parsing its name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxb {

struct Arch {
  std::string name;                ///< "sm_90a": task.toml `arch`, the catalog's `arch`
  std::string folder;              ///< "sm90": the tasks/<folder>/ and task-id prefix
  std::string gencode;             ///< nvcc -gencode value: "arch=compute_90a,code=sm_90a"
  int compute_capability = 0;      ///< major*10 + minor of a device that runs it (90 = 9.0)
  bool evidence_controls = false;  ///< src/controls/ kernels are built for it (runtime evidence)
  /// Nominal dense tensor-core FLOPs per SM per clock (leads from NVIDIA's datasheets, for % of
  /// peak; never a verdict): bf16/f16 and 8-bit floats.
  double bf16_flops_per_sm_clock = 0;
  double fp8_flops_per_sm_clock = 0;
};

/// Every architecture, in a fixed order (sm_90a, sm_100a).
const std::vector<Arch>& known_arch_list();
/// Their names, in that order ("sm_90a", "sm_100a").
const std::vector<std::string>& known_archs();
/// The architecture called `name`, or nullptr.
const Arch* find_arch(std::string_view name);
/// The architecture whose code a device of compute capability `major`.`minor` runs natively, or
/// nullptr (arch-specific "a" targets run only on their exact capability).
const Arch* arch_for_device(int major, int minor);

}  // namespace ptxb
