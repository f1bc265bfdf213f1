#include "engine/device/cuda/host_buffer_pool.hpp"

#include <algorithm>
#include <utility>

namespace dissect {

HostBufferPool::HostBufferPool(std::size_t keep_bytes) : shelf_(std::make_shared<Shelf>()) {
  shelf_->keep_bytes = keep_bytes;
}

HostBufferPool::Lease& HostBufferPool::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    if (const auto shelf = home_.lock(); shelf && data_) shelf->put(std::move(data_));
    data_ = std::move(other.data_);
    size_ = std::exchange(other.size_, 0);
    home_ = std::move(other.home_);
  }
  return *this;
}

HostBufferPool::Lease::~Lease() {
  if (const auto shelf = home_.lock(); shelf && data_) shelf->put(std::move(data_));
}

void HostBufferPool::Shelf::put(std::unique_ptr<std::vector<unsigned char>> v) {
  idle.push_back(std::move(v));
  // Kept from the largest down while they fit the limit (the large ones are the costly ones
  // to make again): a buffer that would pass it goes, the smaller ones after it may stay.
  std::sort(idle.begin(), idle.end(), [](const auto& a, const auto& b) { return a->size() > b->size(); });
  std::size_t total = 0;
  std::vector<std::unique_ptr<std::vector<unsigned char>>> kept;
  for (auto& b : idle)
    if (total + b->size() <= keep_bytes) {
      total += b->size();
      kept.push_back(std::move(b));
    }
  idle = std::move(kept);
}

HostBufferPool::Lease HostBufferPool::take(std::size_t bytes) {
  Lease lease;
  if (bytes == 0) return lease;
  auto& idle = shelf_->idle;
  // The smallest idle buffer that holds `bytes`, else the largest (grown): no buffer is
  // grown while one that fits waits.
  auto fit = idle.end();
  for (auto it = idle.begin(); it != idle.end(); ++it)
    if ((*it)->size() >= bytes && (fit == idle.end() || (*it)->size() < (*fit)->size())) fit = it;
  if (fit == idle.end() && !idle.empty())
    fit = std::max_element(idle.begin(), idle.end(), [](const auto& a, const auto& b) { return a->size() < b->size(); });
  if (fit != idle.end()) {
    lease.data_ = std::move(*fit);
    idle.erase(fit);
  } else {
    lease.data_ = std::make_unique<std::vector<unsigned char>>();
  }
  if (lease.data_->size() < bytes) lease.data_->resize(bytes);
  lease.size_ = bytes;
  lease.home_ = shelf_;
  return lease;
}

std::size_t HostBufferPool::idle() const { return shelf_->idle.size(); }

std::size_t HostBufferPool::idle_bytes() const {
  std::size_t n = 0;
  for (const auto& v : shelf_->idle) n += v->size();
  return n;
}

}  // namespace dissect
