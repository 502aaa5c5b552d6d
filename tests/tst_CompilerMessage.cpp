// CompilerMessage: a real compiler error in generated code (a tasklet's lines corrupted on purpose)
// maps back through the source map to the tasklet's element path.
#include "codegen/cpu/Compiler.h"
#include "codegen/cpu/CompilerMessage.h"
#include "codegen/cpu/CppGenerator.h"
#include "core/expansions/ExpandPass.h"
#include "core/io/ModelFile.h"

#include <QtTest>

using namespace dcw;

class TestCompilerMessage : public QObject {
  Q_OBJECT
private slots:
  void lineParsing() {
    QCOMPARE(codegen::errorLineOf("compilation failed: /tmp/x/program.cpp:123:7: error: oops").value_or(-1), 123);
    QVERIFY(!codegen::errorLineOf("ld: cannot find -lfoo").has_value());
    std::vector<codegen::SourceMapEntry> map{{1, 100, 1, "main"}, {10, 20, 2, "main/state0/map"}, {12, 14, 3, "main/state0/t"}};
    QCOMPARE(QString::fromStdString(codegen::innermostEntryAt(map, 13)->path), QString("main/state0/t"));
    QCOMPARE(QString::fromStdString(codegen::innermostEntryAt(map, 18)->path), QString("main/state0/map"));
    QVERIFY(codegen::innermostEntryAt(map, 200) == nullptr);
  }

  void realCompilerErrorMapsToTheTasklet() {
    auto m = io::loadModel("/usr/share/libonnx-testdata/data/node/test_relu/model.onnx");
    QVERIFY(m);
    QVERIFY(expansions::expandAll(*m->sdfg));
    auto code = codegen::generateCpp(*m->sdfg);
    QVERIFY(code);
    // The innermost source-map entry of a tasklet: corrupt its first line.
    const codegen::SourceMapEntry* tasklet = nullptr;
    for (auto& e : code->sourceMap)
      if (e.path.find("relu") != std::string::npos && (!tasklet || e.lastLine - e.firstLine < tasklet->lastLine - tasklet->firstLine))
        tasklet = &e;
    QVERIFY(tasklet);
    std::string src = code->source;
    size_t pos = 0;
    for (int l = 1; l < tasklet->lastLine; ++l) pos = src.find('\n', pos) + 1;
    src.insert(pos, "this is not C++;\n");
    auto built = codegen::compileShared(src);
    QVERIFY(!built);
    std::string path = codegen::elementOfCompilerMessage(built.error().str(), code->sourceMap);
    QVERIFY2(!path.empty(), built.error().str().c_str());
    QVERIFY2(path.rfind("main/state0/", 0) == 0, path.c_str());
  }
};

QTEST_APPLESS_MAIN(TestCompilerMessage)
#include "tst_CompilerMessage.moc"
