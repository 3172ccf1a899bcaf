#include "common/ipv4.h"

#include <arpa/inet.h>

namespace cordon {
namespace {
uint32_t mask_for(int length) { return length == 0 ? 0 : ~uint32_t{0} << (32 - length); }
}  // namespace

bool Ipv4Prefix::contains(uint32_t a) const { return (a & mask_for(length)) == address; }

bool Ipv4Prefix::overlaps(const Ipv4Prefix& other) const {
  int shorter = length < other.length ? length : other.length;
  return (address & mask_for(shorter)) == (other.address & mask_for(shorter));
}

Ipv4Prefix ipv4_subnet_of(uint32_t a, int length) { return {a & mask_for(length), length}; }

std::string Ipv4Prefix::str() const { return ipv4_to_string(address) + "/" + std::to_string(length); }

std::optional<uint32_t> parse_ipv4_address(const std::string& text, std::string* problem) {
  in_addr addr{};
  if (inet_pton(AF_INET, text.c_str(), &addr) != 1) {
    if (problem) *problem = "not an IPv4 address (a.b.c.d)";
    return std::nullopt;
  }
  return ntohl(addr.s_addr);
}

uint32_t ipv4_or_zero(const std::string& text) { return parse_ipv4_address(text, nullptr).value_or(0); }

std::optional<Ipv4Prefix> parse_ipv4_cidr(const std::string& text, std::string* problem) {
  auto slash = text.find('/');
  auto address = parse_ipv4_address(text.substr(0, slash), problem);
  if (!address) return std::nullopt;
  int length = 32;
  if (slash != std::string::npos) {
    std::string digits = text.substr(slash + 1);
    bool ok = !digits.empty() && digits.size() <= 2;
    for (char c : digits) ok = ok && c >= '0' && c <= '9';
    if (ok) length = std::stoi(digits);
    if (!ok || length > 32) {
      if (problem) *problem = "prefix length must be 0..32";
      return std::nullopt;
    }
  }
  if ((*address & ~mask_for(length)) != 0) {
    if (problem)
      *problem = "host bits set (did you mean " + ipv4_to_string(*address & mask_for(length)) + "/" +
                 std::to_string(length) + "?)";
    return std::nullopt;
  }
  return Ipv4Prefix{*address, length};
}

std::string ipv4_to_string(uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." + std::to_string((a >> 8) & 255) + "." +
         std::to_string(a & 255);
}

}  // namespace cordon
