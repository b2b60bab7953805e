//! A stored embedding: a unit vector quantised to int8 with one scale (260 bytes for 256
//! dimensions instead of 1,024), compared by dot product.

/// A unit vector as int8 values times `scale`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Vector {
    pub scale: f32,
    pub values: Vec<i8>,
}

impl Vector {
    pub(crate) fn quantise(unit: &[f32]) -> Vector {
        let peak = unit.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if peak > 0.0 { peak / 127.0 } else { 1.0 };
        Vector {
            scale,
            values: unit
                .iter()
                .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
                .collect(),
        }
    }

    /// Bytes: the scale (little-endian f32), then the values.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.scale.to_le_bytes().to_vec();
        out.extend(self.values.iter().map(|v| *v as u8));
        out
    }

    #[cfg(test)] // only the tests here ask
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Vector> {
        let (scale, values) = bytes.split_at_checked(4)?;
        Some(Vector {
            scale: f32::from_le_bytes(scale.try_into().ok()?),
            values: values.iter().map(|b| *b as i8).collect(),
        })
    }
}

/// The integer dot product of two int8 vectors (over the shorter one's length): the
/// comparison a semantic search makes with every stored vector, so it is most of a search's
/// time. With AVX2 (checked once per process, cached by std) the same code is compiled for it,
/// which halves the scan again; lanes of i16 products are several times faster than a plain
/// zip of i32 products (timings in docs/search-ranking.md). Integer sums: the same result in
/// any order, on any CPU.
pub(crate) fn dot_values(a: &[i8], b: &[i8]) -> i32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { dot_avx2(a, b) };
    }
    dot_baseline(a, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot_avx2(a: &[i8], b: &[i8]) -> i32 {
    dot_lanes(a, b)
}

/// Never inlined: inlined into a scan's loop, the lanes were measured far slower (the loop
/// around them is then vectorised instead).
#[inline(never)]
fn dot_baseline(a: &[i8], b: &[i8]) -> i32 {
    dot_lanes(a, b)
}

/// Products of two int8 values fit in an i16, and 32 lanes of them added into i32 lanes are
/// what the compiler turns into SIMD instructions of the target it compiles for.
#[inline(always)]
fn dot_lanes(a: &[i8], b: &[i8]) -> i32 {
    const LANES: usize = 32;
    let n = a.len().min(b.len());
    let ((a, a_tail), (b, b_tail)) = (a[..n].as_chunks::<LANES>(), b[..n].as_chunks::<LANES>());
    let tail: i32 = a_tail
        .iter()
        .zip(b_tail)
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    let mut lanes = [0i32; LANES];
    for (x, y) in a.iter().zip(b) {
        for i in 0..LANES {
            lanes[i] += i32::from(i16::from(x[i]) * i16::from(y[i]));
        }
    }
    lanes.iter().sum::<i32>() + tail
}

/// A dot product of quantised values as the cosine of the vectors they stand for.
pub(crate) fn scaled(dot: i32, scale: f32, other_scale: f32) -> f32 {
    dot as f32 * scale * other_scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantised_vectors_keep_their_cosine() {
        let a = [0.6f32, 0.8, 0.0];
        let v = Vector::quantise(&a);
        let cosine =
            |a: &Vector, b: &Vector| scaled(dot_values(&a.values, &b.values), a.scale, b.scale);
        assert!((cosine(&v, &v) - 1.0).abs() < 0.01);
        assert!(cosine(&v, &Vector::quantise(&[0.0, 0.0, 1.0])).abs() < 0.01);
        assert_eq!(Vector::from_bytes(&v.to_bytes()), Some(v));
        assert_eq!(Vector::from_bytes(&[1, 2]), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// The lane-wise dot product is the plain one, whatever the lengths and values
        /// (-128 included, which quantising never makes but stored bytes may hold).
        #[test]
        fn the_lane_wise_dot_product_is_the_plain_one(
            a in proptest::collection::vec(proptest::num::i8::ANY, 0..300),
            b in proptest::collection::vec(proptest::num::i8::ANY, 0..300),
        ) {
            let plain: i32 = a.iter().zip(&b).map(|(x, y)| i32::from(*x) * i32::from(*y)).sum();
            proptest::prop_assert_eq!(dot_values(&a, &b), plain);
            proptest::prop_assert_eq!(dot_baseline(&a, &b), plain);
        }
    }
}
