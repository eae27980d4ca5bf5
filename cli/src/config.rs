//! What `courier` keeps in the user's configuration directory
//! (`$XDG_CONFIG_HOME/courier`, else `~/.config/courier`, or `--config-dir`):
//! the key saved by `courier login` (`credentials.json`) and the machine's
//! secret for signing forwarded events (`listen-secret`), both readable by
//! the user alone (mode 0600).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use base64::Engine;
use serde::{Deserialize, Serialize};

use crate::api::Failure;

/// The default configuration directory.
pub fn default_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .map(|dir| dir.join("courier"))
}

/// The key and base URL `courier login` saved.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Credentials {
    pub api_key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
}

pub fn load_credentials(dir: &Path) -> Result<Option<Credentials>, Failure> {
    let path = dir.join("credentials.json");
    match fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|error| Failure::Local(format!("{} is not readable: {error}", path.display()))),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(Failure::Local(format!("{}: {error}", path.display()))),
    }
}

/// Saves `credentials`; answers the file's path.
pub fn save_credentials(dir: &Path, credentials: &Credentials) -> Result<PathBuf, Failure> {
    let path = dir.join("credentials.json");
    let text = serde_json::to_vec_pretty(credentials).map_err(|error| Failure::Local(error.to_string()))?;
    write_private(&path, &text)?;
    Ok(path)
}

/// The machine's signing secret for `courier listen` (`whsec_…`), made on
/// first use and kept, so that a receiver configured with it keeps working.
pub fn listen_secret(dir: &Path) -> Result<String, Failure> {
    let path = dir.join("listen-secret");
    match fs::read_to_string(&path) {
        Ok(text) if text.trim().starts_with("whsec_") => return Ok(text.trim().to_owned()),
        Ok(_) => {
            return Err(Failure::Local(format!(
                "{} does not hold a whsec_ secret",
                path.display()
            )));
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(Failure::Local(format!("{}: {error}", path.display()))),
    }
    let key: [u8; 32] = rand::random();
    let secret = format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(key));
    write_private(&path, format!("{secret}\n").as_bytes())?;
    Ok(secret)
}

/// Writes `bytes` to `path`, readable and writable by the user alone.
fn write_private(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let failed = |error: std::io::Error| Failure::Local(format!("{}: {error}", path.display()));
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(failed)?;
    }
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        options.mode(0o600);
        let mut file = options.open(path).map_err(failed)?;
        // An older file keeps its mode on open: set it.
        file.set_permissions(fs::Permissions::from_mode(0o600))
            .map_err(failed)?;
        file.write_all(bytes).map_err(failed)
    }
    #[cfg(not(unix))]
    {
        let mut file = options.open(path).map_err(failed)?;
        file.write_all(bytes).map_err(failed)
    }
}
