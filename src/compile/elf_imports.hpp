// A small ELF64 reader for what a shared object imports: its DT_NEEDED libraries and undefined
// dynamic symbols; and for a section's bytes by name. No external tools. The imports flag
// GPU-library imports; a flag, not a sandbox: dlopen at run time is caught by the run-time checks.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxb {

struct ElfImports {
  std::vector<std::string> needed_libraries;   ///< DT_NEEDED, in .dynamic order
  std::vector<std::string> undefined_symbols;  ///< .dynsym entries with st_shndx == SHN_UNDEF
};

/// Reads a little-endian ELF64 image. nullopt with `error` set when the bytes are not one
/// (every offset is bounds-checked; a malformed file is never read out of range).
std::optional<ElfImports> read_elf_imports(std::string_view image, std::string* error = nullptr);

/// Reads the file at `path`; nullopt with `error` set when it cannot be read or parsed.
std::optional<ElfImports> read_elf_imports_file(const std::filesystem::path& path,
                                                std::string* error = nullptr);

/// The bytes of the section `name` of a little-endian ELF64 image ("" for a section without
/// bytes in the file); nullopt with `error` set when the image is not one or has no such section.
/// The worker reads the candidate's `.nv_fatbin` with it: the device code nvcc compiled.
std::optional<std::string> read_elf_section(std::string_view image, std::string_view name,
                                            std::string* error = nullptr);

/// read_elf_section on the file at `path`.
std::optional<std::string> read_elf_section_file(const std::filesystem::path& path,
                                                 std::string_view name,
                                                 std::string* error = nullptr);

/// Name fragments of libraries a submission must not import (case-insensitive substring match on
/// library names and undefined symbols): cublas (also cublasLt), cudnn, cutlass, cusparse, cufft,
/// curand, cusolver, nccl, nvrtc, nvJitLink. libcuda, libcudart and the C/C++ runtime are allowed.
const std::vector<std::string>& forbidden_import_fragments();

/// The needed libraries and undefined symbols that match a forbidden fragment, libraries first.
std::vector<std::string> forbidden_imports(const ElfImports& imports);

}  // namespace ptxb
