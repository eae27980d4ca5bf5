//! Prefixed, unguessable identifiers (`del_…`, `quo_…`) and API key secrets.

use rand::Rng;

const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `len` random base62 characters (about 5.95 bits each).
pub fn random_base62(len: usize) -> String {
    let mut rng = rand::rng();
    (0..len)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

/// A new id with `prefix`: 22 base62 characters, over 128 bits of randomness.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", random_base62(22))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_carry_their_prefix_and_differ() {
        let a = new_id("del");
        let b = new_id("del");
        assert!(a.starts_with("del_") && a.len() == 26);
        assert_ne!(a, b);
        assert!(a[4..].bytes().all(|c| c.is_ascii_alphanumeric()));
    }
}
