# myModule: build, install, test and benchmark.
#   make all     install what is missing, build, install the module, run the demo
#   make lib     libvectoradd.a (whole-program device code per file, archived)
#   make build   lib + the extension in place (import from the repository root)
#   make test    the C test program, then pytest (a GPU required where nvidia-smi lists one)
#   make wheel   a binary wheel in dist/ (auditwheel-repaired, manylinux)
#   make docs    the HTML user guide and API reference (Sphinx) in build/docs/html
#   make doctest the examples of the docstrings and of the docs
#   make bench   the side-by-side benchmark (on a GPU machine)
#   make clean
# Overridable: CUDA_PATH, CUDA_ARCH (e.g. CUDA_ARCH=90 or CUDA_ARCH="80 90"),
# PYTHON, VENV, dbg=1 (debug build), V=1 (whole compiler commands).

CUDA_PATH ?= /usr/local/cuda
PYTHON ?= python3
VENV ?= .venv

# A Python that refuses global installs (PEP 668: Debian's and Ubuntu's system
# Python) gets a virtual environment in $(VENV), made by `make deps` when missing;
# everything else then runs in it. Any other Python is used as it is.
ifeq ($(shell $(PYTHON) scripts/externally_managed.py 2>/dev/null),yes)
  BASE_PYTHON := $(PYTHON)
  override PYTHON := $(CURDIR)/$(VENV)/bin/python
endif
# Machine code for every GPU CUDA 13.0's nvcc lists, Turing to Blackwell, plus PTX of
# the newest for GPUs after it: what `make wheel` builds, and every target where no GPU
# is listed. A cubin runs on its own compute capability and every later minor one of
# the same major, so one architecture of each major covers the rest (sm_80's code runs
# on sm_86 to sm_89, sm_100's on sm_103, sm_120's on sm_121): six, not the twelve nvcc
# lists, since the eleven dtypes of 0.2.0 made each image 2.5-3.4 MB compressed
# (twelve would be about 40 MB, past issue 26's 25 MB; bench/NOTES.md, "Session 16").
# sm_110 (Jetson Thor, DRIVE Thor) is only ever beside an Arm CPU, so an x86-64
# build leaves it out: with it the x86-64 wheel measured 27.5 MB (session 17).
# Elsewhere a build is for the GPUs nvidia-smi lists (their compute capabilities),
# several times faster. A caller's CUDA_ARCH wins: make build CUDA_ARCH=90.
ALL_ARCHS := 75 80 90 100 120 $(if $(filter aarch64 arm64,$(shell uname -m)),110)
ifeq ($(origin CUDA_ARCH),undefined)
  ifneq ($(filter wheel,$(MAKECMDGOALS)),)
    CUDA_ARCH := $(ALL_ARCHS)
  else
    PRESENT_ARCHS := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d '. ' | grep -E '^[0-9]+$$' | sort -nu)
    CUDA_ARCH := $(if $(PRESENT_ARCHS),$(PRESENT_ARCHS),$(ALL_ARCHS))
  endif
endif
# Sub-makes ($(MAKE) lib from wheel and test) build what this one decided.
export CUDA_ARCH
dbg ?= 0
LINEINFO ?= 0

NVCC := $(CUDA_PATH)/bin/nvcc
comma := ,
# Numeric order (make's sort is lexical: 100 would sort before 75).
ARCHES := $(shell printf '%s\n' $(subst $(comma), ,$(CUDA_ARCH)) | sort -nu)
NEWEST := $(lastword $(ARCHES))
# DEVICE_CODE=link-only (the sanitizer build in CI, where no GPU runs it): PTX of
# the newest architecture at cicc -O0 and no machine code, which is all the host
# code needs to compile and link; about a third of the device compile time.
DEVICE_CODE ?= machine
ifeq ($(DEVICE_CODE),link-only)
  GENCODE := -gencode=arch=compute_$(NEWEST),code=compute_$(NEWEST) -Xcicc -O0
