//! Reading an `E5S1` model file: its header, the SentencePiece vocabulary with scores, the
//! normalisation map, and the directory of tensors (f32 or 4-bit `Q4_0` blocks). The layout is
//! written down in scripts/e5_weights.py, which makes cmem's file.

use std::collections::HashMap;

use anyhow::{Context, Result, bail, ensure};

/// The shape of the encoder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Shape {
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub ff: usize,
    pub vocab_rows: usize,
    pub max_positions: usize,
    pub eps: f32,
}

/// A tensor's bytes and how to read them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tensor<'a> {
    pub quantized: bool,
    pub count: usize,
    pub bytes: &'a [u8],
}

pub(crate) struct File<'a> {
    pub shape: Shape,
    pub pieces: Vec<&'a str>,
    pub scores: Vec<f32>,
    pub bos: u32,
    pub eos: u32,
    pub unk: u32,
    /// Code point → what it becomes (empty: removed).
    pub normalise: HashMap<u32, Vec<char>>,
    pub tensors: HashMap<&'a str, Tensor<'a>>,
}

/// A little-endian reader over the file's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self
            .at
            .checked_add(n)
            .context("the model file is cut short")?;
        let out = self
            .bytes
            .get(self.at..end)
            .context("the model file is cut short")?;
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn f32(&mut self) -> Result<f32> {
        Ok(f32::from_le_bytes(self.array()?))
    }

    fn count(&mut self) -> Result<usize> {
        usize::try_from(self.i32()?).context("a negative count in the model file")
    }
}

/// Parses `bytes` as an `E5S1` model file.
pub(crate) fn parse(bytes: &[u8]) -> Result<File<'_>> {
    let mut r = Reader { bytes, at: 0 };
    ensure!(r.take(4)? == b"E5S1", "not an E5S1 model file");
    ensure!(r.u32()? == 1, "an E5S1 model file of an unknown version");
    let hidden = r.count()?;
    let layers = r.count()?;
    let heads = r.count()?;
    let ff = r.count()?;
    let vocab_rows = r.count()?;
    let max_positions = r.count()?;
    let _type_vocab = r.count()?;
    let eps = r.f32()?;
    let block = r.count()?;
    ensure!(block == 32, "Q4_0 blocks of {block} weights (32 expected)");
    ensure!(
        hidden > 0 && heads > 0 && hidden % heads == 0 && hidden % 32 == 0 && ff % 32 == 0,
        "an encoder shape cmem cannot run ({hidden} wide, {heads} heads, {ff} feed-forward)"
    );
    let n = r.count()?;
    let bos = r.u32()?;
    let eos = r.u32()?;
    let _pad = r.u32()?;
    let unk = r.u32()?;
    let blob_len = usize::try_from(r.u64()?).context("a vocabulary too large")?;
    let mut offsets = Vec::with_capacity(n + 1);
    for _ in 0..=n {
        offsets.push(r.u32()? as usize);
    }
    let mut scores = Vec::with_capacity(n);
    for _ in 0..n {
        scores.push(r.f32()?);
    }
    let blob = r.take(blob_len)?;
    let mut pieces = Vec::with_capacity(n);
    for w in offsets.windows(2) {
        let piece = blob
            .get(w[0]..w[1])
            .context("a vocabulary piece outside the blob")?;
        pieces.push(std::str::from_utf8(piece).context("a vocabulary piece is not UTF-8")?);
    }
    ensure!(
        [bos, eos, unk].iter().all(|&id| (id as usize) < n),
        "special token ids outside the vocabulary"
    );
    let entries = r.count()?;
    let _bytes = r.u32()?;
    let mut normalise = HashMap::with_capacity(entries);
    for _ in 0..entries {
        let cp = r.u32()?;
        let len = r.u8()? as usize;
        let mut out = Vec::with_capacity(len);
        for _ in 0..len {
            out.push(char::from_u32(r.u32()?).context("a normalisation to a non-character")?);
        }
        normalise.insert(cp, out);
    }
    let dir = r.count()?;
    let mut tensors = HashMap::with_capacity(dir);
    for _ in 0..dir {
        let len = r.u16()? as usize;
        let name = std::str::from_utf8(r.take(len)?).context("a tensor name is not UTF-8")?;
        let dtype = r.u8()?;
        let count = r.u32()? as usize;
        let offset = usize::try_from(r.u64()?).context("a tensor offset too large")?;
        let nbytes = usize::try_from(r.u64()?).context("a tensor too large")?;
        let quantized = match dtype {
            0 => false,
            1 => true,
            other => bail!("tensor {name}: unknown type {other}"),
        };
        let expected = if quantized {
            count / 32 * 18
        } else {
            count * 4
        };
        ensure!(
            nbytes == expected && (!quantized || count.is_multiple_of(32)),
            "tensor {name}: {nbytes} bytes for {count} weights"
        );
        let data = bytes
            .get(
                offset
                    ..offset
                        .checked_add(nbytes)
                        .context("a tensor past the end")?,
            )
            .with_context(|| format!("tensor {name} lies past the end of the file"))?;
        tensors.insert(
            name,
            Tensor {
                quantized,
                count,
                bytes: data,
            },
        );
    }
    Ok(File {
        shape: Shape {
            hidden,
            layers,
            heads,
            ff,
            vocab_rows,
            max_positions,
            eps,
        },
        pieces,
        scores,
        bos,
        eos,
        unk,
        normalise,
        tensors,
    })
}

