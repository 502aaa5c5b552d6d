// Helpers for the suites that test the `dcw` command line as a user runs it (tst_Cli, tst_GradCli,
// tst_ProfileCli): running the binary (testpaths::cli(), support/TestPaths.h) with a shared kernel
// cache and collecting exit code, stdout and stderr, plus small file helpers (bytes, JSON, the floats
// of an ONNX TensorProto) for checking what the command wrote. One copy here instead of one per suite.
// The namespace is not dcw::: a function named dcw next to a namespace named dcw would be ambiguous.
#pragma once

#include "support/TestPaths.h"
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <cstring>
#include <vector>

namespace clisupport {

// What one run of the binary gave: the exit code (-1 when it crashed or did not finish), the outputs.
struct Run {
  int code = -1;
  QString out, err;
};

// Runs `dcw ARGS` with DCW_CACHE_DIR the tests' kernel cache (testpaths::kernelCache()); waits at most `timeoutMs`.
inline Run dcw(const QStringList& args, int timeoutMs = 300000) {
  QProcess p;
  auto env = QProcessEnvironment::systemEnvironment();
  env.insert("DCW_CACHE_DIR", QString::fromStdString(testpaths::kernelCache()));
  p.setProcessEnvironment(env);
  p.start(testpaths::cli(), args);
  p.waitForFinished(timeoutMs);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

// The tiny ResNet example shipped with the sources.
inline const QString kExample = testpaths::qsource("/resources/examples/tiny_resnet.onnx");

inline QStringList lines(const QString& text) { return text.split('\n', Qt::SkipEmptyParts); }

inline QByteArray readAll(const QString& file) {
  QFile f(file);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

inline bool writeAll(const QString& file, const QByteArray& bytes) {
  QFile f(file);
  return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

// The JSON object in a file ({} when it cannot be read).
inline QJsonObject readJson(const QString& file) {
  QFile f(file);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QJsonDocument::fromJson(f.readAll()).object();
}

// The float values of an ONNX TensorProto file (raw_data or float_data): enough to compare outputs
// without linking protobuf. Empty when the file is not a FLOAT tensor or is malformed.
inline std::vector<float> readFloats(const QString& file) {
  QByteArray b = readAll(file);
  const auto* p = reinterpret_cast<const uint8_t*>(b.constData());
  const uint8_t* end = p + b.size();
  auto varint = [&](uint64_t& v) {
    v = 0;
    for (int s = 0; p < end && s < 64; s += 7) {
      uint8_t c = *p++;
      v |= uint64_t(c & 0x7f) << s;
      if (!(c & 0x80)) return true;
    }
    return false;
  };
  std::vector<float> out;
  auto floats = [&](const uint8_t* q, size_t n) {
    for (size_t i = 0; i + 4 <= n; i += 4) {
      float x;
      std::memcpy(&x, q + i, 4);
      out.push_back(x);
    }
  };
  while (p < end) {
    uint64_t key = 0, v = 0;
    if (!varint(key)) return {};
    uint64_t field = key >> 3, wire = key & 7;
    if (wire == 0) {
      if (!varint(v)) return {};
      if (field == 2 && v != 1) return {}; // data_type: FLOAT only
    } else if (wire == 1) {
      p += 8;
    } else if (wire == 5) {
      if (field == 4) floats(p, 4);
      p += 4;
    } else if (wire == 2) {
      if (!varint(v) || v > uint64_t(end - p)) return {};
      if (field == 4 || field == 9) floats(p, v); // float_data (packed), raw_data
      p += v;
    } else {
      return {};
    }
  }
  return out;
}

} // namespace clisupport
