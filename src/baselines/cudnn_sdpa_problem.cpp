#include "baselines/cudnn_sdpa_problem.hpp"

#include <cstdint>
#include <sstream>

#include "core/dtype.hpp"

namespace ptxb::cudnn_sdpa {
namespace {

std::string to_string(const std::vector<int64_t>& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? "," : "") << v[i];
  os << "]";
  return os.str();
}

std::string dtype_name(int32_t code) {
  if (code < static_cast<int32_t>(DType::kBF16) || code > static_cast<int32_t>(DType::kI64))
    return "code " + std::to_string(code);
  return std::string(ptxb::to_string(static_cast<DType>(code)));
}

// A tensor the task must hand over: its role, name, dtype and shape.
struct Expected {
  const char* role;
  const char* name;
  ptxb_dtype dtype;
  std::vector<int64_t> shape;
};

std::vector<Expected> expected_tensors(const Dims& d, SdpaDirection direction) {
  if (direction == SdpaDirection::kVarlenForward) {
    const std::vector<int64_t> q = {d.tokens, d.heads, d.head_dim};
    const std::vector<int64_t> kv = {d.tokens, d.kv_heads, d.head_dim};
    return {{"input", "Q", PTXB_BF16, q},
            {"input", "K", PTXB_BF16, kv},
            {"input", "V", PTXB_BF16, kv},
            {"input", "cu_seqlens", PTXB_I32, {d.batch + 1}},
            {"output", "O", PTXB_BF16, q}};
  }
  if (direction == SdpaDirection::kPagedDecode) {
    const std::vector<int64_t> q = {d.batch, d.seq, d.heads, d.head_dim};
    const std::vector<int64_t> cache = {d.pages, d.page_size, d.kv_heads, d.head_dim};
    return {{"input", "Q", PTXB_BF16, q},
            {"input", "K_cache", PTXB_BF16, cache},
            {"input", "V_cache", PTXB_BF16, cache},
            {"input", "seq_lens", PTXB_I32, {d.batch}},
            {"input", "page_table", PTXB_I32, {d.batch, d.table_width}},
            {"output", "O", PTXB_BF16, q},
            {"output", "LSE", PTXB_F32, {d.batch, d.seq, d.heads}}};
  }
  const std::vector<int64_t> q = {d.batch, d.heads, d.seq, d.head_dim};
  const std::vector<int64_t> kv = {d.batch, d.kv_heads, d.seq, d.head_dim};
  const std::vector<int64_t> lse = {d.batch, d.heads, d.seq};
  if (direction == SdpaDirection::kForward)
    return {{"input", "Q", PTXB_BF16, q},
            {"input", "K", PTXB_BF16, kv},
            {"input", "V", PTXB_BF16, kv},
            {"output", "O", PTXB_BF16, q},
            {"output", "LSE", PTXB_F32, lse}};
  return {{"input", "Q", PTXB_BF16, q},   {"input", "K", PTXB_BF16, kv},
          {"input", "V", PTXB_BF16, kv},  {"input", "O", PTXB_BF16, q},
          {"input", "dO", PTXB_BF16, q},  {"input", "LSE", PTXB_F32, lse},
          {"output", "dQ", PTXB_BF16, q}, {"output", "dK", PTXB_BF16, kv},
          {"output", "dV", PTXB_BF16, kv}};
}

// "" when `t` is `want`, row-major and contiguous; otherwise what differs.
std::string check_tensor(const ptxb_tensor_desc& t, const Expected& want) {
  const std::string who = std::string(want.role) + " " + want.name;
  if (t.dtype != want.dtype)
    return who + " has dtype " + dtype_name(t.dtype) + ", expected " + dtype_name(want.dtype);
  if (t.rank != static_cast<int32_t>(want.shape.size()))
    return who + " has rank " + std::to_string(t.rank) + ", expected " +
           std::to_string(want.shape.size());
  const std::vector<int64_t> shape(t.shape, t.shape + t.rank),
      strides(t.strides, t.strides + t.rank);
  if (shape != want.shape)
    return who + " has shape " + to_string(shape) + ", expected " + to_string(want.shape);
  if (strides != row_major_strides(shape))
    return who + " has strides " + to_string(strides) + ", expected row-major " +
           to_string(row_major_strides(shape));
  return "";
}

}  // namespace

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

nlohmann::json Dims::to_json() const {
  nlohmann::json j = {{"batch", batch}, {"heads", heads},       {"kv_heads", kv_heads},
                      {"seq", seq},     {"head_dim", head_dim}, {"causal", causal},
                      {"scale", scale}};
  if (varlen) j["tokens"] = tokens, j["varlen"] = true;
  if (paged)
    j["paged"] = true, j["pages"] = pages, j["page_size"] = page_size,
    j["table_width"] = table_width;
  return j;
}

