// IPv4 addresses and prefixes as plain values: parsing, validation, containment.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cordon {

struct Ipv4Prefix {
  uint32_t address = 0;  // host byte order, host bits zero
  int length = 32;

  bool contains(uint32_t host_order_address) const;
  bool overlaps(const Ipv4Prefix& other) const;
  std::string str() const;  // "10.0.0.0/8"
  friend bool operator==(const Ipv4Prefix&, const Ipv4Prefix&) = default;
};

// The prefix of `length` bits holding `host_order_address` (host bits cleared): an
// interface address's subnet.
Ipv4Prefix ipv4_subnet_of(uint32_t host_order_address, int length);

// "a.b.c.d" -> host-order address; nullopt with *problem set on error.
std::optional<uint32_t> parse_ipv4_address(const std::string& text, std::string* problem);

// "a.b.c.d" -> host-order address; 0.0.0.0 when `text` is not one. For checks, where a missing
// or malformed address must read as "no address" (0 is never a destination), not stop them.
uint32_t ipv4_or_zero(const std::string& text);

// "a.b.c.d" (a /32) or "a.b.c.d/len" with host bits zero.
std::optional<Ipv4Prefix> parse_ipv4_cidr(const std::string& text, std::string* problem);

std::string ipv4_to_string(uint32_t host_order_address);

}  // namespace cordon
