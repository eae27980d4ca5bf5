//! Prefixed, unguessable identifiers (`del_…`, `quo_…`) and API key secrets.

use rand::RngExt;

const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `len` random base62 characters (about 5.95 bits each).
pub fn random_base62(len: usize) -> String {
    let mut rng = rand::rng();
    (0..len)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

/// A PIN of 4 random digits, leading zeros included.
pub fn pin() -> String {
    format!("{:04}", rand::rng().random_range(0..10_000))
}

/// Base62 characters of an id's time: milliseconds since 1970 for the next
/// 6,900 years.
const TIME_CHARS: usize = 8;

/// A new id with `prefix`: the time in milliseconds (8 base62 characters,
/// zero-padded), then 22 random base62 characters (over 128 bits). As
/// unguessable as 22 random characters alone, and ordered by creation: a
/// new row's id lands at the end of its index instead of on a random page,
/// which halves what a create writes to the database (BENCHMARKS.md).
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", ordered_random(22))
}

/// The time in milliseconds (8 base62 characters), then `len` random base62
/// characters: unguessable like `random_base62(len)`, and in creation order
/// (see [`new_id`]).
pub fn ordered_random(len: usize) -> String {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_millis());
    base62_fixed(millis) + &random_base62(len)
}

/// `n` in [`TIME_CHARS`] base62 digits, most significant first, so that
/// the text sorts like the number (the alphabet is in ASCII order).
fn base62_fixed(mut n: u128) -> String {
    let mut digits = [ALPHABET[0]; TIME_CHARS];
    for digit in digits.iter_mut().rev() {
        *digit = ALPHABET[(n % 62) as usize];
        n /= 62;
    }
    digits.iter().map(|&d| d as char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_carry_their_prefix_and_differ() {
        let a = new_id("del");
        let b = new_id("del");
        assert!(a.starts_with("del_") && a.len() == 4 + TIME_CHARS + 22);
        assert_ne!(a, b);
        assert!(a[4..].bytes().all(|c| c.is_ascii_alphanumeric()));
    }

    #[test]
    fn ids_sort_by_creation_time() {
        assert_eq!(base62_fixed(0), "00000000");
        assert_eq!(base62_fixed(61), "0000000z");
        assert_eq!(base62_fixed(62), "00000010");
        let times = [
            0,
            61,
            62,
            3_843,
            1_700_000_000_000,
            1_800_000_000_000,
            62u128.pow(8) - 1,
        ];
        let texts: Vec<String> = times.iter().map(|&t| base62_fixed(t)).collect();
        assert!(texts.windows(2).all(|pair| pair[0] < pair[1]), "{texts:?}");
        let earlier = new_id("evt");
        std::thread::sleep(std::time::Duration::from_millis(2));
        assert!(earlier < new_id("evt"));
    }
}
