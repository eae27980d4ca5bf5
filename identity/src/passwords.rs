//! Passwords of console users and couriers: what is accepted (after NIST SP
//! 800-63B: length, no common or context password, no rule of composition;
//! docs/couriers.md) and argon2id hashing, which runs off the async runtime
//! because it is deliberately slow.

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand::Rng;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, LazyLock, Mutex, mpsc};
use tokio::sync::oneshot;

use crate::{CoreError, CoreResult};

/// The shortest and longest password accepted.
pub const CHARS: (usize, usize) = (12, 200);

/// Passwords of twelve characters or more that lead the public lists of
/// breached passwords; shorter ones are refused by length already.
const COMMON: &[&str] = &[
    "123456789012",
    "1234567890123",
    "12345678901234",
    "123456789123",
    "1q2w3e4r5t6y",
    "1qaz2wsx3edc",
    "abcdefghijkl",
    "administrator",
    "asdfghjklzxc",
    "iloveyou1234",
    "letmein12345",
    "password1234",
    "password12345",
    "password123456",
    "passwordpassword",
    "q1w2e3r4t5y6",
    "qazwsxedcrfv",
    "qwerty123456",
    "qwertyuiop12",
    "qwertyuiopasdfgh",
    "qwertyuiop123",
    "welcome12345",
    "welcome123456",
    "changeme1234",
    "trustno1trustno1",
    "football1234",
    "baseball1234",
    "superman1234",
    "monkey123456",
    "dragon123456",
    "sunshine1234",
    "princess1234",
    "1234qwerasdf",
    "zaq12wsxcde3",
    "abc123456789",
    "aa1234567890",
    "987654321098",
    "098765432109",
    "passw0rd1234",
    "p@ssw0rd1234",
    "p@ssword1234",
    "courier12345",
    "courier123456",
];

/// Refuses a password that is too short or long, common, one character
/// repeated, a run of consecutive characters, or made of the account's own
/// `context` words (name, email, phone). The reason names what is wrong,
/// for the form to show at the password field.
pub fn check(password: &str, context: &[&str]) -> CoreResult<()> {
    let (min, max) = CHARS;
    let chars: Vec<char> = password.chars().collect();
    let refuse = |reason: String| Err(CoreError::invalid("password", reason));
    if chars.len() < min {
        return refuse(format!("The password must have at least {min} characters."));
    }
    if chars.len() > max {
        return refuse(format!("The password must have at most {max} characters."));
    }
    let lower = password.to_lowercase();
    if COMMON.contains(&lower.as_str()) {
        return refuse("This password is one of the most common ones; choose another.".into());
    }
    if chars.iter().all(|c| *c == chars[0]) {
        return refuse("The password repeats one character; choose another.".into());
    }
    let steps: Vec<i64> = chars.windows(2).map(|w| w[1] as i64 - w[0] as i64).collect();
    if steps.iter().all(|s| *s == steps[0]) && steps[0].abs() == 1 {
        return refuse("The password is a run of consecutive characters; choose another.".into());
    }
    let own = context
        .iter()
        .flat_map(|word| word.split(|c: char| !c.is_alphanumeric()))
        .filter(|part| part.chars().count() >= 4)
        .map(str::to_lowercase)
        .any(|part| lower == part || lower.trim_end_matches(|c: char| c.is_ascii_digit()) == part);
    if own {
        return refuse("The password is made of your own name, email or phone; choose another.".into());
    }
    Ok(())
}

/// A piece of hashing work for [`HASHERS`].
type HashWork = Box<dyn FnOnce() + Send>;