namespace {

// Positive sizes, H % HKV, then every tensor as expected_tensors says.
std::variant<Dims, std::string> check_dims(const ptxb_problem& p, const Dims& d,
                                           SdpaDirection direction) {
  if (d.batch < 1 || d.heads < 1 || d.kv_heads < 1 || d.seq < 1 || d.head_dim < 1)
    return "B " + std::to_string(d.batch) + ", H " + std::to_string(d.heads) + ", S " +
           std::to_string(d.seq) + ", D " + std::to_string(d.head_dim) + " and K heads " +
           std::to_string(d.kv_heads) + " must be positive";
  if (d.heads % d.kv_heads != 0)
    return "query heads (" + std::to_string(d.heads) + ") are not a multiple of key/value heads (" +
           std::to_string(d.kv_heads) + ")";
  const std::vector<Expected> want = expected_tensors(d, direction);
  for (int i = 0; i < p.num_inputs + p.num_outputs; ++i) {
    const ptxb_tensor_desc& t = i < p.num_inputs ? p.inputs[i] : p.outputs[i - p.num_inputs];
    if (std::string why = check_tensor(t, want[static_cast<size_t>(i)]); !why.empty()) return why;
  }
  return d;
}

// The variable-length forward: Q [T,H,D], K, V [T,HKV,D], cu_seqlens [B+1] | O [T,H,D];
// scalars scale, causal, max_seqlen (S, an integer >= 1).
std::variant<Dims, std::string> parse_varlen(const ptxb_problem& p) {
  if (p.num_inputs != 4 || p.num_outputs != 1 || p.num_scalars != 3)
    return "variable-length attention forward takes 4 inputs, 1 output and 3 scalars (scale, "
           "causal, max_seqlen); the problem has " +
           std::to_string(p.num_inputs) + ", " + std::to_string(p.num_outputs) + " and " +
           std::to_string(p.num_scalars);
  const ptxb_tensor_desc &q = p.inputs[0], &k = p.inputs[1], &cu = p.inputs[3];
  if (q.rank != 3 || k.rank != 3 || cu.rank != 1)
    return std::string("Q and K must have rank 3 ([T,H,D]) and cu_seqlens rank 1 ([B+1])");
  Dims d;
  d.varlen = true;
  d.tokens = q.shape[0];
  d.heads = q.shape[1];
  d.head_dim = q.shape[2];
  d.kv_heads = k.shape[1];
  d.batch = cu.shape[0] - 1;
  d.scale = static_cast<float>(p.scalars[0]);
  d.causal = p.scalars[1] != 0.0;
  const double max_seqlen = p.scalars[2];
  if (!(max_seqlen >= 1 && max_seqlen <= static_cast<double>(d.tokens)) ||
      max_seqlen != static_cast<double>(static_cast<int64_t>(max_seqlen)))
    return "max_seqlen " + std::to_string(max_seqlen) + " is not an integer in [1, T]";
  d.seq = static_cast<int64_t>(max_seqlen);
  // cuDNN's ragged offsets are int32 element counts here (baselines/cudnn_sdpa_ragged.hpp).
  if (d.tokens * d.heads * d.head_dim > INT32_MAX)
    return "T * H * D = " + std::to_string(d.tokens * d.heads * d.head_dim) +
           " elements do not fit the int32 ragged offsets";
  return check_dims(p, d, SdpaDirection::kVarlenForward);
}

// Paged decode: Q [B,SQ,H,D], K_cache, V_cache [NP,P,HKV,D], seq_lens [B], page_table [B,W] |
// O [B,SQ,H,D], LSE [B,SQ,H]; scalars scale, max_seqlen (an integer in [SQ, W * P], the
// longest history; cuDNN's paged load spans the whole table row, W * P keys).
std::variant<Dims, std::string> parse_paged(const ptxb_problem& p) {
  if (p.num_inputs != 5 || p.num_outputs != 2 || p.num_scalars != 2)
    return "paged decode attention takes 5 inputs, 2 outputs and 2 scalars (scale, max_seqlen); "
           "the problem has " +
           std::to_string(p.num_inputs) + ", " + std::to_string(p.num_outputs) + " and " +
           std::to_string(p.num_scalars);
  const ptxb_tensor_desc &q = p.inputs[0], &k = p.inputs[1], &table = p.inputs[4];
  if (q.rank != 4 || k.rank != 4 || table.rank != 2)
    return std::string("Q and K_cache must have rank 4 ([B,SQ,H,D], [NP,P,HKV,D]) and ") +
           "page_table rank 2 ([B,W])";
  Dims d;
  d.paged = true;
  d.batch = q.shape[0];
  d.seq = q.shape[1];
  d.heads = q.shape[2];
  d.head_dim = q.shape[3];
  d.pages = k.shape[0];
  d.page_size = k.shape[1];
  d.kv_heads = k.shape[2];
  d.table_width = table.shape[1];
  d.scale = static_cast<float>(p.scalars[0]);
  d.causal = d.seq > 1;
  if (d.pages < 1 || d.page_size < 1 || d.table_width < 1)
    return "pages " + std::to_string(d.pages) + ", page size " + std::to_string(d.page_size) +
           " and table width " + std::to_string(d.table_width) + " must be positive";
  const double span = static_cast<double>(d.table_width) * static_cast<double>(d.page_size);
  const double max_seqlen = p.scalars[1];
  if (!(max_seqlen >= static_cast<double>(d.seq) && max_seqlen <= span) ||
      max_seqlen != static_cast<double>(static_cast<int64_t>(max_seqlen)))
    return "max_seqlen " + std::to_string(max_seqlen) + " is not an integer in [SQ, W * P]";
  if (span > INT32_MAX) return "W * P = " + std::to_string(span) + " keys do not fit an int32";
  return check_dims(p, d, SdpaDirection::kPagedDecode);
}

}  // namespace

