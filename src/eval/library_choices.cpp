#include "eval/library_choices.hpp"

#include <string>

#include "core/error.hpp"
#include "sys/files.hpp"

namespace ptxb {
namespace {

using nlohmann::json;

// What makes two choices the same slot: the problem, the device and the library.
bool same_slot(const json& a, const json& b) {
  for (const char* key : {"problem", "device", "library"})
    if (a.value(key, json()) != b.value(key, json())) return false;
  return true;
}

}  // namespace

std::filesystem::path library_choices_path(const std::filesystem::path& cache_dir,
                                           const std::string& task_hash, int device) {
  const std::string key = sha256_hex(std::to_string(kLibraryChoicesSchema) + "\n" + task_hash +
                                     "\n" + std::to_string(device));
  return cache_dir / "library-choices" / (key + ".json");
}

json load_library_choices(const std::filesystem::path& file) {
  std::string text;
  try {
    text = read_file(file);
  } catch (const InputError&) {  // no file yet, or unreadable: a miss
    return json::array();
  }
  const json stored = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!stored.is_object() || stored.value("schema", json()) != kLibraryChoicesSchema)
    return json::array();
  const json choices = stored.value("choices", json());
  if (!choices.is_array() || stored.value("checksum", json()) != sha256_hex(choices.dump()))
    return json::array();
  return choices;
}

void store_library_choices(const std::filesystem::path& file, const json& choices) {
  json merged = json::array();
  for (const json& old : load_library_choices(file)) {
    bool replaced = false;
    for (const json& c : choices) replaced = replaced || (c.is_object() && same_slot(old, c));
    if (!replaced) merged.push_back(old);
  }
  for (const json& c : choices)
    if (c.is_object()) merged.push_back(c);
  const json stored = {{"schema", kLibraryChoicesSchema},
                       {"checksum", sha256_hex(merged.dump())},
                       {"choices", merged}};
  write_file_atomic(file, stored.dump(1));
}

}  // namespace ptxb
