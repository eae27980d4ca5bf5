//! Live and test: the two worlds every key, delivery and event belongs to
//! (docs/guide.md "Test and live mode").

/// Key mode: it scopes everything a key creates and sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    Live,
    Test,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Live => "live",
            Mode::Test => "test",
        }
    }

    pub fn parse(text: &str) -> Option<Mode> {
        match text {
            "live" => Some(Mode::Live),
            "test" => Some(Mode::Test),
            _ => None,
        }
    }
}
