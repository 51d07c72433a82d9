/*
 * code_pieces.h - the code of a compilation unit's functions and inlined
 * instances, as address pieces read from its DWARF with libdw: one per
 * address range of each subprogram and inlined-subroutine DIE, with its
 * nesting depth.
 */
#ifndef WITCH_CLI_CODE_PIECES_H
#define WITCH_CLI_CODE_PIECES_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

#include "report/causal_strtab.h"
#include "report/die_parents.h"
#include "report/map.h"

struct code_piece {
	uint64_t start, end;	/* link-time addresses, [start, end) */
	uint64_t die;		/* DIE offset: the ranges of one function or instance share it */
	uint64_t origin;	/* DIE offset of the function it is a copy of (its abstract
				   origin), or die */
	int depth;		/* 0: a function; n: inlined n calls deep */
	int nth;		/* which of its DIE's ranges: 0, the one it is entered by */
	int inlined;
	uint32_t name;		/* into names; UINT32_MAX: none */
	uint32_t call_file;	/* inlined: the call site's file, into names; UINT32_MAX: none */
	uint32_t call_line;
};

struct code_pieces {
	struct code_piece *p;	/* by start, outer pieces before the inner ones they hold */
	size_t n, cap;
	struct wr_map named;	/* (origin DIE offset, inlined) -> its name in names */
	Dwfl_Module *mod;	/* the unit's module, for symbols; NULL: none */
	struct wr_die_parents parents;	/* the unit's scopes, for names */
};

/* The pieces of the unit cu, whose addresses are bias away from the link-time
 * ones; names and files interned in names; mod (at link-time addresses,
 * NULL when unknown) names the functions DWARF leaves unnamed (names.h).
 * -1 when out of memory. */
int code_pieces_collect(struct code_pieces *ps, struct rc_strtab *names, Dwarf_Die *cu,
			uint64_t bias, Dwfl_Module *mod);

void code_pieces_free(struct code_pieces *ps);

#endif
