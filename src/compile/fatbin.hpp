// The cubins of nvcc's fat binaries, as they lie in a shared object's .nv_fatbin section: one or
// more containers (a 16-byte header: magic 0xBA55ED50, version, header size, size of the entries),
// each a run of entries (kind, version, header size, payload size, then fields this reader does
// not need). Entries of kind 2 hold an ELF image for the GPU, the ones `cuobjdump -sass` lists
// (kind 1 holds PTX). Layout read off nvcc 13.0's output (tests/unit/test_fatbin.cpp); no
// external tools.
#pragma once

#include <string_view>
#include <vector>

namespace ptxb {

/// The payloads of the kind-2 (ELF) entries of the containers in `section`, in order, as views
/// into it. Zero bytes between containers are padding (a container aligned to 16 bytes follows
/// one of 8); reading stops at other bytes that are no container (where `cuobjdump -sass` fails:
/// "Invalid fatbin header") and at an entry that does not fit its container: what lies past there
/// is no image. Compressed entries (nvcc without --no-compress) are returned as stored, so they
/// match no loaded cubin.
std::vector<std::string_view> fatbin_elf_images(std::string_view section);

/// Whether `cubin` (a module as the driver loaded it) is one of the images: an image that starts
/// with its bytes (an entry's payload may carry padding after the ELF).
bool is_one_of_the_images(std::string_view cubin, const std::vector<std::string_view>& images);

}  // namespace ptxb
