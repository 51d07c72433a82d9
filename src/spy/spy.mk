# src/spy/spy.mk - witchspy, the exhaustive Valgrind tool, built out of tree
# against the installed Valgrind's static libraries (included by Makefile).
#
#   make spy           build/lib/witch/witchspy-amd64-linux and, next to it,
#                      links to the Valgrind files the core looks for in
#                      $VALGRIND_LIB (vgpreload_core, default.supp)
#   make install-spy   the same under $(PREFIX)/lib/witch

VG_INCDIR ?= $(shell pkg-config --variable=includedir valgrind 2>/dev/null || echo /usr/include/valgrind)
VG_LIBDIR ?= $(shell pkg-config --variable=libdir valgrind 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)/valgrind
# Non-PIE programs fail unless the tool sits at the core's load address.
VG_LOAD_ADDR ?= $(shell pkg-config --variable=valt_load_address valgrind 2>/dev/null || echo 0x58000000)
# Where the system's valgrind keeps its tools and preload objects.
VG_LIBEXEC ?= $(dir $(firstword $(wildcard /usr/libexec/valgrind/vgpreload_core-amd64-linux.so \
	/usr/lib/x86_64-linux-gnu/valgrind/vgpreload_core-amd64-linux.so \
	/usr/lib/valgrind/vgpreload_core-amd64-linux.so /usr/local/libexec/valgrind/vgpreload_core-amd64-linux.so)))

# With the core's parts that need no libc: its profile writer (Makefile).
SPY_SRC = $(wildcard src/spy/*.c) $(CORE_FREE_SRC)
SPY_OBJ = $(SPY_SRC:%.c=$(B)/spy/%.o)
SPY_TOOL = $(B)/lib/witch/witchspy-amd64-linux
SPY_LINKS = $(B)/lib/witch/vgpreload_core-amd64-linux.so $(B)/lib/witch/default.supp

# Valgrind tools have no libc: freestanding code against the VG_() API.
SPY_CFLAGS = -m64 -O2 -g -std=gnu11 -Wall -Wextra $(WERROR) \
	-fno-strict-aliasing -fno-builtin -fno-stack-protector -fomit-frame-pointer -fno-pic -fno-pie \
	-Isrc -isystem $(VG_INCDIR) -DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1

# The core's one opener of ELF files, where this Valgrind has it: the tool
# routes it through debug_files.c (-Wl,--wrap). Without it, the core reads
# detached debug files as it always does.
VG_IMG_OPEN = vgModuleLocal_img_from_local_file
ifneq ($(shell nm -g $(VG_LIBDIR)/libcoregrind-amd64-linux.a 2>/dev/null | grep -c ' T $(VG_IMG_OPEN)$$'),0)
SPY_CFLAGS += -DSPY_WRAP_IMG_OPEN
SPY_WRAP = -Wl,--wrap=$(VG_IMG_OPEN)
endif

$(B)/spy/%.o: %.c src/spy/spy.h
	@mkdir -p $(dir $@)
	$(CC) $(SPY_CFLAGS) -MMD -MP -c $< -o $@

$(SPY_TOOL): $(SPY_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -m64 -o $@ $(SPY_OBJ) -static -nodefaultlibs -nostartfiles -u _start -no-pie \
		-Wl,-Ttext-segment=$(VG_LOAD_ADDR) $(SPY_WRAP) \
		$(VG_LIBDIR)/libcoregrind-amd64-linux.a $(VG_LIBDIR)/libvex-amd64-linux.a -lgcc

$(B)/lib/witch/%.so $(B)/lib/witch/%.supp:
	@mkdir -p $(dir $@)
	@test -e "$(VG_LIBEXEC)$(notdir $@)" || { echo "spy.mk: $(notdir $@) not found (is valgrind installed? set VG_LIBEXEC=DIR/)"; exit 1; }
	ln -sf $(VG_LIBEXEC)$(notdir $@) $@

spy: $(SPY_TOOL) $(SPY_LINKS)

install-spy: spy
	install -d $(DESTDIR)$(PREFIX)/lib/witch
	install -m 755 $(SPY_TOOL) $(DESTDIR)$(PREFIX)/lib/witch/witchspy-amd64-linux
	ln -sf $(VG_LIBEXEC)vgpreload_core-amd64-linux.so $(DESTDIR)$(PREFIX)/lib/witch/vgpreload_core-amd64-linux.so
	ln -sf $(VG_LIBEXEC)default.supp $(DESTDIR)$(PREFIX)/lib/witch/default.supp

.PHONY: spy install-spy
