#pragma once
// Host memory that a launch's results are read back into, kept between launches. A group's
// copies live until its points are decoded (the group's tail, while the next group's kernel
// runs), so two or three are in use at a time; a vector made afresh per launch would be zeroed
// and faulted in, page by page, on the device's thread between two kernels (tens of MB for a
// per-SM launch or a TLB sweep's point). A buffer taken again keeps what its last user left:
// the readback overwrites every byte of the part it is taken for.
#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace dissect {

class HostBufferPool {
  struct Shelf;

 public:
  // Idle buffers are kept up to `keep_bytes` in all (larger ones go back to the system).
  explicit HostBufferPool(std::size_t keep_bytes = std::size_t{512} << 20);

  // Holds one buffer; gives it back to the pool when destroyed (the pool may be gone by then).
  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept
        : data_(std::move(other.data_)), size_(std::exchange(other.size_, 0)), home_(std::move(other.home_)) {}
    Lease& operator=(Lease&& other) noexcept;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    [[nodiscard]] std::span<unsigned char> bytes() const { return {data_ ? data_->data() : nullptr, size_}; }
    [[nodiscard]] unsigned char* data() const { return data_ ? data_->data() : nullptr; }
    [[nodiscard]] std::size_t size() const { return size_; }
    [[nodiscard]] bool empty() const { return size_ == 0; }

   private:
    friend class HostBufferPool;
    std::unique_ptr<std::vector<unsigned char>> data_;
    std::size_t size_ = 0;
    std::weak_ptr<Shelf> home_;
  };

  // A buffer of `bytes` (0: an empty lease, no memory). Not for use from several threads at once.
  [[nodiscard]] Lease take(std::size_t bytes);
  // Idle buffers and their bytes (for tests).
  [[nodiscard]] std::size_t idle() const;
  [[nodiscard]] std::size_t idle_bytes() const;

 private:
  struct Shelf {
    std::size_t keep_bytes = 0;
    std::vector<std::unique_ptr<std::vector<unsigned char>>> idle;
    void put(std::unique_ptr<std::vector<unsigned char>> v);
  };
  std::shared_ptr<Shelf> shelf_;
};

}  // namespace dissect
