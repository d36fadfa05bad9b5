// The fat-binary reader (compile/fatbin.hpp) on sections built byte by byte the way nvcc 13.0
// lays them out: only the payloads of ELF entries (kind 2) are images, zero padding between
// containers is passed over, reading stops at other bytes that are no container and at entries
// that overrun their container, and a loaded cubin matches an image only from the image's start.
// The layout nvcc really writes: CompileImports.TheDeviceCodeLiesUncompressedInTheFatBinarySection.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compile/fatbin.hpp"

namespace ptxb {
namespace {

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

struct Entry {
  uint16_t kind;
  std::string payload;
};

// A container as nvcc writes it: header (magic, version 1, 16, size of the entries), then each
// entry's 64-byte header (kind, version 0x0101, 64, payload size, the rest zero) and payload.
std::string container(const std::vector<Entry>& entries) {
  std::string body;
  for (const Entry& e : entries) {
    put<uint16_t>(body, e.kind);
    put<uint16_t>(body, 0x0101);
    put<uint32_t>(body, 64);
    put<uint64_t>(body, e.payload.size());
    body.append(48, '\0');
    body += e.payload;
  }
  std::string out;
  put<uint32_t>(out, 0xBA55ED50);
  put<uint16_t>(out, 1);
  put<uint16_t>(out, 16);
  put<uint64_t>(out, body.size());
  return out + body;
}

const std::string kListed =
    "\x7f"
    "ELF listed image";
const std::string kHidden =
    "\x7f"
    "ELF hidden image";

TEST(Fatbin, OnlyElfEntriesAreImages) {
  const std::string section = container({{1, "ptx text"}, {2, kListed}, {4, kHidden}});
  const std::vector<std::string_view> images = fatbin_elf_images(section);
  ASSERT_EQ(images.size(), 1u);
  EXPECT_EQ(images[0], kListed);
  EXPECT_TRUE(is_one_of_the_images(kListed, images));
  EXPECT_FALSE(is_one_of_the_images(kHidden, images));  // in the section, but no ELF entry
  EXPECT_FALSE(is_one_of_the_images("ptx text", images));
}

TEST(Fatbin, ContainersFollowEachOtherUntilBytesThatAreNone) {
  const std::string two = container({{2, kListed}}) + container({{2, kHidden}});
  EXPECT_EQ(fatbin_elf_images(two).size(), 2u);
  // Zero padding between containers is passed over (alignment), as cuobjdump does.
  const std::string padded = std::string(8, '\0') + container({{2, kListed}}) +
                             std::string(8, '\0') + container({{2, kHidden}}) +
                             std::string(8, '\0');
  EXPECT_EQ(fatbin_elf_images(padded).size(), 2u);
  // Anything else ends the reading: what follows is no image.
  const std::string garbage = container({{2, kListed}}) + "junk" + container({{2, kHidden}});
  const std::vector<std::string_view> images = fatbin_elf_images(garbage);
  ASSERT_EQ(images.size(), 1u);
  EXPECT_FALSE(is_one_of_the_images(kHidden, images));
}

TEST(Fatbin, AMatchStartsAtTheImagesStart) {
  const std::vector<std::string_view> images = fatbin_elf_images(container({{2, kListed + "pad"}}));
  ASSERT_EQ(images.size(), 1u);
  EXPECT_TRUE(is_one_of_the_images(kListed, images));             // the payload's padding after it
  EXPECT_FALSE(is_one_of_the_images(kListed.substr(1), images));  // inside the image
  EXPECT_FALSE(is_one_of_the_images(kListed + "padding", images));  // longer than the payload
  EXPECT_FALSE(is_one_of_the_images("", images));
}

TEST(Fatbin, TruncatedSectionsAreReadWithinTheirBytes) {
  const std::string section = container({{2, kListed}, {2, kHidden}});
  for (size_t cut = 0; cut < section.size(); ++cut) {
    // Built in a buffer of exactly `cut` bytes, so a read past them would be one past the end.
    const std::string prefix = section.substr(0, cut);
    const std::vector<std::string_view> images = fatbin_elf_images(prefix);
    EXPECT_TRUE(images.empty()) << cut;  // the container's declared size no longer fits
  }
  // An entry overrunning its container ends the reading with what came before it.
  std::string overrun = container({{2, kListed}, {2, kHidden}});
  overrun[16 + 64 + kListed.size() + 15] = 0x7f;  // the second entry's payload size, made huge
  const std::vector<std::string_view> images = fatbin_elf_images(overrun);
  ASSERT_EQ(images.size(), 1u);
  EXPECT_EQ(images[0], kListed);
}

}  // namespace
}  // namespace ptxb
