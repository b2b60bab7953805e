//! The encoder: a BERT (post-LayerNorm, absolute positions from 0, GELU) whose linear layers
//! stay the file's 4-bit blocks (`quant.rs` multiplies them); attention, norms and embeddings
//! are f32. A window of token ids becomes one
//! vector per token; the caller pools them.

use anyhow::{Context, Result, ensure};

use super::file::{File, Shape, Tensor, dequantize};
use super::quant::{Q4Matrix, Work, product};

/// A linear layer: `out = x · Wᵀ + b`, W kept as the file's 4-bit blocks.
struct Linear {
    weights: Q4Matrix,
    bias: Vec<f32>,
}

impl Linear {
    /// `rows` vectors at once (one matrix product, which is where the time goes) into `out`,
    /// `rows × outputs`.
    fn apply(&self, x: &[f32], rows: usize, out: &mut Vec<f32>, work: &mut Work) {
        product(&self.weights, x, rows, &self.bias, out, work);
    }
}

struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

impl Norm {
    fn apply(&self, x: &mut [f32], eps: f32) {
        let n = x.len() as f32;
        let mean = x.iter().sum::<f32>() / n;
        let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
        let scale = 1.0 / (var + eps).sqrt();
        for ((v, w), b) in x.iter_mut().zip(&self.weight).zip(&self.bias) {
            *v = (*v - mean) * scale * w + b;
        }
    }
}

struct Layer {
    q: Linear,
    k: Linear,
    v: Linear,
    attention_out: Linear,
    attention_norm: Norm,
    ff_in: Linear,
    ff_out: Linear,
    out_norm: Norm,
}

pub(crate) struct Bert {
    shape: Shape,
    /// The word table stays 4-bit: a token's row is widened when it is looked up.
    words: Vec<u8>,
    positions: Vec<f32>,
    token_type: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

fn tensor<'a>(file: &File<'a>, name: &str) -> Result<Tensor<'a>> {
    file.tensors
        .get(name)
        .copied()
        .with_context(|| format!("the model file has no tensor {name}"))
}

fn floats(file: &File, name: &str, count: usize) -> Result<Vec<f32>> {
    let t = tensor(file, name)?;
    ensure!(
        t.count == count,
        "tensor {name}: {} weights, {count} expected",
        t.count
    );
    let mut out = Vec::with_capacity(count);
    if t.quantized {
        dequantize(t.bytes, &mut out);
    } else {
        out.extend(
            t.bytes
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
        );
    }
    Ok(out)
}

fn linear(file: &File, name: &str, inputs: usize, outputs: usize) -> Result<Linear> {
    let w = tensor(file, &format!("{name}.w"))?;
    ensure!(
        w.quantized,
        "tensor {name}.w is not 4-bit; this model file is not one cmem can read"
    );
    let weights = Q4Matrix::from_blocks(w.bytes, outputs, inputs).with_context(|| {
        format!(
            "tensor {name}.w: {} weights, {outputs} × {inputs} expected",
            w.count
        )
    })?;
    Ok(Linear {
        weights,
        bias: floats(file, &format!("{name}.b"), outputs)?,
    })
}

fn norm(file: &File, name: &str, width: usize) -> Result<Norm> {
    Ok(Norm {
        weight: floats(file, &format!("{name}.w"), width)?,
        bias: floats(file, &format!("{name}.b"), width)?,
    })
}

/// GELU with the error function (BERT's), erf by Abramowitz and Stegun 7.1.26 refined to f32
/// precision.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x / std::f32::consts::SQRT_2))
}

