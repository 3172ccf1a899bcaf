#include "common/netlink.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "common/ipv4.h"
#include "common/netlink_internal.h"

namespace cordon::netlink {

// The kernel sends dump batches of up to 32 KiB (libmnl 1.0.4 has no MNL_SOCKET_DUMP_SIZE);
// twice that leaves room for any page size.
constexpr size_t kBufferSize = size_t{64} * 1024;
// Bounds every exchange: a kernel that stops answering cannot hang the launcher.
constexpr int kReceiveTimeoutSeconds = 2;
constexpr int kMaxReceives = 10000;

namespace detail {
namespace {

int store_attr(const nlattr* attr, void* data) {
  auto* attrs = static_cast<Attrs*>(data);
  uint16_t type = mnl_attr_get_type(attr);
  if (type < kMaxAttr) attrs->at[type] = attr;
  attrs->count++;
  return MNL_CB_OK;
}

}  // namespace

Attrs parse_attrs(const nlmsghdr* nlh, size_t header_size) {
  Attrs attrs;
  mnl_attr_parse(nlh, static_cast<unsigned>(header_size), store_attr, &attrs);
  return attrs;
}

uint32_t u32_of(const nlattr* attr) { return attr && mnl_attr_get_payload_len(attr) >= 4 ? mnl_attr_get_u32(attr) : 0; }

// IPv4 attribute (network order on the wire) -> host order; 0 when absent or not IPv4.
uint32_t ipv4_of(const nlattr* attr) {
  if (!attr || mnl_attr_get_payload_len(attr) != 4) return 0;
  uint32_t raw;
  std::memcpy(&raw, mnl_attr_get_payload(attr), 4);
  return ntohl(raw);
}

std::string address_text(uint8_t family, const nlattr* attr) {
  if (!attr) return family == AF_INET6 ? "::" : "0.0.0.0";
  char text[INET6_ADDRSTRLEN] = {};
  size_t need = family == AF_INET6 ? 16 : 4;
  if (mnl_attr_get_payload_len(attr) != need) return "?";
  ::inet_ntop(family, mnl_attr_get_payload(attr), text, sizeof text);
  return text;
}

void check(int error, const std::string& message, const std::string& what) {
  if (!error) return;
  std::string text = errno_text("netlink " + what, error);
  if (!message.empty()) text += " (kernel: " + message + ")";
  throw Error(text);
}

}  // namespace detail

namespace {

int ext_ack_text(const nlattr* attr, void* data) {
  if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG && mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
    *static_cast<std::string*>(data) = mnl_attr_get_str(attr);
  return MNL_CB_OK;
}

// The kernel's error text, carried after the error header when NETLINK_EXT_ACK is on.
std::string ext_ack_message(const nlmsghdr* nlh, size_t fixed_size) {
  std::string text;
  if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) mnl_attr_parse(nlh, static_cast<unsigned>(fixed_size), ext_ack_text, &text);
  return text;
}

std::string scope_name(uint8_t scope) {
  switch (scope) {
    case RT_SCOPE_UNIVERSE: return "universe";
    case RT_SCOPE_LINK: return "link";
    case RT_SCOPE_HOST: return "host";
    default: return std::to_string(scope);
  }
}

}  // namespace

std::string route_type_name(uint8_t type) {
  switch (type) {
    case RTN_UNICAST: return "unicast";
    case RTN_LOCAL: return "local";
    case RTN_BROADCAST: return "broadcast";
    case RTN_MULTICAST: return "multicast";
    case RTN_BLACKHOLE: return "blackhole";
    case RTN_UNREACHABLE: return "unreachable";
    case RTN_PROHIBIT: return "prohibit";
    case RTN_THROW: return "throw";
    case RTN_UNSPEC: return "none";
    default: return "type" + std::to_string(type);
  }
}

std::string Route::describe() const {
  std::string text = route_type_name(type) + " " +
                     (dst_text.empty() ? ipv4_to_string(dst) + "/" + std::to_string(dst_len) : dst_text);
  if (gateway) text += " via " + ipv4_to_string(gateway);
  if (oif) text += " dev " + std::to_string(oif);
  if (flags & RTNH_F_ONLINK) text += " onlink";
  text += " scope " + scope_name(scope);
  if (table != RT_TABLE_MAIN) text += " table " + std::to_string(table);
  return text;
}

