// dcw: the headless command line of the Data-Centric Workbench. Everything a user can do by
// clicking in dcw-gui can be done here; links no widgets.
#include "app/cli/Cli.h"
#include "core/support/OpenMpSpin.h"

#include <iostream>

using namespace dcw::cli;

int main(int argc, char** argv) {
  dcw::useModerateOpenMpSpin(); // before a program or oneDNN brings libgomp in (core/support/OpenMpSpin.h)
  CLI::App app{"dcw — the Data-Centric Workbench command line.\nOpens ONNX models as data-centric dataflow graphs (SDFGs).", "dcw"};
  app.set_version_flag("--version", std::string("dcw ") + DCW_VERSION);
  app.require_subcommand(0, 1);
  app.fallthrough(false);
  // Before the subcommands are added, so that each command's help ends with it too (CLI11 copies it).
  app.footer("More: README.md (the ten-minute tour) and docs/ in DCW's source tree; docs/cli.md has every command with examples.");

  std::function<int()> run;
  for (const auto& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    auto fn = c.setup(*sub);
    sub->callback([&run, fn] { run = fn; });
  }
  std::string topic;
  CLI::App* help = app.add_subcommand("help", "Show help for dcw or one of its commands");
  help->add_option("command", topic, "Command to explain");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "error: " << e.what() << "; run 'dcw help' for usage" << std::endl;
    return kExitBadInput;
  }
  if (help->parsed() || app.get_subcommands().empty()) {
    if (!topic.empty()) {
      for (auto* sub : app.get_subcommands({}))
        if (sub->get_name() == topic) {
          std::cout << sub->help("dcw");
          return kExitOk;
        }
      std::cerr << "error: no command '" << topic << "'; run 'dcw help' for the list" << std::endl;
      return kExitBadInput;
    }
    // The top-level help even when `help` itself was the parsed subcommand.
    std::cout << app.get_formatter()->make_help(&app, "dcw", CLI::AppFormatMode::Normal);
    return kExitOk;
  }
  return run ? run() : kExitOk;
}
