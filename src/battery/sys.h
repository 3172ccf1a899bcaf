// Small, allocation-light readers of files, links and directories: the battery's only way of
// looking at the system (it never runs a tool).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

// File reads (read_file), trim and errno names come from common.
#include "common/error.h"
#include "common/text.h"

namespace cordon::battery {

// readlink(2); "" with *err set on failure.
std::string read_link(const std::string& path, int* err = nullptr);
// Entry names without "." and ".."; nullopt with *err when the directory cannot be opened.
std::optional<std::vector<std::string>> list_dir(const std::string& path, int* err = nullptr);
bool exists(const std::string& path);            // lstat succeeds
bool writable(const std::string& path);          // access(W_OK) succeeds
std::string real_path(const std::string& path);  // "" when it does not resolve

// "pid:[4026531836]" -> 4026531836; 0 when not of that shape.
unsigned long long ns_inode(const std::string& link_text);

// The kernel's fixed inode numbers of the initial namespaces (include/linux/proc_ns.h).
inline constexpr unsigned long long kInitIpcIno = 0xEFFFFFFFULL;
inline constexpr unsigned long long kInitUtsIno = 0xEFFFFFFEULL;
inline constexpr unsigned long long kInitUserIno = 0xEFFFFFFDULL;
inline constexpr unsigned long long kInitPidIno = 0xEFFFFFFCULL;

// Up to `max` items joined with ", ", then " and N more".
std::string join_some(const std::vector<std::string>& items, size_t max = 5);

}  // namespace cordon::battery
