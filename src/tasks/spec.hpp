// Task specifications: one tasks/<arch>/<family>/<name>/task.toml per task, loaded and validated.
// Every validation error names the file, the field and the problem.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/shape.hpp"
#include "families/family.hpp"  // known_families, family_of
#include "families/structured_values.hpp"
#include "tasks/catalog.hpp"

namespace ptxb {

/// Evidence levels per target (DESIGN.md): S0 PTX text, S1 SASS opcode in a kernel of the shared
/// object, R1 executed > 0, R2 executed share/count meets the task's floor.
enum class EvidenceLevel { kS0 = 0, kS1 = 1, kR1 = 2, kR2 = 3 };
std::string_view to_string(EvidenceLevel level);
std::optional<EvidenceLevel> evidence_level_from_string(std::string_view name);

enum class TensorRole { kInput, kOutput };

struct TensorSpec {
  std::string name;  ///< "A"
  TensorRole role;
  DType dtype;
  std::vector<std::string> dims;  ///< symbolic shape, outermost first: {"M", "K"}
  std::string layout;             ///< "row_major" (the only layout so far: last stride 1)
  /// Structured inputs: how their values are drawn (required for integer inputs, "scales" for
  /// f32 ones; families/structured_values.hpp).
  std::optional<StructuredValues> values;
};

/// One problem size. Attention shapes also carry the parameter `causal` (0 or 1) as a dimension
/// no tensor uses, so that FLOPs, scalars and shape strings see it like the sizes.
struct ShapeCase {
  Shape shape;
  bool hidden = false;  ///< never shown to a model; decides correctness like the visible ones
  bool timed = false;   ///< timed against the baseline
  /// Useful FLOPs of one call at this shape by the family's rule, computed once when the task
  /// loads; what TFLOP/s and FLOP shares are counted against. Travels to the worker with the task.
  double flops = 0;
  /// The least DRAM traffic of one call: every input read once, every output written once
  /// (bytes); with flops, the shape's arithmetic intensity for the roofline.
  double bytes = 0;
  /// The task's regime of this shape ([[regimes]]: "decode", "prefill"); "" when it has none.
  std::string regime;
};

/// A named class of shapes (task.toml [[regimes]]): the verdict and the report give speedups per
/// regime. A shape belongs to the first regime of the task whose bounds it meets.
struct RegimeSpec {
  std::string name;  ///< "decode"
  Shape min;         ///< each listed dimension >= its value
  Shape max;         ///< each listed dimension <= its value
  bool contains(const Shape& shape) const;
};

struct TargetSpec {
  std::string instruction;                      ///< catalog entry name, "wgmma.mma_async"
  EvidenceLevel required = EvidenceLevel::kR2;  ///< "required" in task.toml; R2 when omitted
  double min_flop_share = 0.9;                  ///< R2 floor for MMA targets
  /// R2 ceiling for MMA targets: FLOPs done outside the target MMA instructions (scalar and packed
  /// arithmetic, other MMA forms) over the problem's FLOPs, per profiled call (docs/evidence.md).
  double max_nontarget_flop_share = 0.02;
  /// R2 ceilings for MMA targets on work the FLOP count cannot see (docs/evidence.md): integer
  /// multiply(-add) operations over the problem's FLOPs, and thread-level instructions other
  /// than the target's over the problem's multiply-adds. An integer or bit-level emulation of
  /// the MMA needs about 1 and several respectively. The recorded TMA GEMM expert: 0.003 and
  /// 0.047 at most; every expert's instructions per multiply-add, bounded from ncu's warp-level
  /// totals: at most 0.13 but for paged decode's 0.70 (docs/evidence.md).
  double max_nontarget_integer_share = 0.25;
  double max_nontarget_instructions_per_mac = 1.0;
  /// R2 ceiling for targets with other-read metrics in the catalog (TMA loads): the bytes the SMs
  /// read from L2 by other loads over the problem's input bytes, per profiled call. nullopt: not
  /// enforced (the share is still recorded); set where the expert's other reads are known small.
  std::optional<double> max_other_read_input_share;
};

/// Tolerances of one output, overriding its distribution's defaults
/// ([correctness.distributions.outputs.NAME] in task.toml).
struct OutputTolerance {
  std::string output;  ///< tensor name, "LSE"
  double atol = 0;
  double atol_rms = 0;
  double rtol = 0;
  double max_rel_frobenius = 0;
};

/// How inputs are drawn and how closely outputs must match the reference for that draw.
struct DistributionSpec {
  enum class Kind { kNormal, kUniformInt };
  std::string name;  ///< "normal", "small_int"
  Kind kind = Kind::kNormal;
  double scale = 1.0;  ///< normal: standard deviation; uniform_int: integers in [-scale, scale]
  double atol = 0;     ///< |out - ref| <= atol + atol_rms*rms(ref) + rtol*|ref| elementwise
  /// Absolute floor in units of the reference's root-mean-square (outputs whose magnitude
  /// depends on the shape, e.g. attention gradients).
  double atol_rms = 0;
  double rtol = 0;
  double max_rel_frobenius = 0;  ///< ||out - ref||_F / ||ref||_F bound (0: not checked)
  /// Compare against the reference rounded to the output dtype (exactly representable cases).
  bool round_reference = false;
  std::vector<OutputTolerance> outputs;  ///< per-output overrides (round_reference stays shared)
};

struct CorrectnessSpec {
  std::string reference;  ///< reference implementation name, "gemm_fp32"
  std::vector<uint64_t> seeds;
  std::vector<DistributionSpec> distributions;
};

struct BaselineSpec {
  std::string library;       ///< "cublaslt"
  int heuristic_algos = 32;  ///< algorithms asked of the heuristic; each is timed in plan
  int64_t workspace_bytes = 32ll << 20;
};

struct TaskSpec {
  std::string id;  ///< "sm90/gemm/bf16-wgmma-tma"
  std::string title;
  std::string arch;    ///< "sm_90a" | "sm_100a"
  std::string family;  ///< a family of the registry (families/family.hpp)
  int level = 1;
  std::vector<std::string> dims;  ///< dimension names in order: {"M", "N", "K"}
  std::vector<TensorSpec> tensors;
  /// Scalar parameters in ABI order; their values follow from the shape (scalar_values).
  std::vector<std::string> scalars;
  std::vector<ShapeCase> shapes;
  std::vector<RegimeSpec> regimes;  ///< in the task's order; empty: no regimes
  std::vector<TargetSpec> targets;
  CorrectnessSpec correctness;
  BaselineSpec baseline;
  std::string prompt;  ///< the task's prompt text (prompt.md beside task.toml)
  std::filesystem::path dir;
  /// Divisibility rules every shape obeys, e.g. K=8 (16-byte rows of bf16 A and B). Empty: none.
  Shape multiple_of;

