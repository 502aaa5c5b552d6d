// JsonFormat: the `*.dcw.json` file format — an exact, versioned JSON image of an SDFG tree (ids,
// labels, data with constant payloads, symbols, control flow, nodes, memlets, nested SDFGs).
// save(load(text)) reproduces text byte for byte; load errors name the file, the JSON location
// (line:column or JSON pointer) and what is wrong.
#pragma once

#include "core/ir/Sdfg.h"
#include "core/support/Expected.h"

#include <memory>
#include <string>
#include <string_view>

namespace dcw::serialize {

constexpr int kFormatVersion = 1;

std::string toJson(const ir::Sdfg& sdfg);
// `source` names the origin in error messages (a file path or "<memory>").
Expected<std::unique_ptr<ir::Sdfg>> fromJson(std::string_view text, const std::string& source = "<memory>");

// Written atomically (core/support/AtomicFile.h): a crash while saving leaves the old file whole.
Expected<void> saveFile(const ir::Sdfg& sdfg, const std::string& path);
Expected<std::unique_ptr<ir::Sdfg>> loadFile(const std::string& path);

} // namespace dcw::serialize