bool Route::same_as(const Route& o) const {
  return family == o.family && type == o.type && table == o.table && dst == o.dst && dst_len == o.dst_len &&
         gateway == o.gateway && oif == o.oif && scope == o.scope &&
         (flags & RTNH_F_ONLINK) == (o.flags & RTNH_F_ONLINK) &&
         (dst_text.empty() || o.dst_text.empty() || dst_text == o.dst_text);
}

std::string Rule::describe() const {
  return "priority " + std::to_string(priority) + " table " + std::to_string(table) + " action " +
         std::to_string(action) + (src_len || dst_len || selectors ? " with selectors" : "");
}

Socket::Socket() {
  socket_ = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
  if (!socket_) throw Error(errno_text("netlink: socket(NETLINK_ROUTE)", errno));
  if (mnl_socket_bind(socket_, 0, MNL_SOCKET_AUTOPID) < 0) {
    int err = errno;
    mnl_socket_close(socket_);
    throw Error(errno_text("netlink: bind", err));
  }
  port_ = mnl_socket_get_portid(socket_);
  // Extended acks carry the kernel's reason for a refusal; capped acks keep replies small.
  // Kernels before 4.12 lack them: errors then come without text, which is still fail-closed.
  int on = 1;
  mnl_socket_setsockopt(socket_, NETLINK_EXT_ACK, &on, sizeof on);
  mnl_socket_setsockopt(socket_, NETLINK_CAP_ACK, &on, sizeof on);
  timeval timeout{kReceiveTimeoutSeconds, 0};
  ::setsockopt(mnl_socket_get_fd(socket_), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
}

Socket::~Socket() {
  if (socket_) mnl_socket_close(socket_);
}

Socket::Reply Socket::transact(void* request, const std::string& what) {
  auto* nlh = static_cast<nlmsghdr*>(request);
  nlh->nlmsg_seq = ++sequence_;
  if (mnl_socket_sendto(socket_, nlh, nlh->nlmsg_len) < 0) throw Error(errno_text("netlink " + what + ": send", errno));

  Reply reply;
  std::vector<char> buffer(kBufferSize);
  for (int receives = 0; receives < kMaxReceives; ++receives) {
    ssize_t n = mnl_socket_recvfrom(socket_, buffer.data(), buffer.size());
    if (n < 0) {
      int err = errno;
      throw Error(errno_text("netlink " + what + ": receive", err == EAGAIN ? ETIMEDOUT : err));
    }
    int left = static_cast<int>(n);
    for (auto* msg = reinterpret_cast<const nlmsghdr*>(buffer.data()); mnl_nlmsg_ok(msg, left);
         msg = mnl_nlmsg_next(msg, &left)) {
      if (!mnl_nlmsg_seq_ok(msg, sequence_) || !mnl_nlmsg_portid_ok(msg, port_)) continue;
      if (msg->nlmsg_type == NLMSG_ERROR) {
        const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(msg));
        if (mnl_nlmsg_get_payload_len(msg) < sizeof(nlmsgerr)) throw Error("netlink " + what + ": short error message");
        reply.error = -err->error;
        size_t fixed = sizeof(nlmsgerr);
        if (!(msg->nlmsg_flags & NLM_F_CAPPED)) fixed += err->msg.nlmsg_len - sizeof(nlmsghdr);
        if (reply.error) reply.message = ext_ack_message(msg, fixed);
        return reply;
      }
      if (msg->nlmsg_type == NLMSG_DONE) {
        int status = 0;
        if (mnl_nlmsg_get_payload_len(msg) >= sizeof(int))
          std::memcpy(&status, mnl_nlmsg_get_payload(msg), sizeof(int));
        reply.error = status < 0 ? -status : 0;
        if (reply.error) reply.message = ext_ack_message(msg, sizeof(int));
        return reply;
      }
      if (msg->nlmsg_type == NLMSG_OVERRUN) throw Error("netlink " + what + ": overrun");
      if (msg->nlmsg_type < NLMSG_MIN_TYPE) continue;  // NLMSG_NOOP
      reply.messages.emplace_back(reinterpret_cast<const char*>(msg), msg->nlmsg_len);
      // A non-dump reply without an ack request ends with its single message.
      if (!(nlh->nlmsg_flags & (NLM_F_DUMP | NLM_F_ACK))) return reply;
    }
  }
  throw Error("netlink " + what + ": no end of reply after " + std::to_string(kMaxReceives) + " reads");
}

}  // namespace cordon::netlink
