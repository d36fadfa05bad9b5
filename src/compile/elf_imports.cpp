// ELF64 reader (see elf_imports.hpp). Walks the section headers: SHT_DYNAMIC for DT_NEEDED and
// SHT_DYNSYM for undefined symbols, each with the string table its sh_link names; a section by
// name through the section-name table.
#include "compile/elf_imports.hpp"

#include <elf.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "core/error.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

/// Bounds-checked view of the image.
class Image {
 public:
  explicit Image(std::string_view bytes) : bytes_(bytes) {}

  template <typename T>
  bool read(uint64_t offset, T* out) const {
    if (offset > bytes_.size() || bytes_.size() - offset < sizeof(T)) return false;
    std::memcpy(out, bytes_.data() + offset, sizeof(T));
    return true;
  }

  /// The NUL-terminated string at table_offset + index inside a table of table_size bytes.
  std::optional<std::string> string_at(uint64_t table_offset, uint64_t table_size,
                                       uint64_t index) const {
    if (table_offset > bytes_.size() || table_size > bytes_.size() - table_offset ||
        index >= table_size)
      return std::nullopt;
    std::string_view table = bytes_.substr(table_offset, table_size);
    size_t end = table.find('\0', index);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(table.substr(index, end - index));
  }

 private:
  std::string_view bytes_;
};

bool fail(std::string* error, const std::string& why) {
  if (error) *error = why;
  return false;
}

bool read_section(const Image& image, const Elf64_Ehdr& header, uint64_t index, Elf64_Shdr* out) {
  if (index >= header.e_shnum) return false;
  return image.read(header.e_shoff + index * header.e_shentsize, out);
}

bool read_needed(const Image& image, const Elf64_Ehdr& header, const Elf64_Shdr& dynamic,
                 ElfImports* out, std::string* error) {
  Elf64_Shdr strtab;
  if (!read_section(image, header, dynamic.sh_link, &strtab))
    return fail(error, "ELF: .dynamic names no string table");
  for (uint64_t off = 0; off + sizeof(Elf64_Dyn) <= dynamic.sh_size; off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn entry;
    if (!image.read(dynamic.sh_offset + off, &entry))
      return fail(error, "ELF: .dynamic out of range");
    if (entry.d_tag == DT_NULL) break;
    if (entry.d_tag != DT_NEEDED) continue;
    auto name = image.string_at(strtab.sh_offset, strtab.sh_size, entry.d_un.d_val);
    if (!name) return fail(error, "ELF: DT_NEEDED name out of range");
    out->needed_libraries.push_back(*name);
  }
  return true;
}

bool read_undefined(const Image& image, const Elf64_Ehdr& header, const Elf64_Shdr& dynsym,
                    ElfImports* out, std::string* error) {
  Elf64_Shdr strtab;
  if (!read_section(image, header, dynsym.sh_link, &strtab))
    return fail(error, "ELF: .dynsym names no string table");
  // Entry 0 is the reserved null symbol.
  for (uint64_t off = sizeof(Elf64_Sym); off + sizeof(Elf64_Sym) <= dynsym.sh_size;
       off += sizeof(Elf64_Sym)) {
    Elf64_Sym sym;
    if (!image.read(dynsym.sh_offset + off, &sym)) return fail(error, "ELF: .dynsym out of range");
    if (sym.st_shndx != SHN_UNDEF || sym.st_name == 0) continue;
    auto name = image.string_at(strtab.sh_offset, strtab.sh_size, sym.st_name);
    if (!name) return fail(error, "ELF: symbol name out of range");
    out->undefined_symbols.push_back(*name);
  }
  return true;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool matches_forbidden(const std::string& name) {
  const std::string low = lower(name);
  for (const auto& fragment : forbidden_import_fragments()) {
    if (low.find(lower(fragment)) != std::string::npos) return true;
  }
  return false;
}

/// The ELF64 header of `image`, checked (little-endian ELF64, section headers of the usual size).
bool read_header(const Image& image, Elf64_Ehdr* header, std::string* error) {
  if (!image.read(0, header) || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0)
    return fail(error, "not an ELF file");
  if (header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_ident[EI_DATA] != ELFDATA2LSB)
    return fail(error, "not a little-endian ELF64 file");
  if (header->e_shentsize != sizeof(Elf64_Shdr))
    return fail(error, "ELF: unexpected section header size");
  return true;
}

// sys/files read_file, its failure as `error` instead of an exception.
std::optional<std::string> read_whole_file(const std::filesystem::path& path, std::string* error) {
  try {
    return read_file(path);
  } catch (const InputError& e) {
    fail(error, e.what());
    return std::nullopt;
  }
}

}  // namespace

