#pragma once
// The host side of one CUDA launch, as a kernel family describes it to the generic
// launcher (CudaDevice::run_group). The family says what differs from kind to kind:
// the arrays to place, the parameter table, the result buffers and the kernel's
// arguments, and how the read-back results become samples. The launcher does the
// rest, the same for every family: placing and writing the arrays, uploading the
// table, poisoning the results, the shared-memory plan, launching each repeat,
// reading back, the %smid check of a packed launch, and handing points to the sink.
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "engine/device/cuda/array_image.hpp"
#include "engine/device/cuda/template_abi.hpp"
#include "engine/spec/experiment.hpp"
#include "engine/trace/trace.hpp"

namespace dissect {

// What the device allows a launch.
struct CudaLimits {
  std::uint32_t max_shared_per_block = 48 * 1024;  // opt-in dynamic shared memory of one block
};

// An array a launch reads: the launcher places it (arena, constant bank or texture)
// and hands back its reference (dissect_array_ref) in the same order.
struct LaunchArray {
  ArrayImage image;
  LoadPath path = LoadPath::ca;
  // Global paths: identical copies placed one after the other, copy_stride apart
  // (layout.array per_block: one per block; 0: per_block_array_stride's rule); the
  // reference is the first copy's.
  std::uint32_t copies = 1;
  std::uint64_t copy_stride = 0;
};

// The parameter table: sections of the template's structs, each 16-byte aligned,
// uploaded as one block.
class ParamTable {
 public:
  // Appends a section; returns its byte offset in the table.
  template <typename T>
  std::uint64_t add(const std::vector<T>& entries) {
    const std::uint64_t at = (bytes_.size() + 15) / 16 * 16;
    bytes_.resize(at + entries.size() * sizeof(T));
    if (!entries.empty()) std::memcpy(bytes_.data() + at, entries.data(), entries.size() * sizeof(T));
    return at;
  }
  [[nodiscard]] const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
};

// The result buffers a kernel writes, filled with 0xff before every launch (an
// unwritten result is recognised) and copied back after it. Per-sample results
// (latencies, indices) each get a device buffer of their own, since their size
// varies from launch to launch; the small per-block and per-thread results share
// one buffer, each 256-byte aligned. Keeping that split keeps where the results lie
// in memory (and so which L2 sets they share with the arrays under test) the same
// from one launch to the next.
class OutputLayout {
 public:
  // A per-sample result of `bytes` (may be 0: the kernel gets a null pointer).
  std::size_t add_samples(std::uint64_t bytes) {
    entries_.push_back({samples_++, 0, bytes});
    return entries_.size() - 1;
  }
  // A small result in the shared buffer.
  std::size_t add(std::uint64_t bytes) {
    const std::uint64_t at = (small_total_ + 255) / 256 * 256;
    entries_.push_back({kShared, at, bytes});
    small_total_ = at + bytes;
    return entries_.size() - 1;
  }
  static constexpr std::size_t kShared = ~std::size_t{0};
  // Which buffer output i lies in: kShared, or the index of its own buffer.
  [[nodiscard]] std::size_t buffer(std::size_t i) const { return entries_.at(i).buffer; }
  [[nodiscard]] std::uint64_t offset(std::size_t i) const { return entries_.at(i).offset; }
  [[nodiscard]] std::uint64_t size(std::size_t i) const { return entries_.at(i).bytes; }
  [[nodiscard]] std::size_t outputs() const { return entries_.size(); }
  [[nodiscard]] std::size_t sample_buffers() const { return samples_; }
  [[nodiscard]] std::uint64_t shared_bytes() const { return small_total_; }

 private:
  struct Entry {
    std::size_t buffer;
    std::uint64_t offset, bytes;
  };
  std::vector<Entry> entries_;
  std::size_t samples_ = 0;
  std::uint64_t small_total_ = 0;
};

// The host copy of one launch's results: per output, its bytes.
class Readback {
 public:
  explicit Readback(std::vector<std::span<const unsigned char>> outputs) : outputs_(std::move(outputs)) {}
  // Output `i` as an array of T.
  template <typename T>
  [[nodiscard]] std::span<const T> as(std::size_t i) const {
    const auto b = outputs_.at(i);
    return {reinterpret_cast<const T*>(b.data()), b.size() / sizeof(T)};
  }

 private:
  std::vector<std::span<const unsigned char>> outputs_;
};

// One kernel argument, in the order of the template's signature.
struct KernelArg {
  enum class Kind { table, output, zero } kind = Kind::zero;
  std::uint64_t value = 0;  // table: byte offset of the section; output: its index
  static KernelArg table(std::uint64_t offset) { return {Kind::table, offset}; }
  static KernelArg output(std::size_t index) { return {Kind::output, index}; }
  // A u32 that is always 0 at run time (rt_zero: the compiler cannot fold it).
  static KernelArg zero() { return {Kind::zero, 0}; }
};

// The value a result slot keeps when the kernel did not write it (the 0xff poison).
inline constexpr std::uint32_t kUnwritten32 = 0xffffffffu;
inline constexpr std::uint64_t kUnwritten64 = ~0ull;

class CudaLaunch {
 public:
  explicit CudaLaunch(std::span<const Experiment* const> pts) : points(pts.begin(), pts.end()) {}
  virtual ~CudaLaunch() = default;
  CudaLaunch(const CudaLaunch&) = delete;
  CudaLaunch& operator=(const CudaLaunch&) = delete;

  // Set by the family when it makes the launch:
  std::vector<const Experiment*> points;  // one per point of the launch, in order
  std::vector<LaunchArray> arrays;        // to place, in order
  std::uint32_t blocks = 0;               // grid size
  std::uint32_t shared_bytes = 0;         // dynamic shared memory one block needs
  // Write four times the L2 elsewhere before each launch: a cold chase (no warm-up)
  // of a structure shared by all SMs must not find the lines writing the array left.
  bool flush_l2 = false;

  // After placement (`refs`: the arrays' references, in order): the parameter table,
  // the result buffers, and the kernel's arguments in order. One output must be the
  // %smid of every block (u32 per block): its index is returned.
  virtual std::size_t lay_out(std::span<const dissect_array_ref> refs, ParamTable& table, OutputLayout& outputs,
                              std::vector<KernelArg>& args) = 0;
  // The block whose %smid is point i's SM.
  [[nodiscard]] virtual std::uint32_t first_block(std::size_t point) const = 0;
  // While the first launch runs: point i's notes on how it runs (trace params) and
  // room for its samples.
  virtual void start_point(std::size_t point, PointTrace& trace, std::uint32_t repeats) const {
    (void)point, (void)trace, (void)repeats;
  }
  // Appends repeat r's samples of every point to traces[i] and its timer-overhead
  // readings to overheads[i]. Throws RunError naming a result the kernel left unwritten.
  virtual void decode(std::uint32_t repeat, const Readback& results, std::span<PointTrace> traces,
                      std::span<std::vector<double>> overheads) const = 0;
  // Accesses in one pass, for the analyzers' discard of leading passes.
  [[nodiscard]] virtual std::uint64_t accesses_per_pass(std::size_t point) const {
    return points.at(point)->accesses_per_pass();
  }
};

}  // namespace dissect
