// The instruction catalog: the shipped data (tasks/catalog), opcode matching, PTX patterns, the
// MMA FLOP rule and the loader's errors.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "core/error.hpp"
#include "sys/files.hpp"
#include "tasks/catalog.hpp"

namespace ptxb {
namespace {

const std::filesystem::path kCatalogDir = std::filesystem::path(PTXB_SOURCE_DIR) / "tasks/catalog";

const Catalog& real_catalog() {
  static const Catalog catalog = load_catalog(kCatalogDir);
  return catalog;
}

const InstructionEntry& entry(const std::string& name, const std::string& arch) {
  const InstructionEntry* found = real_catalog().find(name, arch);
  if (found == nullptr) throw std::runtime_error("catalog lacks " + name + " for " + arch);
  return *found;
}

TEST(Catalog, HopperEntriesAndPrimaryOpcodes) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> expected{
      {"wgmma.mma_async", {"HGMMA", "QGMMA", "IGMMA", "BGMMA"}},
      {"wgmma.mma_async.e4m3", {"QGMMA"}},
      {"cp.async.bulk.tensor", {"UTMALDG"}},  // loads only: stores and prefetches apart
      {"cp.async.bulk.tensor.store", {"UTMASTG", "UTMAREDG"}},
      {"cp.async.bulk.prefetch.tensor", {"UTMAPF"}},
      {"cp.async.bulk", {"UBLKCP.S.G"}},  // loads only, as cp.async.bulk.tensor
      {"cp.async.bulk.store", {"UBLKCP.G.S", "UBLKRED.G.S"}},
      {"cp.async.bulk.prefetch", {"UBLKPF"}},
      {"mbarrier.try_wait", {"SYNCS.PHASECHK.TRANS64.TRYWAIT"}},
      {"mbarrier.arrive.expect_tx", {"SYNCS.ARRIVE.TRANS64$"}},
      {"setmaxnreg", {"USETMAXREG"}},
      {"stmatrix", {"STSM"}},
      {"ldmatrix", {"LDSM"}},
      {"cp.async", {"LDGSTS"}},
  };
  for (const auto& [name, primaries] : expected) {
    const InstructionEntry& e = entry(name, "sm_90a");
    EXPECT_EQ(e.primary_opcodes, primaries) << name;
    EXPECT_FALSE(e.note.empty()) << name;
    EXPECT_EQ(e.status, "verified") << name;
  }
  EXPECT_EQ(entry("wgmma.mma_async", "sm_90a").flop_rule, FlopRule::kSassShapeMnk);
  EXPECT_EQ(entry("wgmma.mma_async", "sm_90a").glue_opcodes,
            (std::vector<std::string>{"WARPGROUP.ARRIVE", "WARPGROUP.DEPBAR"}));
  EXPECT_EQ(entry("cp.async.bulk.tensor", "sm_90a").flop_rule, FlopRule::kNone);
  EXPECT_EQ(entry("cp.async.bulk.tensor", "sm_90a").bytes_per_instruction, 232448);
  EXPECT_EQ(entry("setmaxnreg", "sm_90a").bytes_per_instruction, 0);
}

TEST(Catalog, BlackwellEntries) {
  for (const char* name :
       {"tcgen05.mma", "tcgen05.ld", "tcgen05.st", "tcgen05.alloc", "tcgen05.commit", "tcgen05.cp",
        "cp.async.bulk.tensor", "cp.async.bulk.tensor.store", "cp.async.bulk.prefetch.tensor",
        "mbarrier.try_wait", "mbarrier.arrive.expect_tx"}) {
    EXPECT_NE(real_catalog().find(name, "sm_100a"), nullptr) << name;
    EXPECT_NE(entry(name, "sm_100a").status, "verified") << name << ": no sm_100a row is local";
  }
  // NOTE: tcgen05 MMA shapes live in the instruction descriptor, so no FLOP rule applies yet.
  EXPECT_EQ(entry("tcgen05.mma", "sm_100a").flop_rule, FlopRule::kNone);
  EXPECT_TRUE(entry("tcgen05.mma", "sm_100a").is_primary("UTCHMMA"));
  EXPECT_TRUE(entry("tcgen05.ld", "sm_100a").is_primary("LDTM.16dp256bit.x4"));
  EXPECT_TRUE(entry("tcgen05.commit", "sm_100a").is_primary("UTCBAR.2CTA.MULTICAST"));
}

TEST(Catalog, ArchSpecificLookups) {
  EXPECT_EQ(real_catalog().find("wgmma.mma_async", "sm_100a"), nullptr);
  EXPECT_EQ(real_catalog().find("tcgen05.mma", "sm_90a"), nullptr);
  EXPECT_EQ(real_catalog().find("wgmma.mma_async", "sm_80"), nullptr);
  EXPECT_EQ(real_catalog().find("no.such.instruction", "sm_90a"), nullptr);
  for (const std::string& arch : known_archs()) {
    for (const InstructionEntry* e : real_catalog().for_arch(arch)) EXPECT_EQ(e->arch, arch);
  }
  EXPECT_EQ(real_catalog().for_arch("sm_90a").size(), 14u);
  EXPECT_EQ(real_catalog().for_arch("sm_100a").size(), 18u);
}

TEST(Arch, OneTableAnswersEveryArchitectureQuestion) {
  ASSERT_EQ(known_archs().size(), 2u);
  const Arch* hopper = find_arch("sm_90a");
  ASSERT_NE(hopper, nullptr);
  EXPECT_EQ(hopper->folder, "sm90");
  EXPECT_EQ(hopper->gencode, "arch=compute_90a,code=sm_90a");
  EXPECT_TRUE(hopper->evidence_controls);
  EXPECT_EQ(arch_for_device(9, 0), hopper);
  const Arch* blackwell = arch_for_device(10, 0);
  ASSERT_NE(blackwell, nullptr);
  EXPECT_EQ(blackwell->name, "sm_100a");
  EXPECT_FALSE(blackwell->evidence_controls) << "no control kernels for sm_100a yet";
  EXPECT_EQ(arch_for_device(8, 0), nullptr);
  EXPECT_EQ(arch_for_device(9, 1), nullptr) << "a targets run only on their exact capability";
  EXPECT_EQ(find_arch("sm_90"), nullptr);
  for (const Arch& a : known_arch_list()) EXPECT_GT(a.bf16_flops_per_sm_clock, 0) << a.name;
}

TEST(Catalog, IsPrimaryMatchesWholeDottedParts) {
  const InstructionEntry& wgmma = entry("wgmma.mma_async", "sm_90a");
  EXPECT_TRUE(wgmma.is_primary("HGMMA"));
  EXPECT_TRUE(wgmma.is_primary("HGMMA.64x256x16.F32.BF16"));
  EXPECT_TRUE(wgmma.is_primary("QGMMA.64x128x32.F32.E4M3.E4M3"));
  EXPECT_TRUE(wgmma.is_primary("IGMMA.64x8x32.S8.S8"));
  EXPECT_TRUE(wgmma.is_primary("BGMMA.64x8x256.AND.POPC"));
  EXPECT_FALSE(wgmma.is_primary("HGMMAX.64x8x16"));
  EXPECT_FALSE(wgmma.is_primary("HMMA.16816.F32.BF16"));
  EXPECT_FALSE(wgmma.is_primary("WARPGROUP.ARRIVE"));
  EXPECT_TRUE(wgmma.is_glue("WARPGROUP.ARRIVE"));
  EXPECT_TRUE(wgmma.is_glue("WARPGROUP.DEPBAR.LE"));
  EXPECT_FALSE(wgmma.is_primary(""));

  const InstructionEntry& try_wait = entry("mbarrier.try_wait", "sm_90a");
  EXPECT_TRUE(try_wait.is_primary("SYNCS.PHASECHK.TRANS64.TRYWAIT"));
  EXPECT_FALSE(try_wait.is_primary("SYNCS.PHASECHK.TRANS64"));  // test_wait
  EXPECT_FALSE(try_wait.is_primary("SYNCS.PHASECHK"));
  EXPECT_FALSE(try_wait.is_primary("SYNCS.PHASECHK.TRANS64.TRYWAITX"));

  const InstructionEntry& expect_tx = entry("mbarrier.arrive.expect_tx", "sm_90a");
  EXPECT_TRUE(expect_tx.is_primary("SYNCS.ARRIVE.TRANS64"));
  EXPECT_FALSE(expect_tx.is_primary("SYNCS.ARRIVE.TRANS64.A1T0"));      // plain arrive
  EXPECT_FALSE(expect_tx.is_primary("SYNCS.ARRIVE.TRANS64.RED.A0TR"));  // expect_tx alone
  EXPECT_FALSE(expect_tx.is_primary("SYNCS.ARRIVE.TRANS64$"));

  // A TMA target means tiles loaded by TMA: its stores, reductions and L2 prefetches (which a
  // kernel loading by cp.async can issue in numbers) are other entries (nvdisasm of ptxas 13.0:
  // UTMALDG.2D, UTMASTG.2D, UTMAREDG.2D.ADD, UTMAPF.L2.2D).
  const InstructionEntry& tma = entry("cp.async.bulk.tensor", "sm_90a");
  EXPECT_TRUE(tma.is_primary("UTMALDG.2D"));
  EXPECT_TRUE(tma.is_primary("UTMALDG.2D.MULTICAST"));
  EXPECT_FALSE(tma.is_primary("UTMASTG.2D"));
  EXPECT_FALSE(tma.is_primary("UTMAREDG.2D.ADD"));
  EXPECT_FALSE(tma.is_primary("UTMAPF.L2.2D"));
  EXPECT_FALSE(tma.is_primary("UTMACMDFLUSH"));
  EXPECT_FALSE(tma.is_primary("UTMACCTL.IV"));
  EXPECT_TRUE(tma.is_glue("ELECT"));
  const InstructionEntry& tma_store = entry("cp.async.bulk.tensor.store", "sm_90a");
  EXPECT_TRUE(tma_store.is_primary("UTMASTG.2D"));
  EXPECT_TRUE(tma_store.is_primary("UTMAREDG.2D.ADD"));
  EXPECT_FALSE(tma_store.is_primary("UTMALDG.2D"));
  EXPECT_TRUE(entry("cp.async.bulk.prefetch.tensor", "sm_90a").is_primary("UTMAPF.L2.2D"));

  EXPECT_TRUE(entry("setmaxnreg", "sm_90a").is_primary("USETMAXREG.TRY_ALLOC.CTAPOOL"));
  EXPECT_TRUE(entry("setmaxnreg", "sm_90a").is_primary("USETMAXREG.DEALLOC.CTAPOOL"));
  EXPECT_TRUE(entry("ldmatrix", "sm_90a").is_primary("LDSM.16.MT88.4"));
  EXPECT_TRUE(entry("stmatrix", "sm_90a").is_primary("STSM.16.M88.4"));
  EXPECT_TRUE(entry("cp.async", "sm_90a").is_primary("LDGSTS.E.BYPASS.128"));
  EXPECT_FALSE(entry("cp.async", "sm_90a").is_primary("LDGDEPBAR"));
  EXPECT_TRUE(entry("cp.async.bulk", "sm_90a").is_primary("UBLKCP.S.G"));
  EXPECT_FALSE(entry("cp.async.bulk", "sm_90a").is_primary("UBLKCP.G.S"));  // a bulk store
  EXPECT_FALSE(entry("cp.async.bulk", "sm_90a").is_primary("UBLKRED.G.S.ADD"));
  EXPECT_FALSE(entry("cp.async.bulk", "sm_90a").is_primary("UBLKPF.L2"));
  EXPECT_TRUE(entry("cp.async.bulk.store", "sm_90a").is_primary("UBLKCP.G.S"));
  EXPECT_TRUE(entry("cp.async.bulk.store", "sm_90a").is_primary("UBLKRED.G.S.ADD"));
  EXPECT_TRUE(entry("cp.async.bulk.prefetch", "sm_90a").is_primary("UBLKPF.L2"));
}

bool ptx_matches(const std::string& name, const std::string& ptx) {
  return std::regex_search(ptx, std::regex(entry(name, "sm_90a").ptx_pattern));
}

TEST(Catalog, PtxPatternsSeparateNeighbouringInstructions) {
  EXPECT_TRUE(ptx_matches("wgmma.mma_async",
                          "\twgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {%f0}, ..."));
  EXPECT_FALSE(ptx_matches("wgmma.mma_async", "\twgmma.fence.sync.aligned;"));
  EXPECT_FALSE(ptx_matches("wgmma.mma_async", "\twgmma.commit_group.sync.aligned;"));

  const std::string tma_load =
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd2, "
      "{%r3, %r4}], [%r5];";
  EXPECT_TRUE(ptx_matches("cp.async.bulk.tensor", tma_load));
  EXPECT_TRUE(ptx_matches("cp.async.bulk.tensor",
                          "cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::"
                          "bytes.multicast::cluster"));
  const std::string tma_store = "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1]";
  const std::string tma_reduce =
      "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group";
  const std::string tma_prefetch = "cp.async.bulk.prefetch.tensor.2d.L2.global";
  EXPECT_FALSE(ptx_matches("cp.async.bulk.tensor", tma_store));
  EXPECT_FALSE(ptx_matches("cp.async.bulk.tensor", tma_reduce));
  EXPECT_FALSE(ptx_matches("cp.async.bulk.tensor", tma_prefetch));
  EXPECT_TRUE(ptx_matches("cp.async.bulk.tensor.store", tma_store));
  EXPECT_TRUE(ptx_matches("cp.async.bulk.tensor.store", tma_reduce));
  EXPECT_FALSE(ptx_matches("cp.async.bulk.tensor.store", tma_load));
  EXPECT_TRUE(ptx_matches("cp.async.bulk.prefetch.tensor", tma_prefetch));
  EXPECT_FALSE(ptx_matches("cp.async.bulk.prefetch.tensor", tma_load));
  EXPECT_FALSE(
      ptx_matches("cp.async.bulk.tensor", "cp.async.bulk.shared::cluster.global.mbarrier"));

  EXPECT_TRUE(ptx_matches("cp.async.bulk",
                          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"));
  const std::string bulk_store = "cp.async.bulk.global.shared::cta.bulk_group [%rd1]";
  const std::string bulk_reduce = "cp.reduce.async.bulk.global.shared::cta.bulk_group";
  const std::string bulk_prefetch = "cp.async.bulk.prefetch.L2.global [%rd1], 256;";
  EXPECT_FALSE(ptx_matches("cp.async.bulk", bulk_store));
  EXPECT_FALSE(ptx_matches("cp.async.bulk", bulk_reduce));
  EXPECT_FALSE(ptx_matches("cp.async.bulk", bulk_prefetch));
  EXPECT_FALSE(ptx_matches("cp.async.bulk", "cp.async.bulk.shared::cluster.shared::cta.mbarrier"));
  EXPECT_TRUE(ptx_matches("cp.async.bulk.store", bulk_store));
  EXPECT_TRUE(ptx_matches("cp.async.bulk.store", bulk_reduce));
  EXPECT_FALSE(ptx_matches("cp.async.bulk.store", tma_store));
  EXPECT_TRUE(ptx_matches("cp.async.bulk.prefetch", bulk_prefetch));
  EXPECT_FALSE(ptx_matches("cp.async.bulk.prefetch", tma_prefetch));
  EXPECT_FALSE(ptx_matches("cp.async.bulk", tma_load));
  EXPECT_FALSE(ptx_matches("cp.async.bulk", "cp.async.bulk.prefetch.tensor.2d.L2.global"));
  EXPECT_FALSE(ptx_matches("cp.async.bulk", "cp.async.bulk.commit_group;"));
  EXPECT_FALSE(ptx_matches("cp.async.bulk", "cp.async.bulk.wait_group.read 0;"));

  EXPECT_TRUE(ptx_matches("cp.async", "cp.async.cg.shared.global [%r1], [%rd2], 16;"));
  EXPECT_TRUE(ptx_matches("cp.async", "cp.async.ca.shared.global [%r1], [%rd2], 8;"));
  EXPECT_FALSE(ptx_matches("cp.async", "cp.async.commit_group;"));
  EXPECT_FALSE(ptx_matches("cp.async", tma_load));

  EXPECT_TRUE(ptx_matches("mbarrier.try_wait", "mbarrier.try_wait.parity.shared::cta.b64 %p1"));
  EXPECT_FALSE(ptx_matches("mbarrier.try_wait", "mbarrier.test_wait.parity.shared::cta.b64 %p1"));
  EXPECT_TRUE(ptx_matches("mbarrier.arrive.expect_tx",
                          "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r1], %r2;"));
  EXPECT_FALSE(
      ptx_matches("mbarrier.arrive.expect_tx", "mbarrier.arrive.shared::cta.b64 _, [%r1];"));
  EXPECT_TRUE(ptx_matches("setmaxnreg", "setmaxnreg.inc.sync.aligned.u32 232;"));
  EXPECT_TRUE(ptx_matches("stmatrix", "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r1], {...};"));
  EXPECT_TRUE(ptx_matches("ldmatrix", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {...}"));
}

TEST(Catalog, MmaFlopsForEveryWgmmaN) {
  for (int n = 8; n <= 256; n += 8) {
    const std::string ns = std::to_string(n);
    EXPECT_EQ(mma_flops_per_instruction("HGMMA.64x" + ns + "x16.F32.BF16"), 2.0 * 64 * n * 16) << n;
    EXPECT_EQ(mma_flops_per_instruction("QGMMA.64x" + ns + "x32.F32.E4M3.E4M3"), 2.0 * 64 * n * 32)
        << n;
  }
  EXPECT_EQ(mma_flops_per_instruction("HGMMA.64x256x16.F32.BF16"), 524288.0);
  EXPECT_EQ(mma_flops_per_instruction("HGMMA.64x8x8.F32.TF32"), 2.0 * 64 * 8 * 8);
  EXPECT_EQ(mma_flops_per_instruction("IGMMA.64x8x32.S8.S8"), 2.0 * 64 * 8 * 32);
}

TEST(Catalog, MmaFlopsRejectsTokensWithoutShape) {
  for (const char* token : {"", "HGMMA", "UTMALDG.2D", "HGMMA.64x8.F32", "HGMMA.64x0x16.F32",
                            "HGMMA.x8x16.F32", "HGMMA.64x8x16x2.F32", "HGMMA.-64x8x16",
                            "HGMMA.64X8X16", "LDSM.16.M88.4", "HMMA.16816.F32"}) {
    EXPECT_EQ(mma_flops_per_instruction(token), std::nullopt) << token;
  }
}

TEST(Catalog, FlopRuleNames) {
  for (FlopRule rule : {FlopRule::kNone, FlopRule::kSassShapeMnk})
    EXPECT_EQ(flop_rule_from_string(to_string(rule)), rule);
  EXPECT_EQ(flop_rule_from_string("mnk"), std::nullopt);
}

// ---- loader errors: each case writes one catalog file into a fresh folder ----

const char* const kGoodEntry = R"(
[[instructions]]
name = "stmatrix"
ptx_pattern = '\bstmatrix\b'
primary_opcodes = ["STSM"]
status = "verified"
note = "Store matrix fragments."
)";

struct BrokenCatalog {
  std::string name;
  std::string text;   ///< the file's text
  std::string field;  ///< expected in the message
};

std::string expect_catalog_error(const TempDir& dir, const std::string& file) {
  try {
    load_catalog(dir.path());
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(file), std::string::npos) << message;
    return message;
  }
  ADD_FAILURE() << "no InputError for " << file;
  return {};
}

TEST(Catalog, LoaderNamesFileAndField) {
  const std::string entry_head = "arch = \"sm_90a\"\n[[instructions]]\nname = \"x.y\"\n";
  const std::vector<BrokenCatalog> cases{
      {"no-arch", std::string(kGoodEntry), "arch: required field is missing"},
      {"bad-arch", "arch = \"sm_89\"\n" + std::string(kGoodEntry), "arch: 'sm_89'"},
      {"bad-regex",
       entry_head + "ptx_pattern = 'a(b'\nprimary_opcodes = [\"X\"]\nstatus = \"guess\"\n"
                    "note = \"n\"\n",
       "instructions[0].ptx_pattern: not a valid ECMAScript regex"},
      {"empty-primary",
       entry_head + "ptx_pattern = 'x'\nprimary_opcodes = []\nstatus = \"guess\"\nnote = \"n\"\n",
       "instructions[0].primary_opcodes: must list at least one opcode"},
      {"bad-opcode",
       entry_head + "ptx_pattern = 'x'\nprimary_opcodes = [\"hgmma\"]\nstatus = \"guess\"\n"
                    "note = \"n\"\n",
       "instructions[0].primary_opcodes[0]"},
      {"bad-status",
       entry_head + "ptx_pattern = 'x'\nprimary_opcodes = [\"X\"]\nstatus = \"sure\"\n"
                    "note = \"n\"\n",
       "instructions[0].status: 'sure'"},
      {"bad-flop-rule",
       entry_head + "ptx_pattern = 'x'\nprimary_opcodes = [\"X\"]\nflop_rule = \"mnk\"\n"
                    "status = \"guess\"\nnote = \"n\"\n",
       "instructions[0].flop_rule: 'mnk'"},
      {"zero-bytes",
       entry_head + "ptx_pattern = 'x'\nprimary_opcodes = [\"X\"]\nbytes_per_instruction = 0\n"
                    "status = \"guess\"\nnote = \"n\"\n",
       "instructions[0].bytes_per_instruction: must be >= 1"},
      {"mma-with-bytes",
       entry_head + "ptx_pattern = 'x'\nprimary_opcodes = [\"X\"]\nflop_rule = \"sass_shape_mnk\"\n"
                    "bytes_per_instruction = 512\nstatus = \"guess\"\nnote = \"n\"\n",
       "instructions[0].bytes_per_instruction: an MMA entry"},
      {"other-reads-without-byte-floor",
       entry_head + "ptx_pattern = 'x'\nprimary_opcodes = [\"X\"]\n"
                    "other_read_metrics = [\"a.sum\"]\nstatus = \"guess\"\nnote = \"n\"\n",
       "instructions[0].other_read_metrics: only entries with a moved_bytes_metric"},
      {"unknown-key",
       entry_head + "ptx_pattern = 'x'\nprimary_opcode = [\"X\"]\nstatus = \"guess\"\n"
                    "note = \"n\"\n",
       "instructions[0].primary_opcode: unknown key"},
      {"missing-note",
       entry_head + "ptx_pattern = 'x'\nprimary_opcodes = [\"X\"]\nstatus = \"guess\"\n",
       "instructions[0].note: required field is missing"},
      {"duplicate", "arch = \"sm_90a\"\n" + std::string(kGoodEntry) + kGoodEntry,
       "instructions[1].name: duplicate entry 'stmatrix'"},
      {"syntax", "arch = \"sm_90a\n", "TOML syntax error"},
  };
  for (const BrokenCatalog& c : cases) {
    TempDir dir("ptxb-catalog-test");
    write_file_atomic(dir.path() / (c.name + ".toml"), c.text);
    const std::string message = expect_catalog_error(dir, c.name + ".toml");
    EXPECT_NE(message.find(c.field), std::string::npos) << c.name << ": " << message;
  }
}

TEST(Catalog, LoaderRejectsDuplicatesAcrossFilesAndEmptyFolders) {
  TempDir dir("ptxb-catalog-test");
  EXPECT_THROW(load_catalog(dir.path() / "missing"), InputError);
  EXPECT_THROW(load_catalog(dir.path()), InputError);  // no *.toml files
  write_file_atomic(dir.path() / "a.toml", "arch = \"sm_90a\"\n" + std::string(kGoodEntry));
  EXPECT_EQ(load_catalog(dir.path()).entries.size(), 1u);
  write_file_atomic(dir.path() / "b.toml", "arch = \"sm_100a\"\n" + std::string(kGoodEntry));
  EXPECT_EQ(load_catalog(dir.path()).entries.size(), 2u);  // same name, other arch: fine
  write_file_atomic(dir.path() / "c.toml", "arch = \"sm_90a\"\n" + std::string(kGoodEntry));
  const std::string message = expect_catalog_error(dir, "c.toml");
  EXPECT_NE(message.find("already defined"), std::string::npos) << message;
}

}  // namespace
}  // namespace ptxb
