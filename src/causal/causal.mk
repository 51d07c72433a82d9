# src/causal/causal.mk - libwitchcausal.so, the runtime of `witch causal`
# (docs/causal.md), preloaded into the target (included by the Makefile).
#
#   make causal           build/lib/witch/libwitchcausal.so
#   make install-causal   the same under $(PREFIX)/lib/witch
#
# It shares the perf wrapper and the signal/exec/_exit interposition with
# libwitch.so: src/core, the Makefile's CORE_PRELOAD_OBJ and CORE_LIB.

CAUSAL_SRC = $(wildcard src/causal/*.c)
CAUSAL_OBJ = $(CAUSAL_SRC:%.c=$(B)/causal/%.o)
CAUSAL_LIB = $(B)/lib/witch/libwitchcausal.so

$(B)/causal/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WFLAGS) $(INCS) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@

$(CAUSAL_LIB): $(CAUSAL_OBJ) $(CORE_PRELOAD_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(CAUSAL_OBJ) $(CORE_PRELOAD_OBJ) $(CORE_LIB) -lunwind -lpthread -ldl -Wl,-z,nodelete \
		-Wl,--no-undefined -Wl,-z,now

causal: $(CAUSAL_LIB)

install-causal: causal
	install -d $(DESTDIR)$(PREFIX)/lib/witch
	install -m 755 $(CAUSAL_LIB) $(DESTDIR)$(PREFIX)/lib/witch/libwitchcausal.so

.PHONY: causal install-causal
