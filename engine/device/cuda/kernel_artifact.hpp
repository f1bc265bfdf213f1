#pragma once
// The proof of what ran, for the bundle: a compiled kernel's generated source, PTX,
// SASS (disassembled once and kept in the compile cache), compiler log, and what it
// was built from and with.
#include "engine/codegen/codegen.hpp"
#include "engine/codegen/compile_cache.hpp"
#include "engine/device/device.hpp"

namespace dissect {

// Reads the PTX and log of a cached kernel from the cache (they are left out of the
// lookup on the launch path) and the SASS (sass_of).
KernelArtifact kernel_artifact(const GeneratedKernel& gen, CompiledKernel& bin, CompileCache& cache, int arch,
                               int registers, std::uint32_t static_shared_bytes);

// The SASS of a compiled kernel: the compile cache's, else disassembled now (cuobjdump,
// about half a second) and kept in the cache; "" with `why` set when that fails.
std::string sass_of(const CompiledKernel& bin, const CompileCache& cache, std::string* why = nullptr);


// Lines of the SASS that load memory (evidence of which instruction ran), at most 64.
std::vector<std::string> sass_load_lines(const std::string& sass);

}  // namespace dissect
