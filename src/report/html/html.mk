# The HTML report (src/report/html, included by the Makefile): its C goes
# into the report library, with its CSS and JavaScript embedded as C
# strings at build time (embed.awk), so that witch is one file still.
HTML_SRC = $(wildcard src/report/html/*.c)
HTML_ASSETS = $(sort $(wildcard src/report/html/*.css src/report/html/*.js))
HTML_OBJ = $(HTML_SRC:%.c=$(B)/obj/%.o) $(B)/obj/html_assets.o

$(B)/gen/html_assets.c: $(HTML_ASSETS) src/report/html/embed.awk
	@mkdir -p $(dir $@)
	awk -f src/report/html/embed.awk $(HTML_ASSETS) >$@.tmp && mv $@.tmp $@

$(B)/obj/html_assets.o: $(B)/gen/html_assets.c src/report/html/page.h
	$(CC) $(CFLAGS) $(WFLAGS) $(INCS) -c $< -o $@

$(B)/libwitchreport.a: $(HTML_OBJ)

# What tests/e2e/86-html.t checks a page's screenshot with.
$(B)/tools/png_ink: tests/tools/png_ink.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(WFLAGS) -o $@ $< -lz
