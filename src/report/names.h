/*
 * names.h - how witch names a function to people: as its users wrote it.
 *
 * C++ and Rust (legacy and v0) linkage names are demangled with libiberty
 * (`img::Buf::fill(long)`, not `_ZN3img3Buf4fillEl` or `fill`), so that a
 * function has the same name whether it came from DWARF or from the
 * symbol table. Every place that names a function goes through here.
 */
#ifndef WITCH_REPORT_NAMES_H
#define WITCH_REPORT_NAMES_H

#include <elfutils/libdw.h>
#include <stddef.h>

#include "report/die_parents.h"

/*
 * The name of a function from its linkage (symbol) name: demangled, less
 * the compiler's clone suffix (" [clone .constprop.0]": the code is still
 * that function, and DWARF names it so). NULL when the name is not
 * mangled, the name is then itself, or when out of memory. malloc'd.
 */
char *wr_demangle(const char *linkage);

/* The ELF symbol holding a function's code, NULL when none: asked for
 * only when DWARF gives the function no linkage name. */
typedef const char *wr_symbol_at(void *ctx);

/*
 * The name of the function a subprogram or inlined-subroutine DIE is:
 * its linkage name demangled. Without one, in C++ and Rust: the ELF
 * symbol holding its code, when symbol (NULL for an inlined copy) finds
 * one that is mangled, as for g++'s lambdas, whose operator() DWARF
 * leaves unnamed but whose symbol says whose lambda it is; else its
 * DW_AT_name qualified by the namespaces and classes of its
 * declaration. In other languages, its DW_AT_name. *linkage gets the
 * mangled name used, NULL when none. NULL when the DIE has no name or
 * out of memory. malloc'd. parents: where scopes are looked up (their
 * index grows), NULL to walk the unit each time.
 */
char *wr_die_function(Dwarf_Die *die, wr_symbol_at *symbol, void *ctx,
		      struct wr_die_parents *parents, const char **linkage);

/*
 * The short form of a name from the two above, for one-line summaries:
 * without template arguments, parameter lists and what follows them
 * (`img::Buf::fill`, `std::vector::push_back`), into buf. Lambdas and
 * closures keep their `{lambda(int)#1}`, `{closure#0}`; Rust's
 * `<T as Trait>` keeps its types, shortened. Returns buf.
 */
const char *wr_short_name(const char *full, char *buf, size_t cap);

#endif