  std::vector<const TensorSpec*> inputs() const;
  std::vector<const TensorSpec*> outputs() const;
  std::vector<const ShapeCase*> visible_shapes() const;
  /// Never print these where a model could read them.
  std::vector<const ShapeCase*> hidden_shapes() const;
};

std::string_view to_string(TensorRole role);              ///< "in" | "out"
std::string_view to_string(DistributionSpec::Kind kind);  ///< "normal" | "uniform_int"

/// The task tree: $PTXBENCH_TASKS_DIR if set and non-empty, else <source>/tasks. The instruction
/// catalog is its "catalog" folder. Reads the environment: call once, from the CLI.
std::filesystem::path default_tasks_root();

/// Loads and validates one task.toml; targets must exist in `catalog` for the task's arch.
/// Throws InputError("<file>: <field>: <problem>").
TaskSpec load_task(const std::filesystem::path& task_toml, const Catalog& catalog);

/// Every task under `tasks_root` (each folder holding a task.toml), sorted by id.
std::vector<TaskSpec> load_all_tasks(const std::filesystem::path& tasks_root,
                                     const Catalog& catalog);

/// The task with `id` under `tasks_root`; InputError listing known ids if absent.
TaskSpec find_task(const std::filesystem::path& tasks_root, const Catalog& catalog,
                   const std::string& id);

/// Bytes of `tensor` at `shape` (its dims' sizes times its element size).
double tensor_bytes(const TensorSpec& tensor, const Shape& shape);

/// The size of a tensor's dimension `dim` at `shape`: a declared dim's value, the number a
/// literal extent such as "1" states (a per-tensor scale is a tensor of shape ["1"]), or for a
/// blocked extent "K/128" the number of 128-blocks that cover K, ceil(K / 128) (block scales), or
/// for "G+1" the size of G plus 1 (group offsets).
int64_t extent(const std::string& dim, const Shape& shape);
/// True for a literal extent: a positive decimal integer.
bool is_literal_extent(const std::string& dim);
/// "K/128": dim "K", block 128; nullopt for anything else.
struct BlockedExtent {
  std::string dim;
  int64_t block = 1;
};
std::optional<BlockedExtent> blocked_extent(const std::string& dim);
/// "G+1": dim "G" plus 1 (the G+1 offsets of G groups); nullopt for anything else.
struct PlusExtent {
  std::string dim;
  int64_t added = 0;
};
std::optional<PlusExtent> plus_extent(const std::string& dim);

/// The values of the task's scalars at `shape`, in the task's order (ptxb_problem.scalars).
std::vector<double> scalar_values(const TaskSpec& task, const Shape& shape);

}  // namespace ptxb
