// The rtnetlink requests: dumps, lookups and changes, built on Socket::transact.
#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <linux/if.h>

#include <cstddef>

#include "common/ipv4.h"
#include "common/netlink.h"
#include "common/netlink_internal.h"

namespace cordon::netlink {

using namespace detail;

namespace {

Route parse_route(const nlmsghdr* nlh) {
  const auto* rm = static_cast<const rtmsg*>(mnl_nlmsg_get_payload(nlh));
  Attrs a = parse_attrs(nlh, sizeof(rtmsg));
  Route r;
  r.family = rm->rtm_family;
  r.type = rm->rtm_type;
  r.scope = rm->rtm_scope;
  r.protocol = rm->rtm_protocol;
  r.table = a.at[RTA_TABLE] ? u32_of(a.at[RTA_TABLE]) : rm->rtm_table;
  r.flags = rm->rtm_flags;
  r.dst_len = rm->rtm_dst_len;
  if (r.family == AF_INET) {
    r.dst = ipv4_of(a.at[RTA_DST]);
    r.gateway = ipv4_of(a.at[RTA_GATEWAY]);
  }
  r.oif = static_cast<int>(u32_of(a.at[RTA_OIF]));
  r.priority = u32_of(a.at[RTA_PRIORITY]);
  r.dst_text = address_text(r.family, a.at[RTA_DST]) + "/" + std::to_string(r.dst_len);
  // A next hop the jail never creates: describe it so a read-back mismatch is visible.
  for (int attr : {RTA_MULTIPATH, RTA_VIA, RTA_ENCAP, RTA_NH_ID})
    if (a.at[attr]) r.dst_text += " +nexthop-attr" + std::to_string(attr);
  return r;
}

// Fills the fixed rtmsg + attributes of a route request.
void put_route(nlmsghdr* nlh, const Route& route) {
  auto* rm = static_cast<rtmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(rtmsg)));
  rm->rtm_family = route.family;
  rm->rtm_dst_len = route.dst_len;
  rm->rtm_table = static_cast<uint8_t>(route.table < 256 ? route.table : RT_TABLE_UNSPEC);
  rm->rtm_protocol = route.protocol;
  rm->rtm_scope = route.scope;
  rm->rtm_type = route.type;
  rm->rtm_flags = route.flags;
  mnl_attr_put_u32(nlh, RTA_TABLE, route.table);
  if (route.family == AF_INET && route.dst_len > 0) {
    uint32_t dst = htonl(route.dst);
    mnl_attr_put(nlh, RTA_DST, 4, &dst);
  }
  if (route.gateway) {
    uint32_t gw = htonl(route.gateway);
    mnl_attr_put(nlh, RTA_GATEWAY, 4, &gw);
  }
  if (route.oif) mnl_attr_put_u32(nlh, RTA_OIF, static_cast<uint32_t>(route.oif));
  if (route.priority) mnl_attr_put_u32(nlh, RTA_PRIORITY, route.priority);
}

}  // namespace

// dump() sets the family through the first byte of whichever fixed header it sends.
static_assert(offsetof(rtmsg, rtm_family) == 0 && offsetof(ifaddrmsg, ifa_family) == 0 &&
              offsetof(fib_rule_hdr, family) == 0 && offsetof(ifinfomsg, ifi_family) == 0);

std::vector<std::string> Socket::dump(uint16_t request, uint16_t reply_type, size_t header_size, uint8_t family,
                                      const std::string& what) {
  alignas(nlmsghdr) char buffer[kRequestSize] = {};
  nlmsghdr* nlh = mnl_nlmsg_put_header(buffer);
  nlh->nlmsg_type = request;
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  static_cast<uint8_t*>(mnl_nlmsg_put_extra_header(nlh, header_size))[0] = family;
  Reply reply = transact(nlh, what);
  check(reply.error, reply.message, what);
  std::vector<std::string> out;
  for (auto& m : reply.messages)
    if (reinterpret_cast<const nlmsghdr*>(m.data())->nlmsg_type == reply_type) out.push_back(std::move(m));
  return out;
}

std::vector<Route> Socket::routes(uint8_t family) {
  std::vector<Route> out;
  for (const auto& m : dump(RTM_GETROUTE, RTM_NEWROUTE, sizeof(rtmsg), family, "route dump")) {
    Route r = parse_route(reinterpret_cast<const nlmsghdr*>(m.data()));
    if (r.family == family && !(r.flags & RTM_F_CLONED)) out.push_back(r);
  }
  return out;
}

std::vector<Address> Socket::addresses(uint8_t family) {
  std::vector<Address> out;
  for (const auto& m : dump(RTM_GETADDR, RTM_NEWADDR, sizeof(ifaddrmsg), family, "address dump")) {
    const auto* msg = reinterpret_cast<const nlmsghdr*>(m.data());
    const auto* ifa = static_cast<const ifaddrmsg*>(mnl_nlmsg_get_payload(msg));
    if (ifa->ifa_family != family) continue;
    Attrs a = parse_attrs(msg, sizeof(ifaddrmsg));
    Address addr;
    addr.family = ifa->ifa_family;
    addr.ifindex = static_cast<int>(ifa->ifa_index);
    addr.prefix_len = ifa->ifa_prefixlen;
    addr.scope = ifa->ifa_scope;
    const nlattr* local = a.at[IFA_LOCAL] ? a.at[IFA_LOCAL] : a.at[IFA_ADDRESS];
    if (family == AF_INET) {
      addr.local = ipv4_of(local);
      addr.peer = a.at[IFA_ADDRESS] ? ipv4_of(a.at[IFA_ADDRESS]) : addr.local;
    }
    addr.text = address_text(family, local) + "/" + std::to_string(addr.prefix_len);
    out.push_back(addr);
  }
  return out;
}

