//! `statistics`: the exact sums behind `mean`, `stdev` and `pstdev`, which
//! RustPython computes in pure Python (a `Fraction` step per value, ~3 µs).
//!
//! For a list or tuple of finite floats and ints (not bools) this returns
//! Σx and Σx² exactly, as integers scaled by a common power of two; the
//! prelude turns them into the same `Fraction`s `_sum` and `_ss` build and
//! finishes with the module's own code, so the results are identical. Data
//! it cannot sum exactly in 256 bits, or of any other type, is left to Python.

use rustpython_vm::{
    AsObject, PyObjectRef, VirtualMachine,
    builtins::{PyFloat, PyInt, PyList, PyTuple},
};

/// Scaled values are kept below 2^100, so squares fit 200 bits and 2^26 of
/// them sum within 256.
const MAX_BITS: u32 = 100;
const MAX_COUNT: usize = 1 << 26;

/// A finite value as `mantissa × 2^exponent`, the mantissa odd (or 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Dyadic {
    mantissa: i64,
    exponent: i32,
}

impl Dyadic {
    fn new(mantissa: i64, exponent: i32) -> Self {
        let zeros = if mantissa == 0 { 0 } else { mantissa.trailing_zeros() };
        Self { mantissa: mantissa >> zeros, exponent: exponent + zeros as i32 }
    }
}

fn float_parts(x: f64) -> Option<Dyadic> {
    if !x.is_finite() {
        return None;
    }
    let bits = x.to_bits();
    let biased = i32::try_from((bits >> 52) & 0x7ff).ok()?;
    let fraction = i64::try_from(bits & ((1 << 52) - 1)).ok()?;
    let (mantissa, exponent) = if biased == 0 { (fraction, -1074) } else { (fraction | (1 << 52), biased - 1075) };
    Some(Dyadic::new(if x.is_sign_negative() { -mantissa } else { mantissa }, exponent))
}

/// Σx, Σx² and the count of `values`, with Σx = `sum` × 2^`exponent` and
/// Σx² = (`squares_high` × 2^128 + `squares_low`) × 4^`exponent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sums {
    /// Number of values.
    pub count: usize,
    /// Σ of the scaled values.
    pub sum: i128,
    /// High 128 bits of Σ of their squares.
    pub squares_high: u128,
    /// Low 128 bits of Σ of their squares.
    pub squares_low: u128,
    /// The common power of two.
    pub exponent: i32,
}

/// x² as (high, low) 128-bit halves, for x < 2^100.
fn square(x: u128) -> (u128, u128) {
    let (a, b) = (x >> 64, x & u128::from(u64::MAX));
    let cross = 2 * a * b;
    let (low, carry) = (b * b).overflowing_add(cross << 64);
    (a * a + (cross >> 64) + u128::from(carry), low)
}

fn exact_sums(values: &[Dyadic]) -> Option<Sums> {
    if values.len() >= MAX_COUNT {
        return None;
    }
    let exponent = values.iter().filter(|v| v.mantissa != 0).map(|v| v.exponent).min().unwrap_or(0);
    let mut sums = Sums { count: values.len(), sum: 0, squares_high: 0, squares_low: 0, exponent };
    for value in values {
        let shift = u32::try_from(value.exponent - exponent).ok()?;
        let magnitude = u128::from(value.mantissa.unsigned_abs());
        if magnitude != 0 && magnitude.ilog2() + shift >= MAX_BITS {
            return None;
        }
        let scaled = magnitude << shift;
        let signed = i128::try_from(scaled).ok()?;
        sums.sum += if value.mantissa < 0 { -signed } else { signed };
        let (high, low) = square(scaled);
        let (low, carry) = sums.squares_low.overflowing_add(low);
        sums.squares_low = low;
        sums.squares_high += high + u128::from(carry);
    }
    Some(sums)
}

