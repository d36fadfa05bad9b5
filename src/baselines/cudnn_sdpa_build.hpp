// The part of the cuDNN attention baseline's plan that needs no data: the graph of one problem
// and every execution plan cuDNN's heuristics offer for it, built (an NVRTC compile each for the
// runtime-compiled engines, 0.5-1.1 s apiece on the H200), on a cuDNN handle of its own. plan()
// builds one when nothing was built ahead; prebuild() builds the timed shapes' in parallel
// threads. Internal to the cuDNN baseline (it needs cudnn-frontend's headers).
#pragma once

#include <cudnn_frontend.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "baselines/cudnn_library.hpp"
#include "baselines/cudnn_sdpa.hpp"
#include "baselines/cudnn_sdpa_problem.hpp"

namespace ptxb::cudnn_sdpa {

struct BuiltGraph {
  // Shared: the baseline keeps what prebuild() built for every plan() of the problem.
  std::shared_ptr<CudnnHandle> handle;  // declared before the graph: destroyed after it
  std::shared_ptr<cudnn_frontend::graph::Graph> graph;
  /// Per offered plan: index, name, built, build_ms, workspace_bytes, error; "skipped" for a plan
  /// left unbuilt because another was preferred.
  nlohmann::json plans = nlohmann::json::array();
  /// PTXB_OK, or kUnsupportedProblem / kNoPlan with `error` (as plan() reports them).
  int status = 0;
  std::string error;
  double build_seconds = 0;  ///< wall time of the whole build
};

/// The graph of `dims` and all its offered plans, built on a new handle on the calling thread's
/// current device; with `only` ({"index", "name"}: a preferred plan, CudnnSdpa::prefer) just that
/// plan, when the heuristics offer a plan of that name at that index (else all of them). Throws
/// ApiError when cuDNN cannot be used at all.
BuiltGraph build_graph(const Dims& dims, SdpaDirection direction,
                       const nlohmann::json& only = nullptr);

/// build_graph for every problem in `all` (with `only[i]` for the i-th), one thread each (at most
/// the machine's cores at once), on the calling thread's device. A build that throws leaves its
/// slot empty: plan() builds that one itself and reports what goes wrong.
std::vector<std::optional<BuiltGraph>> build_graphs(const std::vector<Dims>& all,
                                                    SdpaDirection direction,
                                                    const std::vector<nlohmann::json>& only);

}  // namespace ptxb::cudnn_sdpa
