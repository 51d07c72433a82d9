/*
 * test_html.c - the HTML report's pieces that the browser test sees only
 * through a page (src/report/html): folded stacks into the flame graph's
 * tree, the data stream that no string can end the script of, and source
 * excerpts with the reasons they cannot be shown.
 */
#include "tap.h"
#include "report/html/page.h"
#include "report/source.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a function writes to a stream, as a string (the caller frees). */
static char *captured(void (*write)(FILE *out, void *arg), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	write(f, arg);
	fclose(f);
	return buf;
}

static int folded_text(FILE *out, void *arg)
{
	fputs(arg, out);
	return 0;
}

static void flame_of(FILE *out, void *arg)
{
	html_flame(out, folded_text, arg);
}

static void flame(void)
{
	/* "a;b0" sorts between "a;b" and "a;b;c": a's child b once all the same. */
	char *got = captured(flame_of, "a;b 1\na;b0;x 4\na;b;c 2\nd;a 5\n");

	tap_ok(got && !strcmp(got, "{\"total\":12,\"names\":[\"a\",\"b\",\"b0\",\"x\",\"c\",\"d\"],"
				 "\"nodes\":[0,0,7,1,1,3,1,2,4,3,3,4,2,4,2,0,5,5,6,0,5]}"),
	       "folded stacks as one tree: each name once, each node after its parent, weights summed (%s)",
	       got);
	free(got);
	got = captured(flame_of, "");
	tap_ok(got && !strcmp(got, "{\"total\":0,\"names\":[],\"nodes\":[]}"), "no stacks: an empty tree (%s)",
	       got);
	free(got);
}

static void page_data(FILE *out, void *arg)
{
	FILE *data = html_begin(out, arg);

	fputs("{\"f\":\"</script><!-- a<b\"}", data);
	html_end(out, data, "pairs.js");
}

static void data(void)
{
	char *got = captured(page_data, "a <title> & \"more\"");

	tap_ok(got && strstr(got, "id=\"witch-data\">{\"f\":\"\\u003c/script>\\u003c!-- a\\u003cb\"}</script>"),
	       "the data writes '<' as \\u003c: no string ends its script element");
	tap_ok(got && strstr(got, "<title>a &lt;title&gt; &amp; &quot;more&quot;</title>"),
	       "the title is text, escaped");
	tap_ok(got && strstr(got, "Content-Security-Policy\" content=\"default-src 'none';"),
	       "the page may fetch nothing");
	tap_ok(got && strstr(got, "witch.draw(") && strstr(got, "const witch = "),
	       "page.js and the kind's script are in the page");
	free(got);
}

struct excerpt_args {
	struct wr_sources *src;
	const char *path;
	int first, last;
};

static void excerpt_of(FILE *out, void *arg)
{
	struct excerpt_args *a = arg;

	html_excerpt(out, a->src, a->path, a->first, a->last);
}

static void excerpts(void)
{
	char path[] = "/tmp/witch-test-html.XXXXXX", *got, want[512];
	struct wr_sources src = { 0 };
	struct excerpt_args a = { &src, path, 7, 7 };
	FILE *f;
	int fd = mkstemp(path), i;

	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	for (i = 1; f && i <= 12; i++)
		fprintf(f, "line %d%s\n", i, i == 7 ? " \"<x>\"" : "");
	if (f)
		fclose(f);
	got = captured(excerpt_of, &a);
	snprintf(want, sizeof(want), "{\"path\":\"%s\",\"mark\":[7,7],\"first\":3,\"text\":[\"line 3\","
		 "\"line 4\",\"line 5\",\"line 6\",\"line 7 \\\"<x>\\\"\",\"line 8\",\"line 9\","
		 "\"line 10\",\"line 11\"]}", path);
	tap_ok(got && !strcmp(got, want), "a site: %d lines before and after it (%s)", HTML_AROUND, got);
	free(got);
	a.first = 10, a.last = 11;
	got = captured(excerpt_of, &a);
	tap_ok(got && strstr(got, "\"mark\":[10,11],\"first\":6,") && strstr(got, "\"line 12\"]}"),
	       "a range near the end: up to the last line (%s)", got);
	free(got);
	a.first = a.last = 40;
	got = captured(excerpt_of, &a);
	tap_ok(got && strstr(got, "\"error\":\"the file has 12 lines, not line 40: it changed since the profile\""),
	       "a line past the end: the file changed (%s)", got);
	free(got);
	unlink(path);
	a.path = "/nonexistent/witch.c";
	a.first = a.last = 3;
	got = captured(excerpt_of, &a);
	tap_ok(got && strstr(got, "\"error\":\"No such file or directory\""), "a missing file says so (%s)", got);
	free(got);
	wr_sources_free(&src);
}

int main(void)
{
	flame();
	data();
	excerpts();
	return tap_done();
}
