//! Generated sample proof for test deliveries: real, small files (PNG photos
//! and a PNG signature) so that integrators can exercise downloads and image
//! handling before going live. Written without an image library: a PNG of
//! uncompressed ("stored") deflate blocks is a few lines and always valid.

/// A `width`×`height` RGB PNG whose pixels `pixel(x, y)` gives.
pub fn png(width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
    let mut raw = Vec::with_capacity((height * (1 + 3 * width)) as usize);
    for y in 0..height {
        raw.push(0); // filter type: none
        for x in 0..width {
            raw.extend_from_slice(&pixel(x, y));
        }
    }
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8 bits, RGB, deflate, no filter, no interlace
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &zlib_stored(&raw));
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream of stored (uncompressed) deflate blocks.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = if data.is_empty() {
        vec![&[]]
    } else {
        data.chunks(0xFFFF).collect()
    };
    let last = blocks.len() - 1;
    for (i, block) in blocks.into_iter().enumerate() {
        out.push(u8::from(i == last));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

/// A sample photo: a sky-to-ground gradient with a parcel-coloured box,
/// tinted by `variant` so that the photos of one checkpoint differ.
pub fn photo(variant: u32) -> Vec<u8> {
    let tint = (variant * 47 % 96) as u8;
    png(64, 48, |x, y| {
        let in_box = (22..42).contains(&x) && (20..40).contains(&y);
        if in_box {
            [176, 124u8.saturating_add(tint / 4), 72]
        } else if y < 28 {
            [96u8.saturating_add(tint), (150 + y) as u8, 230]
        } else {
            [90, (120 + x / 2) as u8, 80u8.saturating_add(tint / 2)]
        }
    })
}

/// A sample signature: a pen stroke on white, as a PNG (proof files are
/// images of the kinds a phone takes, never SVG), its waves set by `name`
/// so that two people's signatures differ.
pub fn signature(name: &str) -> Vec<u8> {
    let seed = name
        .bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    let (width, height) = (240u32, 80u32);
    let wave = 8.0 + f64::from(seed % 7);
    let lift = f64::from(seed % 11) / 10.0;
    // The pen's height at column `x`, and how far it moves from one column
    // to the next (a steep stroke is drawn as a band, not dots).
    let pen = |x: f64| 40.0 + 22.0 * (x / wave + lift).sin() * (1.0 - x / 300.0);
    png(width, height, |x, y| {
        let (x, y) = (f64::from(x), f64::from(y));
        let inked = (16.0..224.0).contains(&x) && {
            let (a, b) = (pen(x), pen(x + 1.0));
            (a.min(b) - 1.5..=a.max(b) + 1.5).contains(&y)
        };
        if inked { [27, 42, 74] } else { [255, 255, 255] }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_match_their_reference_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
    }

    #[test]
    fn pngs_are_well_formed() {
        let bytes = photo(1);
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        // Walk the chunks, checking each CRC; the last one is IEND.
        let mut at = 8;
        let mut kinds = Vec::new();
        while at < bytes.len() {
            let len = u32::from_be_bytes(bytes[at..at + 4].try_into().expect("len")) as usize;
            let body = &bytes[at + 4..at + 8 + len];
            let crc = u32::from_be_bytes(bytes[at + 8 + len..at + 12 + len].try_into().expect("crc"));
            assert_eq!(crc32(body), crc);
            kinds.push(String::from_utf8_lossy(&body[..4]).into_owned());
            at += 12 + len;
        }
        assert_eq!(kinds, ["IHDR", "IDAT", "IEND"]);
        assert_ne!(photo(1), photo(2));
        // Stored blocks split at 64 KiB.
        let big = zlib_stored(&vec![7u8; 70_000]);
        assert_eq!(big.len(), 2 + 5 + 65_535 + 5 + (70_000 - 65_535) + 4);
    }

    #[test]
    fn signatures_are_pngs_that_differ_by_name() {
        let sam = signature("Sam Sample");
        assert_eq!(&sam[..8], b"\x89PNG\r\n\x1a\n");
        assert_ne!(sam, signature("Robin Recipient"));
        assert_eq!(sam, signature("Sam Sample"));
    }
}
