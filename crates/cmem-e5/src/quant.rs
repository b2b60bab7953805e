//! The encoder's matrix products over weights kept as the file's 4-bit `Q4_0` blocks (32
//! weights, one scale; the encoder's 21 M weights take 16 MB so, 85 MB widened to f32).
//!
//! A query is a handful of tokens, so its products are a few rows against weights read once:
//! they are computed in integers, as the model's own engine does — each row of activations
//! rounded to int8 blocks of 32 with a scale of their own (`Q8_0`), per block pair a sum of 32
//! small integer products (one VNNI `vpdpbusd` or AVX2 `maddubs` where f32 does 8) times the
//! two scales. The query's embedding is most of a hybrid search's time (issue 28). A text of
//! more than 32 tokens (a record's passage) reuses every weight enough times that widening a
//! panel of weights to f32 and multiplying in f32 (matrixmultiply's kernel) is as fast; both
//! agree with the engine's vectors (tests/fixtures/e5/golden.json).

/// A weight matrix of `rows` rows of `inputs` weights, as `Q4_0` blocks: per block an f32
/// scale and 16 bytes whose low nibbles are weights 0–15 and high nibbles 16–31, each
/// weight `nibble − 8`.
pub(crate) struct Q4Matrix {
    scales: Vec<f32>,
    nibbles: Vec<[u8; 16]>,
    /// Each block's sum of its weights (AVX-512's product needs it).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    sums: Vec<i32>,
    rows: usize,
    inputs: usize,
}

/// Bytes of one `Q4_0` block in the file: an f16 scale, then the 16 bytes of nibbles.
const BLOCK_BYTES: usize = 18;
const BLOCK: usize = 32;

impl Q4Matrix {
    /// `blocks` as the file stores them, `rows × inputs / 32` blocks; None when the sizes do
    /// not fit.
    pub(crate) fn from_blocks(blocks: &[u8], rows: usize, inputs: usize) -> Option<Q4Matrix> {
        if !inputs.is_multiple_of(BLOCK) || blocks.len() != rows * inputs / BLOCK * BLOCK_BYTES {
            return None;
        }
        let mut scales = Vec::with_capacity(blocks.len() / BLOCK_BYTES);
        let mut nibbles = Vec::with_capacity(blocks.len() / BLOCK_BYTES);
        let mut sums = Vec::with_capacity(blocks.len() / BLOCK_BYTES);
        for block in blocks.chunks_exact(BLOCK_BYTES) {
            scales.push(super::file::f16_to_f32(u16::from_le_bytes([
                block[0], block[1],
            ])));
            let mut n = [0u8; 16];
            n.copy_from_slice(&block[2..]);
            sums.push(
                n.iter()
                    .map(|q| (q & 15) as i32 + (q >> 4) as i32 - 16)
                    .sum(),
            );
            nibbles.push(n);
        }
        Some(Q4Matrix {
            scales,
            nibbles,
            sums,
            rows,
            inputs,
        })
    }
}

/// Rows of activations rounded to int8 blocks of 32, each with its scale (the largest
/// magnitude maps to 127), as the model's engine rounds them.
#[derive(Default)]
pub(crate) struct Q8Rows {
    scales: Vec<f32>,
    values: Vec<i8>,
}

impl Q8Rows {
    /// `x`, rows of `inputs` numbers (a multiple of 32), rounded; the buffers are reused.
    pub(crate) fn quantize(&mut self, x: &[f32]) {
        self.scales.clear();
        self.values.clear();
        for block in x.chunks_exact(BLOCK) {
            let max = block.iter().fold(0.0f32, |m, v| m.max(v.abs()));
            let scale = max / 127.0;
            let inverse = if scale > 0.0 { 1.0 / scale } else { 0.0 };
            self.scales.push(scale);
            // Half away from zero, as `round` does, without its library call (the cast
            // truncates). Clamped: a block of subnormal numbers has an infinite inverse, and
            // −128 would break AVX2's sign trick; NaN casts to 0.
            self.values.extend(
                block
                    .iter()
                    .map(|v| (v * inverse + 0.5f32.copysign(*v)).clamp(-127.0, 127.0) as i8),
            );
        }
    }
}