/// The exact sums of `data`, a list or tuple of finite floats and ints, and
/// whether any value was a float; `None` for anything else.
fn float_sums(data: &PyObjectRef, vm: &VirtualMachine) -> Option<(Sums, bool)> {
    let items = if let Some(list) = data.downcast_ref_if_exact::<PyList>(vm) {
        list.borrow_vec().to_vec()
    } else {
        data.downcast_ref_if_exact::<PyTuple>(vm)?.as_slice().to_vec()
    };
    let mut any_float = false;
    let values = items
        .iter()
        .map(|item| {
            if let Some(float) = item.downcast_ref_if_exact::<PyFloat>(vm) {
                any_float = true;
                float_parts(float.to_f64())
            } else if item.class().is(vm.ctx.types.int_type) {
                let mantissa = item.downcast_ref::<PyInt>()?.try_to_primitive::<i64>(vm).ok()?;
                Some(Dyadic::new(mantissa, 0))
            } else {
                None
            }
        })
        .collect::<Option<Vec<_>>>()?;
    Some((exact_sums(&values)?, any_float))
}

/// `_native_float_sums(data)`: `(count, sum, squares_high, squares_low,
/// exponent, any_float)` (see [`Sums`]) for a list or tuple of finite floats
/// and ints, else `None`.
pub fn function(vm: &VirtualMachine) -> (&'static str, PyObjectRef) {
    let sums = |data: PyObjectRef, vm: &VirtualMachine| -> PyObjectRef {
        let Some((sums, any_float)) = float_sums(&data, vm) else {
            return vm.ctx.none();
        };
        let items = vec![
            vm.ctx.new_int(sums.count).into(),
            vm.ctx.new_int(sums.sum).into(),
            vm.ctx.new_int(sums.squares_high).into(),
            vm.ctx.new_int(sums.squares_low).into(),
            vm.ctx.new_int(sums.exponent).into(),
            vm.ctx.new_bool(any_float).into(),
        ];
        vm.ctx.new_tuple(items).into()
    };
    ("_native_float_sums", vm.new_function("_native_float_sums", sums).into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(values: &[f64]) -> Option<Sums> {
        exact_sums(&values.iter().map(|&x| float_parts(x).unwrap()).collect::<Vec<_>>())
    }

    #[test]
    fn floats_split_into_exact_parts() {
        assert_eq!(float_parts(0.5), Some(Dyadic { mantissa: 1, exponent: -1 }));
        assert_eq!(float_parts(-3.0), Some(Dyadic { mantissa: -3, exponent: 0 }));
        assert_eq!(float_parts(6.82).map(|d| d.mantissa & 1), Some(1));
        assert_eq!(float_parts(5e-324), Some(Dyadic { mantissa: 1, exponent: -1074 }));
        assert_eq!(float_parts(0.0).map(|d| d.mantissa), Some(0));
        assert_eq!(float_parts(f64::NAN), None);
        assert_eq!(float_parts(f64::INFINITY), None);
    }

    #[test]
    fn sums_and_squares_are_exact() {
        let s = sums(&[0.5, 1.5, -0.25]).unwrap();
        // Scaled by 2^-2: 2 + 6 - 1 = 7; squares 4 + 36 + 1 = 41.
        assert_eq!((s.count, s.sum, s.squares_high, s.squares_low, s.exponent), (3, 7, 0, 41, -2));
        let big = sums(&[2f64.powi(60), 1.0]).unwrap();
        assert_eq!((big.sum, big.squares_high, big.squares_low), ((1 << 60) + 1, 0, (1 << 120) + 1));
    }

    #[test]
    fn squares_carry_into_the_high_half() {
        let x = (1u128 << 99) + 12345;
        let (high, low) = square(x);
        assert_eq!(high, 1 << 70);
        assert_eq!(low, ((2 * 12345u128) << 99).wrapping_add(12345 * 12345));
    }

    #[test]
    fn values_too_far_apart_are_declined() {
        assert_eq!(sums(&[1e300, 1e-300]), None);
        assert!(sums(&[1e6, 1e-6]).is_some());
    }
}
