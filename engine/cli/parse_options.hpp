#pragma once
// Every verb parses its options the same way: Boost.Program_options, errors and
// --help answered alike (`dissect VERB: what` and the option list on stderr,
// exit 2; --help: the option list on stdout, exit 0).
#include <boost/program_options.hpp>
#include <optional>

#include "engine/cli/cli.hpp"

namespace dissect::cli {

// Parses args into vm. `visible` is what --help and errors show; `all` (if not
// null) adds hidden options such as positional arguments. Returns the exit
// status when the verb is done (an error, or --help answered), else nullopt.
std::optional<int> parse_options(const char* verb, const Args& args,
                                 const boost::program_options::options_description& visible,
                                 boost::program_options::variables_map& vm,
                                 const boost::program_options::options_description* all = nullptr,
                                 const boost::program_options::positional_options_description* positional = nullptr);

}  // namespace dissect::cli
