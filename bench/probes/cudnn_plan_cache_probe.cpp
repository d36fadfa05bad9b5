// Probe: can the cuDNN attention baseline's built plans be kept between processes, so that an
// evaluation loads its library plan instead of compiling it (NVRTC, 0.5-1.1 s a plan on the H200,
// 2.3-2.7 s of an attention evaluation's worker: docs/timing.md, "Judging time: where it goes")?
// cudnn-frontend 1.32 serializes a built graph's execution plan (Graph::serialize: the backend
// plan's JSON representation plus the frontend's variant-pack uids, pass-by-value scalars and
// workspace modifications) and loads it on a handle without heuristics or a build
// (Graph::deserialize(handle, blob, enforce_precompiled, run_warmup)). What nobody here has
// measured: whether the load of a runtime-compiled plan in a fresh process skips the compile, and
// whether the loaded plan computes the same outputs as fast.
//
// `save DIR`: per problem (bf16 SDPA at B 4, H 16, S 4096, D 128, forward and backward, not
// causal), builds the graph and the heuristics' first plan (timed: handle, graph and heuristics,
// the plan's build), runs it (3 warm-ups, 10 timed runs, device time by events), writes its
// outputs to DIR/NAME.out and its serialized plan to DIR/NAME.plan, and loads that blob once in
// the same process (timed). `load DIR` (a fresh process): creates a handle, loads each blob with
// enforce_precompiled (timed), runs it the same way, and compares its outputs with the saved ones
// (elements that differ, largest difference; the backward's dQ is accumulated with atomics, so
// its bits may differ between any two runs: `save` also compares two runs of the built plan).
// One line per step, then a table: RESULT <mode> <problem> <step> <value>.
//
// Build and run on the GPU machine: bench/probes/cudnn_plan_cache_probe.sh OUT_DIR (it holds the
// build command and runs save, then load in a second process). libcudnn is opened at run time
// through the frontend's dynamic loading, as in src/baselines/cudnn_library.cpp.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include <cudnn_frontend.h>

// The frontend's dynamic loading resolves every cuDNN symbol through this handle.
namespace cudnn_frontend {
void* cudnn_dlhandle = nullptr;
}  // namespace cudnn_frontend