/// Buffers a product reuses.
#[derive(Default)]
pub(crate) struct Work {
    rounded: Q8Rows,
    panel: Vec<f32>,
    /// The rounded rows laid out for the VNNI kernels.
    #[cfg(target_arch = "x86_64")]
    lanes: vnni::Lanes,
}

/// Up to this many rows the product is computed in integers; more rows share each weight
/// over enough of them that widening a panel of weights to f32 once and multiplying in f32
/// is faster (a record's passage, not a query).
const INTEGER_ROWS: usize = 32;

/// Weight rows widened at a time on the f32 path: a panel of at most 64 × 1536 floats stays
/// in the cache while every activation row passes it.
const PANEL_ROWS: usize = 64;

/// `out = x · Wᵀ + bias` for the `rows` rows of `x` (`rows × inputs` numbers), `out`
/// `rows × W`'s rows, row-major.
pub(crate) fn product(
    w: &Q4Matrix,
    x: &[f32],
    rows: usize,
    bias: &[f32],
    out: &mut Vec<f32>,
    work: &mut Work,
) {
    // Cheap next to the product, and the SIMD kernels' loads rely on them.
    assert_eq!(x.len(), rows * w.inputs, "activations of the wrong size");
    assert_eq!(bias.len(), w.rows, "bias of the wrong size");
    out.clear();
    out.resize(rows * w.rows, 0.0);
    if rows > INTEGER_ROWS {
        widened_product(w, x, rows, out, &mut work.panel);
    } else {
        work.rounded.quantize(x);
        integer_product(w, rows, out, work);
    }
    add_bias(out, bias);
}

/// The integer product of `w` and `work.rounded`, with the widest instructions the CPU has.
fn integer_product(w: &Q4Matrix, rows: usize, out: &mut [f32], work: &mut Work) {
    let x = &work.rounded;
    #[cfg(target_arch = "x86_64")]
    {
        if let Some(kernel) = vnni::kernel(w) {
            vnni::product(kernel, w, x, rows, out, &mut work.lanes);
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA (checked just above); the kernel indexes `x`
            // and `out` with checked slices.
            unsafe { avx2::product(w, x, rows, out) };
            return;
        }
    }
    portable_product(w, x, rows, out);
}

/// The product in f32, the weights widened a panel at a time.
fn widened_product(w: &Q4Matrix, x: &[f32], rows: usize, out: &mut [f32], panel: &mut Vec<f32>) {
    let (k, n) = (w.inputs, w.rows);
    let blocks = k / BLOCK;
    for first in (0..n).step_by(PANEL_ROWS) {
        let count = PANEL_ROWS.min(n - first);
        panel.clear();
        for b in first * blocks..(first + count) * blocks {
            super::file::widen(w.scales[b], &w.nibbles[b], panel);
        }
        // SAFETY: `x` is rows × k row-major; the panel is `count` rows of k, read as its
        // transpose (k × count); `out` is rows × n row-major, written at columns
        // first..first + count.
        unsafe {
            matrixmultiply::sgemm(
                rows,
                k,
                count,
                1.0,
                x.as_ptr(),
                k as isize,
                1,
                panel.as_ptr(),
                1,
                k as isize,
                0.0,
                out.as_mut_ptr().add(first),
                n as isize,
                1,
            );
        }
    }
}

fn add_bias(out: &mut [f32], bias: &[f32]) {
    for row in out.chunks_exact_mut(bias.len()) {
        row.iter_mut().zip(bias).for_each(|(o, b)| *o += b);
    }
}

