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

#include <optional>

namespace dcw::testsupport {

// True in CI: the CI variable is set to anything but "", "0" or "false" (CI systems set CI=true).
inline bool inCi() {
  const QString ci = qEnvironmentVariable("CI").trimmed().toLower();
  return !ci.isEmpty() && ci != QLatin1String("0") && ci != QLatin1String("false");
}

// Debian's libonnx-testdata: the ONNX backend test cases (installed by scripts/setup-deps.sh).
inline const QString kOnnxTestDataRoot = QStringLiteral("/usr/share/libonnx-testdata/data");

// What to do about a missing installed prerequisite: the message, and whether it fails (in CI) or
// skips (elsewhere). Nothing when `path` exists.
struct MissingPrerequisite {
  QString message;
  bool fails = false;
};
inline std::optional<MissingPrerequisite> checkInstalled(const QString& path, const QString& how) {
  if (QFileInfo::exists(path)) return std::nullopt;
  const QString what = QStringLiteral("%1 is not installed (%2)").arg(path, how);
  if (inCi()) return MissingPrerequisite{what + QStringLiteral("; CI must have it"), true};
  return MissingPrerequisite{what + QStringLiteral("; outside CI this is a skip"), false};
}

} // namespace dcw::testsupport

// Fails the current test unless the committed file `path` (absolute) exists.
#define DCW_REQUIRE_FIXTURE(path)                                                                                       \
  QVERIFY2(QFileInfo::exists(path),                                                                                     \
           qPrintable(QStringLiteral("the committed fixture %1 is missing (restore it from git)").arg(path)))

// When `path` does not exist: fails the current test in CI, skips it elsewhere; the message names
// what is missing and `how` it is installed.
#define DCW_REQUIRE_INSTALLED(path, how)                                                                                \
  do {                                                                                                                  \
    if (const auto dcwMissing_ = dcw::testsupport::checkInstalled(path, how)) {                                        \
      if (dcwMissing_->fails) QFAIL(qPrintable(dcwMissing_->message));                                                  \
      QSKIP(qPrintable(dcwMissing_->message));                                                                          \
    }                                                                                                                   \
  } while (false)

// The ONNX backend test cases, as DCW_REQUIRE_INSTALLED.
#define DCW_REQUIRE_ONNX_TESTDATA()                                                                                     \
  DCW_REQUIRE_INSTALLED(dcw::testsupport::kOnnxTestDataRoot, QStringLiteral("scripts/setup-deps.sh installs libonnx-testdata"))
