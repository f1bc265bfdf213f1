# dissect: build, test and batch runs.
#
#   make            install missing packages, build, run the main job
#   make test       install missing packages, build, run the whole CPU test suite, then
#                   the fuzz targets for FUZZ_SECONDS each (scripts/fuzz.sh)
#   make gpu-test   the GPU-only tests (on a machine with an NVIDIA GPU)
#   make validate   check every spec of the library
#
# Batch runs of the spec library: make -C specs all DEVICE=...

BUILD      ?= build
BUILD_TYPE ?= RelWithDebInfo
WERROR     ?= ON
STATIC     ?= OFF
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=

DISSECT := $(BUILD)/dissect

.PHONY: all main deps configure build test gpu-test validate clean

all: main

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DDISSECT_WERROR=$(WERROR) \
	  -DDISSECT_STATIC_DEPS=$(STATIC) $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# The main job: map the GPU (GPU 0, or the simulated H100-like GPU when there is
# none: the first line of the output says which), after checking the spec library.
TOPOLOGY_OUT ?= topology
main: build
	$(DISSECT) validate specs/ >/dev/null
	$(DISSECT) topology --out $(TOPOLOGY_OUT)

validate: build
	$(DISSECT) validate specs/

# The fuzz targets (fuzz/, libFuzzer with clang) run FUZZ_SECONDS each after the suite.
FUZZ_SECONDS ?= 60
test: build
	ctest --test-dir $(BUILD) -L cpu --output-on-failure
	scripts/fuzz.sh $(FUZZ_SECONDS)

gpu-test: build
	ctest --test-dir $(BUILD) -L gpu --output-on-failure

clean:
	rm -rf $(BUILD)
