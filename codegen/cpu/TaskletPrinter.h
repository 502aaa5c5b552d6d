// TaskletPrinter: prints a parsed tasklet program (core/tasklet) as C++ statements for the CPU target.
// Every value has a kind — bool, integer (int64_t), float (float32, also the compute type of float16
// and bfloat16) or double — inferred bottom-up as in C, so integer `/` truncates and float `/` does
// not; `%` is C's remainder on integers and fmod on floats; floating literals take the precision of
// what they meet (float unless a double is involved). Functions print as dcw_rt:: helpers
// (codegen/cpu/Runtime.h). Names are bound by the caller: connectors and symbols map to C++
// identifiers the generator made safe; the tasklet's own locals get identifiers ending in '_', a
// form no generator identifier has, so they never shadow one.
#pragma once

#include "core/ir/DType.h"
#include "core/support/Expected.h"
#include "core/tasklet/TaskletCode.h"

#include "codegen/Identifier.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dcw::codegen::cpu {

enum class ValueKind { Bool, Int, Float, Double };

// The kind a storage dtype computes in; nullopt for types the CPU target cannot compute with.
std::optional<ValueKind> kindOf(ir::DType t);
// C++ type of a value kind ("bool", "int64_t", "float", "double").
std::string cppType(ValueKind k);
// C++ storage type of an element ("float", "uint16_t" for float16/bfloat16, "uint8_t" for bool, ...);
// empty for unsupported types (complex, string).
std::string storageType(ir::DType t);
// `text` (of kind `from`) converted to kind `to`; float -> int goes through a safe (saturating) cast.
std::string convertValue(const std::string& text, ValueKind from, ValueKind to);
// Reads element `lvalue` of storage type `storage` as a value of kind `to`.
std::string loadValue(ir::DType storage, const std::string& lvalue, ValueKind to);
// A value of kind `from` converted to the storage type `storage` (to be assigned to an element).
std::string storeValue(ir::DType storage, const std::string& value, ValueKind from);

struct TaskletName {
  std::string cpp;               // C++ expression naming the value (a local, pointer or symbol)
  ValueKind kind = ValueKind::Float;
  bool array = false;            // a pointer to elements, read as name[i]
  ir::DType storage = ir::DType::Float32; // element type of an array
  bool writable = false;         // an output connector: statements may assign it
};

class TaskletPrinter {
public:
  // `where` locates errors (the tasklet's element path).
  explicit TaskletPrinter(std::string where) : where_(std::move(where)) {}

  // The C++ local for tasklet name `name` (a connector or local): safe, ends in '_', stable.
  std::string localId(const std::string& name);
  // Binds a connector (or any name) to its C++ form.
  void bind(const std::string& name, TaskletName info) { bound_[name] = std::move(info); }
  // Resolves names that are neither bound nor locals (SDFG symbols, map parameters); nullopt: unknown.
  void setSymbolResolver(std::function<std::optional<TaskletName>(const std::string&)> r) { resolver_ = std::move(r); }

  // One C++ statement per line.
  Expected<std::vector<std::string>> print(const tasklet::Program& program);
  // One expression converted to `want` (locals declared by print() stay visible).
  Expected<std::string> printExpr(const tasklet::Expr& e, ValueKind want);

private:
  enum class K { Bool, Int, FloatLit, Float, Double };
  Expected<K> infer(const tasklet::Expr& e);
  Expected<std::string> emit(const tasklet::Expr& e, K want);
  Expected<TaskletName> lookup(const std::string& name);
  Unexpected error(const std::string& what) const;

  std::string where_;
  IdentifierTable locals_;
  std::map<std::string, TaskletName> bound_;
  std::map<std::string, ValueKind> declared_;   // `let` locals -> kind
  std::function<std::optional<TaskletName>(const std::string&)> resolver_;
  std::map<const tasklet::Expr*, K> kinds_;
};

} // namespace dcw::codegen::cpu
