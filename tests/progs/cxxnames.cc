// cxxnames.cc - dead stores in C++ functions with names to get right:
// a namespace, a class's member, a function template, two overloads and
// two lambdas, one called and one inlined. Each writes the whole buffer,
// and the next overwrites it unread: clear<double> is killed by
// Buf::fill, fill by mark(int), mark(int) by mark(double), mark(double)
// by the inlined lambda, that by the called one, whose stores the sum
// reads. tests/e2e/46-cxx-names.t checks how witch names them.
#include <cstdio>
#include <cstdlib>

namespace img {

struct Buf {
	long *data;
	long n;
	void fill(long k);
};

template <typename T> __attribute__((noinline)) void clear(Buf &b)
{
	for (long i = 0; i < b.n; i++)
		b.data[i] = (long)(T(i) * T(3));	// store: clear
}

__attribute__((noinline)) void Buf::fill(long k)
{
	for (long i = 0; i < n; i++)
		data[i] = k + i;	// store: fill
}

__attribute__((noinline)) void mark(Buf &b, int v)
{
	for (long i = 0; i < b.n; i++)
		b.data[i] = v;	// store: mark(int)
}

__attribute__((noinline)) void mark(Buf &b, double v)
{
	for (long i = 0; i < b.n; i++)
		b.data[i] = (long)(v * (double)i);	// store: mark(double)
}

} // namespace img

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 200, sum = 0;
	img::Buf b = { new long[4096], 4096 };
	auto stamp = [&b](long v) {
		for (long i = 0; i < b.n; i++)
			b.data[i] = v + 7 * i;	// store: inlined lambda
	};
	auto touch = [&b](int v) __attribute__((noinline)) {
		for (long i = 0; i < b.n; i++)
			b.data[i] = v ^ i;	// store: called lambda
	};

	for (long r = 0; r < rounds; r++) {
		img::clear<double>(b);
		b.fill(r);
		img::mark(b, (int)r);
		img::mark(b, 0.5 * (double)r);
		stamp(r);
		touch((int)r);
		for (long i = 0; i < b.n; i++)
			sum += b.data[i];
	}
	printf("sum = %ld\n", sum);
	delete[] b.data;
	return 0;
}
