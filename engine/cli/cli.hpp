#pragma once
// The dissect command line: thin glue over spec loading, devices, the runner,
// bundles and analyzers. One file per verb.
#include <string>
#include <vector>

#include "engine/findings/finding.hpp"

namespace dissect::cli {

// Exit statuses (documented in `dissect --help`).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;      // a run failed, or an expectation did not hold
inline constexpr int kExitInvalid = 2;      // invalid spec, trace, bundle or command line
inline constexpr int kExitInterrupted = 130;

using Args = std::vector<std::string>;  // arguments after the verb

int cmd_validate(const Args& args);
int cmd_run(const Args& args, const std::vector<std::string>& full_argv);
int cmd_list(const Args& args);
int cmd_analyze(const Args& args);
int cmd_report(const Args& args);
int cmd_topology(const Args& args, const std::vector<std::string>& full_argv);
int cmd_export(const Args& args);
int cmd_compare(const Args& args);

// Shared helpers (cli_common.cpp).
std::vector<std::string> expand_spec_arguments(const std::vector<std::string>& paths);  // dirs -> *.yaml
bool is_device_profile_file(const std::string& path);
std::string version_line();
// Prints findings as a table (humans) or one JSON object per line (--json).
void print_findings(const std::vector<Finding>& findings, bool json);
// Parses "a.b=c" options (--set, --param). Throws std::invalid_argument.
std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& option);

}  // namespace dissect::cli
