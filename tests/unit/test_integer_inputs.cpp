// Structured inputs (docs/tasks.md, "Structured inputs"): the int32/int64 dtypes, the value kinds
// the families draw (offsets, permutations; scales for f32) and the loader's rules for them.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <regex>
#include <set>

#include <ptxbench/abi.h>

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "families/structured_values.hpp"
#include "sys/files.hpp"
#include "task_text.hpp"
#include "tasks/spec.hpp"
#include "tasks/task_json.hpp"
#include "tasks/task_wire.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kFixtures = std::filesystem::path(PTXB_FIXTURE_DIR) / "tasks";

TEST(IntegerDtypes, SizesNamesAndTheAbi) {
  EXPECT_EQ(size_bytes(DType::kI32), 4);
  EXPECT_EQ(size_bytes(DType::kI64), 8);
  EXPECT_EQ(dtype_from_string("int32"), DType::kI32);
  EXPECT_EQ(to_string(DType::kI64), "int64");
  EXPECT_TRUE(is_integer(DType::kI32));
  EXPECT_FALSE(is_integer(DType::kBF16));
  EXPECT_EQ(static_cast<int>(DType::kI32), PTXB_I32);
  EXPECT_EQ(static_cast<int>(DType::kI64), PTXB_I64);
}

TEST(StructuredInts, OffsetsCoverTheTotalWithEmptyAndTinyGroups) {
  for (const uint64_t seed : {1ull, 2ull, 99ull}) {
    const std::vector<int64_t> o = draw_offsets(256, 40000, seed);
    ASSERT_EQ(o.size(), 257u);
    EXPECT_EQ(o.front(), 0);
    EXPECT_EQ(o.back(), 40000);
    EXPECT_TRUE(std::is_sorted(o.begin(), o.end()));
    int empty = 0, single = 0;
    int64_t largest = 0;
    for (size_t g = 0; g + 1 < o.size(); ++g) {
      const int64_t size = o[g + 1] - o[g];
      empty += size == 0;
      single += size == 1;
      largest = std::max(largest, size);
    }
    EXPECT_GE(empty, 10) << "about one group in eight is empty";
    EXPECT_GE(single, 10) << "and about one in eight holds a single row";
    EXPECT_GT(largest, 4 * 40000 / 256) << "skewed, not uniform";
    EXPECT_EQ(draw_offsets(256, 40000, seed), o) << "the same seed, the same values";
  }
  EXPECT_NE(draw_offsets(8, 1000, 1), draw_offsets(8, 1000, 2));
  EXPECT_EQ(draw_offsets(1, 5, 3), (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(draw_offsets(4, 0, 3), (std::vector<int64_t>{0, 0, 0, 0, 0}));
}

TEST(StructuredInts, PermutationsHoldEveryIndexOnce) {
  std::vector<int64_t> p = draw_permutation(1000, 7);
  EXPECT_NE(p, draw_permutation(1000, 8));
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> all(1000);
  std::iota(all.begin(), all.end(), 0);
  EXPECT_EQ(sorted, all);
  EXPECT_NE(p, all) << "shuffled";
}

// The valid fixture with one more input tensor (TOML text `tensor`) inserted before its first
// output; loads it, or returns the loader's error message.
std::string load_with_tensor(const std::string& tensor, TaskSpec* loaded = nullptr) {
  std::string text = read_file(kFixtures / "valid/task.toml");
  const size_t at = text.find("[[tensors]]\nname = \"C\"");
  EXPECT_NE(at, std::string::npos) << "the valid fixture changed";
  text.insert(at, tensor + "\n");
  return testing::load_task_message(text, loaded);
}

TEST(IntegerInputs, OffsetsOfGGroupsAreAGPlus1Tensor) {
  TaskSpec task;
  EXPECT_EQ(load_with_tensor("[[tensors]]\nname = \"offs\"\nrole = \"in\"\ndtype = \"int32\"\n"
                             "shape = [\"N+1\"]\nvalues = { kind = \"offsets\", total = \"M\" }\n",
                             &task),
            "");
  const ShapeCase& sc = task.shapes.front();
  EXPECT_EQ(extent("N+1", sc.shape), sc.shape.at("N") + 1);
  EXPECT_EQ(tensor_bytes(*task.inputs().back(), sc.shape), 4.0 * (sc.shape.at("N") + 1));
  ASSERT_TRUE(plus_extent("G+16").has_value());
  EXPECT_EQ(plus_extent("G+16")->dim, "G");
  EXPECT_EQ(plus_extent("G+16")->added, 16);
  for (const char* bad : {"+1", "G+", "G+0", "G+x", "G-1"}) EXPECT_FALSE(plus_extent(bad)) << bad;
  EXPECT_NE(load_with_tensor("[[tensors]]\nname = \"offs\"\nrole = \"in\"\ndtype = \"int32\"\n"
                             "shape = [\"Q+1\"]\nvalues = { kind = \"offsets\", total = \"M\" }\n")
                .find("'Q' is not declared in dims"),
            std::string::npos);
}

TEST(IntegerInputs, TheLoaderKnowsTheirRules) {
  TaskSpec task;
  EXPECT_EQ(load_with_tensor("[[tensors]]\nname = \"offs\"\nrole = \"in\"\ndtype = \"int32\"\n"
                             "shape = [\"M\"]\nvalues = { kind = \"offsets\", total = \"K\" }\n",
                             &task),
            "");
  ASSERT_TRUE(task.inputs().back()->values.has_value());
  EXPECT_EQ(task.inputs().back()->values->total, "K");
  const TaskSpec back = task_from_json(task_detail_json(task, HiddenShapes::kInclude));
  ASSERT_TRUE(back.inputs().back()->values.has_value()) << "the worker gets the rule too";
  EXPECT_EQ(back.inputs().back()->values->kind, "offsets");

  EXPECT_NE(load_with_tensor("[[tensors]]\nname = \"offs\"\nrole = \"in\"\ndtype = \"int32\"\n"
                             "shape = [\"M\"]\n")
                .find("must say how its values are drawn"),
            std::string::npos);
  EXPECT_NE(load_with_tensor("[[tensors]]\nname = \"x\"\nrole = \"in\"\ndtype = \"bf16\"\n"
                             "shape = [\"M\"]\nvalues = { kind = \"permutation\" }\n")
                .find("only integer and f32 inputs take values"),
            std::string::npos);
  EXPECT_NE(
      load_with_tensor("[[tensors]]\nname = \"p\"\nrole = \"in\"\ndtype = \"int64\"\n"
                       "shape = [\"M\"]\nvalues = { kind = \"permutation\", total = \"K\" }\n")
          .find("'permutation' values take no total"),
      std::string::npos);
  EXPECT_NE(load_with_tensor(
                "[[tensors]]\nname = \"o\"\nrole = \"in\"\ndtype = \"int32\"\n"
                "shape = [\"M\"]\nvalues = { kind = \"offsets\", total = \"K\", max = \"K\" }\n")
                .find("'offsets' values take no max"),
            std::string::npos);
  EXPECT_NE(
      load_with_tensor("[[tensors]]\nname = \"o\"\nrole = \"in\"\ndtype = \"int32\"\n"
                       "shape = [\"M\", \"K\"]\nvalues = { kind = \"offsets\", total = \"K\" }\n")
          .find("rank-1"),
      std::string::npos);
  EXPECT_NE(load_with_tensor("[[tensors]]\nname = \"o\"\nrole = \"in\"\ndtype = \"int32\"\n"
                             "shape = [\"M\"]\nvalues = { kind = \"lengths\" }\n")
                .find("'lengths' is not one of offsets, sequence_offsets, permutation, "
                      "sequence_lengths, page_table"),
            std::string::npos);
}

TEST(StructuredInts, SequenceLengthsSpanMinToMaxAndSumToTheTotal) {
  for (const auto& [batch, total, max_len, min_len] : std::vector<std::array<int64_t, 4>>{
           {8, 5000, 2048, 1}, {16, 9000, 4096, 128}, {3, 300, 100, 100}, {1, 77, 77, 5}}) {
    ASSERT_TRUE(sequence_lengths_fit(batch, total, max_len, min_len));
    const std::vector<int64_t> lengths = shape_sequence_lengths(batch, total, max_len, min_len);
    ASSERT_EQ(lengths.size(), static_cast<size_t>(batch));
    EXPECT_EQ(std::accumulate(lengths.begin(), lengths.end(), int64_t{0}), total);
    EXPECT_EQ(*std::max_element(lengths.begin(), lengths.end()), max_len) << "one is the longest";
    EXPECT_GE(*std::min_element(lengths.begin(), lengths.end()), min_len);
    EXPECT_EQ(shape_sequence_lengths(batch, total, max_len, min_len), lengths) << "of the shape";
  }
  EXPECT_FALSE(sequence_lengths_fit(4, 100, 50, 40)) << "4 x 40 > 100";
  EXPECT_FALSE(sequence_lengths_fit(4, 1000, 100, 1)) << "4 x 100 < 1000";
  EXPECT_FALSE(sequence_lengths_fit(4, 100, 50, 60)) << "min above max";
  EXPECT_FALSE(sequence_lengths_fit(4, 100, 50, 0));
}

TEST(StructuredInts, PageTablesHandOutDistinctShuffledPagesThenZeros) {
  const std::vector<int64_t> lengths = {130, 64, 1, 512};
  const int64_t page = 64, width = 8, pages = 40;
  EXPECT_EQ(pages_needed(lengths, page), 3 + 1 + 1 + 8);
  const std::vector<int64_t> table = draw_page_table(lengths, page, width, pages, 5);
  ASSERT_EQ(table.size(), lengths.size() * width);
  std::set<int64_t> used;
  for (size_t b = 0; b < lengths.size(); ++b) {
    const int64_t rows_pages = (lengths[b] + page - 1) / page;
    for (int64_t p = 0; p < width; ++p) {
      const int64_t v = table[b * width + static_cast<size_t>(p)];
      if (p >= rows_pages) {
        EXPECT_EQ(v, 0) << "row " << b << " past its pages";
        continue;
      }
      EXPECT_GE(v, 0);
      EXPECT_LT(v, pages);
      EXPECT_TRUE(used.insert(v).second) << "page " << v << " handed out twice";
    }
  }
  EXPECT_EQ(used.size(), 13u);
  EXPECT_EQ(draw_page_table(lengths, page, width, pages, 5), table) << "the same seed";
  EXPECT_NE(draw_page_table(lengths, page, width, pages, 6), table);
  std::vector<int64_t> in_order;
  for (int64_t p = 0; p < 13; ++p) in_order.push_back(p);
  EXPECT_NE(std::vector<int64_t>(used.begin(), used.end()), in_order) << "not the first pages";
}

// The valid fixture with a paged decode batch: B sequences of at most L tokens (at least LMIN),
// T in all, in a pool of NP pages of P tokens, a table of W pages a row; `values` overrides the
// page table's values and `pool` the NP of the timed shape.
std::string load_paged(const std::string& values, int64_t pool, TaskSpec* loaded = nullptr) {
  std::string text = read_file(kFixtures / "valid/task.toml");
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << "the valid fixture changed: " << from;
    text.replace(at, from.size(), to);
  };
  replace("dims = [\"M\", \"N\", \"K\"]",
          "dims = [\"M\", \"N\", \"K\", \"B\", \"T\", \"L\", \"LMIN\", \"P\", \"NP\", \"W\"]");
  replace("K = 256\n", "K = 256\nB = 4\nT = 1000\nL = 512\nLMIN = 64\nP = 64\nNP = " +
                           std::to_string(pool) + "\nW = 8\n");
  replace("K = 40\n", "K = 40\nB = 2\nT = 9\nL = 8\nLMIN = 1\nP = 4\nNP = 3\nW = 2\n");
  replace("[[tensors]]\nname = \"C\"",
          "[[tensors]]\nname = \"lens\"\nrole = \"in\"\ndtype = \"int32\"\nshape = [\"B\"]\n"
          "values = { kind = \"sequence_lengths\", total = \"T\", max = \"L\", min = \"LMIN\" }\n"
          "\n[[tensors]]\nname = \"table\"\nrole = \"in\"\ndtype = \"int32\"\n"
          "shape = [\"B\", \"W\"]\nvalues = " +
              values + "\n\n[[tensors]]\nname = \"C\"");
  return testing::load_task_message(text, loaded);
}

TEST(IntegerInputs, PagedDecodeTablesAndLengths) {
  const std::string table =
      "{ kind = \"page_table\", lengths = \"lens\", page = \"P\", pages = "
      "\"NP\" }";
  TaskSpec task;
  ASSERT_EQ(load_paged(table, 20, &task), "");
  const TensorSpec& lens = *task.inputs()[task.inputs().size() - 2];
  const TensorSpec& pages = *task.inputs().back();
  EXPECT_EQ(lens.values->min, "LMIN");
  EXPECT_EQ(pages.values->lengths, "lens");
  const TaskSpec back = task_from_json(task_detail_json(task, HiddenShapes::kInclude));
  EXPECT_EQ(back.inputs().back()->values->pages, "NP") << "the worker gets the rule too";
  EXPECT_EQ(back.inputs()[back.inputs().size() - 2]->values->min, "LMIN");

  // 1000 tokens in sequences of at least 64 tokens, pages of 64: more than 10 pages.
  EXPECT_NE(load_paged(table, 10).find("NP = 10 pages, the lengths of lens need"),
            std::string::npos);
  EXPECT_NE(
      load_paged("{ kind = \"page_table\", lengths = \"A\", page = \"P\", pages = \"NP\" }", 20)
          .find("its page table's lengths 'A' is not a sequence_lengths input"),
      std::string::npos);
  EXPECT_NE(
      load_paged("{ kind = \"page_table\", lengths = \"lens\", page = \"P\" }", 20).find("pages"),
      std::string::npos);
  EXPECT_NE(load_paged("{ kind = \"page_table\", lengths = \"lens\", page = \"P\", pages = \"NP\", "
                       "total = \"T\" }",
                       20)
                .find("'page_table' values take no total"),
            std::string::npos);
  EXPECT_NE(load_paged("{ kind = \"sequence_lengths\", total = \"T\", max = \"L\" }", 20)
                .find("values fill a rank-1 tensor"),
            std::string::npos);
}

TEST(StructuredFloats, ScalesAreExactPositiveFactorsFromTheSeed) {
  const std::vector<double> s = draw_scales(4000, 3);
  EXPECT_EQ(s, draw_scales(4000, 3)) << "the same seed, the same values";
  EXPECT_NE(s, draw_scales(4000, 4));
  std::set<double> distinct;
  for (double v : s) {
    int e = 0;
    const double m = std::frexp(v, &e);  // v = m 2^e, m in [0.5, 1)
    EXPECT_GE(v, 0.125);
    EXPECT_LT(v, 16.0);
    EXPECT_EQ(std::fmod(m * 16, 1.0), 0.0) << v << ": four significant bits";
    EXPECT_EQ(static_cast<double>(static_cast<float>(v)), v) << "exact in fp32";
    distinct.insert(v);
  }
  EXPECT_EQ(distinct.size(), 56u) << "every exponent in [-3, 3] with every mantissa";
}

TEST(StructuredFloats, TheLoaderTakesScalesOnF32InputsOnly) {
  TaskSpec task;
  EXPECT_EQ(load_with_tensor("[[tensors]]\nname = \"scale_a\"\nrole = \"in\"\ndtype = \"f32\"\n"
                             "shape = [\"M\"]\nvalues = { kind = \"scales\" }\n",
                             &task),
            "");
  ASSERT_TRUE(task.inputs().back()->values.has_value());
  EXPECT_EQ(task.inputs().back()->values->kind, "scales");
  EXPECT_NE(load_with_tensor("[[tensors]]\nname = \"s\"\nrole = \"in\"\ndtype = \"f32\"\n"
                             "shape = [\"M\"]\nvalues = { kind = \"permutation\" }\n")
                .find("'permutation' is not one of scales (for f32 inputs)"),
            std::string::npos);
  EXPECT_NE(load_with_tensor("[[tensors]]\nname = \"s\"\nrole = \"in\"\ndtype = \"int32\"\n"
                             "shape = [\"M\"]\nvalues = { kind = \"scales\" }\n")
                .find("'scales' is not one of offsets, sequence_offsets, permutation, "
                      "sequence_lengths, page_table (for int32 inputs)"),
            std::string::npos);
  EXPECT_NE(load_with_tensor("[[tensors]]\nname = \"s\"\nrole = \"in\"\ndtype = \"bf16\"\n"
                             "shape = [\"M\"]\nvalues = { kind = \"scales\" }\n")
                .find("only integer and f32 inputs take values"),
            std::string::npos);
}

}  // namespace
}  // namespace ptxb
