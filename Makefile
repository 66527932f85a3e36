# myModule: build, install, test and benchmark.
#   make all     install what is missing, build, install the module, run the demo
#   make lib     libvectoradd.a (nvcc -rdc=true, device-linked, archived)
#   make test    the C test program, then pytest
#   make bench   the side-by-side benchmark (on a GPU machine)
#   make clean
# Overridable: CUDA_PATH, CUDA_ARCH (e.g. CUDA_ARCH=90 or CUDA_ARCH="80 90"),
# PYTHON, dbg=1 (debug build).

CUDA_PATH ?= /usr/local/cuda
PYTHON ?= python3
CUDA_ARCH ?= 75 80 86 87 88 89 90
dbg ?= 0

NVCC := $(CUDA_PATH)/bin/nvcc
comma := ,
ARCHES := $(sort $(subst $(comma), ,$(CUDA_ARCH)))
NEWEST := $(lastword $(ARCHES))
GENCODE := $(foreach a,$(ARCHES),-gencode=arch=compute_$(a),code=sm_$(a)) \
           -gencode=arch=compute_$(NEWEST),code=compute_$(NEWEST)
ARCH_TAG := $(subst $(eval) ,_,$(ARCHES))

ifeq ($(dbg),1)
  OPT := -O0 -g -lineinfo
  BUILD_KIND := debug
else
  OPT := -O3 -lineinfo
  BUILD_KIND := release
endif

HOST_WARNINGS := -Wall,-Wextra,-Werror
NVCCFLAGS := -std=c++17 $(OPT) $(GENCODE) -rdc=true -Xcompiler -fPIC,$(HOST_WARNINGS) \
             --Werror all-warnings -IvectorAdd

BUILD := build/$(BUILD_KIND)-sm_$(ARCH_TAG)
LIB_SOURCES := $(wildcard vectorAdd/*.cu)
LIB_HEADERS := $(wildcard vectorAdd/*.cuh vectorAdd/*.h)
LIB_OBJECTS := $(patsubst vectorAdd/%.cu,$(BUILD)/%.o,$(LIB_SOURCES))
LIBRARY := $(BUILD)/libvectoradd.a

CXX_TEST_FLAGS := -O2 -Wall -Wextra -Werror -IvectorAdd
LINK_CUDA := -L$(CUDA_PATH)/lib64 -lcudart_static -ldl -lrt -lpthread

export CUDA_PATH CUDA_ARCH dbg

.PHONY: all deps lib build install demo test test-c test-py bench clean sanitize asan
.DEFAULT_GOAL := all

all: deps install demo

deps:
	$(PYTHON) scripts/ensure_deps.py

lib: $(LIBRARY)
	@cp $(LIBRARY) build/libvectoradd.a
	@echo "built build/libvectoradd.a for sm_$(ARCH_TAG)"

$(BUILD)/%.o: vectorAdd/%.cu $(LIB_HEADERS) | $(BUILD)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

$(BUILD)/device_link.o: $(LIB_OBJECTS)
	$(NVCC) $(GENCODE) -Xcompiler -fPIC -dlink $^ -o $@

$(LIBRARY): $(LIB_OBJECTS) $(BUILD)/device_link.o
	rm -f $@
	ar rcs $@ $^

$(BUILD):
	mkdir -p $@

# The extension, in place, linked by g++ (LDSHARED from scripts/configure.py).
build: lib
	$(PYTHON) setup.py -q build_ext --inplace

install: lib
	$(PYTHON) -m pip install --no-build-isolation --no-deps . -q

demo:
	cd /tmp && $(PYTHON) -m myModule

$(BUILD)/test_c: tests/test.c $(LIBRARY)
	g++ -x c++ $(CXX_TEST_FLAGS) tests/test.c -x none $(LIBRARY) $(LINK_CUDA) -o $@

test-c: $(BUILD)/test_c
	$(BUILD)/test_c

test-py: build
	$(PYTHON) -m pytest -q tests

# The C program first, then pytest (one after the other, even under -j).
test: deps
	$(MAKE) lib
	$(MAKE) test-c
	$(MAKE) test-py

bench: build
	$(PYTHON) bench/run.py

clean:
	rm -rf build *.so myModule/*.so myModule/__pycache__ tests/__pycache__ *.egg-info .pytest_cache
