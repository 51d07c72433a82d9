# witch - plain Makefile. `make`, `make check`, `make install PREFIX=DIR`, `make demo`.

PREFIX ?= /usr/local
CC ?= cc
WERROR ?= -Werror
CFLAGS ?= -O2 -g
WFLAGS = -std=gnu11 -Wall -Wextra $(WERROR) -D_GNU_SOURCE
INCS = -Iinclude -Isrc

B = build
# src/core: what the preloaded runtimes share, the perf helpers the CLI
# checks the machine with, and the contract between them; the CLI links
# it with the report library. Its interposers (sigaction, exec*, _exit,
# pthread_create) go whole into each preloaded library, never into the
# archive: from there they would take libc's place in any program that
# links it, and a wrapper no object refers to would be left out silently.
CORE_PRELOAD_SRC = src/core/interpose.c src/core/thread.c
CORE_SRC = $(filter-out $(CORE_PRELOAD_SRC),$(wildcard src/core/*.c))
# Its parts without libc, which witchspy links too (src/spy/spy.mk).
CORE_FREE_SRC = src/core/buildid.c src/core/escape.c src/core/fmt.c src/core/job.c \
	src/core/outname.c src/core/profile.c
RT_SRC = $(wildcard src/runtime/*.c)
REPORT_SRC = $(wildcard src/profile/*.c) $(wildcard src/report/*.c)
CLI_SRC = $(wildcard src/cli/*.c)

CORE_OBJ = $(CORE_SRC:%.c=$(B)/pic/%.o)
CORE_PRELOAD_OBJ = $(CORE_PRELOAD_SRC:%.c=$(B)/pic/%.o)
RT_OBJ = $(RT_SRC:%.c=$(B)/pic/%.o)
REPORT_OBJ = $(REPORT_SRC:%.c=$(B)/obj/%.o)
CLI_OBJ = $(CLI_SRC:%.c=$(B)/obj/%.o)
CORE_LIB = $(B)/libwitchcore.a

RT_LIBS = -lZydis -lunwind -lrt -lpthread -ldl
REPORT_LIBS = -ldw -lelf -lZydis -liberty -lm -lz

UNIT_SRC = $(wildcard tests/unit/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
PROG_SRC = $(filter-out tests/progs/mpi_%.c,$(wildcard tests/progs/*.c examples/*.c))
PROG_BIN = $(patsubst %.c,$(B)/progs/%,$(notdir $(PROG_SRC)))
# MPI ones (mpi_*.c) only where mpicc is installed (scripts/install-deps
# installs Open MPI; their test skips without it).
PROG_MPI = $(patsubst %.c,%,$(notdir $(wildcard tests/progs/mpi_*.c)))
ifneq ($(shell command -v mpicc),)
PROG_BIN += $(PROG_MPI:%=$(B)/progs/%)
endif
# ... and built with MPICH too (NAME-mpich), where it is installed beside.
ifneq ($(shell command -v mpicc.mpich),)
PROG_BIN += $(PROG_MPI:%=$(B)/progs/%-mpich)
endif
# C++ test programs, each also built without debug information (NAME-nodebug).
PROG_CXX_SRC = $(wildcard tests/progs/*.cc)
PROG_BIN += $(patsubst %.cc,$(B)/progs/%,$(notdir $(PROG_CXX_SRC))) \
	$(patsubst %.cc,$(B)/progs/%-nodebug,$(notdir $(PROG_CXX_SRC)))
# Rust ones only where rustc is installed (CI installs none; their test
# skips): each with rustc's default mangling, legacy, and, where rustc
# accepts it (1.59 on), with v0 (NAME-v0).
PROG_RS = $(patsubst %.rs,%,$(notdir $(wildcard tests/progs/*.rs)))
ifneq ($(shell command -v rustc),)
PROG_BIN += $(PROG_RS:%=$(B)/progs/%)
ifneq ($(shell rustc -C symbol-mangling-version=v0 --print sysroot 2>/dev/null),)
PROG_BIN += $(PROG_RS:%=$(B)/progs/%-v0)
endif
endif

all: $(B)/bin/witch $(B)/lib/witch/libwitch.so spy causal

$(B)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(INCS) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(INCS) -MMD -MP -c $< -o $@

$(B)/lib/witch/libwitch.so: $(RT_OBJ) $(CORE_PRELOAD_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(RT_OBJ) $(CORE_PRELOAD_OBJ) $(CORE_LIB) $(RT_LIBS) -Wl,-z,nodelete \
		-Wl,--no-undefined -Wl,-z,now

$(CORE_LIB): $(CORE_OBJ)
	rm -f $@; ar rcs $@ $^

# Without heap.c's free, alloc.c's malloc and sysbuf.c's read and write:
# linked into a unit test they would be the test's own. The core's
# interposers are in, as they are in libwitch.so.
$(B)/libwitchrt.a: $(filter-out %/runtime/heap.o %/runtime/alloc.o %/runtime/sysbuf.o,$(RT_OBJ)) $(CORE_PRELOAD_OBJ)
	rm -f $@; ar rcs $@ $^

$(B)/libwitchreport.a: $(REPORT_OBJ)
	rm -f $@; ar rcs $@ $^

$(B)/bin/witch: $(CLI_OBJ) $(B)/libwitchreport.a $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(CLI_OBJ) $(B)/libwitchreport.a $(CORE_LIB) $(REPORT_LIBS)

# Unit tests link against all three, and the objects a test names below;
# each is one TAP-printing program.
TEST_LIBS = $(B)/libwitchrt.a $(B)/libwitchreport.a $(CORE_LIB)
$(B)/tests/%: tests/unit/%.c $(TEST_LIBS) tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(INCS) -o $@ $< $(filter %.o,$^) \
		-Wl,--start-group $(TEST_LIBS) -Wl,--end-group $(RT_LIBS) $(REPORT_LIBS)

# test_unblocked compiles src/causal/unblocked.c into itself (a time of its own).
$(B)/tests/test_unblocked: src/causal/unblocked.c src/causal/causal.h
# test_causal_lines tests the CLI's line table for witch causal.
$(B)/tests/test_causal_lines: $(addprefix $(B)/obj/src/cli/,causal_lines.o code_pieces.o \
	progress_places.o visit_starts.o code_flow.o elf_code.o)
# test_code_flow tests the CLI's control flow graphs of machine code.
$(B)/tests/test_code_flow: $(B)/obj/src/cli/code_flow.o
# test_visit_starts tests where --progress counts, on such graphs.
$(B)/tests/test_visit_starts: $(B)/obj/src/cli/visit_starts.o $(B)/obj/src/cli/code_flow.o

# Test and example programs: optimised, with debug info, as users build.
$(B)/progs/%: tests/progs/%.c $(wildcard tests/progs/*.h)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $< -lpthread -lunwind -lm

$(B)/progs/mpi_%: tests/progs/mpi_%.c $(wildcard tests/progs/*.h)
	@mkdir -p $(dir $@)
	mpicc -O2 -g -o $@ $<

$(B)/progs/mpi_%-mpich: tests/progs/mpi_%.c $(wildcard tests/progs/*.h)
	@mkdir -p $(dir $@)
	mpicc.mpich -O2 -g -o $@ $<

# C++ ones as users build them, and without -g: where names come from the
# symbol table instead of DWARF.
$(B)/progs/%: tests/progs/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -g -o $@ $<

$(B)/progs/%-nodebug: tests/progs/%.cc
	@mkdir -p $(dir $@)
	$(CXX) -O2 -o $@ $<

# Rust ones as users build them (-O is opt-level 2, -g debuginfo 2); the
# legacy mangling is the default: naming it needs -Z unstable-options.
# Without make's MAKEFLAGS rustc does not look for a jobserver it is not
# given.
RUSTC = MAKEFLAGS= rustc
$(B)/progs/%: tests/progs/%.rs
	@mkdir -p $(dir $@)
	$(RUSTC) -O -g -o $@ $<

$(B)/progs/%-v0: tests/progs/%.rs
	@mkdir -p $(dir $@)
	$(RUSTC) -O -g -C symbol-mangling-version=v0 -o $@ $<

$(B)/progs/%: examples/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $< -lpthread

$(B)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -o $@ $<

progs: $(PROG_BIN)
unit: $(UNIT_BIN)

# The unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/asan/tests/%)
sanitize:
	$(MAKE) B=$(B)/asan CFLAGS="-O1 -g $(SAN)" unit

# libFuzzer on the profile reader, merging and metrics (tests/e2e/40-fuzz.t runs it).
FUZZ_SRC = src/profile/reader.c src/core/escape.c src/report/err.c src/report/merge.c src/report/metrics.c src/report/grow.c \
	src/report/map.c src/report/tools.c src/report/loop_merge.c src/report/loop_rank.c \
	src/report/loop_thresholds.c src/report/share_merge.c src/report/ranks.c
$(B)/fuzz/fuzz_reader: tests/fuzz/fuzz_reader.c $(FUZZ_SRC)
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(INCS) \
		-D_GNU_SOURCE -o $@ $^ -lm
# ... and on the causal profile reader, analysis and renderers (53-causal-fuzz.t).
$(B)/fuzz/fuzz_causal: tests/fuzz/fuzz_causal.c $(REPORT_SRC) src/core/escape.c src/core/buildid.c \
	src/core/outname.c src/core/fmt.c src/core/job.c
	@mkdir -p $(dir $@)
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all $(INCS) \
		-D_GNU_SOURCE -o $@ $^ $(REPORT_LIBS)
fuzz: $(B)/fuzz/fuzz_reader $(B)/fuzz/fuzz_causal

# The build and the tests use every core: the suite must stay under 10
# minutes. Tests run as many at once as there are cores, as each
# statistical test must pass with the other core busy; those that need
# every core to themselves (E2E_ALONE) run after the others, one at a time.
E2E_ALONE = tests/e2e/50-causal-runtime.t
check: deps
	$(MAKE) -j$$(nproc) all unit progs sanitize fuzz $(B)/bench/measure $(B)/bench/sampler-cost \
		$(B)/tools/png_ink
	prove -f --timer -j$$(nproc) --exec '' $(UNIT_BIN) $(SAN_BIN) $(filter-out $(E2E_ALONE),$(wildcard tests/e2e/*.t))
	prove -f --timer --exec '' $(E2E_ALONE)

install: all install-spy install-causal
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/witch
	install -m 755 $(B)/bin/witch $(DESTDIR)$(PREFIX)/bin/witch
	install -m 755 $(B)/lib/witch/libwitch.so $(DESTDIR)$(PREFIX)/lib/witch/libwitch.so

deps:
	@./scripts/install-deps

demo: deps
	$(MAKE) all progs
	@# witch record needs debug registers that fire, or page protection
	@# (see witch doctor); where neither works, the demo shows witch spy.
	@if $(B)/bin/witch doctor >/dev/null 2>&1; then \
		$(B)/bin/witch record --craft=dead -o $(B)/demo -- $(B)/progs/demo; \
	else \
		echo "make demo: witch record cannot run on this machine (witch doctor says why); running witch spy --tool=dead instead, on 200 frames"; \
		$(B)/bin/witch spy --tool=dead -o $(B)/demo -- $(B)/progs/demo 200; \
	fi
	$(B)/bin/witch report $(B)/demo
	$(B)/bin/witch report --format=html -o $(B)/demo/report.html $(B)/demo
	@echo "make demo: the same report as a page to open in a browser: $(B)/demo/report.html"

clean:
	rm -rf $(B)

.PHONY: all check install deps demo clean progs unit sanitize fuzz

include src/spy/spy.mk
include src/report/html/html.mk
-include src/causal/causal.mk

-include $(shell find $(B) -name '*.d' 2>/dev/null)
