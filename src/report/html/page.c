/*
 * page.c - the skeleton of every HTML page (page.h): head, the embedded
 * data, the scripts. The page allows no fetching at all (its Content
 * Security Policy): a report opened from a mail or an archive makes no
 * request.
 */
#include "report/html/page.h"
#include "report/render.h"
#include "report/report.h"
#include "report/symbolize.h"

#include <stdlib.h>
#include <string.h>

#define CSP "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; " \
	    "img-src data:"

static const char *asset(const char *name)
{
	const struct html_asset *a;

	for (a = html_assets; a->name; a++)
		if (!strcmp(a->name, name))
			return a->text;
	return NULL;
}

/* Text for an element or an attribute's value. */
static void put_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '"')
			fputs("&quot;", out);
		else
			fputc(*s, out);
	}
}

/* The data stream: '<' as the JSON escape, nothing else changed. */
static ssize_t data_write(void *cookie, const char *buf, size_t n)
{
	FILE *out = cookie;
	size_t i, from = 0;

	for (i = 0; i < n; i++)
		if (buf[i] == '<') {
			fwrite(buf + from, 1, i - from, out);
			fputs("\\u003c", out);
			from = i + 1;
		}
	fwrite(buf + from, 1, n - from, out);
	return ferror(out) ? -1 : (ssize_t)n;
}

FILE *html_begin(FILE *out, const char *title)
{
	cookie_io_functions_t io = { .write = data_write };

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"" CSP "\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
	      out);
	put_text(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main id=\"app\"><h1>", asset("page.css"));
	put_text(out, title);
	fputs("</h1><noscript><p>This report draws itself with JavaScript, which is off: "
	      "turn it on for this page, or see the report with <code>witch report</code> "
	      "in a terminal.</p></noscript></main>\n"
	      "<script type=\"application/json\" id=\"witch-data\">", out);
	return fopencookie(out, "w", io);
}

FILE *html_begin_report(FILE *out, const struct wr_report *r)
{
	char title[256];
	FILE *d;

	snprintf(title, sizeof(title), "witch report: %s (%s)", r->tool->what, r->tool->method);
	if ((d = html_begin(out, title)))
		fputs("{\"report\":", d);
	return d;
}

int html_end(FILE *out, FILE *data, const char *script)
{
	const char *kind = asset(script);

	if (fclose(data) || !kind)
		return -1;
	fprintf(out, "</script>\n<script>\n%s\n%s</script>\n</body>\n</html>\n", asset("page.js"), kind);
	return ferror(out) ? -1 : 0;
}

int html_json_output(FILE *data, int (*render)(FILE *out, void *arg), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);
	int ret;

	if (!mem)
		return -1;
	ret = render(mem, arg);
	if (fclose(mem) || ret) {
		free(buf);
		return -1;
	}
	wr_json_string(data, buf);
	free(buf);
	return 0;
}

struct chain_of {
	const struct wr_report *r;
	struct wr_symbolizer *s;
	uint32_t ctx;
};

static int chain(FILE *out, void *arg)
{
	const struct chain_of *c = arg;
	const struct wr_frame *f;
	long n = wr_sym_context(c->s, c->ctx, &f);

	if (n < 0)
		return -1;
	wr_text_chain(out, c->r, f, n);
	return 0;
}

int html_chain(FILE *data, const struct wr_report *r, struct wr_symbolizer *s, uint32_t ctx)
{
	struct chain_of c = { r, s, ctx };

	return html_json_output(data, chain, &c);
}