/// The same product without SIMD: other CPUs, and the check of the fast one.
fn portable_product(w: &Q4Matrix, x: &Q8Rows, rows: usize, out: &mut [f32]) {
    let blocks = w.inputs / BLOCK;
    for j in 0..w.rows {
        let w_nibbles = &w.nibbles[j * blocks..(j + 1) * blocks];
        let w_scales = &w.scales[j * blocks..(j + 1) * blocks];
        for i in 0..rows {
            let mut sum = 0.0f32;
            for b in 0..blocks {
                let xs = &x.values[(i * blocks + b) * BLOCK..][..BLOCK];
                let nib = &w_nibbles[b];
                let mut dot = 0i32;
                for t in 0..16 {
                    dot += ((nib[t] & 15) as i32 - 8) * xs[t] as i32;
                    dot += ((nib[t] >> 4) as i32 - 8) * xs[t + 16] as i32;
                }
                sum += dot as f32 * w_scales[b] * x.scales[i * blocks + b];
            }
            out[i * w.rows + j] = sum;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{BLOCK, Q4Matrix, Q8Rows};
    use std::arch::x86_64::*;

    /// Tokens a weight row's unpacked blocks are used for before the next row: four sums
    /// live in registers beside the unpacked weights.
    const TOKENS: usize = 4;

    /// The 32 weights of a block as signed bytes, in order.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn weights(nibbles: &[u8; 16]) -> __m256i {
        // SAFETY: 16 readable bytes; loadu has no alignment requirement.
        let packed = unsafe { _mm_loadu_si128(nibbles.as_ptr().cast()) };
        let both = _mm256_set_m128i(_mm_srli_epi16(packed, 4), packed);
        _mm256_sub_epi8(
            _mm256_and_si256(both, _mm256_set1_epi8(0x0f)),
            _mm256_set1_epi8(8),
        )
    }

    /// The sum of the 32 products of weights `w` and activations `x`, as 8 partial i32 sums
    /// converted to f32. `maddubs` multiplies unsigned by signed bytes, so the weights'
    /// signs move onto the activations; |w| ≤ 8 and |x| ≤ 127 keep each pair's sum far from
    /// i16's limit.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn block_dot(w_abs: __m256i, w: __m256i, x: __m256i) -> __m256 {
        let pairs = _mm256_maddubs_epi16(w_abs, _mm256_sign_epi8(x, w));
        _mm256_cvtepi32_ps(_mm256_madd_epi16(pairs, _mm256_set1_epi16(1)))
    }

    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn horizontal_sum(v: __m256) -> f32 {
        let four = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let two = _mm_add_ps(four, _mm_movehl_ps(four, four));
        let one = _mm_add_ss(two, _mm_shuffle_ps(two, two, 1));
        _mm_cvtss_f32(one)
    }

    /// Blocks in a weight row at most (2,048 inputs; the model's widest is 1,536); wider rows
    /// take the portable product.
    const MAX_BLOCKS: usize = 64;

    /// # Safety
    /// The CPU must have AVX2 and FMA; `x` holds `rows × w.inputs` values and `out`
    /// `rows × w.rows` numbers.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn product(w: &Q4Matrix, x: &Q8Rows, rows: usize, out: &mut [f32]) {
        let blocks = w.inputs / BLOCK;
        if blocks > MAX_BLOCKS {
            super::portable_product(w, x, rows, out);
            return;
        }
        let load = |i: usize, b: usize| -> __m256i {
            let values = &x.values[(i * blocks + b) * BLOCK..][..BLOCK];
            // SAFETY: 32 readable bytes; loadu has no alignment requirement.
            unsafe { _mm256_loadu_si256(values.as_ptr().cast()) }
        };
        // A row's weights unpacked once, with their magnitudes, for every token.
        let mut signed = [_mm256_setzero_si256(); MAX_BLOCKS];
        let mut magnitude = [_mm256_setzero_si256(); MAX_BLOCKS];
        for j in 0..w.rows {
            let w_scales = &w.scales[j * blocks..(j + 1) * blocks];
            for b in 0..blocks {
                // SAFETY: AVX2 is enabled in this function.
                let wq = unsafe { weights(&w.nibbles[j * blocks + b]) };
                signed[b] = wq;
                magnitude[b] = _mm256_sign_epi8(wq, wq);
            }
            let mut i = 0;
            while i + TOKENS <= rows {
                let mut sums = [_mm256_setzero_ps(); TOKENS];
                for b in 0..blocks {
                    for (t, sum) in sums.iter_mut().enumerate() {
                        let scale = w_scales[b] * x.scales[(i + t) * blocks + b];
                        let dot = block_dot(magnitude[b], signed[b], load(i + t, b));
                        *sum = _mm256_fmadd_ps(_mm256_set1_ps(scale), dot, *sum);
                    }
                }
                for (t, sum) in sums.iter().enumerate() {
                    out[(i + t) * w.rows + j] = horizontal_sum(*sum);
                }
                i += TOKENS;
            }
            for i in i..rows {
                let mut sum = _mm256_setzero_ps();
                for b in 0..blocks {
                    let scale = w_scales[b] * x.scales[i * blocks + b];
                    let dot = block_dot(magnitude[b], signed[b], load(i, b));
                    sum = _mm256_fmadd_ps(_mm256_set1_ps(scale), dot, sum);
                }
                out[i * w.rows + j] = horizontal_sum(sum);
            }
        }
    }
}

