# dissect: build, test and batch runs.
#
#   make            install missing packages, build, run the main job
#   make test       install missing packages, build, run the whole CPU test suite
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

# The main job: validate the whole spec library (every sweep point is decoded).
main: build
	$(DISSECT) validate specs/

validate: build
	$(DISSECT) validate specs/

test: build
	ctest --test-dir $(BUILD) -L cpu --output-on-failure

gpu-test: build
	ctest --test-dir $(BUILD) -L gpu --output-on-failure

clean:
	rm -rf $(BUILD)
