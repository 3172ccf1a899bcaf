// Writes the man pages and the bash completion at build time (CMakeLists.txt runs it; nothing
// installs it):
//   cordon_man_generator MANDIR COMPLETION CONFIGURATION_MD CORDON_BATTERY CORDON_PROBE
// MANDIR/man1/cordon.1 and the completion script COMPLETION from the command-line definition
// linked into cordon itself, MANDIR/man5/cordon.toml.5 from docs/configuration.md,
// MANDIR/man8/cordon-battery.8 and cordon-probe.8 from what the built helpers print for --help.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "launcher/cli/bash_completion.h"
#include "launcher/cli/cli_catalog.h"
#include "launcher/cli/man_pages.h"
#include "launcher/process/subprocess.h"

namespace {

void write_page(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

std::string read_whole(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string help_of(const std::string& helper) {
  cordon::CapturedRun run = cordon::run_capture({helper, "--help"});
  if (run.exit_code != 0 || run.output.empty())
    throw std::runtime_error(helper + " --help failed (exit " + std::to_string(run.exit_code) + ")");
  return run.output;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: cordon_man_generator MANDIR COMPLETION CONFIGURATION_MD CORDON_BATTERY CORDON_PROBE\n";
    return 64;
  }
  try {
    const std::filesystem::path dir = argv[1];
    const std::vector<cordon::CliCommand> catalog = cordon::cli_catalog();
    write_page(dir / "man1/cordon.1", cordon::cordon_man_page(catalog));
    write_page(argv[2], cordon::bash_completion_script(catalog, cordon::completion_values()));
    write_page(dir / "man5/cordon.toml.5", cordon::config_man_page(read_whole(argv[3])));
    write_page(dir / "man8/cordon-battery.8",
               cordon::helper_man_page("cordon-battery", "check from inside a cordon sandbox that its defences hold",
                                       help_of(argv[4])));
    write_page(
        dir / "man8/cordon-probe.8",
        cordon::helper_man_page("cordon-probe", "attempt breakouts from inside a cordon sandbox", help_of(argv[5])));
  } catch (const std::exception& e) {
    std::cerr << "cordon_man_generator: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
