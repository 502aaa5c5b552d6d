// What a test needs from outside its own code, and what happens when it is missing, in one place so
// that no suite invents its own way to skip:
//  - the repository's own files (resources/examples, tests/data) are never optional: a missing one
//    fails the test (DCW_REQUIRE_FIXTURE), since a skip would hide a deleted or renamed fixture;
//  - what scripts/setup-deps.sh installs (Debian's libonnx-testdata, ...) CI always has: in CI
//    (CI=true) a missing one fails the test; on a developer machine that has not run setup-deps.sh
//    it skips, saying what is missing and what installs it (DCW_REQUIRE_INSTALLED).
// A failure of the code under test is never a skip. A skip for something CI never has (a GPU, say)
// must say "(CI never has this)" in its reason: scripts/test.sh fails a CI run on any other skip.
#pragma once

#include <QFileInfo>
#include <QString>
#include <QtTest>

namespace dcw::testsupport {

// True in CI: the CI variable is set to anything but "", "0" or "false" (CI systems set CI=true).
inline bool inCi() {
  const QString ci = qEnvironmentVariable("CI").trimmed().toLower();
  return !ci.isEmpty() && ci != QLatin1String("0") && ci != QLatin1String("false");
}

// Debian's libonnx-testdata: the ONNX backend test cases (installed by scripts/setup-deps.sh).
inline const QString kOnnxTestDataRoot = QStringLiteral("/usr/share/libonnx-testdata/data");

} // namespace dcw::testsupport

// Fails the current test unless the committed file `path` (absolute) exists.
#define DCW_REQUIRE_FIXTURE(path)                                                                                       \
  QVERIFY2(QFileInfo::exists(path),                                                                                     \
           qPrintable(QStringLiteral("the committed fixture %1 is missing (restore it from git)").arg(path)))

// When `path` does not exist: fails the current test in CI, skips it elsewhere; the message names
// what is missing and `how` it is installed.
#define DCW_REQUIRE_INSTALLED(path, how)                                                                                \
  do {                                                                                                                  \
    if (!QFileInfo::exists(path)) {                                                                                     \
      const QString dcwMissing_ = QStringLiteral("%1 is not installed (%2)").arg(path, how);                           \
      if (dcw::testsupport::inCi()) QFAIL(qPrintable(dcwMissing_ + QStringLiteral("; CI must have it")));           \
      QSKIP(qPrintable(dcwMissing_ + QStringLiteral("; outside CI this is a skip")));                                 \
    }                                                                                                                   \
  } while (false)

// The ONNX backend test cases, as DCW_REQUIRE_INSTALLED.
#define DCW_REQUIRE_ONNX_TESTDATA()                                                                                     \
  DCW_REQUIRE_INSTALLED(dcw::testsupport::kOnnxTestDataRoot, QStringLiteral("scripts/setup-deps.sh installs libonnx-testdata"))
