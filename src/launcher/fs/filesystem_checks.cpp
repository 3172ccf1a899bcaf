#include "launcher/fs/filesystem_checks.h"

#include "common/credential_files.h"
#include "common/error.h"
#include "common/paths.h"
#include "launcher/fs/mounts.h"

namespace cordon {
namespace {

// A profile's home entry is bound read-write where it really is: a link to /etc, the home
// itself or cordon's directories would make those writable.
void validate_home_entries(const AgentProfile& profile, const HostFacts& f, const std::vector<ProtectedPath>& list) {
  for (const auto& entry : profile.home) {
    const std::string path = f.home + "/" + entry;
    if (!f.exists(path)) continue;
    const std::string real = resolved_or_same(f.real_home_entries, path);
    // The home itself under another name (a bind, the same inode) is refused by identity in
    // why_not_writable_anywhere; `real == f.home` names the plain case plainly.
    if (std::string why = why_not_writable_anywhere(real, f, list); !why.empty() || real == f.home)
      throw Error("agent \"" + profile.name + "\" home entry " + path + " resolves to " + real + ", which " +
                      (why.empty() ? "is $HOME" : why) + ": the sandbox could write there",
                  "make " + path + " a directory or file of its own, not a link to it");
  }
}

// A control entry must be bound read-only or be harmless where it is missing: missing in a
// state directory the sandbox writes, the agent could create it (a hook, a command) and it
// would run outside cordon; behind a link there, the link could have been planted.
void validate_control_entries(const AgentProfile& profile, const HostFacts& f) {
  for (const auto& entry : profile.control) {
    const std::string path = f.home + "/" + entry;
    auto it = f.control_entries.find(path);
    const ControlEntryFact fact = it == f.control_entries.end() ? ControlEntryFact{} : it->second;
    if (!fact.link.empty())
      throw Error("agent \"" + profile.name + "\" control entry " + path + " goes through the symbolic link " +
                      fact.link +
                      ", in a directory the sandbox can write: cordon binds control entries read-only "
                      "and follows no link there (a session could have planted it to expose another file)",
                  "replace the link by what it points to (cp -a --remove-destination \"$(readlink -f " + fact.link +
                      ")\" " + fact.link + "), or remove it if you did not make it");
    const std::string state = state_entry_holding(profile, entry);
    if (fact.source.empty() && !state.empty() && f.exists(f.home + "/" + state))
      throw Error("agent \"" + profile.name + "\" control entry " + path +
                      " does not exist and could not be made: the sandbox could create it in " + f.home + "/" + state +
                      ", and it would run outside cordon",
                  "create it yourself (an empty file or directory of that name), or fix the permissions of " + f.home +
                      "/" + state);
  }
}

// A cache is bound read-write from cordon's store: over an entry the profile keeps, protects
// or masks, or over the way to the workspace, it would replace or unprotect it. These are
// mount destinations in the sandbox's own tree (a fresh tmpfs home), where a name is the
// identity: what the host has at that name does not matter, its source is cordon's store.
void validate_caches(const HomeConfig& config, const ConfigSource& source, const AgentProfile& profile,
                     const HostFacts& f) {
  std::vector<std::string> taken = profile.home;
  taken.insert(taken.end(), profile.control.begin(), profile.control.end());
  taken.insert(taken.end(), config.keep_read_only.begin(), config.keep_read_only.end());
  for (const auto& m : home_masked_files()) taken.push_back(m);
  for (size_t i = 0; i < config.caches.size(); ++i) {
    const std::string& cache = config.caches[i];
    const std::string path = f.home + "/" + cache;
    for (const auto& entry : taken)
      if (path_within(path, f.home + "/" + entry) || path_within(f.home + "/" + entry, path))
        throw source.error(
            "home.caches", i,
            "cache " + cache + " overlaps the home entry " + entry + ", which the profile keeps, protects or masks",
            "remove it from home.caches in " + source.file);
    if (path_within(f.workspace, path))
      throw source.error("home.caches", i, "cache " + cache + " holds the workspace " + f.workspace,
                         "remove it from home.caches in " + source.file);
  }
}

// Whether `path` lies in `writable` under one of its other names (a bind mount elsewhere).
bool lies_in_another_name(const std::string& path, const std::string& writable, const HostFacts& f) {
  auto names = f.path_names.find(writable);
  if (names == f.path_names.end()) return false;
  for (const auto& name : names->second.names)
    if (path_within(path, name)) return true;
  return false;
}

// A mask inside something the sandbox writes cannot hold across sessions: the agent can
// rename the masked file's parent, and the next session's mask covers nothing.
void validate_masks(const FilesystemConfig& config, const ConfigSource& source, const HostFacts& f) {
  std::vector<std::string> writable = {f.workspace};
  for (const auto& w : config.writable) writable.push_back(resolved_or_same(f.real_writable, w));
  for (size_t i = 0; i < config.masks.size(); ++i) {
    for (const auto& w : writable)
      if (path_within(config.masks[i], w) || lies_in_another_name(config.masks[i], w, f))
        throw source.error("filesystem.masks", i,
                           "mask " + config.masks[i] + " lies in " + w +
                               ", which the sandbox can write: renaming its parent would defeat the mask",
                           "keep that secret outside the workspace and the writable paths, or use another workspace");
  }
}

// Each writable path exists, is nothing the sandbox may not write (symlinks resolved) and
// holds no newline.
void validate_writable(const FilesystemConfig& config, const ConfigSource& source, const HostFacts& f,
                       const std::vector<ProtectedPath>& protected_list) {
  for (size_t i = 0; i < config.writable.size(); ++i) {
    const std::string& path = config.writable[i];
    if (!f.exists(path))
      throw source.error("filesystem.writable", i, "writable path " + path + " does not exist",
                         "create it or remove it from " + source.file);
    auto resolved = f.real_writable.find(path);
    const std::string& real = resolved != f.real_writable.end() && !resolved->second.empty() ? resolved->second : path;
    if (std::string why = why_not_writable_anywhere(real, f, protected_list); !why.empty())
      throw source.error("filesystem.writable", i,
                         "writable path " + path + " " + why + ": the sandbox could write there",
                         "remove it from filesystem.writable in " + source.file);
    if (path.find('\n') != std::string::npos)
      throw source.error("filesystem.writable", i, "writable path contains a newline: refusing it",
                         "rename the directory");
  }
}

}  // namespace

void refuse_unsafe_filesystem(const FilesystemConfig& config, const HomeConfig& home, const ConfigSource& source,
                              const AgentProfile& profile, const HostFacts& f,
                              const std::vector<ProtectedPath>& protected_list) {
  validate_writable(config, source, f, protected_list);
  validate_home_entries(profile, f, protected_list);
  validate_control_entries(profile, f);
  validate_caches(home, source, profile, f);
  validate_masks(config, source, f);
  for (size_t i = 0; i < config.read.size(); ++i) {
    if (config.view == RootView::System && !f.exists(config.read[i]))
      throw source.error("filesystem.read", i, "read-only path " + config.read[i] + " does not exist",
                         "create it or remove it from " + source.file);
    // The sandbox's home is a fresh tmpfs holding only the profile's entries: a read path in the
    // home would be covered by it, and the launch would fail later, in bwrap.
    if (config.view == RootView::System && !f.home.empty() && f.home != "/" && config.read[i] != f.home &&
        path_within(config.read[i], f.home))
      throw source.error("filesystem.read", i,
                         "read-only path " + config.read[i] + " lies in your home " + f.home +
                             ", which the sandbox sees only as the agent profile's entries",
                         "list it relative to the home in home.keep (\"" + config.read[i].substr(f.home.size() + 1) +
                             "\") instead of filesystem.read, in " + source.file);
  }
  if (!f.exists(mask_source(f)))
    throw Error("cordon's mask file " + mask_source(f) + " is missing",
                "reinstall cordon (cmake --install); masks bind this empty read-only file");
  // An operator-configured binary must exist; a shipped profile's default only when it runs.
  const std::string binary_key = "agents." + profile.name + ".binary";
  if (!profile.binary.empty() && !f.exists(profile.binary))
    throw source.error(binary_key, {}, "agent \"" + profile.name + "\" binary " + profile.binary + " does not exist",
                       "install the agent, or fix " + binary_key + " in " + source.file);
}

}  // namespace cordon