/// The threads argon2id runs on: one per core, for as long as the process
/// lives. Each computation takes 19 MiB (`Argon2::default()`) and a core's
/// worth of time: more at once than there are cores only makes each
/// slower, and on tokio's blocking threads (up to 512, started and ended
/// as load comes and goes) a thousand couriers signing in at once ran
/// hundreds together. With the system allocator (builds without
/// jemalloc) each of those threads' arenas kept its blocks: the core
/// stayed at 2 GB resident after the sign-ins.
static HASHERS: LazyLock<mpsc::Sender<HashWork>> = LazyLock::new(|| {
    let (send, receive) = mpsc::channel::<HashWork>();
    let receive = Arc::new(Mutex::new(receive));
    for n in 0..std::thread::available_parallelism().map_or(1, |cores| cores.get()) {
        let receive = Arc::clone(&receive);
        let started = std::thread::Builder::new()
            .name(format!("password-hasher-{n}"))
            .spawn(move || {
                loop {
                    // The lock is held only to take the next piece of work.
                    let next = receive.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).recv();
                    match next {
                        // A panic is the caller's failed answer, not the
                        // end of the thread.
                        Ok(work) => {
                            let _ = std::panic::catch_unwind(AssertUnwindSafe(work));
                        }
                        Err(_) => return,
                    }
                }
            });
        if let Err(error) = started {
            tracing::error!(%error, "a password hashing thread did not start");
        }
    }
    send
});

/// Runs `work` on one of the [`HASHERS`] and waits for its answer.
async fn hashing<T: Send + 'static>(what: &str, work: impl FnOnce() -> T + Send + 'static) -> CoreResult<T> {
    let (answer, answered) = oneshot::channel();
    let job: HashWork = Box::new(move || {
        let _ = answer.send(work());
    });
    HASHERS
        .send(job)
        .map_err(|_| CoreError::Internal(format!("{what}: no hashing thread runs")))?;
    answered
        .await
        .map_err(|_| CoreError::Internal(format!("{what}: the hashing thread failed")))
}

/// The argon2id hash of `password` with a fresh random salt, in PHC string
/// form (on one of the [`HASHERS`]).
pub async fn hash(password: &str) -> CoreResult<String> {
    let password = password.to_owned();
    hashing("password hash", move || hash_now(&password)).await?
}

/// Whether `password` matches the stored `hash`; with no hash (an unknown
/// account), a decoy is checked so that it costs as long as a wrong password.
pub async fn verify(password: &str, hash: Option<&str>) -> CoreResult<bool> {
    let (password, hash) = (password.to_owned(), hash.map(str::to_owned));
    hashing("password check", move || {
        let matches = verify_now(&password, hash.as_deref().unwrap_or(decoy_hash()));
        matches && hash.is_some()
    })
    .await
}

fn hash_now(password: &str) -> CoreResult<String> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt).map_err(|e| CoreError::Internal(format!("salt: {e}")))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| CoreError::Internal(format!("password hash: {e}")))
}

fn verify_now(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
}

fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash_now("decoy password that matches nothing").unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hashes_with_argon2id_and_verifies() {
        let hash = hash("correct horse battery").await.expect("hash");
        assert!(hash.starts_with("$argon2id$"), "{hash}");
        assert!(verify("correct horse battery", Some(&hash)).await.expect("verify"));
        assert!(!verify("correct horse battery!", Some(&hash)).await.expect("verify"));
        assert!(!verify("correct horse battery", None).await.expect("verify"));
        assert!(!verify("anything", Some("not a hash")).await.expect("verify"));
    }

    #[test]
    fn refuses_the_obvious_with_a_reason() {
        let refused = |password: &str, context: &[&str]| match check(password, context) {
            Err(CoreError::Rejected { message, param, .. }) => {
                assert_eq!(param.as_deref(), Some("password"));
                message
            }
            other => panic!("{password:?} was not refused: {other:?}"),
        };
        assert!(refused("short pass", &[]).contains("at least 12"));
        assert!(refused("Password1234", &[]).contains("most common"));
        assert!(refused("aaaaaaaaaaaaaa", &[]).contains("repeats"));
        assert!(refused("abcdefghijklm", &[]).contains("consecutive"));
        assert!(refused("cordelia1234", &["Cordelia Ruiz", "cordelia@example.com"]).contains("your own"));
        assert!(check("tram stop at dawn", &["Cordelia Ruiz"]).is_ok());
        assert!(check(&"x".repeat(201), &[]).is_err());
    }
}