else
  GENCODE := $(foreach a,$(ARCHES),-gencode=arch=compute_$(a),code=sm_$(a)) \
             -gencode=arch=compute_$(NEWEST),code=compute_$(NEWEST)
endif
ARCH_TAG := $(subst $(eval) ,_,$(ARCHES))
# Fat binaries compressed for size (twelve architectures of machine code).
COMPRESS ?= size
# Architectures compiled at once inside one nvcc (0: as many as the CPUs), so
# the one large unit of operations does not build one architecture at a time.
NVCC_THREADS ?= 0

ifeq ($(dbg),1)
  OPT := -O0 -g -lineinfo
  BUILD_KIND := debug
else
  # Line tables more than double the machine code's size (sm_90: 1.99 MB of
  # operations against 0.87 MB), so a release build leaves them out; LINEINFO=1
  # keeps them for compute-sanitizer and Nsight reports (make sanitize LINEINFO=1).
  OPT := -O3 $(if $(filter 1,$(LINEINFO)),-lineinfo)
  BUILD_KIND := release$(if $(filter 1,$(LINEINFO)),-lineinfo)
endif

# SANITIZE=address,undefined builds the host code with those sanitizers (make asan).
SANITIZE ?=
ifeq ($(DEVICE_CODE),link-only)
  BUILD_KIND := $(BUILD_KIND)-linkonly
endif
ifneq ($(SANITIZE),)
  SAN_FLAGS := $(foreach s,$(subst $(comma), ,$(SANITIZE)),-fsanitize=$(s)) \
               -fno-omit-frame-pointer -fno-sanitize-recover=all
  BUILD_KIND := $(BUILD_KIND)-san
endif

HOST_WARNINGS := -Wall,-Wextra,-Werror
NVCCFLAGS := -std=c++17 $(OPT) $(GENCODE) --compress-mode=$(COMPRESS) --threads $(NVCC_THREADS) -Xcompiler -fPIC,$(HOST_WARNINGS) \
             --Werror all-warnings -IvectorAdd $(foreach f,$(SAN_FLAGS),-Xcompiler $(f)) \
             -DVA_BUILT_ARCHS='"$(ARCHES)"'

