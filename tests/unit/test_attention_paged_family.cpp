// The paged decode attention family (families/attention_paged_family.cpp) with its structured
// inputs (docs/tasks.md, "Structured inputs"): a task of the family loads, its FLOPs are summed
// over the lengths its shape implies, and a page table drawn as the worker draws it (shuffled
// pool pages) pages a KV history the fp64 reference reads to the same result as a contiguous one.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "families/family.hpp"
#include "families/structured_values.hpp"
#include "random_values.hpp"
#include "reference/attention_paged_fp64.hpp"
#include "task_text.hpp"
#include "tasks/spec.hpp"

namespace ptxb {
namespace {

// A decode task of the family: two shapes, the second (hidden) with a longer shortest history.
// `extra` is appended to the first shape (to break it).
std::string paged_task(const std::string& extra = "") {
  return R"(id = "sm90/attention/decode-paged-fixture"
title = "Paged decode fixture"
arch = "sm_90a"
family = "attention_decode_paged"
level = 4
dims = ["B", "SQ", "T", "SK", "SMIN", "H", "HKV", "D", "P", "NP", "W"]
scalars = ["scale", "max_seqlen"]

[[tensors]]
name = "Q"
role = "in"
dtype = "bf16"
shape = ["B", "SQ", "H", "D"]

[[tensors]]
name = "K_cache"
role = "in"
dtype = "bf16"
shape = ["NP", "P", "HKV", "D"]

[[tensors]]
name = "V_cache"
role = "in"
dtype = "bf16"
shape = ["NP", "P", "HKV", "D"]

[[tensors]]
name = "seq_lens"
role = "in"
dtype = "int32"
shape = ["B"]
values = { kind = "sequence_lengths", total = "T", max = "SK", min = "SMIN" }

[[tensors]]
name = "page_table"
role = "in"
dtype = "int32"
shape = ["B", "W"]
values = { kind = "page_table", lengths = "seq_lens", page = "P", pages = "NP" }

[[tensors]]
name = "O"
role = "out"
dtype = "bf16"
shape = ["B", "SQ", "H", "D"]

[[tensors]]
name = "LSE"
role = "out"
dtype = "f32"
shape = ["B", "SQ", "H"]

[[shapes]]
B = 4
SQ = 1
T = 3000
SK = 2048
SMIN = 1
H = 32
HKV = 8
D = 128
P = 16
NP = 200
W = 128
)" + extra +
         R"(
[[shapes]]
B = 3
SQ = 4
T = 900
SK = 500
SMIN = 100
H = 8
HKV = 1
D = 128
P = 64
NP = 20
W = 8
hidden = true
timed = true

[correctness]
reference = "attention_decode_paged_fp32"
seeds = [1]

[[correctness.distributions]]
name = "normal"
kind = "normal"
scale = 1.0
atol = 0.02
rtol = 0.015625

[[targets]]
instruction = "wgmma.mma_async"
required = "R2"
min_flop_share = 0.5

[baseline]
library = "cudnn"
)";
}

std::string load(const std::string& text, TaskSpec* loaded = nullptr) {
  return testing::load_task_message(text, loaded);
}

TEST(AttentionPagedFamily, ATaskLoadsWithItsFlopsFromTheShapesLengths) {
  TaskSpec task;
  ASSERT_EQ(load(paged_task(), &task), "");
  const Family& f = family_of(task.family);
  for (const ShapeCase& c : task.shapes) {
    const Shape& s = c.shape;
    const std::vector<int64_t> lens =
        shape_sequence_lengths(s.at("B"), s.at("T"), s.at("SK"), s.at("SMIN"));
    const double kv = static_cast<double>(std::accumulate(lens.begin(), lens.end(), int64_t{0}));
    EXPECT_DOUBLE_EQ(f.flops(s), 4.0 * static_cast<double>(s.at("H") * s.at("D") * s.at("SQ")) * kv)
        << s.to_string();
    EXPECT_DOUBLE_EQ(f.scalar_value("max_seqlen", s), static_cast<double>(s.at("SK")));
    EXPECT_DOUBLE_EQ(f.scalar_value("scale", s), 1.0 / std::sqrt(128.0));
  }
  // Without SMIN the lengths start at 1; they sum to T whatever their mix.
  Shape no_min = task.shapes[1].shape;
  const double with_min = f.flops(no_min);
  std::erase_if(no_min.dims, [](const auto& dim) { return dim.first == "SMIN"; });
  EXPECT_DOUBLE_EQ(f.flops(no_min), with_min);
  Shape too_long = no_min;  // 3 histories of at most 500 cannot hold 2000 tokens
  for (auto& [dim, size] : too_long.dims)
    if (dim == "T") size = 2000;
  EXPECT_EQ(f.flops(too_long), 0);
}

