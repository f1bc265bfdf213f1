#pragma once
// The proof of what ran, for the bundle: a compiled kernel's generated source, PTX,
// SASS (disassembled once and kept in the compile cache), compiler log, and what it
// was built from and with.
#include "engine/codegen/codegen.hpp"
#include "engine/codegen/compile_cache.hpp"
#include "engine/device/device.hpp"

namespace dissect {

// Reads the PTX and log of a cached kernel from the cache (they are left out of the
// lookup on the launch path) and the SASS (bin.sass, else the cache's), disassembling it
// once if neither has it.
KernelArtifact kernel_artifact(const GeneratedKernel& gen, CompiledKernel& bin, CompileCache& cache, int arch,
                               int registers, std::uint32_t static_shared_bytes);

// Disassembles a freshly compiled kernel (cuobjdump: about half a second) into bin.sass
// and the compile cache, so that a compile ahead of need on a worker also takes the
// disassembly off the run's path (the artifact of every new kernel needs it).
void disassemble_ahead(CompiledKernel& bin, const CompileCache& cache) noexcept;

// Lines of the SASS that load memory (evidence of which instruction ran), at most 64.
std::vector<std::string> sass_load_lines(const std::string& sass);

}  // namespace dissect
