#pragma once
// What several analyzers of one bundle derive alike from its points (the stage method's
// pass grids, which `sets` and `stage_profile` both read), made once and kept with the
// traces: the second analyzer to ask gets the first one's. A key names what was derived and
// from which points (their addresses: traces are not changed while they are analysed), so
// that it also says the value's type. Safe from several threads: a value being made is
// waited for, other keys are not; what making it threw is thrown to every asker.
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace dissect {

class DerivedCache {
 public:
  template <class T>
  std::shared_ptr<const T> get(const std::string& key, const std::function<T()>& make) {
    std::shared_ptr<Entry> entry;
    bool mine = false;
    {
      const std::lock_guard lock(mutex_);
      std::shared_ptr<Entry>& slot = entries_[key];
      if (!slot) {
        slot = std::make_shared<Entry>();
        slot->value = slot->made.get_future().share();
        mine = true;
      }
      entry = slot;
    }
    if (mine) {  // made outside the lock: other keys are not held up
      try {
        entry->made.set_value(std::make_shared<const T>(make()));
      } catch (...) {
        entry->made.set_exception(std::current_exception());
      }
    }
    return std::static_pointer_cast<const T>(entry->value.get());
  }
  [[nodiscard]] std::size_t size() const {
    const std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    std::promise<std::shared_ptr<const void>> made;
    std::shared_future<std::shared_ptr<const void>> value;
  };
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
};

// The DerivedCache of one TraceSet: a copy of the traces starts with an empty one (its points
// lie elsewhere, and an address the original's points freed may come back); a move keeps it
// (a moved vector keeps its elements where they are).
class DerivedCacheSlot {
 public:
  DerivedCacheSlot() = default;
  DerivedCacheSlot(const DerivedCacheSlot&) {}
  DerivedCacheSlot& operator=(const DerivedCacheSlot& other) {
    if (this != &other) cache_ = std::make_unique<DerivedCache>();
    return *this;
  }
  // The traces moved from keep a cache of their own, empty, should they be filled again.
  // noexcept (the one small allocation aside): a container of traces moves them as it grows.
  DerivedCacheSlot(DerivedCacheSlot&& other) noexcept
      : cache_(std::exchange(other.cache_, std::make_unique<DerivedCache>())) {}
  DerivedCacheSlot& operator=(DerivedCacheSlot&& other) noexcept {
    if (this != &other) cache_ = std::exchange(other.cache_, std::make_unique<DerivedCache>());
    return *this;
  }
  ~DerivedCacheSlot() = default;
  [[nodiscard]] DerivedCache& operator*() const { return *cache_; }
  DerivedCache* operator->() const { return cache_.get(); }

 private:
  std::unique_ptr<DerivedCache> cache_ = std::make_unique<DerivedCache>();
};

}  // namespace dissect