# OP_BUNDLES is part of the folder's name: switching it (or going back) reuses
# what was built with that split instead of rebuilding every operation.
OP_BUNDLES ?= 1
BUILD := build/$(BUILD_KIND)-sm_$(ARCH_TAG)$(if $(filter-out 1,$(OP_BUNDLES)),-bundles$(OP_BUNDLES))
# module_main.cu is not part of the library: it is shipped in the package's
# include folder and compiled into each operation library (myModule.load).
LIB_SOURCES := $(filter-out vectorAdd/module_main.cu,$(wildcard vectorAdd/*.cu))
LIB_HEADERS := $(wildcard vectorAdd/*.cuh vectorAdd/*.h)
LIB_OBJECTS := $(patsubst vectorAdd/%.cu,$(BUILD)/%.o,$(LIB_SOURCES))
# The operations: one file each, built-in (ops/) and the user's (user_ops/).
# Their kernels are compiled (below); each file of ops/ is read once more by
# op_table.cu (its row of the table) through the generated op_list.inc, and
# each of user_ops/ once more on its own (its row, in a unit of its own: a
# user's names never meet another file's), listed in user_rows.inc.
OP_SOURCES := $(sort $(wildcard ops/*.cu))
# The built-in operations are compiled as one translation unit including all of
# ops/: a fat binary is compressed per file, and the kernels of all operations
# compress 2.7 times better together than one file at a time (sm_90: 0.76 MB
# of machine code against 2.06 MB), which is most of the wheel's size. While
# iterating on one operation, OP_BUNDLES=8 splits them into 8 smaller units. A
# user's file (user_ops/) is compiled on its own: its names are its own.
BUILTIN_OPS := $(sort $(wildcard ops/*.cu))
USER_OPS := $(sort $(wildcard user_ops/*.cu))
BUNDLE_SOURCES := $(foreach k,$(shell seq 0 $$(($(OP_BUNDLES) - 1))),$(BUILD)/gen/ops_bundle_$(k).cu)
# Each bundle is compiled once per dtype part (vectorAdd/op_types.cuh,
# type_part): three CUDA modules, the second and third loaded only when one of
# their dtypes is first used, and three units that build side by side.
TYPE_PARTS := 0 1 2
OP_OBJECTS := $(foreach p,$(TYPE_PARTS),$(BUNDLE_SOURCES:.cu=.types$(p).o)) $(patsubst %.cu,$(BUILD)/%.o,$(USER_OPS)) \
              $(patsubst %.cu,$(BUILD)/%.row.o,$(USER_OPS))
OP_LIST := $(BUILD)/gen/op_list.inc
USER_ROWS := $(BUILD)/gen/user_rows.inc
# A user's file keeps its warnings as warnings (reported against it): the
# library's own -Werror is left out of its flags.
USER_NVCCFLAGS := $(subst --Werror all-warnings,,$(subst $(HOST_WARNINGS),-Wall$(comma)-Wextra,$(NVCCFLAGS)))
# The function returning a user file's row: va_user_row_<file name as an identifier>.
user_row_fn = va_user_row_$(shell printf '%s' '$(basename $(notdir $(1)))' | tr -c 'A-Za-z0-9_' '_')
LIBRARY := $(BUILD)/libvectoradd.a

CXX_TEST_FLAGS := -O2 -Wall -Wextra -Werror -IvectorAdd $(SAN_FLAGS)
LINK_CUDA := -L$(CUDA_PATH)/lib64 -lcudart_static -ldl -lrt -lpthread

export CUDA_PATH CUDA_ARCH OP_BUNDLES dbg SANITIZE LINEINFO

.PHONY: all deps lib build install wheel test-wheel test-example docs doctest demo test test-c test-py bench clean sanitize asan FORCE
.DEFAULT_GOAL := all

all: deps install demo

deps:
ifdef BASE_PYTHON
	@if [ ! -x $(PYTHON) ]; then \
	    echo "$(BASE_PYTHON) refuses global installs (PEP 668): creating a virtual environment in $(VENV)"; \
	    $(BASE_PYTHON) -m venv $(VENV) || { echo "error: could not create $(VENV); on Debian/Ubuntu: apt-get install python3-venv" >&2; exit 1; }; \
	fi
	@echo "using the virtual environment $(VENV) ($(BASE_PYTHON) is externally managed); activate it with: . $(VENV)/bin/activate"
endif
	$(PYTHON) scripts/ensure_deps.py

# Copied only when it differs, so that the extension is relinked exactly when
# the library changed (also when going back to an architecture built before).
lib: $(LIBRARY)
	@cmp -s $(LIBRARY) build/libvectoradd.a || cp $(LIBRARY) build/libvectoradd.a
	@echo "built build/libvectoradd.a for sm_$(ARCH_TAG)"

# One line a file, so that a build of many architectures (minutes) shows progress;
# V=1 prints the whole command.
V ?= 0
ifeq ($(V),1)
  Q :=
else
  Q := @
endif

$(BUILD)/%.o: vectorAdd/%.cu $(LIB_HEADERS) | $(BUILD)
	@echo "  NVCC  $< (sm_$(ARCH_TAG))"
	$(Q)$(NVCC) $(NVCCFLAGS) -c $< -o $@

.SECONDARY: $(BUNDLE_SOURCES)
# Bundle k holds every OP_BUNDLES-th file of ops/ from the k-th; rewritten only
# when that share changes.
$(BUILD)/gen/ops_bundle_%.cu: FORCE | $(BUILD)
	@mkdir -p $(dir $@)
	@printf '%s\n' $(BUILTIN_OPS) | awk -v n=$(OP_BUNDLES) -v k=$* \
	    '(NR - 1) % n == k { printf "#include \"%s\"\n", $$0 }' > $@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi

define compile_bundle
	@echo "  NVCC  ops/, share $* of $(OP_BUNDLES), dtype part $(1): $$(grep -c include $<) operations (sm_$(ARCH_TAG))"
	$(Q)$(NVCC) $(NVCCFLAGS) -I. -DVA_TYPE_PART=$(1) -c $< -o $@
endef
$(BUILD)/gen/ops_bundle_%.types0.o: $(BUILD)/gen/ops_bundle_%.cu $(BUILTIN_OPS) $(LIB_HEADERS)
	$(call compile_bundle,0)
$(BUILD)/gen/ops_bundle_%.types1.o: $(BUILD)/gen/ops_bundle_%.cu $(BUILTIN_OPS) $(LIB_HEADERS)
	$(call compile_bundle,1)
$(BUILD)/gen/ops_bundle_%.types2.o: $(BUILD)/gen/ops_bundle_%.cu $(BUILTIN_OPS) $(LIB_HEADERS)
	$(call compile_bundle,2)

$(BUILD)/user_ops/%.o: user_ops/%.cu $(LIB_HEADERS) | $(BUILD)
	@mkdir -p $(dir $@)
	@echo "  NVCC  $< (sm_$(ARCH_TAG))"
	$(Q)$(NVCC) $(USER_NVCCFLAGS) -c $< -o $@

# The row's unit reads the file for its row alone: the kernels it defines are
# compiled (and warned about) in the file's own unit, so "declared but never
# referenced" (177) says nothing here.
$(BUILD)/user_ops/%.row.o: user_ops/%.cu $(LIB_HEADERS) | $(BUILD)
	@mkdir -p $(dir $@)
	@echo "  NVCC  $< (its row)"
	$(Q)$(NVCC) $(USER_NVCCFLAGS) -diag-suppress 177 -DVA_OP_TABLE -DVA_USER_ROW=$(call user_row_fn,$<) -c $< -o $@

# Rewritten only when the set of user_ops/ files changes.
$(USER_ROWS): FORCE | $(BUILD)
	@mkdir -p $(dir $@)
	@: > $@.new
	@$(foreach f,$(USER_OPS),echo 'VA_USER_ROW_ENTRY($(call user_row_fn,$(f)))' >> $@.new;)
	@if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi

# Rewritten only when the set of operation files changes.
$(OP_LIST): FORCE | $(BUILD)
	@mkdir -p $(dir $@)
	@printf '#include "%s"\n' $(OP_SOURCES) > $@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi

$(BUILD)/op_table.o: vectorAdd/op_table.cu $(OP_LIST) $(USER_ROWS) $(OP_SOURCES) $(LIB_HEADERS) | $(BUILD)
	@echo "  NVCC  $< (sm_$(ARCH_TAG))"
	$(Q)$(NVCC) $(NVCCFLAGS) -I. -I$(dir $(OP_LIST)) -c $< -o $@

# No -rdc: no device code is shared between files (kernels are templates in
# headers), and relocatable device code would put every kernel in the module a
# second time (an __nv_relfatbin section beside the linked one: 2.8x its size).
$(LIBRARY): $(LIB_OBJECTS) $(OP_OBJECTS)
	rm -f $@
	ar rcs $@ $^

$(BUILD):
	mkdir -p $@

# The extension, in place, linked by g++ (LDSHARED from scripts/configure.py).
build: lib
	$(PYTHON) setup.py -q build_ext --inplace --parallel 2

# Installed into $(PYTHON)'s environment, and built in place too: from the
# repository root `import myModule` finds the source folder first, which then
# holds the extension as well.
install: build
	$(PYTHON) -m pip install --no-build-isolation --no-deps . -q
	@echo "installed myModule into $$($(PYTHON) -c 'import sys; print(sys.prefix)')"

# A binary wheel: CUDA runtime linked statically (only the driver's libcuda.so.1
# is needed at run time), machine code for $(CUDA_ARCH), repaired and tagged by
# auditwheel (manylinux). The result lands in dist/.
WHEEL_RAW := build/wheel-raw
PYTAG = $(shell $(PYTHON) -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
wheel: deps
	$(PYTHON) scripts/ensure_deps.py --wheel
	rm -rf $(WHEEL_RAW) build/lib.* build/bdist.* dist/[mM]y[mM]odule-*-$(PYTAG)-$(PYTAG)-*.whl
	$(MAKE) lib
	$(PYTHON) -m pip wheel --no-build-isolation --no-deps -w $(WHEEL_RAW) .
	PATH="$$($(PYTHON) -c 'import sysconfig; print(sysconfig.get_path("scripts"))'):$$PATH" \
	    $(PYTHON) -m auditwheel repair --strip -w dist $(WHEEL_RAW)/*.whl
	$(PYTHON) scripts/wheel_report.py --dist dist --expect "$(ARCHES)"

# The wheel as a user gets it: a fresh virtual environment, pip install --no-index,
# nothing else on PATH, the test suite against the installed package from outside
# the source tree (scripts/test_wheel.sh says how it works offline).
WHEEL_VENV := build/wheel-venv
WHEEL_PYTEST_ARGS ?= -q
test-wheel:
	scripts/test_wheel.sh $(PYTHON) $(WHEEL_VENV) $(WHEEL_PYTEST_ARGS)

# A user's package shipping its own operation (examples/softplus_project), built,
# installed beside the wheel and tested (after test-wheel, whose environment it uses).
test-example:
	scripts/test_example.sh $(PYTHON) $(WHEEL_VENV)

# The user guide and API reference (Sphinx, numpydoc); a warning fails the build.
docs: build
	$(PYTHON) scripts/ensure_deps.py --docs
	$(PYTHON) scripts/optable_docs.py docs/operations.md
	$(PYTHON) -m sphinx -W --keep-going -q -b html docs build/docs/html
	$(PYTHON) scripts/check_links.py build/docs/html
	@echo "the HTML reference: build/docs/html/index.html"

# The examples of the docstrings and of docs/*.rst (GPU ones skipped, with the
# reason, where there is no GPU).
doctest: build
	$(PYTHON) -m pytest -q tests/test_doctests.py

demo:
	cd /tmp && $(PYTHON) -m myModule

$(BUILD)/test_c: tests/test.c $(LIBRARY)
	g++ -x c++ $(CXX_TEST_FLAGS) tests/test.c -x none $(LIBRARY) $(LINK_CUDA) -o $@

# Where nvidia-smi lists a GPU, the tests require one (MYMODULE_REQUIRE_GPU=1): a
# GPU test that would skip fails instead, so the library's own cuda_available()
# cannot turn the GPU suite into skips. A setting of the caller's wins
# (MYMODULE_REQUIRE_GPU=0 make test); nvidia-smi is asked only when it is unset.
ifeq ($(origin MYMODULE_REQUIRE_GPU),undefined)
  MYMODULE_REQUIRE_GPU := $(shell nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]' && echo 1 || echo 0)
endif
export MYMODULE_REQUIRE_GPU

test-c: $(BUILD)/test_c
	@echo "MYMODULE_REQUIRE_GPU=$(MYMODULE_REQUIRE_GPU)"
	$(BUILD)/test_c

test-py: build
	@echo "MYMODULE_REQUIRE_GPU=$(MYMODULE_REQUIRE_GPU)"
	$(PYTHON) -m pytest -q tests

# The C program first, then pytest (one after the other, even under -j).
test: deps
	$(MAKE) lib
	$(MAKE) test-c
	$(MAKE) test-py

bench: build
	$(PYTHON) bench/run.py
	$(PYTHON) bench/load_bench.py

# The host code (C library host side, the extension, tests/test.c) under
# AddressSanitizer and UBSan, then the C tests and the CPU test suite. The
# sanitized extension is built into build/asan/ so the normal build is untouched.
ASAN_LIB = $(shell g++ -print-file-name=libasan.so)
UBSAN_LIB = $(shell g++ -print-file-name=libubsan.so)
ASAN_ENV = ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# ASAN_PYTEST narrows the pytest run (files and options), e.g. ASAN_PYTEST="-x tests/test_hostile.py".
ASAN_PYTEST ?= $(CURDIR)/tests
asan:
	$(MAKE) lib SANITIZE=address,undefined
	$(MAKE) test-c SANITIZE=address,undefined
	# The package's Python side as its build declares it (pyproject: packages and
	# package-data), subpackages included, beside the sanitized extension.
	rm -rf build/asan && $(PYTHON) setup.py -q build_py --build-lib build/asan
	SANITIZE=address,undefined $(PYTHON) setup.py -q build_ext --build-lib build/asan --build-temp build/asan-tmp
	cd build/asan && $(ASAN_ENV) LD_PRELOAD="$(ASAN_LIB) $(UBSAN_LIB)" \
	    MYMODULE_TESTS_ROOT=$(CURDIR)/build/asan $(PYTHON) -m pytest -q -p no:cacheprovider $(ASAN_PYTEST)

# compute-sanitizer's four tools over the C tests and every pytest file that
# touches the GPU, in quick mode (MYMODULE_TEST_QUICK=1: fewer repetitions and
# examples), with the library's caches off (MYMODULE_NO_POOL=1) so every
# allocation is visible. One checker run per tool and file; the log goes to
# bench/results/sanitize.log. Narrow it with SAN_TOOLS= and SAN_PYTEST=, e.g.
#   make sanitize CUDA_ARCH=90 LINEINFO=1 SAN_TOOLS=memcheck SAN_PYTEST=tests/test_interop.py
# (LINEINFO=1: reports name the source line of a kernel fault)
SAN_TOOLS ?= memcheck racecheck initcheck synccheck
# Every test file except those that never reach a GPU (test_no_gpu.py hides it,
# test_tutorial.py has no GPU code).
SAN_PYTEST ?= $(filter-out tests/test_no_gpu.py tests/test_tutorial.py,$(sort $(wildcard tests/test_*.py)))
# Left to the plain GPU run: the 2^31-element and 10,000-call tests (hours under
# the checkers), the deliberate sticky fault and out-of-memory tests (the
# checkers report the fault and the failed allocations they provoke, by design),
# and resident-memory flatness (the checkers' own bookkeeping grows it).
# GIL-release timings and the GIL measurement they rest on (the checkers slow
# every call, and sixteen of them load every core) too, and `python -m myModule`'s
# self-check (a child process timing every operation: over 8 minutes under
# racecheck, and its kernels are the ones the other files check).
SAN_PYTEST_ARGS ?= -k "not past_2_31 and not returns_to_start and not sticky_fault and not out_of_memory and not rss and not release_the_gil and not gil_measurement and not self_check"
SAN_LOG ?= bench/results/sanitize.log
# One checker run per (tool, file) pair, SAN_JOBS at once (scripts/sanitize.sh):
# the checkers are bound by the host's cores, not the GPU. SANITIZER,
# SAN_API_ERRORS, SAN_SHARDS and SAN_TIMEOUT are the script's own settings (its
# header gives their defaults); set on make's command line, they reach it.
SAN_JOBS ?= $(shell echo $$(( ($$(nproc) + 1) / 2 )))
sanitize: $(BUILD)/test_c build
	scripts/sanitize.sh $(SAN_LOG) $(SAN_JOBS) $(BUILD)/test_c $(PYTHON) "$(SAN_TOOLS)" "$(SAN_PYTEST)" $(SAN_PYTEST_ARGS)

clean:
	rm -rf build dist *.so myModule/*.so myModule/__pycache__ tests/__pycache__ *.egg-info .pytest_cache
