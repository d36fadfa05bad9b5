// Fat-binary containers in a shared object's .nv_fatbin (see fatbin.hpp).
#include "compile/fatbin.hpp"

#include <cstdint>
#include <cstring>

namespace ptxb {
namespace {

constexpr uint32_t kContainerMagic = 0xBA55ED50;
constexpr uint16_t kElfEntry = 2;
constexpr size_t kContainerHeader = 16;  // magic u32, version u16, header size u16, size u64
constexpr size_t kEntryHeader = 16;      // kind u16, version u16, header size u32, payload u64

template <typename T>
T read_at(std::string_view bytes, size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

}  // namespace

std::vector<std::string_view> fatbin_elf_images(std::string_view section) {
  std::vector<std::string_view> images;
  size_t pos = 0;
  while (true) {
    // Zero bytes between containers are alignment padding (cuobjdump passes over them too).
    while (pos < section.size() && section[pos] == '\0') ++pos;
    if (section.size() - pos < kContainerHeader) break;
    if (read_at<uint32_t>(section, pos) != kContainerMagic) break;
    const uint16_t header = read_at<uint16_t>(section, pos + 6);
    const uint64_t entries = read_at<uint64_t>(section, pos + 8);
    if (header < kContainerHeader || header > section.size() - pos ||
        entries > section.size() - pos - header)
      break;
    const size_t end = pos + header + entries;
    size_t entry = pos + header;
    while (end - entry >= kEntryHeader) {
      const uint16_t kind = read_at<uint16_t>(section, entry);
      const uint32_t entry_header = read_at<uint32_t>(section, entry + 4);
      const uint64_t payload = read_at<uint64_t>(section, entry + 8);
      if (entry_header < kEntryHeader || entry_header > end - entry ||
          payload > end - entry - entry_header)
        return images;
      if (kind == kElfEntry) images.push_back(section.substr(entry + entry_header, payload));
      entry += entry_header + payload;
    }
    pos = end;
  }
  return images;
}

bool is_one_of_the_images(std::string_view cubin, const std::vector<std::string_view>& images) {
  if (cubin.empty()) return false;
  for (const std::string_view image : images)
    if (image.size() >= cubin.size() && image.substr(0, cubin.size()) == cubin) return true;
  return false;
}

}  // namespace ptxb
