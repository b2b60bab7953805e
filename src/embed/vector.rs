//! A stored embedding: a unit vector quantised to int8 with one scale (260 bytes for 256
//! dimensions instead of 1,024), compared by dot product.

/// A unit vector as int8 values times `scale`.
#[derive(Debug, Clone, PartialEq)]
pub struct Vector {
    pub scale: f32,
    pub values: Vec<i8>,
}

impl Vector {
    pub fn quantise(unit: &[f32]) -> Vector {
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

    /// The dot product of two quantised vectors (their cosine, both being unit vectors), in
    /// integers: the comparison every semantic search makes with every stored vector.
    pub fn dot(&self, other: &Vector) -> f32 {
        let sum: i32 = self
            .values
            .iter()
            .zip(&other.values)
            .map(|(a, b)| i32::from(*a) * i32::from(*b))
            .sum();
        sum as f32 * self.scale * other.scale
    }

    /// Bytes: the scale (little-endian f32), then the values.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.scale.to_le_bytes().to_vec();
        out.extend(self.values.iter().map(|v| *v as u8));
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Option<Vector> {
        let (scale, values) = bytes.split_at_checked(4)?;
        Some(Vector {
            scale: f32::from_le_bytes(scale.try_into().ok()?),
            values: values.iter().map(|b| *b as i8).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantised_vectors_keep_their_cosine() {
        let a = [0.6f32, 0.8, 0.0];
        let v = Vector::quantise(&a);
        assert!((v.dot(&v) - 1.0).abs() < 0.01);
        assert!(v.dot(&Vector::quantise(&[0.0, 0.0, 1.0])).abs() < 0.01);
        assert_eq!(Vector::from_bytes(&v.to_bytes()), Some(v));
        assert_eq!(Vector::from_bytes(&[1, 2]), None);
    }
}
