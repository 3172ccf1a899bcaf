// Internal to the netlink client (netlink.cpp, netlink_requests.cpp): attribute parsing and
// request building shared by both halves. Not for other users: include common/netlink.h.
#pragma once

#include <libmnl/libmnl.h>
#include <linux/netlink.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/netlink.h"

namespace cordon::netlink::detail {

constexpr int kMaxAttr = 128;
constexpr size_t kRequestSize = 1024;  // one request: a header and a few attributes

// The attributes of one message, indexed by type (the last of each type wins).
struct Attrs {
  const nlattr* at[kMaxAttr] = {};
  int count = 0;
};

Attrs parse_attrs(const nlmsghdr* nlh, size_t header_size);
uint32_t u32_of(const nlattr* attr);                           // 0 when absent or short
uint32_t ipv4_of(const nlattr* attr);                          // host order; 0 when absent or not IPv4
std::string address_text(uint8_t family, const nlattr* attr);  // "0.0.0.0" / "::" when absent

// Turns a failed reply into an error that names the request and the kernel's reason.
void check(int error, const std::string& message, const std::string& what);

// Starts a request of `type` with its fixed header zeroed in `buffer`.
template <typename Header>
nlmsghdr* start(char* buffer, uint16_t type, uint16_t flags, Header** header) {
  nlmsghdr* nlh = mnl_nlmsg_put_header(buffer);
  nlh->nlmsg_type = type;
  nlh->nlmsg_flags = NLM_F_REQUEST | flags;
  *header = static_cast<Header*>(mnl_nlmsg_put_extra_header(nlh, sizeof(Header)));
  return nlh;
}

}  // namespace cordon::netlink::detail

namespace cordon::netlink {

struct Socket::Reply {
  std::vector<std::string> messages;  // every data message, header included
  int error = 0;                      // errno from the kernel's ack, 0 on success
  std::string message;                // extended-ack text
};

}  // namespace cordon::netlink