namespace {

namespace fe = cudnn_frontend;
using Clock = std::chrono::steady_clock;

constexpr int64_t kB = 4, kH = 16, kS = 4096, kD = 128;
constexpr int kWarmups = 3, kTimedRuns = 10;
enum Uid : int64_t { kQ = 1, kK, kV, kO, kStats, kDO, kDQ, kDK, kDV };

double ms_since(Clock::time_point from) {
  return std::chrono::duration<double, std::milli>(Clock::now() - from).count();
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

void check_fe(fe::error_t e, const std::string& what) {
  if (e.is_bad()) throw std::runtime_error(what + ": " + e.get_message());
}

void result(const char* mode, const std::string& problem, const char* step, const std::string& v) {
  std::printf("RESULT\t%s\t%s\t%s\t%s\n", mode, problem.c_str(), step, v.c_str());
  std::fflush(stdout);
}

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f", v);
  return buf;
}

struct DeviceBuffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  explicit DeviceBuffer(size_t n) : bytes(n) { check_cuda(cudaMalloc(&ptr, n), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

// Deterministic inputs, the same in both processes: bf16 values in [-0.5, 0.5] from an integer
// hash of (tensor, element); the backward's Stats a constant 8 (any finite LSE gives finite
// gradients; the probe compares runs, it does not check attention's arithmetic).
uint16_t input_bits(int64_t tensor, int64_t i) {
  uint64_t x = static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(tensor);
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  const float f = (static_cast<float>(x % 2001) - 1000.f) / 2000.f;
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

struct Problem {
  std::string name;
  bool backward;
  std::vector<int64_t> inputs, outputs;  // uids
};

const std::vector<Problem>& problems() {
  static const std::vector<Problem> all = {
      {"fwd_b4_h16_s4096_d128", false, {kQ, kK, kV}, {kO, kStats}},
      {"bwd_b4_h16_s4096_d128", true, {kQ, kK, kV, kO, kDO, kStats}, {kDQ, kDK, kDV}},
  };
  return all;
}

constexpr int64_t kElems = kB * kH * kS * kD;
size_t tensor_bytes(int64_t uid) {
  return uid == kStats ? kB * kH * kS * sizeof(float) : kElems * sizeof(uint16_t);
}

std::shared_ptr<fe::graph::Graph> make_graph(const Problem& p) {
  auto g = std::make_shared<fe::graph::Graph>();
  g->set_io_data_type(fe::DataType_t::BFLOAT16)
      .set_intermediate_data_type(fe::DataType_t::FLOAT)
      .set_compute_data_type(fe::DataType_t::FLOAT);
  const std::vector<int64_t> dims = {kB, kH, kS, kD}, strides = {kH * kS * kD, kS * kD, kD, 1};
  const std::vector<int64_t> sdims = {kB, kH, kS, 1}, sstrides = {kH * kS, kS, 1, 1};
  auto bind = [&](const std::shared_ptr<fe::graph::Tensor_attributes>& t, const char* name,
                  int64_t uid) {
    t->set_name(name).set_uid(uid);
    if (uid == kStats)
      t->set_dim(sdims).set_stride(sstrides).set_data_type(fe::DataType_t::FLOAT);
    else
      t->set_dim(dims).set_stride(strides);
    return t;
  };
  auto input = [&](const char* name, int64_t uid) {
    return bind(g->tensor(fe::graph::Tensor_attributes()), name, uid);
  };
  auto q = input("Q", kQ), k = input("K", kK), v = input("V", kV);
  const float scale = 1.f / std::sqrt(static_cast<float>(kD));
  if (!p.backward) {
    auto attrs =
        fe::graph::SDPA_attributes().set_name("fwd").set_generate_stats(true).set_attn_scale(scale);
    auto [o, stats] = g->sdpa(q, k, v, attrs);
    bind(o, "O", kO)->set_output(true);
    bind(stats, "Stats", kStats)->set_output(true);
    return g;
  }
  auto o = input("O", kO), d_o = input("dO", kDO), stats = input("Stats", kStats);
  auto attrs = fe::graph::SDPA_backward_attributes().set_name("bwd").set_attn_scale(scale);
  auto [dq, dk, dv] = g->sdpa_backward(q, k, v, o, d_o, stats, attrs);
  bind(dq, "dQ", kDQ)->set_output(true);
  bind(dk, "dK", kDK)->set_output(true);
  bind(dv, "dV", kDV)->set_output(true);
  return g;
}

struct Tensors {
  std::unordered_map<int64_t, std::unique_ptr<DeviceBuffer>> buffers;
  std::unordered_map<int64_t, void*> pack;
  explicit Tensors(const Problem& p) {
    for (int64_t uid : p.inputs) {
      add(uid);
      if (uid == kStats) {
        std::vector<float> host(tensor_bytes(uid) / sizeof(float), 8.f);
        check_cuda(cudaMemcpy(pack[uid], host.data(), tensor_bytes(uid), cudaMemcpyHostToDevice),
                   "cudaMemcpy (Stats)");
        continue;
      }
      std::vector<uint16_t> host(kElems);
      for (int64_t i = 0; i < kElems; ++i) host[i] = input_bits(uid, i);
      check_cuda(cudaMemcpy(pack[uid], host.data(), tensor_bytes(uid), cudaMemcpyHostToDevice),
                 "cudaMemcpy (input)");
    }
    for (int64_t uid : p.outputs) add(uid);
  }
  void add(int64_t uid) {
    buffers[uid] = std::make_unique<DeviceBuffer>(tensor_bytes(uid));
    pack[uid] = buffers[uid]->ptr;
  }
  std::vector<char> outputs(const Problem& p) const {
    std::vector<char> all;
    for (int64_t uid : p.outputs) {
      std::vector<char> host(tensor_bytes(uid));
      check_cuda(cudaMemcpy(host.data(), buffers.at(uid)->ptr, host.size(), cudaMemcpyDeviceToHost),
                 "cudaMemcpy (output)");
      all.insert(all.end(), host.begin(), host.end());
    }
    return all;
  }
};

// Runs the graph's plan kWarmups + kTimedRuns times; the mean device time of the timed runs, ms.
double run_plan(fe::graph::Graph& g, cudnnHandle_t handle, Tensors& t) {
  int64_t workspace_bytes = 0;
  check_fe(g.get_workspace_size(workspace_bytes), "get_workspace_size");
  DeviceBuffer workspace(std::max<int64_t>(workspace_bytes, 16));
  for (int i = 0; i < kWarmups; ++i) check_fe(g.execute(handle, t.pack, workspace.ptr), "execute");
  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  check_cuda(cudaEventRecord(start), "cudaEventRecord");
  for (int i = 0; i < kTimedRuns; ++i)
    check_fe(g.execute(handle, t.pack, workspace.ptr), "execute");
  check_cuda(cudaEventRecord(stop), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / kTimedRuns;
}

// "N differing of M, largest |a - b| X" over the outputs as bf16 (fp32 for Stats), in order.
std::string compare(const Problem& p, const std::vector<char>& a, const std::vector<char>& b) {
  if (a.size() != b.size()) return "size differs";
  size_t offset = 0, differ = 0, count = 0;
  double largest = 0;
  for (int64_t uid : p.outputs) {
    const size_t n = tensor_bytes(uid);
    const bool f32 = uid == kStats;
    for (size_t i = 0; i < n; i += f32 ? 4 : 2, ++count) {
      float x, y;
      if (f32) {
        std::memcpy(&x, &a[offset + i], 4);
        std::memcpy(&y, &b[offset + i], 4);
      } else {
        uint32_t ux = 0, uy = 0;
        std::memcpy(reinterpret_cast<char*>(&ux) + 2, &a[offset + i], 2);
        std::memcpy(reinterpret_cast<char*>(&uy) + 2, &b[offset + i], 2);
        std::memcpy(&x, &ux, 4);
        std::memcpy(&y, &uy, 4);
      }
      if (std::memcmp(&x, &y, 4) != 0) {
        ++differ;
        largest = std::max(largest, static_cast<double>(std::fabs(x - y)));
      }
    }
    offset += n;
  }
  return std::to_string(differ) + " differing of " + std::to_string(count) + ", largest " +
         std::to_string(largest);
}

void write_file(const std::string& path, const std::vector<char>& data) {
  std::ofstream f(path, std::ios::binary);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::vector<char> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

// NOTE: never destroyed; the probe's process ends after its last problem.
cudnnHandle_t new_handle(const char* mode, const std::string& name) {
  const auto t = Clock::now();
  cudnnHandle_t handle = nullptr;
  if (fe::detail::create_handle(&handle) != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error("cudnnCreate failed");
  result(mode, name, "handle_ms", fmt(ms_since(t)));
  return handle;
}

// Loads `blob` on a new graph (enforce_precompiled, with the frontend's warm-up), timed.
std::shared_ptr<fe::graph::Graph> load(const char* mode, const std::string& name,
                                       cudnnHandle_t handle, const std::vector<char>& blob) {
  auto g = std::make_shared<fe::graph::Graph>();
  const std::vector<uint8_t> bytes(blob.begin(), blob.end());
  const auto t = Clock::now();
  check_fe(g->deserialize(handle, bytes, /*enforce_precompiled=*/true), "deserialize");
  result(mode, name, "load_ms", fmt(ms_since(t)));
  return g;
}

void save(const std::string& dir) {
  for (const Problem& p : problems()) {
    const cudnnHandle_t handle = new_handle("save", p.name);
    auto t = Clock::now();
    auto g = make_graph(p);
    check_fe(g->validate(), "validate");
    check_fe(g->build_operation_graph(handle), "build_operation_graph");
    check_fe(g->create_execution_plans({fe::HeurMode_t::A}), "create_execution_plans");
    result("save", p.name, "heuristics_ms", fmt(ms_since(t)));
    std::string plan_name;
    check_fe(g->get_plan_name_at_index(0, plan_name), "get_plan_name_at_index");
    result("save", p.name, "plan", plan_name);
    t = Clock::now();
    check_fe(g->build_plan_at_index(0), "build_plan_at_index");
    result("save", p.name, "build_ms", fmt(ms_since(t)));
    Tensors tensors(p);
    result("save", p.name, "run_ms", fmt(run_plan(*g, handle, tensors)));
    const std::vector<char> first = tensors.outputs(p);
    run_plan(*g, handle, tensors);
    result("save", p.name, "built_vs_built", compare(p, first, tensors.outputs(p)));
    write_file(dir + "/" + p.name + ".out", first);
    std::vector<uint8_t> blob;
    t = Clock::now();
    check_fe(g->serialize(blob, /*serialize_structure=*/false), "serialize");
    result("save", p.name, "serialize_ms", fmt(ms_since(t)));
    result("save", p.name, "plan_bytes", std::to_string(blob.size()));
    write_file(dir + "/" + p.name + ".plan", std::vector<char>(blob.begin(), blob.end()));
    auto loaded = load("save", p.name, handle, std::vector<char>(blob.begin(), blob.end()));
    result("save", p.name, "loaded_run_ms", fmt(run_plan(*loaded, handle, tensors)));
    result("save", p.name, "loaded_vs_built", compare(p, first, tensors.outputs(p)));
  }
}

void load_all(const std::string& dir) {
  for (const Problem& p : problems()) {
    const cudnnHandle_t handle = new_handle("load", p.name);
    auto g = load("load", p.name, handle, read_file(dir + "/" + p.name + ".plan"));
    Tensors tensors(p);
    result("load", p.name, "run_ms", fmt(run_plan(*g, handle, tensors)));
    result("load", p.name, "loaded_vs_saved",
           compare(p, read_file(dir + "/" + p.name + ".out"), tensors.outputs(p)));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (std::strcmp(argv[1], "save") != 0 && std::strcmp(argv[1], "load") != 0)) {
    std::fprintf(stderr, "usage: %s save|load DIR [LIBCUDNN]\n", argv[0]);
    return 2;
  }
  const auto started = Clock::now();
  const char* lib = argc > 3 ? argv[3] : "libcudnn.so.9";
  cudnn_frontend::cudnn_dlhandle = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
  if (!cudnn_frontend::cudnn_dlhandle) {
    std::fprintf(stderr, "dlopen %s: %s\n", lib, dlerror());
    return 1;
  }
  try {
    check_cuda(cudaFree(nullptr), "CUDA context");
    result(argv[1], "-", "context_ms", fmt(ms_since(started)));
    if (std::strcmp(argv[1], "save") == 0)
      save(argv[2]);
    else
      load_all(argv[2]);
  } catch (const std::exception& e) {
    std::printf("RESULT\t%s\t-\terror\t%s\n", argv[1], e.what());
    return 1;
  }
  result(argv[1], "-", "process_ms", fmt(ms_since(started)));
  return 0;
}
