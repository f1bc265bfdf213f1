#pragma once
// The kernel templates' parameter-table structs, compiled by the host from the
// templates themselves: one definition for NVRTC and the host, so the two cannot
// drift apart. With DISSECT_ABI_ONLY defined a template shows only its structs and
// constants, plain C types with their template names (kernels_templates/common.cuh
// says how). This header defines it for the rest of the translation unit and brings
// in what every launch uses (dissect_array_ref, the batched fill's descriptor); a
// family file then includes its own template:
//
//   #include "engine/device/cuda/template_abi.hpp"
//   #include "kernels_templates/pchase.cuh"   // dissect_pchase_point, dissect_chaser
#ifndef DISSECT_ABI_ONLY
#define DISSECT_ABI_ONLY 1
#endif
#include "kernels_templates/common.cuh"
#include "kernels_templates/scatter.cuh"