/// The integer product with VNNI's `vpdpbusd`: 4 byte products and their sum into each 32-bit
/// lane, 64 products an instruction with AVX-512 (two blocks at a time), 32 with AVX-VNNI
/// (Intel's client CPUs without AVX-512). It multiplies unsigned by signed bytes, and there is
/// no byte sign instruction for AVX-512, so the activations go in shifted by 128 (their bytes'
/// top bit flipped) and each block's sum starts at −128 × the sum of its weights.
#[cfg(target_arch = "x86_64")]
mod vnni {
    use super::{BLOCK, Q4Matrix, Q8Rows};
    use std::arch::x86_64::*;

    const TOKENS: usize = 4;
    /// Blocks in a weight row at most (2,048 inputs; the model's widest is 1,536).
    const MAX_BLOCKS: usize = 64;

    #[derive(Clone, Copy, Debug, PartialEq)]
    pub(super) enum Kernel {
        Avx512,
        AvxVnni,
    }

    /// The rounded rows as unsigned bytes (x + 128), and each block's scale repeated in the 8
    /// lanes its sums land in.
    #[derive(Default)]
    pub(super) struct Lanes {
        shifted: Vec<u8>,
        scales: Vec<f32>,
    }

    /// The VNNI kernel this CPU runs for `w`, if any.
    pub(super) fn kernel(w: &Q4Matrix) -> Option<Kernel> {
        let blocks = w.inputs / BLOCK;
        if blocks > MAX_BLOCKS {
            return None;
        }
        let avx512 = std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vnni");
        let avx_vnni = std::arch::is_x86_feature_detected!("avxvnni")
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma");
        if avx512 && blocks.is_multiple_of(2) {
            Some(Kernel::Avx512)
        } else if avx_vnni {
            Some(Kernel::AvxVnni)
        } else {
            None
        }
    }

    /// `out = x · Wᵀ` with `kernel`, which must be one `kernel()` returned for a matrix of
    /// `w`'s width.
    pub(super) fn product(
        kernel: Kernel,
        w: &Q4Matrix,
        x: &Q8Rows,
        rows: usize,
        out: &mut [f32],
        lanes: &mut Lanes,
    ) {
        let blocks = w.inputs / BLOCK;
        // The kernels read with unchecked loads: the sizes are checked here.
        assert!(
            x.values.len() == rows * w.inputs
                && x.scales.len() == rows * blocks
                && out.len() == rows * w.rows
                && blocks <= MAX_BLOCKS,
            "integer product of mismatched sizes"
        );
        lanes.shifted.clear();
        lanes
            .shifted
            .extend(x.values.iter().map(|v| (*v as u8) ^ 0x80));
        lanes.scales.clear();
        for scale in &x.scales {
            lanes.scales.extend([*scale; 8]);
        }
        match kernel {
            // SAFETY: `kernel()` checked the CPU's features (and an even block count for
            // AVX-512); the sizes were checked above.
            Kernel::Avx512 => unsafe { product_512(w, lanes, rows, out) },
            Kernel::AvxVnni => unsafe { product_256(w, lanes, rows, out) },
        }
    }

