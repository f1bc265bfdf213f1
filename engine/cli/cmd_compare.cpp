#include <boost/program_options.hpp>
#include <iostream>

#include "engine/cli/cli.hpp"
#include "engine/cli/parse_options.hpp"
#include "engine/core/files.hpp"
#include "engine/topology/topology_compare.hpp"
#include "engine/topology/topology_file.hpp"

namespace dissect::cli {
namespace po = boost::program_options;

int cmd_compare(const Args& args) {
  po::options_description opts(
      "Usage: dissect compare A B [C ...] [options]\n\n"
      "Shows topologies (output directories of 'dissect topology', or topology.json files) side by\n"
      "side: every figure of each, its tolerance and a verdict. Inputs from the same GPU (the name the\n"
      "device reported) are repeat runs: shown as stable when their spread stays within the tolerance.\n"
      "Between GPUs a difference is flagged when it exceeds the tolerance (a size search's step from its\n"
      "spec's resolution, at least the stride; latencies 1 %, bandwidths 2 %, other figures exact) and\n"
      "either GPU's spread over its runs (docs/compare.md).\n\n"
      "Exit status: 0 compared, 2 bad arguments or an unreadable topology.\n\nOptions");
  std::vector<std::string> inputs, labels;
  std::string out;
  bool json_out = false, markdown = false;
  opts.add_options()("help,h", "this text")("json", po::bool_switch(&json_out), "the comparison as JSON (for scripts)")(
      "markdown", po::bool_switch(&markdown), "a Markdown table instead of the terminal's columns")(
      "out,o", po::value(&out), "write to this file instead of stdout")(
      "label", po::value(&labels)->composing(), "a column's name, once per input in order (default: from the paths)");
  po::options_description hidden;
  hidden.add_options()("input", po::value(&inputs)->composing());
  po::positional_options_description pos;
  pos.add("input", -1);
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  if (const auto done = parse_options("compare", args, opts, vm, &all, &pos)) return *done;
  if (inputs.size() < 2) {
    std::cerr << "dissect compare: give at least two topologies\n" << opts << "\n";
    return kExitInvalid;
  }
  if (!labels.empty() && labels.size() != inputs.size()) {
    std::cerr << "dissect compare: " << labels.size() << " --label for " << inputs.size() << " inputs\n";
    return kExitInvalid;
  }
  if (json_out && markdown) {
    std::cerr << "dissect compare: --json and --markdown exclude each other\n";
    return kExitInvalid;
  }
  std::vector<TopologyFile> files;
  const auto defaults = default_labels(inputs);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    try {
      files.push_back(read_topology_file(inputs[i]));
    } catch (const std::exception& e) {
      std::cerr << "dissect compare: " << e.what() << "\n";
      return kExitInvalid;
    }
    files.back().label = labels.empty() ? defaults[i] : labels[i];
  }
  const Comparison c = compare_topologies(std::move(files));
  const std::string text =
      json_out ? comparison_json(c).dump(2) + "\n" : markdown ? comparison_markdown(c) : comparison_text(c);
  if (out.empty()) {
    std::cout << text;
    return kExitOk;
  }
  try {
    write_file_atomic(out, text, false);
  } catch (const std::exception& e) {
    std::cerr << "dissect compare: " << e.what() << "\n";
    return kExitInvalid;
  }
  return kExitOk;
}

}  // namespace dissect::cli
