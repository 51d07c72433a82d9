// rustnames.rs - dead stores in Rust functions with names to get right:
// a module's struct and its method, a trait's method, a generic function
// instantiated twice and a closure. Each writes the whole grid, and the
// next overwrites it unread: splat::<u32> is killed by splat::<f32>, that
// by Grid::fill, fill by Stripes::paint, paint by the closure, whose
// stores the sum reads. tests/e2e/47-rust-names.t checks how witch names
// them; the Makefile builds it where rustc is installed, with legacy
// mangling (rustc's default) and with v0. It keeps to Rust 1.63 (Debian's).

pub mod grid {
    pub struct Grid {
        pub cells: Vec<u64>,
    }

    impl Grid {
        #[inline(never)]
        pub fn fill(&mut self, k: u64) {
            for (i, c) in self.cells.iter_mut().enumerate() {
                *c = k + i as u64; // store: fill
            }
        }
    }

    pub trait Paint {
        fn paint(&self, g: &mut Grid);
    }

    pub struct Stripes(pub u64);

    impl Paint for Stripes {
        #[inline(never)]
        fn paint(&self, g: &mut Grid) {
            for (i, c) in g.cells.iter_mut().enumerate() {
                *c = self.0 ^ i as u64; // store: paint
            }
        }
    }
}

use grid::{Grid, Paint, Stripes};

#[inline(never)]
fn splat<T: Copy + Into<f64>>(g: &mut Grid, v: T) {
    for (i, c) in g.cells.iter_mut().enumerate() {
        *c = (v.into() * i as f64) as u64; // store: splat
    }
}

fn main() {
    let rounds: u64 = match std::env::args().nth(1) {
        Some(a) => a.parse().expect("rounds"),
        None => 200,
    };
    let mut g = Grid { cells: vec![0; 4096] };
    let mut sum = 0u64;
    let stamp = |g: &mut Grid, r: u64| {
        for (i, c) in g.cells.iter_mut().enumerate() {
            *c = r.wrapping_mul(7) + i as u64; // store: closure
        }
    };
    // Called through a pointer the optimiser cannot see through (black_box
    // is newer than Rust 1.63): a function of its own, not inlined.
    let stamp: &dyn Fn(&mut Grid, u64) = &stamp;
    let stamp = unsafe { std::ptr::read_volatile(&stamp) };

    for r in 0..rounds {
        splat(&mut g, r as u32);
        splat(&mut g, r as f32);
        g.fill(r);
        Stripes(r).paint(&mut g);
        stamp(&mut g, r);
        sum = sum.wrapping_add(g.cells.iter().sum::<u64>());
    }
    println!("sum = {}", sum);
}
