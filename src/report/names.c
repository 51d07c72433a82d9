/*
 * names.c - function names as their users wrote them (names.h).
 */
#include "report/names.h"

#include <dwarf.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

char *wr_demangle(const char *linkage)
{
	/* Parameters and const, as perf and gdb show them; no return type
	 * (a template function's would come first and hide its name). */
	char *d = cplus_demangle(linkage, DMGL_AUTO | DMGL_PARAMS | DMGL_ANSI | DMGL_RET_DROP);
	char *clone;

	if (d && (clone = strstr(d, " [clone ")))
		*clone = '\0';
	return d;
}

/* The DIE a function's name and place belong to: past the concrete
 * instance (abstract origin) and the out-of-class definition (its
 * specification), to the declaration in its namespace or class. */
static void declaration(Dwarf_Die *die, Dwarf_Die *decl)
{
	Dwarf_Attribute attr;
	int hops;

	*decl = *die;
	for (hops = 0; hops < 8; hops++) {
		Dwarf_Attribute *a = dwarf_attr(decl, DW_AT_abstract_origin, &attr);

		if (!a)
			a = dwarf_attr(decl, DW_AT_specification, &attr);
		if (!a || !dwarf_formref_die(a, decl))
			return;
	}
}

/* Languages whose DWARF nests functions in namespaces and classes. */
static int has_scopes(Dwarf_Die *die)
{
	Dwarf_Die cu;

	if (!dwarf_diecu(die, &cu, NULL, NULL))
		return 0;
	switch (dwarf_srclang(&cu)) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
	case DW_LANG_Rust:
		return 1;
	default:
		return 0;
	}
}

/* What a scope adds to a qualified name; NULL: nothing. closure: the
 * scope holds the operator() being named directly. */
static const char *scope_part(Dwarf_Die *scope, int closure)
{
	const char *name = dwarf_diename(scope);

	switch (dwarf_tag(scope)) {
	case DW_TAG_namespace:
		return name ? name : "(anonymous namespace)";
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		/* A lambda's closure type has no name; the demangler's
		 * {lambda(int)#1} numbers lambdas as DWARF does not record. */
		return name ? name : closure ? "{lambda}" : "{unnamed type}";
	default:
		return NULL;
	}
}

/*
 * name, after the names of the namespaces and classes around decl. Inside
 * a function (a lambda's closure, a local class), that function's own
 * name comes first, as the demangler writes it: it says what is around.
 */
static char *qualified(Dwarf_Die *decl, const char *name, struct wr_die_parents *parents)
{
	int closure = !strcmp(name, "operator()");
	Dwarf_Die *scopes = NULL;
	const char *linkage, *part;
	char *outer = NULL, *q;
	size_t len = strlen(name) + 1;
	int n, i, top;

	/* scopes[0] is decl itself, scopes[n - 1] its unit. */
	n = parents ? wr_die_scopes(parents, decl, &scopes) : dwarf_getscopes_die(decl, &scopes);
	for (top = 1; top < n - 1 && dwarf_tag(&scopes[top]) != DW_TAG_subprogram; top++)
		;
	if (top < n - 1 && (outer = wr_die_function(&scopes[top], NULL, NULL, parents, &linkage)))
		len += strlen(outer) + 2;
	for (i = 1; i < top; i++)
		if ((part = scope_part(&scopes[i], i == 1 && closure)))
			len += strlen(part) + 2;
	q = malloc(len);
	if (q) {
		*q = '\0';
		if (outer)
			strcat(strcat(q, outer), "::");
		for (i = top - 1; i >= 1; i--)
			if ((part = scope_part(&scopes[i], i == 1 && closure)))
				strcat(strcat(q, part), "::");
		strcat(q, name);
	}
	free(outer);
	free(scopes);
	return q;
}

char *wr_die_function(Dwarf_Die *die, wr_symbol_at *symbol, void *ctx,
		      struct wr_die_parents *parents, const char **linkage)
{
	Dwarf_Attribute attr;
	Dwarf_Die decl;
	const char *name, *sym;
	char *d;