std::optional<std::string> read_elf_section(std::string_view bytes, std::string_view name,
                                            std::string* error) {
  Image image(bytes);
  Elf64_Ehdr header;
  if (!read_header(image, &header, error)) return std::nullopt;
  Elf64_Shdr names;
  if (!read_section(image, header, header.e_shstrndx, &names)) {
    fail(error, "ELF: no section name table");
    return std::nullopt;
  }
  for (uint64_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    if (!read_section(image, header, i, &section)) {
      fail(error, "ELF: section header out of range");
      return std::nullopt;
    }
    if (image.string_at(names.sh_offset, names.sh_size, section.sh_name) != name) continue;
    if (section.sh_type == SHT_NOBITS) return std::string();
    if (section.sh_offset > bytes.size() || section.sh_size > bytes.size() - section.sh_offset) {
      fail(error, "ELF: section " + std::string(name) + " out of range");
      return std::nullopt;
    }
    return std::string(bytes.substr(section.sh_offset, section.sh_size));
  }
  fail(error, "ELF: no section " + std::string(name));
  return std::nullopt;
}

std::optional<std::string> read_elf_section_file(const std::filesystem::path& path,
                                                 std::string_view name, std::string* error) {
  const std::optional<std::string> bytes = read_whole_file(path, error);
  if (!bytes) return std::nullopt;
  return read_elf_section(*bytes, name, error);
}

std::optional<ElfImports> read_elf_imports(std::string_view bytes, std::string* error) {
  Image image(bytes);
  Elf64_Ehdr header;
  if (!read_header(image, &header, error)) return std::nullopt;
  ElfImports imports;
  for (uint64_t i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    if (!read_section(image, header, i, &section)) {
      fail(error, "ELF: section header out of range");
      return std::nullopt;
    }
    bool ok = true;
    if (section.sh_type == SHT_DYNAMIC) ok = read_needed(image, header, section, &imports, error);
    if (section.sh_type == SHT_DYNSYM) ok = read_undefined(image, header, section, &imports, error);
    if (!ok) return std::nullopt;
  }
  return imports;
}

std::optional<ElfImports> read_elf_imports_file(const std::filesystem::path& path,
                                                std::string* error) {
  const std::optional<std::string> bytes = read_whole_file(path, error);
  if (!bytes) return std::nullopt;
  return read_elf_imports(*bytes, error);
}

const std::vector<std::string>& forbidden_import_fragments() {
  static const std::vector<std::string> kFragments = {
      "cublas", "cublasLt", "cudnn", "cutlass", "cusparse", "cufft",
      "curand", "cusolver", "nccl",  "nvrtc",   "nvJitLink"};
  return kFragments;
}

std::vector<std::string> forbidden_imports(const ElfImports& imports) {
  std::vector<std::string> out;
  for (const auto& lib : imports.needed_libraries) {
    if (matches_forbidden(lib)) out.push_back(lib);
  }
  for (const auto& sym : imports.undefined_symbols) {
    if (matches_forbidden(sym)) out.push_back(sym);
  }
  return out;
}

}  // namespace ptxb