fn erf(x: f32) -> f32 {
    // Numerical Recipes' erfc (within 1.2e-7 in exact arithmetic), in f32: its error of a few
    // 1e-7 is far below the 4-bit weights' and the int8 activations', and f32's `exp` is the
    // cheaper call (a query's GELUs are 300,000 of them).
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let y = 1.0
        - t * (-x * x - 1.265_512_2
            + t * (1.000_023_7
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_204
                                    + t * (1.488_515_9
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 { y } else { -y }
}

impl Bert {
    pub(crate) fn new(file: &File) -> Result<Bert> {
        let s = file.shape;
        let h = s.hidden;
        let words = tensor(file, "emb.word")?;
        ensure!(
            words.quantized && words.count == s.vocab_rows * h,
            "the word table is not {} rows of 4-bit weights",
            s.vocab_rows
        );
        let mut layers = Vec::with_capacity(s.layers);
        for l in 0..s.layers {
            layers.push(Layer {
                q: linear(file, &format!("l{l}.q"), h, h)?,
                k: linear(file, &format!("l{l}.k"), h, h)?,
                v: linear(file, &format!("l{l}.v"), h, h)?,
                attention_out: linear(file, &format!("l{l}.ao"), h, h)?,
                attention_norm: norm(file, &format!("l{l}.aln"), h)?,
                ff_in: linear(file, &format!("l{l}.fi"), h, s.ff)?,
                ff_out: linear(file, &format!("l{l}.fo"), s.ff, h)?,
                out_norm: norm(file, &format!("l{l}.oln"), h)?,
            });
        }
        Ok(Bert {
            shape: s,
            words: words.bytes.to_vec(),
            positions: floats(file, "emb.pos", s.max_positions * h)?,
            token_type: floats(file, "emb.type", 2 * h)?,
            embedding_norm: norm(file, "emb.ln", h)?,
            layers,
        })
    }

    pub(crate) fn hidden(&self) -> usize {
        self.shape.hidden
    }

    /// The most tokens one window takes (`<s>` and `</s>` included).
    pub(crate) fn max_window(&self) -> usize {
        self.shape.max_positions
    }

    /// The mean of the final hidden states of one window of ids.
    pub(crate) fn mean_of_window(&self, ids: &[u32]) -> Vec<f32> {
        let h = self.shape.hidden;
        let eps = self.shape.eps;
        let row_bytes = h / 32 * 18;
        let n = ids.len();
        // One row of `h` numbers per token, row-major.
        let mut x: Vec<f32> = Vec::with_capacity(n * h);
        for (p, &id) in ids.iter().enumerate() {
            let start = id as usize * row_bytes;
            let row = self.words.get(start..start + row_bytes).unwrap_or(&[]);
            let at = x.len();
            dequantize(row, &mut x);
            x.resize(at + h, 0.0);
            let pos = &self.positions[p * h..(p + 1) * h];
            for ((a, b), c) in x[at..].iter_mut().zip(pos).zip(&self.token_type[..h]) {
                *a += b + c;
            }
            self.embedding_norm.apply(&mut x[at..], eps);
        }
        let mut scratch = Scratch::default();
        for layer in &self.layers {
            self.layer(layer, &mut x, n, &mut scratch);
        }
        let mut mean = vec![0.0f32; h];
        for row in x.chunks_exact(h) {
            for (m, a) in mean.iter_mut().zip(row) {
                *m += a;
            }
        }
        let count = n.max(1) as f32;
        mean.iter_mut().for_each(|m| *m /= count);
        mean
    }

    fn layer(&self, l: &Layer, x: &mut [f32], n: usize, s: &mut Scratch) {
        let shape = self.shape;
        let (h, heads) = (shape.hidden, shape.heads);
        let d = h / heads;
        let scale = 1.0 / (d as f32).sqrt();
        l.q.apply(x, n, &mut s.q, &mut s.work);
        l.k.apply(x, n, &mut s.k, &mut s.work);
        l.v.apply(x, n, &mut s.v, &mut s.work);
        s.context.clear();
        s.context.resize(n * h, 0.0);
        s.scores.clear();
        s.scores.resize(n * n, 0.0);
        for head in 0..heads {
            let offset = head * d;
            // SAFETY: Q and K are n × h row-major; a head's slice is n × d at column `offset`,
            // read with row stride h; scores is n × n row-major.
            unsafe {
                matrixmultiply::sgemm(
                    n,
                    d,
                    n,
                    scale,
                    s.q.as_ptr().add(offset),
                    h as isize,
                    1,
                    s.k.as_ptr().add(offset),
                    1,
                    h as isize,
                    0.0,
                    s.scores.as_mut_ptr(),
                    n as isize,
                    1,
                );
            }
            for row in s.scores.chunks_exact_mut(n) {
                let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let mut sum = 0.0;
                for w in row.iter_mut() {
                    *w = (*w - max).exp();
                    sum += *w;
                }
                row.iter_mut().for_each(|w| *w /= sum);
            }
            // SAFETY: scores is n × n; V's head slice is n × d at column `offset` with row
            // stride h; the context's head slice likewise.
            unsafe {
                matrixmultiply::sgemm(
                    n,
                    n,
                    d,
                    1.0,
                    s.scores.as_ptr(),
                    n as isize,
                    1,
                    s.v.as_ptr().add(offset),
                    h as isize,
                    1,
                    0.0,
                    s.context.as_mut_ptr().add(offset),
                    h as isize,
                    1,
                );
            }
        }
        l.attention_out
            .apply(&s.context, n, &mut s.projected, &mut s.work);
        for (row, add) in x.chunks_exact_mut(h).zip(s.projected.chunks_exact(h)) {
            row.iter_mut().zip(add).for_each(|(a, b)| *a += b);
            l.attention_norm.apply(row, shape.eps);
        }
        l.ff_in.apply(x, n, &mut s.inner, &mut s.work);
        s.inner.iter_mut().for_each(|a| *a = gelu(*a));
        l.ff_out.apply(&s.inner, n, &mut s.projected, &mut s.work);
        for (row, add) in x.chunks_exact_mut(h).zip(s.projected.chunks_exact(h)) {
            row.iter_mut().zip(add).for_each(|(a, b)| *a += b);
            l.out_norm.apply(row, shape.eps);
        }
    }
}

/// Buffers one window's layers reuse.
#[derive(Default)]
struct Scratch {
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    scores: Vec<f32>,
    context: Vec<f32>,
    projected: Vec<f32>,
    inner: Vec<f32>,
    work: Work,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_and_gelu_are_close_to_their_values() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-2.0, -0.995_322_3),
        ] {
            assert!((erf(x) - want).abs() < 1e-6, "erf({x}) = {}", erf(x));
        }
        assert!((gelu(1.0) - 0.841_344_7).abs() < 1e-6);
    }
}
