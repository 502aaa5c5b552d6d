// The paths of TestPaths.h, given by tests/CMakeLists.txt as definitions of this file only.
#include "support/TestPaths.h"

#include <QString>

namespace testpaths {

std::string sourceDir() { return DCW_SOURCE_DIR; }
std::string source(const std::string& relative) { return sourceDir() + relative; }
QString qsource(const std::string& relative) { return QString::fromStdString(source(relative)); }
std::string binaryDir() { return DCW_BINARY_DIR; }
QString cli() { return QStringLiteral(DCW_CLI); }
QString gui() { return QStringLiteral(DCW_GUI); }
std::string kernelCache() { return DCW_TEST_KERNEL_CACHE; }

} // namespace testpaths
