#pragma once
// Every verb parses its options the same way: Boost.Program_options, errors and
// --help answered alike (`dissect VERB: what` and the option list on stderr,
// exit 2; --help: the option list on stdout, exit 0).
#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/cli/cli.hpp"

namespace dissect::cli {

// An option as given on the command line: its name (long form, "" for a positional
// argument) and its words ("--out", "dir"), so that a verb can give a re-execution of
// itself the same options (engine/cli/reexec.hpp).
struct ParsedOption {
  std::string key;
  std::vector<std::string> tokens;
};

// Parses args into vm. `visible` is what --help and errors show; `all` (if not
// null) adds hidden options such as positional arguments. Returns the exit
// status when the verb is done (an error, or --help answered), else nullopt. `parsed`
// (if not null) receives the options in the order given.
std::optional<int> parse_options(const char* verb, const Args& args,
                                 const boost::program_options::options_description& visible,
                                 boost::program_options::variables_map& vm,
                                 const boost::program_options::options_description* all = nullptr,
                                 const boost::program_options::positional_options_description* positional = nullptr,
                                 std::vector<ParsedOption>* parsed = nullptr);

// The options that set process-wide switches of a measuring verb (`run`, `topology`):
// --timing N (0, 1: where each GPU run's wall time went, 2: a timeline of its host
// steps) and --no-cache (compile every kernel afresh). add_... adds them to `opts`;
// apply_... sets them from `vm` (after parse_options), or returns the exit status
// of an invalid value.
void add_run_setting_options(boost::program_options::options_description& opts);
std::optional<int> apply_run_setting_options(const char* verb, const boost::program_options::variables_map& vm);

}  // namespace dissect::cli
