// OwnedList: the elements a state owns (its nodes, its edges), in order, where any one of them can be
// taken out and put back in constant time. A state of a 100,000-node model is edited node by node
// (expanding every library node takes each out and appends its replacement); a vector paid a search
// and a shift of the whole tail for each, which made the pipeline quadratic in the model's size.
//
// Order is what a vector would keep: appends go last, a take leaves the others in their order, and
// an element put back before the element that followed it (the Place its take reported) is where it
// was. That is how the journal undoes a removal: when it is undone every later edit has been undone,
// so the element that followed is there again and still follows the gap. Iteration yields
// `const std::unique_ptr<T>&`, as iterating the vector did.
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <unordered_map>

namespace dcw::ir {

template <class T>
class OwnedList {
  using List = std::list<std::unique_ptr<T>>;

public:
  using const_iterator = typename List::const_iterator;
  using value_type = std::unique_ptr<T>;
  // Where an element stood: the element after it, nullptr for the end.
  using Place = const T*;

  OwnedList() = default;
  OwnedList(const OwnedList&) = delete;
  OwnedList& operator=(const OwnedList&) = delete;

  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const std::unique_ptr<T>& front() const { return items_.front(); }
  const std::unique_ptr<T>& back() const { return items_.back(); }
  bool contains(const T* e) const { return where_.count(e) != 0; }

  T* push_back(std::unique_ptr<T> e) { return insert(nullptr, std::move(e)); }

  // Puts `e` before `before`; at the end when `before` is nullptr or not in the list.
  T* insert(Place before, std::unique_ptr<T> e) {
    T* raw = e.get();
    auto at = items_.end();
    if (before)
      if (auto w = where_.find(before); w != where_.end()) at = w->second;
    where_[raw] = items_.insert(at, std::move(e));
    return raw;
  }

  // Takes `e` out (nullptr when it is not in the list) and reports where it stood.
  std::unique_ptr<T> take(const T* e, Place* was = nullptr) {
    auto w = where_.find(e);
    if (w == where_.end()) return nullptr;
    auto it = w->second;
    where_.erase(w);
    auto next = std::next(it);
    if (was) *was = next == items_.end() ? nullptr : next->get();
    std::unique_ptr<T> out = std::move(*it);
    items_.erase(it);
    return out;
  }

private:
  List items_;
  std::unordered_map<const T*, typename List::iterator> where_;
};

} // namespace dcw::ir