    /// The 32 weights of block `k` as signed bytes, in order.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn weights(w: &Q4Matrix, k: usize) -> __m256i {
        // SAFETY: 16 readable bytes; loadu has no alignment requirement.
        let packed = unsafe { _mm_loadu_si128(w.nibbles[k].as_ptr().cast()) };
        let both = _mm256_set_m128i(_mm_srli_epi16(packed, 4), packed);
        _mm256_sub_epi8(
            _mm256_and_si256(both, _mm256_set1_epi8(0x0f)),
            _mm256_set1_epi8(8),
        )
    }

    /// # Safety
    /// AVX-512 F, BW, DQ and VNNI; an even block count ≤ `MAX_BLOCKS`; `lanes` holds
    /// `rows` rows of `w.inputs` values and `out` `rows × w.rows` numbers.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vnni,avx2")]
    unsafe fn product_512(w: &Q4Matrix, lanes: &Lanes, rows: usize, out: &mut [f32]) {
        let blocks = w.inputs / BLOCK;
        let pairs = blocks / 2;
        // SAFETY (both loads): 64 bytes at block 2p of token i, inside the buffers (`rows ×
        // blocks` blocks of 32 values, 8 lanes each).
        let load_x = |i: usize, p: usize| unsafe {
            _mm512_loadu_si512(
                lanes
                    .shifted
                    .as_ptr()
                    .add((i * blocks + 2 * p) * BLOCK)
                    .cast(),
            )
        };
        let load_scale = |i: usize, p: usize| unsafe {
            _mm512_loadu_ps(lanes.scales.as_ptr().add((i * blocks + 2 * p) * 8))
        };
        let mut weights = [_mm512_setzero_si512(); MAX_BLOCKS / 2];
        let mut starts = [_mm512_setzero_si512(); MAX_BLOCKS / 2];
        let mut w_scales = [_mm512_setzero_ps(); MAX_BLOCKS / 2];
        for j in 0..w.rows {
            for p in 0..pairs {
                let b = j * blocks + 2 * p;
                weights[p] = _mm512_inserti64x4(
                    _mm512_castsi256_si512(self::weights(w, b)),
                    self::weights(w, b + 1),
                    1,
                );
                // Lanes 0–7 sum block b's bytes, lanes 8–15 block b + 1's.
                starts[p] = _mm512_maskz_set1_epi32(0x0001, -128 * w.sums[b]);
                starts[p] = _mm512_mask_set1_epi32(starts[p], 0x0100, -128 * w.sums[b + 1]);
                w_scales[p] = _mm512_insertf32x8(
                    _mm512_set1_ps(w.scales[b]),
                    _mm256_set1_ps(w.scales[b + 1]),
                    1,
                );
            }
            let mut i = 0;
            while i < rows {
                let take = if rows - i >= TOKENS { TOKENS } else { 1 };
                let mut sums = [_mm512_setzero_ps(); TOKENS];
                for p in 0..pairs {
                    for (t, sum) in sums.iter_mut().enumerate().take(take) {
                        let dots = _mm512_dpbusd_epi32(starts[p], load_x(i + t, p), weights[p]);
                        let scale = _mm512_mul_ps(w_scales[p], load_scale(i + t, p));
                        *sum = _mm512_fmadd_ps(_mm512_cvtepi32_ps(dots), scale, *sum);
                    }
                }
                for (t, sum) in sums.iter().enumerate().take(take) {
                    out[(i + t) * w.rows + j] = _mm512_reduce_add_ps(*sum);
                }
                i += take;
            }
        }
    }

    /// # Safety
    /// AVX-VNNI, AVX2 and FMA; a block count ≤ `MAX_BLOCKS`; `lanes` holds `rows` rows of
    /// `w.inputs` values and `out` `rows × w.rows` numbers.
    #[target_feature(enable = "avxvnni,avx2,fma")]
    unsafe fn product_256(w: &Q4Matrix, lanes: &Lanes, rows: usize, out: &mut [f32]) {
        let blocks = w.inputs / BLOCK;
        // SAFETY (both loads): 32 bytes / 8 lanes at block b of token i, inside the buffers.
        let load_x = |i: usize, b: usize| unsafe {
            _mm256_loadu_si256(lanes.shifted.as_ptr().add((i * blocks + b) * BLOCK).cast())
        };
        let load_scale = |i: usize, b: usize| unsafe {
            _mm256_loadu_ps(lanes.scales.as_ptr().add((i * blocks + b) * 8))
        };
        let mut weights = [_mm256_setzero_si256(); MAX_BLOCKS];
        let mut starts = [_mm256_setzero_si256(); MAX_BLOCKS];
        let mut w_scales = [_mm256_setzero_ps(); MAX_BLOCKS];
        for j in 0..w.rows {
            for b in 0..blocks {
                let k = j * blocks + b;
                weights[b] = self::weights(w, k);
                starts[b] = _mm256_setr_epi32(-128 * w.sums[k], 0, 0, 0, 0, 0, 0, 0);
                w_scales[b] = _mm256_set1_ps(w.scales[k]);
            }
            let mut i = 0;
            while i < rows {
                let take = if rows - i >= TOKENS { TOKENS } else { 1 };
                let mut sums = [_mm256_setzero_ps(); TOKENS];
                for b in 0..blocks {
                    for (t, sum) in sums.iter_mut().enumerate().take(take) {
                        let dots = _mm256_dpbusd_avx_epi32(starts[b], load_x(i + t, b), weights[b]);
                        let scale = _mm256_mul_ps(w_scales[b], load_scale(i + t, b));
                        *sum = _mm256_fmadd_ps(_mm256_cvtepi32_ps(dots), scale, *sum);
                    }
                }
                for (t, sum) in sums.iter().enumerate().take(take) {
                    out[(i + t) * w.rows + j] = super::avx2::horizontal_sum(*sum);
                }
                i += take;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scales of weight blocks (f16 bits: 0.1, 0.2, 0.05, 0.25, 0.0625, 0.5), so that a
    /// kernel applying one block's scale to another's products is caught.
    const SCALES: [[u8; 2]; 6] = [
        [0x66, 0x2e],
        [0x66, 0x32],
        [0x66, 0x2a],
        [0x00, 0x34],
        [0x00, 0x2c],
        [0x00, 0x38],
    ];

    /// A deterministic matrix of `rows × inputs` weights and its weights widened to f32.
    fn matrix(rows: usize, inputs: usize, seed: u32) -> (Q4Matrix, Vec<f32>) {
        let mut state = seed;
        let mut next = || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 24) as u8
        };
        let mut bytes = Vec::new();
        for b in 0..rows * inputs / BLOCK {
            bytes.extend_from_slice(&SCALES[(b * 5 + seed as usize) % SCALES.len()]);
            bytes.extend((0..16).map(|_| next()));
        }
        let mut wide = Vec::new();
        super::super::file::dequantize(&bytes, &mut wide);
        (Q4Matrix::from_blocks(&bytes, rows, inputs).unwrap(), wide)
    }

    /// Activations whose blocks differ in size by up to 5 times, as a layer's do.
    fn activations(rows: usize, inputs: usize) -> Vec<f32> {
        (0..rows * inputs)
            .map(|k| ((k * 37 % 101) as f32 - 50.0) / 17.0 * (1 + (k / BLOCK) % 5) as f32)
            .collect()
    }

    fn exact(x: &[f32], wide: &[f32], inputs: usize, i: usize, j: usize) -> f32 {
        (0..inputs)
            .map(|k| x[i * inputs + k] * wide[j * inputs + k])
            .sum()
    }

    #[test]
    fn products_are_the_f32_product_within_rounding() {
        // Integers: 7 rows of 3 blocks (odd: no AVX-512 pairs), 9 of 4 (two groups of four
        // tokens and one left over), 32 (the most); f32 panels: 33 rows, 40 rows of 70
        // outputs (two panels); and a row wider than the SIMD kernels take (66 blocks).
        for (rows, inputs, outputs) in [
            (7, 96, 5),
            (9, 128, 6),
            (32, 64, 3),
            (33, 64, 3),
            (40, 64, 70),
            (2, 66 * BLOCK, 3),
        ] {
            let (w, wide) = matrix(outputs, inputs, 7);
            let x = activations(rows, inputs);
            let bias: Vec<f32> = (0..outputs).map(|j| j as f32).collect();
            let mut out = Vec::new();
            product(&w, &x, rows, &bias, &mut out, &mut Work::default());
            for i in 0..rows {
                for j in 0..outputs {
                    let want = exact(&x, &wide, inputs, i, j) + bias[j];
                    let got = out[i * outputs + j];
                    // Rounding to int8 moves an activation by at most half a step, its
                    // block's largest magnitude / 254: the product by at most that times |w|.
                    let bound: f32 = (0..inputs)
                        .map(|k| {
                            let block = &x[i * inputs + k / BLOCK * BLOCK..][..BLOCK];
                            let max = block.iter().fold(0.0f32, |m, v| m.max(v.abs()));
                            wide[j * inputs + k].abs() * max / 254.0
                        })
                        .sum();
                    assert!(
                        (got - want).abs() <= bound * 1.01 + 1e-3,
                        "{rows}×{inputs}: {got} vs {want} (bound {bound})"
                    );
                }
            }
        }
    }

    /// Each integer kernel this CPU has against the portable one, on the same rounded rows.
    fn every_kernel_agrees(rows: usize, inputs: usize, x: &[f32]) -> usize {
        let outputs = 6;
        let (w, _) = matrix(outputs, inputs, 11);
        let mut q = Q8Rows::default();
        q.quantize(x);
        let mut portable = vec![0.0; rows * outputs];
        portable_product(&w, &q, rows, &mut portable);
        let same = |got: &[f32], name: &str| {
            for (a, b) in got.iter().zip(&portable) {
                assert!(
                    (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                    "{name}, {rows}×{inputs}: {a} vs {b}"
                );
            }
        };
        let mut checked = 0;
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                let mut out = vec![0.0; rows * outputs];
                // SAFETY: the CPU has AVX2 and FMA.
                unsafe { avx2::product(&w, &q, rows, &mut out) };
                same(&out, "AVX2");
                checked += 1;
            }
            let mut lanes = vnni::Lanes::default();
            let avx512 = vnni::kernel(&w) == Some(vnni::Kernel::Avx512);
            let avx_vnni = std::arch::is_x86_feature_detected!("avxvnni")
                && std::arch::is_x86_feature_detected!("fma");
            for (kernel, here) in [
                (vnni::Kernel::Avx512, avx512),
                (vnni::Kernel::AvxVnni, avx_vnni),
            ] {
                if here {
                    let mut out = vec![0.0; rows * outputs];
                    vnni::product(kernel, &w, &q, rows, &mut out, &mut lanes);
                    same(&out, &format!("{kernel:?}"));
                    checked += 1;
                }
            }
        }
        checked
    }

    #[test]
    fn the_fast_products_equal_the_portable_one() {
        let mut kernels = 0;
        for (rows, inputs) in [(9, 128), (5, 96), (1, 64)] {
            kernels = every_kernel_agrees(rows, inputs, &activations(rows, inputs));
        }
        // Tiny numbers whose inverse overflows: no −128 for AVX2's sign trick to mishandle.
        let tiny: Vec<f32> = (0..2 * 64)
            .map(|k| if k % 2 == 0 { -1e-40 } else { 3e-41 })
            .collect();
        every_kernel_agrees(2, 64, &tiny);
        let mut q = Q8Rows::default();
        q.quantize(&tiny);
        assert!(q.values.iter().all(|v| *v >= -127), "{:?}", &q.values[..4]);
        eprintln!("integer kernels checked against the portable one on this CPU: {kernels}");
    }

    #[test]
    fn a_block_of_zeros_rounds_to_zero() {
        let mut q = Q8Rows::default();
        q.quantize(&[0.0; 32]);
        assert_eq!(q.scales, vec![0.0]);
        assert!(q.values.iter().all(|v| *v == 0));
    }

    #[test]
    fn misfit_sizes_are_refused() {
        assert!(Q4Matrix::from_blocks(&[0; 18], 1, 48).is_none());
        assert!(Q4Matrix::from_blocks(&[0; 17], 1, 32).is_none());
    }

    #[test]
    #[should_panic(expected = "activations of the wrong size")]
    fn activations_of_the_wrong_size_stop_the_product() {
        let (w, _) = matrix(2, 64, 3);
        product(
            &w,
            &[0.0; 63],
            1,
            &[0.0; 2],
            &mut Vec::new(),
            &mut Work::default(),
        );
    }
}