std::vector<Rule> Socket::rules(uint8_t family) {
  std::vector<Rule> out;
  for (const auto& m : dump(RTM_GETRULE, RTM_NEWRULE, sizeof(fib_rule_hdr), family, "rule dump")) {
    const auto* msg = reinterpret_cast<const nlmsghdr*>(m.data());
    const auto* hdr = static_cast<const fib_rule_hdr*>(mnl_nlmsg_get_payload(msg));
    Attrs a = parse_attrs(msg, sizeof(fib_rule_hdr));
    Rule rule;
    rule.family = hdr->family;
    rule.action = hdr->action;
    rule.table = a.at[FRA_TABLE] ? u32_of(a.at[FRA_TABLE]) : hdr->table;
    rule.priority = u32_of(a.at[FRA_PRIORITY]);
    rule.src_len = hdr->src_len;
    rule.dst_len = hdr->dst_len;
    // Everything but the table, priority, originator and the default "suppress nothing"
    // narrows or redirects the rule.
    int neutral = (a.at[FRA_TABLE] != nullptr) + (a.at[FRA_PRIORITY] != nullptr) + (a.at[FRA_PROTOCOL] != nullptr) +
                  (a.at[FRA_SUPPRESS_PREFIXLEN] && u32_of(a.at[FRA_SUPPRESS_PREFIXLEN]) == 0xffffffffu);
    rule.selectors = a.count - neutral + (hdr->tos != 0) + ((hdr->flags & FIB_RULE_INVERT) != 0);
    out.push_back(rule);
  }
  return out;
}

std::vector<Link> Socket::links() {
  std::vector<Link> out;
  for (const auto& m : dump(RTM_GETLINK, RTM_NEWLINK, sizeof(ifinfomsg), AF_UNSPEC, "link dump")) {
    const auto* msg = reinterpret_cast<const nlmsghdr*>(m.data());
    const auto* info = static_cast<const ifinfomsg*>(mnl_nlmsg_get_payload(msg));
    Attrs a = parse_attrs(msg, sizeof(ifinfomsg));
    Link link;
    link.index = info->ifi_index;
    link.flags = info->ifi_flags;
    if (a.at[IFLA_IFNAME] && mnl_attr_validate(a.at[IFLA_IFNAME], MNL_TYPE_NUL_STRING) >= 0)
      link.name = mnl_attr_get_str(a.at[IFLA_IFNAME]);
    out.push_back(link);
  }
  return out;
}

Lookup Socket::lookup(uint32_t destination) {
  alignas(nlmsghdr) char buffer[kRequestSize] = {};
  rtmsg* rm;
  nlmsghdr* nlh = start(buffer, RTM_GETROUTE, NLM_F_ACK, &rm);
  rm->rtm_family = AF_INET;
  rm->rtm_dst_len = 32;
  rm->rtm_flags = RTM_F_LOOKUP_TABLE;
  uint32_t dst = htonl(destination);
  mnl_attr_put(nlh, RTA_DST, 4, &dst);
  Reply reply = transact(nlh, "route lookup " + ipv4_to_string(destination));
  Lookup result;
  result.error = reply.error;
  result.message = reply.message;
  switch (reply.error) {
    case 0: break;
    case EINVAL: result.type = RTN_BLACKHOLE; return result;
    case EHOSTUNREACH: result.type = RTN_UNREACHABLE; return result;
    case EACCES: result.type = RTN_PROHIBIT; return result;
    default: return result;  // ENETUNREACH: no route at all
  }
  for (const auto& m : reply.messages) {
    const auto* msg = reinterpret_cast<const nlmsghdr*>(m.data());
    if (msg->nlmsg_type != RTM_NEWROUTE) continue;
    Route r = parse_route(msg);
    result.type = r.type;
    result.gateway = r.gateway;
    result.oif = r.oif;
    result.table = r.table;
  }
  return result;
}

void Socket::add_route(const Route& route) {
  alignas(nlmsghdr) char buffer[kRequestSize] = {};
  nlmsghdr* nlh = mnl_nlmsg_put_header(buffer);
  nlh->nlmsg_type = RTM_NEWROUTE;
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
  put_route(nlh, route);
  std::string what = "add route " + route.describe();
  Reply reply = transact(nlh, what);
  check(reply.error, reply.message, what);
}

void Socket::delete_route(const Route& route) {
  alignas(nlmsghdr) char buffer[kRequestSize] = {};
  nlmsghdr* nlh = mnl_nlmsg_put_header(buffer);
  nlh->nlmsg_type = RTM_DELROUTE;
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  put_route(nlh, route);
  std::string what = "delete route " + route.describe();
  Reply reply = transact(nlh, what);
  check(reply.error, reply.message, what);
}

void Socket::set_link_up(int ifindex) {
  alignas(nlmsghdr) char buffer[kRequestSize] = {};
  ifinfomsg* ifm;
  nlmsghdr* nlh = start(buffer, RTM_NEWLINK, NLM_F_ACK, &ifm);
  ifm->ifi_family = AF_UNSPEC;
  ifm->ifi_index = ifindex;
  ifm->ifi_flags = IFF_UP;
  ifm->ifi_change = IFF_UP;
  std::string what = "set link " + std::to_string(ifindex) + " up";
  Reply reply = transact(nlh, what);
  check(reply.error, reply.message, what);
}

}  // namespace cordon::netlink
