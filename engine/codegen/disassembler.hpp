#pragma once
// SASS of a CUBIN, through cuobjdump (or nvdisasm) when one is installed
// ($DISSECT_CUOBJDUMP, PATH, /usr/local/cuda/bin). The SASS shows whether the
// requested load survived ptxas (e.g. LDG.E.STRONG.GPU for .cv, LDG.E.CONSTANT
// for .nc); it is evidence kept in the bundle, never required to run.
#include <string>

namespace dissect {

// The tool used, or "" when none is found.
std::string find_disassembler();
// SASS text, or "" (with `why` set) when no tool is available or it failed.
std::string disassemble_cubin(const std::string& cubin, std::string* why = nullptr);

}  // namespace dissect
