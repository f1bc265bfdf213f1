// The readback buffers: reused between launches without being cleared, grown where none
// fits, and kept only up to the pool's limit.
#include "engine/device/cuda/host_buffer_pool.hpp"

#include <doctest/doctest.h>

using dissect::HostBufferPool;

TEST_CASE("a host buffer given back is taken again as it was left, not cleared") {
  HostBufferPool pool(1 << 20);
  const unsigned char* first = nullptr;
  {
    HostBufferPool::Lease a = pool.take(1000);
    REQUIRE(a.size() == 1000);
    REQUIRE(a.bytes().size() == 1000);
    a.data()[999] = 0x5a;
    first = a.data();
    CHECK(pool.idle() == 0);
  }
  CHECK(pool.idle() == 1);
  HostBufferPool::Lease b = pool.take(600);  // fits in the idle one: no new memory
  CHECK(b.data() == first);
  CHECK(b.size() == 600);
  CHECK(pool.idle() == 0);
  HostBufferPool::Lease c = pool.take(600);  // the idle one is in use: a new one
  CHECK(c.data() != first);
  b = HostBufferPool::Lease{};  // giving back by assignment
  CHECK(pool.idle() == 1);
  HostBufferPool::Lease d = pool.take(1000);
  CHECK(d.data() == first);
  CHECK(d.data()[999] == 0x5a);
  CHECK(pool.take(0).empty());
}

TEST_CASE("a host buffer pool takes the smallest that fits, grows the largest, and keeps its limit") {
  HostBufferPool pool(3000);
  {
    HostBufferPool::Lease small = pool.take(500), large = pool.take(2000);
  }
  CHECK(pool.idle() == 2);
  CHECK(pool.idle_bytes() == 2500);
  {
    HostBufferPool::Lease x = pool.take(400);
    CHECK(x.size() == 400);
    CHECK(pool.idle_bytes() == 2000);  // the 500 B one was taken
  }
  {
    HostBufferPool::Lease grown = pool.take(2500);  // none fits: the largest, grown
    CHECK(pool.idle_bytes() == 500);
  }
  // 2500 + 500 fit the limit of 3000.
  CHECK(pool.idle_bytes() == 3000);
  {
    HostBufferPool::Lease big = pool.take(2800);  // the 2500 B one grows to 2800
  }
  // 2800 + 500 is over the limit: the smaller goes.
  CHECK(pool.idle() == 1);
  CHECK(pool.idle_bytes() == 2800);
  {
    HostBufferPool::Lease huge = pool.take(5000);  // grows the 2800 B one past the limit
  }
  CHECK(pool.idle() == 0);  // one over the limit is not kept
  {
    HostBufferPool::Lease a = pool.take(1000), b = pool.take(1500), c = pool.take(4000);
  }
  // 4000 is over the limit and goes; the smaller two still fit beside each other.
  CHECK(pool.idle() == 2);
  CHECK(pool.idle_bytes() == 2500);
}

TEST_CASE("a moved-from lease is empty and gives nothing back") {
  HostBufferPool pool;
  HostBufferPool::Lease a = pool.take(100);
  HostBufferPool::Lease b = std::move(a);
  CHECK(a.empty());  // NOLINT(bugprone-use-after-move): what a move leaves is the point
  CHECK(a.data() == nullptr);
  CHECK(b.size() == 100);
  { HostBufferPool::Lease gone = std::move(b); }
  CHECK(pool.idle() == 1);
}

TEST_CASE("a lease outlives its pool") {
  HostBufferPool::Lease kept;
  {
    HostBufferPool pool;
    kept = pool.take(64);
  }
  kept.data()[63] = 1;  // still its memory; given back to nothing when it goes
  CHECK(kept.size() == 64);
}
