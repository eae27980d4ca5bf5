//! `COURIER_*` environment variables that the starting binary does not read
//! are reported at start: most are typos (`COURIER_DATABASE_UR`) that would
//! otherwise silently leave a default in place. What a binary reads comes
//! from its own flags (every flag has its variable), so no list is kept by
//! hand.

use crate::logging;

/// Variables read other than through a flag.
const READ_OUTSIDE_FLAGS: &[&str] = &[logging::FILTER_VARIABLE];

/// The `COURIER_*` variables `command`'s flags read, its subcommands'
/// included.
pub fn read_by(command: &clap::Command) -> Vec<String> {
    let mut names: Vec<String> = command
        .get_arguments()
        .filter_map(|arg| arg.get_env())
        .filter_map(|name| name.to_str())
        .map(str::to_owned)
        .collect();
    for subcommand in command.get_subcommands() {
        names.extend(read_by(subcommand));
    }
    names
}

/// The `COURIER_*` names in `present` that none of `commands` reads.
pub fn unknown<'a>(present: impl IntoIterator<Item = &'a str>, commands: &[clap::Command]) -> Vec<&'a str> {
    let known: Vec<String> = commands.iter().flat_map(read_by).collect();
    present
        .into_iter()
        .filter(|name| name.starts_with("COURIER_"))
        .filter(|name| !READ_OUTSIDE_FLAGS.contains(name) && !known.iter().any(|k| k == name))
        .collect()
}

/// Logs a warning for each `COURIER_*` variable of this process's
/// environment that none of `commands` reads. Call once logging is set up.
pub fn warn_unknown(commands: &[clap::Command]) {
    let present: Vec<String> = std::env::vars().map(|(name, _)| name).collect();
    for name in unknown(present.iter().map(String::as_str), commands) {
        tracing::warn!(variable = %name, "unknown COURIER_* environment variable ignored");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(clap::Parser)]
    struct Cli {
        #[arg(long, env = "COURIER_HTTP_ADDR")]
        http_addr: Option<String>,
        #[command(subcommand)]
        command: Option<Command>,
    }

    #[derive(clap::Subcommand)]
    enum Command {
        Serve {
            #[arg(long, env = "COURIER_GRPC_ADDR")]
            grpc_addr: Option<String>,
        },
    }

    #[test]
    fn only_variables_no_flag_reads_are_unknown() {
        use clap::CommandFactory;
        let present = [
            "COURIER_HTTP_ADDR",
            "COURIER_GRPC_ADDR",
            "COURIER_LOG",
            "COURIER_HTTP_ADR",
            "PATH",
        ];
        assert_eq!(unknown(present, &[Cli::command()]), ["COURIER_HTTP_ADR"]);
    }
}
