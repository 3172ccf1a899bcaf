#include "launcher/cli/cli_catalog.h"

#include "launcher/cli/app_definition.h"

namespace cordon {
namespace {

CliOption option_of(const CLI::Option& opt) {
  CliOption o;
  for (const auto& s : opt.get_snames()) o.names.push_back("-" + s);
  for (const auto& l : opt.get_lnames()) o.names.push_back("--" + l);
  o.positional = o.names.empty();
  if (o.positional) o.names.push_back(opt.get_name(true));
  // A flag takes no value; CLI11 names a value's type (TEXT, INT, ...).
  if (opt.get_type_size_max() > 0) o.value = opt.get_type_name();
  o.description = opt.get_description();
  o.required = opt.get_required();
  return o;
}

void walk(const CLI::App& app, const std::string& path, std::vector<CliCommand>& out) {
  CliCommand command{path, app.get_description(), {}, {}, without_last_newline(app.get_footer())};
  for (const CLI::Option* opt : app.get_options()) command.options.push_back(option_of(*opt));
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  for (const CLI::App* sub : subs) command.subcommands.push_back(sub->get_name());
  out.push_back(std::move(command));
  for (const CLI::App* sub : subs) walk(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
}

}  // namespace

std::vector<CliCommand> cli_catalog() {
  CLI::App app{kCordonDescription, "cordon"};
  Commands commands;
  define_cordon_app(app, commands, "");
  std::vector<CliCommand> out;
  walk(app, "", out);
  return out;
}

}  // namespace cordon
