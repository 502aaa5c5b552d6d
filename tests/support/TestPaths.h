// Where a test finds the checkout, the build, the built programs and the tests' kernel cache.
// The paths are compiled into one small object (TestPaths.cpp) instead of into every test as macros:
// a test's object then does not depend on where its clone sits, and a second clone on the same machine
// (CI) takes the tests' objects from the compiler cache instead of compiling them again.
#pragma once

#include <string>

class QString; // declared only: a test may include this before its other headers, and Qt's keyword macros (slots) must not come first

namespace testpaths {

std::string sourceDir();                          // the checkout's root
std::string source(const std::string& relative);  // sourceDir() + relative, e.g. "/tests/data/bad/x.onnx"
QString qsource(const std::string& relative);     // the same as a QString
std::string binaryDir();                          // the build folder's root
QString cli();                                    // the built dcw
QString gui();                                    // the built dcw-gui (empty in a build without the GUI)
std::string kernelCache();                        // where the tests' generated programs are compiled

} // namespace testpaths
