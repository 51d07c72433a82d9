/*
 * test_names.c - function names as their users wrote them: C++ and Rust
 * symbols through the demangling path (wr_demangle), and the short form
 * of each for one-line summaries (wr_short_name).
 *
 * The Rust symbols are a checked-in list: rustc is no dependency of
 * witch's. They are the symbols of this program, built by rustc 1.95 with
 * -C symbol-mangling-version=legacy and then =v0 (the default for std):
 *
 *   pub mod geo {
 *       pub struct Grid<T> { pub cells: Vec<T> }
 *       impl<T: Copy + Default> Grid<T> { pub fn fill(&mut self, v: T) {...} }
 *       pub trait Area { fn area(&self) -> f64; }
 *       pub struct Square(pub f64);
 *       impl Area for Square { fn area(&self) -> f64 {...} }
 *   }
 *   fn apply<F: Fn(i64) -> i64>(f: F, x: i64) -> i64 { f(x) }
 *   fn main() { ... apply(|x| x * k + 1, 5) ... }
 */
#include "tap.h"
#include "report/names.h"

#include <stdlib.h>
#include <string.h>

struct name_case {
	const char *linkage;
	const char *full;	/* NULL: not mangled, the symbol is its own name */
	const char *brief;
};

static const struct name_case cases[] = {
	/* C++: tests/progs/cxxnames.cc's functions, g++ 12. */
	{ "_ZN3img3Buf4fillEl", "img::Buf::fill(long)", "img::Buf::fill" },
	{ "_ZN3img5clearIdEEvRNS_3BufE", "img::clear<double>(img::Buf&)", "img::clear" },
	{ "_ZN3img4markERNS_3BufEi", "img::mark(img::Buf&, int)", "img::mark" },
	{ "_ZN3img4markERNS_3BufEd", "img::mark(img::Buf&, double)", "img::mark" },
	{ "_ZZ4mainENKUliE0_clEi.isra.0", "main::{lambda(int)#2}::operator()(int) const",
	  "main::{lambda(int)#2}::operator()" },
	/* The rest of C++'s shapes. */
	{ "_Z3fooi.cold", "foo(int)", "foo" },
	{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
	  "std::vector<int, std::allocator<int> >::push_back(int const&)", "std::vector::push_back" },
	{ "_ZNKSt8functionIFviEEclEi", "std::function<void (int)>::operator()(int) const",
	  "std::function::operator()" },
	{ "_ZlsRSoRK3Buf", "operator<<(std::ostream&, Buf const&)", "operator<<" },
	{ "_ZN3img3BufixEm", "img::Buf::operator[](unsigned long)", "img::Buf::operator[]" },
	{ "_ZNK3img3BufcvbEv", "img::Buf::operator bool() const", "img::Buf::operator bool" },
	{ "_ZN3img3BufD1Ev", "img::Buf::~Buf()", "img::Buf::~Buf" },
	{ "_ZN12_GLOBAL__N_14workEv", "(anonymous namespace)::work()", "(anonymous namespace)::work" },
	/* Rust, legacy: the hash is no part of the name. */
	{ "_ZN6shapes4main17hf5fd5fdfcdcdb145E", "shapes::main", "shapes::main" },
	{ "_ZN6shapes5apply17h8e4a6ffb34db3a01E", "shapes::apply", "shapes::apply" },
	{ "_ZN6shapes3geo13Grid$LT$T$GT$4fill17h1cc1a6f618eed05dE", "shapes::geo::Grid<T>::fill",
	  "shapes::geo::Grid::fill" },
	{ "_ZN57_$LT$shapes..geo..Square$u20$as$u20$shapes..geo..Area$GT$4area17h00ff0fad1cc90ae2E",
	  "<shapes::geo::Square as shapes::geo::Area>::area",
	  "<shapes::geo::Square as shapes::geo::Area>::area" },
	/* Rust, v0. */
	{ "_RNvCs6mEINUzFH5k_6shapes4main", "shapes::main", "shapes::main" },
	{ "_RINvCs6mEINUzFH5k_6shapes5applyNCNvB2_4main0EB2_",
	  "shapes::apply::<shapes::main::{closure#0}>", "shapes::apply" },
	{ "_RNvMNtCs6mEINUzFH5k_6shapes3geoINtB2_4GridmE4fillB4_", "<shapes::geo::Grid<u32>>::fill",
	  "<shapes::geo::Grid>::fill" },
	{ "_RNvXs_NtCs6mEINUzFH5k_6shapes3geoNtB4_6SquareNtB4_4Area4area",
	  "<shapes::geo::Square as shapes::geo::Area>::area",
	  "<shapes::geo::Square as shapes::geo::Area>::area" },
	/* Not mangled, or not validly: the symbol names itself. */
	{ "main", NULL, "main" },
	{ "memcpy", NULL, "memcpy" },
	{ "clear.part.0", NULL, "clear.part.0" },
	{ "_Zgarbage", NULL, "_Zgarbage" },
	{ "_RNvC", NULL, "_RNvC" },
};

int main(void)
{
	char buf[256], tiny[8];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct name_case *c = &cases[i];
		char *full = wr_demangle(c->linkage);
		const char *name = full ? full : c->linkage;

		if (c->full)
			tap_ok(full && !strcmp(full, c->full), "%s is %s (got %s)", c->linkage, c->full,
			       full ? full : "nothing");
		else
			tap_ok(!full, "%s is not mangled (got %s)", c->linkage, full ? full : "nothing");
		wr_short_name(name, buf, sizeof(buf));
		tap_ok(!strcmp(buf, c->brief), "short: %s is %s (got %s)", name, c->brief, buf);
		free(full);
	}
	/* A short name never overruns its buffer. */
	wr_short_name("img::Buf::fill(long)", tiny, sizeof(tiny));
	tap_ok(!strcmp(tiny, "img::Bu"), "a short name is cut to its buffer (got %s)", tiny);
	return tap_done();
}
