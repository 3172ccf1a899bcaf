// A minimal io_uring client (no liburing): set up a ring and submit one IORING_OP_SOCKET.
// Operations submitted through a ring never pass through the syscall filter, which is why a
// sandbox must refuse io_uring_setup itself.
#pragma once

#include <string>

namespace cordon::probe::uring {

struct SetupResult {
  int fd = -1;  // ring descriptor, or -1
  int err = 0;  // errno of io_uring_setup
};
// io_uring_setup(entries); the caller closes fd.
SetupResult setup(unsigned entries);

struct SocketResult {
  int setup_err = 0;  // io_uring_setup failed with this errno (0: ring created)
  int op_result = 0;  // the completion's res: a descriptor (>= 0) or -errno
  bool completed = false;
  std::string detail;  // what went wrong in between (mmap, enter), if anything
};
// Creates a socket through the ring and closes it again.
SocketResult socket_through_ring(int domain, int type, int protocol);

}  // namespace cordon::probe::uring