/// An IEEE half-precision number as f32 (the scale of a `Q4_0` block).
pub(crate) fn f16_to_f32(bits: u16) -> f32 {
    let sign = ((bits >> 15) as u32) << 31;
    let exp = ((bits >> 10) & 0x1f) as u32;
    let frac = (bits & 0x3ff) as u32;
    let out = match (exp, frac) {
        (0, 0) => sign,
        (0, _) => {
            // Subnormal: normalise it.
            let mut e = 0i32;
            let mut f = frac;
            while f & 0x400 == 0 {
                f <<= 1;
                e -= 1;
            }
            let exp32 = (127 - 15 + 1 + e) as u32;
            sign | (exp32 << 23) | ((f & 0x3ff) << 13)
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, _) => sign | 0x7fc0_0000,
        _ => sign | ((exp + 127 - 15) << 23) | (frac << 13),
    };
    f32::from_bits(out)
}

/// The weights of `Q4_0` blocks (18 bytes: an f16 scale, then 32 four-bit values, the low
/// nibbles first) appended to `out`.
pub(crate) fn dequantize(blocks: &[u8], out: &mut Vec<f32>) {
    for block in blocks.chunks_exact(18) {
        widen(
            f16_to_f32(u16::from_le_bytes([block[0], block[1]])),
            &block[2..18],
            out,
        );
    }
}

/// One block's 32 weights, from its scale `d` and its 16 bytes of nibbles (low nibbles
/// first, each weight `nibble − 8`), appended to `out`.
pub(crate) fn widen(d: f32, nibbles: &[u8], out: &mut Vec<f32>) {
    out.extend(nibbles.iter().map(|q| ((q & 15) as i32 - 8) as f32 * d));
    out.extend(nibbles.iter().map(|q| ((q >> 4) as i32 - 8) as f32 * d));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_convert() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x0000), 0.0);
        assert_eq!(f16_to_f32(0x3555), 0.333_251_95);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8);
        assert!(f16_to_f32(0x7c00).is_infinite());
    }

    #[test]
    fn a_block_dequantizes_low_nibbles_first() {
        let mut block = vec![0x00, 0x3c]; // d = 1.0
        block.extend((0..16u8).map(|j| (15 - j) << 4 | j));
        let mut out = Vec::new();
        dequantize(&block, &mut out);
        assert_eq!(out[0], -8.0);
        assert_eq!(out[15], 7.0);
        assert_eq!(out[16], 7.0);
        assert_eq!(out[31], -8.0);
    }
}