	/* dwarf_attr_integrate follows abstract origins and specifications. */
	*linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
	if (!*linkage)
		*linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (*linkage && (d = wr_demangle(*linkage)))
		return d;
	name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	if (!name)
		return *linkage ? strdup(*linkage) : NULL;
	if (!has_scopes(die))
		return strdup(name);
	if (!*linkage && symbol && (sym = symbol(ctx)) && (d = wr_demangle(sym))) {
		*linkage = sym;
		return d;
	}
	declaration(die, &decl);
	return qualified(&decl, name, parents);
}

/* Where the name being shortened goes. */
struct out {
	char *buf;
	size_t cap, n;
};

static void put(struct out *o, const char *s, size_t len)
{
	while (len-- && o->n + 1 < o->cap)
		o->buf[o->n++] = *s++;
	o->buf[o->n] = '\0';
}

/* Past the bracketed group s starts, brackets of all kinds nested. */
static const char *past_group(const char *s)
{
	int depth = 0;

	for (; *s; s++) {
		if (strchr("(<[{", *s))
			depth++;
		else if (strchr(")>]}", *s) && --depth == 0)
			return s + 1;
	}
	return s;
}

/* What may follow a parameter list and says nothing of the name. */
static const char *past_qualifiers(const char *s)
{
	static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
	size_t i;

	for (i = 0; i < sizeof(quals) / sizeof(quals[0]); i++)
		if (!strncmp(s, quals[i], strlen(quals[i])))
			return past_qualifiers(s + strlen(quals[i]));
	return *s == ' ' && s[1] == '[' ? past_group(s + 1) : s;
}

/*
 * Copy s to o up to stop, without template arguments or parameter lists.
 * in_type: inside Rust's `<T as Trait>`, where parentheses and square
 * brackets are types (tuples, slices), not parameters.
 */
static const char *shorten(struct out *o, const char *s, char stop, int in_type)
{
	int start = 1;	/* at the start of a name component */

	while (*s && *s != stop) {
		const char *e;

		if (start && !strncmp(s, "operator", 8) && !strchr("_abcdefghijklmnopqrstuvwxyz"
								   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", s[8])) {
			/* The operator is part of the name: up to its parameters. */
			e = s + 8;
			if (!strncmp(e, "()", 2))
				e += 2;
			while (*e && *e != '(' && strncmp(e, " <", 2))
				e++;
			put(o, s, (size_t)(e - s));
			s = e;
			start = 0;
			continue;
		}
		if (*s == '{' || !strncmp(s, "(anonymous namespace)", 21) ||
		    (in_type && (*s == '(' || *s == '['))) {
			e = past_group(s);	/* {lambda(int)#1}, {closure#0}: names */
			put(o, s, (size_t)(e - s));
			s = e;
		} else if (*s == '<' && start && o->n >= 2 && !strncmp(o->buf + o->n - 2, "::", 2)) {
			/* Rust's turbofish, apply::<T>: arguments, with its "::". */
			o->n -= 2;
			o->buf[o->n] = '\0';
			s = past_group(s);
		} else if (*s == '<' && start) {
			put(o, "<", 1);
			s = shorten(o, s + 1, '>', 1);
			if (*s == '>') {
				put(o, ">", 1);
				s++;
			}
		} else if (*s == '<' || *s == '[') {
			s = past_group(s);
		} else if (*s == '(') {
			s = past_qualifiers(past_group(s));
		} else {
			put(o, s, 1);
			start = *s == ':' || (in_type && *s == ' ');
			s++;
			continue;
		}
		start = 0;
	}
	return s;
}

const char *wr_short_name(const char *full, char *buf, size_t cap)
{
	struct out o = { buf, cap, 0 };

	if (!cap)
		return buf;
	buf[0] = '\0';
	shorten(&o, full, '\0', 0);
	while (o.n && buf[o.n - 1] == ' ')
		buf[--o.n] = '\0';
	return buf;
}
