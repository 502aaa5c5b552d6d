// OwnedList: the elements a state owns (its nodes, its edges), in order, where any one of them can be
// taken out and put back in constant time. A state of a 100,000-node model is edited node by node
// (expanding every library node takes each out and appends its replacement); a vector paid a search
// and a shift of the whole tail for each, which made the pipeline quadratic in the model's size.
//
// A doubly linked list whose links the elements point back to (Element::ownedLink_), so finding an
// element's place needs neither a search nor an index. Order is what a vector would keep: appends go
// last, a take leaves the others in their order, and an element put back before the element that
// followed it (the Place its take reported) is where it was. That is how the journal undoes a
// removal: when it is undone every later edit has been undone, so the element that followed is there
// again and still follows the gap. Iteration yields `const std::unique_ptr<T>&`, as the vector did.
#pragma once

#include "core/ir/Element.h"

#include <cstddef>
#include <iterator>
#include <memory>

namespace dcw::ir {

template <class T>
class OwnedList {
  struct Link {
    std::unique_ptr<T> item;
    Link* prev = nullptr;
    Link* next = nullptr;
    const OwnedList* owner = nullptr;
  };

public:
  using value_type = std::unique_ptr<T>;
  // Where an element stood: the element after it, nullptr for the end.
  using Place = const T*;

  class const_iterator {
  public:
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = std::unique_ptr<T>;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::unique_ptr<T>*;
    using reference = const std::unique_ptr<T>&;
    const_iterator() = default;
    reference operator*() const { return link_->item; }
    pointer operator->() const { return &link_->item; }
    const_iterator& operator++() {
      link_ = link_->next;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++*this;
      return before;
    }
    const_iterator& operator--() {
      link_ = link_ ? link_->prev : list_->tail_;
      return *this;
    }
    const_iterator operator--(int) {
      const_iterator before = *this;
      --*this;
      return before;
    }
    bool operator==(const const_iterator& o) const { return link_ == o.link_; }
    bool operator!=(const const_iterator& o) const { return link_ != o.link_; }

  private:
    friend class OwnedList;
    const_iterator(const Link* link, const OwnedList* list) : link_(link), list_(list) {}
    const Link* link_ = nullptr;
    const OwnedList* list_ = nullptr;
  };

  OwnedList() = default;
  OwnedList(const OwnedList&) = delete;
  OwnedList& operator=(const OwnedList&) = delete;
  ~OwnedList() {
    for (Link* l = head_; l;) {
      Link* next = l->next;
      delete l;
      l = next;
    }
  }

  const_iterator begin() const { return const_iterator(head_, this); }
  const_iterator end() const { return const_iterator(nullptr, this); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::unique_ptr<T>& front() const { return head_->item; }
  const std::unique_ptr<T>& back() const { return tail_->item; }
  bool contains(const T* e) const { return linkOf(e) != nullptr; }

  T* push_back(std::unique_ptr<T> e) { return insert(nullptr, std::move(e)); }

  // Puts `e` before `before`; at the end when `before` is nullptr or not in the list.
  T* insert(Place before, std::unique_ptr<T> e) {
    T* raw = e.get();
    Link* l = new Link{std::move(e), nullptr, nullptr, this};
    raw->ownedLink_ = l;
    if (Link* at = linkOf(before)) {
      l->prev = at->prev;
      l->next = at;
      (at->prev ? at->prev->next : head_) = l;
      at->prev = l;
    } else {
      l->prev = tail_;
      (tail_ ? tail_->next : head_) = l;
      tail_ = l;
    }
    ++size_;
    return raw;
  }

  // Takes `e` out (nullptr when it is not in the list) and reports where it stood.
  std::unique_ptr<T> take(const T* e, Place* was = nullptr) {
    Link* l = linkOf(e);
    if (!l) return nullptr;
    (l->prev ? l->prev->next : head_) = l->next;
    (l->next ? l->next->prev : tail_) = l->prev;
    if (was) *was = l->next ? l->next->item.get() : nullptr;
    std::unique_ptr<T> out = std::move(l->item);
    out->ownedLink_ = nullptr;
    delete l;
    --size_;
    return out;
  }

private:
  Link* linkOf(const T* e) const {
    if (!e) return nullptr;
    auto* l = static_cast<Link*>(e->ownedLink_);
    return l && l->owner == this && l->item.get() == e ? l : nullptr;
  }
  Link* head_ = nullptr;
  Link* tail_ = nullptr;
  size_t size_ = 0;
};

} // namespace dcw::ir