TEST(AttentionPagedFamily, TheLoaderRefusesShapesThePoolOrTableCannotHold) {
  // 3000 tokens of at least 1 in pages of 16: more than 150 pages.
  std::string small_pool = paged_task();
  small_pool.replace(small_pool.find("NP = 200"), 8, "NP = 150");
  EXPECT_NE(load(small_pool).find("NP = 150 pages, the lengths of seq_lens need"),
            std::string::npos);
  std::string narrow = paged_task();
  narrow.replace(narrow.find("W = 128"), 7, "W = 100");  // 100 pages of 16 < 2048 tokens
  EXPECT_NE(load(narrow).find("100 pages of 16 tokens cannot hold a sequence of 2048"),
            std::string::npos);
  std::string no_lse = paged_task();
  no_lse.erase(no_lse.find("[[tensors]]\nname = \"LSE\""),
               no_lse.find("[[shapes]]") - no_lse.find("[[tensors]]\nname = \"LSE\""));
  EXPECT_NE(load(no_lse).find("LSE"), std::string::npos);
}

// The reference reads the same history through a drawn (shuffled) table as through the
// identity table over the same tokens laid out in order.
TEST(AttentionPagedFamily, ADrawnTablePagesTheHistoryTheReferenceReads) {
  for (const int64_t q_len : {1, 4}) {
    PagedDecodeShape s;
    s.q_len = q_len;
    s.heads = 4;
    s.kv_heads = 2;
    s.head_dim = 8;
    s.page_size = 16;
    s.scale = 0.3;
    s.seq_lens = shape_sequence_lengths(5, 300, 120, q_len);
    s.max_pages = 8;
    s.num_pages = pages_needed(s.seq_lens, s.page_size) + 3;  // a few pages unused
    s.page_table = draw_page_table(s.seq_lens, s.page_size, s.max_pages, s.num_pages, 11);

    PagedDecodeShape in_order = s;  // sequence after sequence, pages in pool order
    in_order.page_table.assign(s.page_table.size(), 0);
    int64_t next = 0;
    for (int64_t b = 0; b < s.batch(); ++b)
      for (int64_t p = 0; p * s.page_size < s.seq_lens[static_cast<size_t>(b)]; ++p)
        in_order.page_table[static_cast<size_t>(b * s.max_pages + p)] = next++;
    ASSERT_NE(in_order.page_table, s.page_table) << "the drawn table is shuffled";

    const auto q = random_values(s.q_elements(), 1);
    const auto k = random_values(s.cache_elements(), 2), v = random_values(s.cache_elements(), 3);
    std::vector<double> k_paged(k.size()), v_paged(v.size());
    for (int64_t b = 0; b < s.batch(); ++b)
      for (int64_t j = 0; j < s.seq_lens[static_cast<size_t>(b)]; ++j)
        for (int64_t g = 0; g < s.kv_heads; ++g)
          for (int64_t d = 0; d < s.head_dim; ++d) {
            const auto from = static_cast<size_t>(in_order.cache_index(b, j, g, d));
            const auto to = static_cast<size_t>(s.cache_index(b, j, g, d));
            k_paged[to] = k[from];
            v_paged[to] = v[from];
          }
    const AttentionForward a = attention_paged_decode_fp64(in_order, q, k, v);
    const AttentionForward b = attention_paged_decode_fp64(s, q, k_paged, v_paged);
    EXPECT_EQ(a.out, b.out) << "q_len " << q_len;
    EXPECT_EQ(a.lse, b.lse) << "q_len " << q_len;
  }
}

}  // namespace
}  // namespace ptxb