std::variant<Dims, std::string> parse_problem(const ptxb_problem& p, SdpaDirection direction) {
  if (p.abi_version != PTXB_ABI_VERSION)
    return "problem has ABI version " + std::to_string(p.abi_version);
  if (direction == SdpaDirection::kVarlenForward) return parse_varlen(p);
  if (direction == SdpaDirection::kPagedDecode) return parse_paged(p);
  const bool fwd = direction == SdpaDirection::kForward;
  const int want_in = fwd ? 3 : 6, want_out = fwd ? 2 : 3;
  if (p.num_inputs != want_in || p.num_outputs != want_out || p.num_scalars != 2)
    return std::string("attention ") + (fwd ? "forward" : "backward") + " takes " +
           std::to_string(want_in) + " inputs, " + std::to_string(want_out) +
           " outputs and 2 scalars (scale, causal); the problem has " +
           std::to_string(p.num_inputs) + ", " + std::to_string(p.num_outputs) + " and " +
           std::to_string(p.num_scalars);
  const ptxb_tensor_desc &q = p.inputs[0], &k = p.inputs[1];
  if (q.rank != 4 || k.rank != 4) return std::string("Q and K must have rank 4 ([B,H,S,D])");
  Dims d;
  d.batch = q.shape[0];
  d.heads = q.shape[1];
  d.seq = q.shape[2];
  d.head_dim = q.shape[3];
  d.kv_heads = k.shape[1];
  d.scale = static_cast<float>(p.scalars[0]);
  d.causal = p.scalars[1] != 0.0;
  return check_dims(p, d, direction);
}

const std::vector<int64_t>& abi_uids(SdpaDirection direction) {
  static const std::vector<int64_t> fwd = {kQ, kK, kV, kO, kStats};
  static const std::vector<int64_t> bwd = {kQ, kK, kV, kO, kDO, kStats, kDQ, kDK, kDV};
  static const std::vector<int64_t> varlen = {kQ, kK, kV, kCuSeqlens, kO};
  static const std::vector<int64_t> paged = {kQ, kK, kV, kSeqLenKV, kPageTable, kO, kStats};
  if (direction == SdpaDirection::kVarlenForward) return varlen;
  if (direction == SdpaDirection::kPagedDecode) return paged;
  return direction == SdpaDirection::kForward ? fwd : bwd;
}

int lse_index(SdpaDirection direction) {
  if (direction == SdpaDirection::kVarlenForward) return -1;
  if (direction == SdpaDirection::kPagedDecode) return 6;
  return direction == SdpaDirection::kForward ? 4 : 5;
}

std::vector<size_t> tensor_bytes(const Dims& d, SdpaDirection direction) {
  std::vector<size_t> bytes;
  for (const Expected& e : expected_tensors(d, direction)) {
    size_t n = e.dtype == PTXB_F32 || e.dtype == PTXB_I32 ? 4 : 2;
    for (int64_t extent : e.shape) n *= static_cast<size_t>(extent);
    bytes.push_back(n);
  }
  return bytes;
}

}  // namespace ptxb::cudnn_sdpa
