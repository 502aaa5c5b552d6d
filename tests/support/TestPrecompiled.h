// The headers most test suites include, compiled once into a precompiled header that every suite not
// using the GUI shares (tests/CMakeLists.txt): a suite's own code is small, and most of its compile time
// went to parsing these. Only libraries' headers (the suites' own helpers would clash with the names of
// suites that do not use them); DCW's come before Qt's, whose keyword macros (slots) they use as names.
#pragma once

#include "codegen/run/Executor.h"
#include "codegen/run/RandomInputs.h"
#include "core/edit/Command.h"
#include "core/edit/History.h"
#include "core/expansions/ExpandPass.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/io/ModelFile.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Validate.h"
#include "core/serialize/JsonFormat.h"
#include "transforms/ApplyTransformation.h"
#include "transforms/AutoOptimize.h"
#include "transforms/Matcher.h"
#include "transforms/Script.h"
#include "transforms/TransformationRegistry.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>
