#include "launcher/fs/control_file_place.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "common/error.h"

namespace cordon {
namespace {

const char* kind_name(ControlFilePlace::Kind kind) {
  switch (kind) {
    case ControlFilePlace::Kind::File: return "file";
    case ControlFilePlace::Kind::Link: return "link";
    case ControlFilePlace::Kind::Other: return "other";
    case ControlFilePlace::Kind::Absent: break;
  }
  return "absent";
}

std::string node_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device node";
  return "not a regular file";
}

// The regular file `path` leads to through every link, or "".
std::string regular_file_behind(const std::string& path) {
  char real[PATH_MAX];
  if (::realpath(path.c_str(), real) == nullptr) return "";
  struct stat st {};
  return ::stat(real, &st) == 0 && S_ISREG(st.st_mode) ? std::string(real) : "";
}

}  // namespace

ControlFilePlace control_file_place(const std::string& path) {
  ControlFilePlace place;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    // Only "no such file" is absence: a directory on the way the session left without search
    // permission hides what is there, and is said, never taken for nothing.
    if (errno != ENOENT) {
      place.kind = ControlFilePlace::Kind::Other;
      place.other = errno_text("a path cordon could not examine", errno);
    }
    return place;
  }
  if (S_ISREG(st.st_mode)) {
    place.kind = ControlFilePlace::Kind::File;
    place.resolved = path;
  } else if (S_ISLNK(st.st_mode)) {
    place.kind = ControlFilePlace::Kind::Link;
    char target[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), target, sizeof target);
    place.link = n > 0 ? std::string(target, static_cast<size_t>(n)) : "";
    place.resolved = regular_file_behind(path);
  } else {
    place.kind = ControlFilePlace::Kind::Other;
    place.other = node_name(st.st_mode);
  }
  return place;
}

Json place_json(const ControlFilePlace& place) {
  if (place.kind == ControlFilePlace::Kind::Absent) return nullptr;
  return {{"kind", kind_name(place.kind)},
          {"link", bytes_json(place.link)},
          {"resolved", bytes_json(place.resolved)},
          {"other", place.other}};
}

std::optional<ControlFilePlace> place_from_json(const Json& j) {
  if (j.is_null()) return ControlFilePlace{};
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string() || !j.contains("other") ||
      !j["other"].is_string())
    return std::nullopt;
  ControlFilePlace place;
  const std::string kind = j["kind"].get<std::string>();
  if (kind == "file") place.kind = ControlFilePlace::Kind::File;
  else if (kind == "link") place.kind = ControlFilePlace::Kind::Link;
  else if (kind == "other") place.kind = ControlFilePlace::Kind::Other;
  else return std::nullopt;
  try {
    place.link = bytes_from_json(j.at("link"));
    place.resolved = bytes_from_json(j.at("resolved"));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  place.other = j["other"].get<std::string>();
  return place;
}

std::string describe_place(const ControlFilePlace& place) {
  switch (place.kind) {
    case ControlFilePlace::Kind::Absent: return "nothing";
    case ControlFilePlace::Kind::File: return "a file";
    case ControlFilePlace::Kind::Link:
      return "a symbolic link to " + place.link + (place.resolved.empty() ? " (no file behind it)" : "");
    case ControlFilePlace::Kind::Other: break;
  }
  return place.other;
}

std::pair<uid_t, gid_t> directory_owner(const std::string& path) {
  struct stat dir {};
  if (::stat(path.substr(0, path.rfind('/')).c_str(), &dir) != 0) return {::getuid(), ::getgid()};
  return {dir.st_uid, dir.st_gid};
}

std::string remove_planted(const std::string& path, const ControlFilePlace& launch) {
  if (::unlink(path.c_str()) != 0) {
    // unlink(2) never removes a directory (EISDIR): the kernel says which it is.
    if (errno == EISDIR)
      return path + " is a directory the session made; it was left (the agent cannot read a directory as its file)";
    if (errno != ENOENT) return errno_text("remove " + path, errno);
  }
  if (launch.kind != ControlFilePlace::Kind::Link) return "";
  // Made again only when it leads where it led at launch.
  if (::symlink(launch.link.c_str(), path.c_str()) != 0) return errno_text("make the link " + path + " again", errno);
  const auto [uid, gid] = directory_owner(path);
  ::lchown(path.c_str(), uid, gid);
  if (control_file_place(path).resolved == launch.resolved) return "";
  ::unlink(path.c_str());
  return "the link " + path + " to " + launch.link + " now leads elsewhere than at launch; it was not made again";
}

}  // namespace cordon
