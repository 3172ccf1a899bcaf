#include "probe/uring.h"

#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "common/unique_fd.h"
#include "probe/util.h"

namespace cordon::probe::uring {
namespace {

struct Mapping {
  void* addr = MAP_FAILED;
  size_t size = 0;
  ~Mapping() {
    if (addr != MAP_FAILED) ::munmap(addr, size);
  }
};

template <typename T>
T* at(void* base, uint32_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(base) + offset);
}

}  // namespace

SetupResult setup(unsigned entries) {
  io_uring_params params{};
  SetupResult r;
  long fd = ::syscall(__NR_io_uring_setup, entries, &params);
  if (fd < 0) r.err = errno;
  else r.fd = static_cast<int>(fd);
  return r;
}

namespace {

// Writes one IORING_OP_SOCKET entry and publishes it on the submission ring.
void queue_socket_op(void* sqes, void* sq, const io_uring_params& p, int domain, int type, int protocol) {
  auto* sqe = static_cast<io_uring_sqe*>(sqes);
  std::memset(sqe, 0, sizeof *sqe);
  sqe->opcode = IORING_OP_SOCKET;
  sqe->fd = domain;
  sqe->off = static_cast<uint64_t>(type);
  sqe->len = static_cast<uint32_t>(protocol);
  sqe->user_data = 0x636f72646f6eULL;
  auto* tail = at<std::atomic<uint32_t>>(sq, p.sq_off.tail);
  auto* mask = at<uint32_t>(sq, p.sq_off.ring_mask);
  auto* array = at<uint32_t>(sq, p.sq_off.array);
  uint32_t t = tail->load(std::memory_order_relaxed);
  array[t & *mask] = 0;
  tail->store(t + 1, std::memory_order_release);
}

// Takes the one completion (the socket op's result) off the completion ring; a socket it
// made is closed at once.
void take_completion(void* cq, const io_uring_params& p, SocketResult& result) {
  auto* cq_head = at<std::atomic<uint32_t>>(cq, p.cq_off.head);
  auto* cq_tail = at<std::atomic<uint32_t>>(cq, p.cq_off.tail);
  auto* cq_mask = at<uint32_t>(cq, p.cq_off.ring_mask);
  auto* cqes = at<io_uring_cqe>(cq, p.cq_off.cqes);
  uint32_t head = cq_head->load(std::memory_order_relaxed);
  if (head == cq_tail->load(std::memory_order_acquire)) {
    result.detail = "no completion";
    return;
  }
  result.op_result = cqes[head & *cq_mask].res;
  result.completed = true;
  cq_head->store(head + 1, std::memory_order_release);
  if (result.op_result >= 0) ::close(result.op_result);
}

}  // namespace

SocketResult socket_through_ring(int domain, int type, int protocol) {
  SocketResult result;
  io_uring_params p{};
  long raw = ::syscall(__NR_io_uring_setup, 4, &p);
  if (raw < 0) {
    result.setup_err = errno;
    return result;
  }
  UniqueFd ring(static_cast<int>(raw));

  Mapping sq, cq, sqes;
  sq.size = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
  cq.size = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
  const bool single = p.features & IORING_FEAT_SINGLE_MMAP;
  if (single) sq.size = cq.size = std::max(sq.size, cq.size);
  sq.addr = ::mmap(nullptr, sq.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring.get(), IORING_OFF_SQ_RING);
  if (sq.addr == MAP_FAILED) {
    result.detail = "mmap sq ring: " + errno_name(errno);
    return result;
  }
  void* cq_base = sq.addr;
  if (!single) {
    cq.addr = ::mmap(nullptr, cq.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring.get(),
                     IORING_OFF_CQ_RING);
    if (cq.addr == MAP_FAILED) {
      result.detail = "mmap cq ring: " + errno_name(errno);
      return result;
    }
    cq_base = cq.addr;
  }
  sqes.size = p.sq_entries * sizeof(io_uring_sqe);
  sqes.addr = ::mmap(nullptr, sqes.size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring.get(),
                     IORING_OFF_SQES);
  if (sqes.addr == MAP_FAILED) {
    result.detail = "mmap sqes: " + errno_name(errno);
    return result;
  }

  queue_socket_op(sqes.addr, sq.addr, p, domain, type, protocol);
  long entered = ::syscall(__NR_io_uring_enter, ring.get(), 1, 1, IORING_ENTER_GETEVENTS, nullptr, 0);
  if (entered < 0) {
    result.detail = "io_uring_enter: " + errno_name(errno);
    return result;
  }
  take_completion(cq_base, p, result);
  return result;
}

}  // namespace cordon::probe::uring
