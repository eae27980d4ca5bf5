//! A headless Chromium driven over WebDriver (chromedriver), shared by the
//! browser tests of the console and of the courier app: a window per user,
//! waits with deadlines, screenshots at the widths a front is made for, and
//! the DevTools protocol for what WebDriver has no command for (location,
//! permissions, network conditions).

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use crate::harness::{unique_suffix, wait_until};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";
/// How long a page may take to appear after a click.
pub const PAGE_WAIT: Duration = Duration::from_secs(20);

/// A chromedriver of this test, stopped with it, and with it the browsers
/// it started (they share its process group), even when the test panics.
pub struct Driver {
    process: std::process::Child,
    url: String,
}

impl Driver {
    /// Starts chromedriver on a free loopback port and waits until it says
    /// it is ready; `None` (the test skipped) where it is not installed.
    pub async fn start() -> Option<Driver> {
        if !Path::new(CHROMEDRIVER).exists() || !Path::new(CHROMIUM).exists() {
            assert!(
                std::env::var("COURIER_TEST_REQUIRE_CHROMIUM").as_deref() != Ok("1"),
                "COURIER_TEST_REQUIRE_CHROMIUM=1 but {CHROMEDRIVER} or {CHROMIUM} is missing"
            );
            eprintln!("SKIPPED: {CHROMEDRIVER} or {CHROMIUM} not found (install chromium and chromium-driver)");
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let process = std::process::Command::new(CHROMEDRIVER)
            .process_group(0)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        // Owned from here on, so that it is stopped whatever happens next.
        let driver = Driver {
            process,
            url: format!("http://127.0.0.1:{port}"),
        };
        let http = reqwest::Client::builder().no_proxy().build().expect("client");
        wait_until("chromedriver to be ready", Duration::from_secs(30), async || {
            let answer = http.get(format!("{}/status", driver.url)).send().await;
            let status = answer.map_err(|e| e.to_string())?.json::<Value>().await;
            match status.map_err(|e| e.to_string())? {
                status if status["value"]["ready"] == true => Ok(()),
                status => Err(status.to_string()),
            }
        })
        .await;
        Some(driver)
    }

    /// A desktop window of the console (own profile, own cookies); with
    /// `COURIER_CONSOLE_SCREENSHOTS=<dir>` its pages are saved at desktop and
    /// phone width.
    pub async fn browser(&self) -> Browser {
        let shots = Shots {
            variable: "COURIER_CONSOLE_SCREENSHOTS",
            prefix: "/console",
            widths: &[(1280, "desktop"), (390, "phone")],
        };
        self.window((1280, 900), shots).await
    }

    /// A phone-sized window of the courier app; with
    /// `COURIER_APP_SCREENSHOTS=<dir>` its pages are saved at 390 and 768 px.
    pub async fn phone(&self) -> Browser {
        let shots = Shots {
            variable: "COURIER_APP_SCREENSHOTS",
            prefix: "/courier",
            widths: &[(390, "phone"), (768, "tablet")],
        };
        self.window((390, 844), shots).await
    }

    async fn window(&self, size: (u32, u32), shots: Shots) -> Browser {
        let profile = std::env::temp_dir().join(format!("courier-e2e-browser-{}", unique_suffix()));
        let capabilities = json!({
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                    format!("--window-size={},{}", size.0, size.1),
                    format!("--user-data-dir={}", profile.display()),
                ],
            }
        });
        let Value::Object(capabilities) = capabilities else {
            unreachable!("an object literal")
        };
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&self.url)
            .await
            .expect("a browser session");
        Browser { client, profile, shots }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The whole group: killing chromedriver alone leaves its Chromium
        // processes running when a test ends without closing its session.
        let group = format!("-{}", self.process.id());
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.process.kill();
        let _ = self.process.wait();
    }
}

/// Where and how a window's screenshots are saved.
struct Shots {
    /// The environment variable naming the directory (none: no screenshots).
    variable: &'static str,
    /// The front's path, left out of the file names.
    prefix: &'static str,
    widths: &'static [(u32, &'static str)],
}

/// One browser window, signed in as one user.
pub struct Browser {
    pub client: Client,
    profile: PathBuf,
    shots: Shots,
}

impl Browser {
    pub async fn close(self) {
        let _ = self.client.close().await;
        let _ = std::fs::remove_dir_all(&self.profile);
    }

    pub async fn open(&self, url: &str) {
        self.client.goto(url).await.expect("navigates");
        self.accessible().await;
        self.screenshot().await;
    }

    /// Checks the page shown with axe-core (vendored from npm, run in the
    /// page): no critical or serious violation of WCAG 2.1 AA.
    pub async fn accessible(&self) {
        const AXE: &str = include_str!("vendor/axe-4.14.1.min.js");
        // Only the platform's own pages (a test's page of another site is
        // not ours to judge).
        let ours = self.client.current_url().await.is_ok_and(|url| {
            ["/console", "/courier", "/t/"]
                .iter()
                .any(|p| url.path().starts_with(p))
        });
        if !ours {
            return;
        }
        // A page without a document yet (an offline error page of the
        // browser's own) has nothing to check.
        let loaded = self
            .client
            .execute("return !!document.body && !window.axe", vec![])
            .await;
        if matches!(loaded, Ok(Value::Bool(true))) {
            let _ = self.client.execute(&format!("{AXE}; return true;"), vec![]).await;
        }
        let script = "const done = arguments[arguments.length - 1]; \
            if (!window.axe) { done([]); return; } \
            axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] }) \
              .then((r) => done(r.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious') \
                .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`)), \
                (e) => done([`axe failed: ${e}`]));";
        let found = self.client.execute_async(script, vec![]).await.expect("axe ran");
        assert_eq!(
            found,
            json!([]),
            "accessibility violations at {}",
            self.url_shown().await
        );
    }

    pub async fn find(&self, css: &str) -> fantoccini::elements::Element {
        self.client
            .wait()
            .at_most(PAGE_WAIT)
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("{css} not on the page: {e}"))
    }

    /// The element's text; found again when a live page replaced it
    /// between finding and reading (a stale element).
    pub async fn text(&self, css: &str) -> String {
        wait_until(format!("the text of {css}"), PAGE_WAIT, async || {
            self.find(css).await.text().await
        })
        .await
    }

    pub async fn fill(&self, css: &str, text: &str) {
        let field = self.find(css).await;
        field.clear().await.expect("clear");
        field.send_keys(text).await.expect("type");
    }

    /// Clicks the element at `xpath`; found again when a live page
    /// replaced it between the find and the click.
    pub async fn click(&self, xpath: &str) {
        wait_until(format!("a click on {xpath}"), PAGE_WAIT, async || {
            let element = self
                .client
                .wait()
                .at_most(PAGE_WAIT)
                .for_element(Locator::XPath(xpath))
                .await
                .unwrap_or_else(|e| panic!("{xpath} not on the page: {e}"));
            match element.click().await {
                Ok(()) => Ok(()),
                // Replaced, or not shown yet (a page still swapping its
                // screens): asked again until the deadline.
                Err(fantoccini::error::CmdError::Standard(e))
                    if matches!(
                        e.error,
                        fantoccini::error::ErrorStatus::StaleElementReference
                            | fantoccini::error::ErrorStatus::ElementNotInteractable
                    ) =>
                {
                    Err(e)
                }
                Err(e) => panic!("click on {xpath}: {e}"),
            }
        })
        .await;
    }

    /// Clicks the element at `xpath`, which loads a new page, and waits for
    /// `css` on it.
    pub async fn click_to(&self, xpath: &str, css: &str) {
        self.mark().await;
        self.click(xpath).await;
        self.arrived(css).await;
    }

    /// Marks the page shown, so that [`Browser::arrived`] can tell the next.
    pub async fn mark(&self) {
        self.client
            .execute("window.courierOldPage = true", vec![])
            .await
            .expect("mark the page");
    }

    /// Waits until a page other than the marked one shows `css`.
    pub async fn arrived(&self, css: &str) {
        if let Err(e) = self
            .client
            .wait()
            .at_most(PAGE_WAIT)
            .for_element(Locator::Css(css))
            .await
        {
            let url = self.url_shown().await;
            let shown = match self.client.find(Locator::Css("body")).await {
                Ok(body) => body.text().await.unwrap_or_default(),
                Err(_) => String::new(),
            };
            panic!("{css} not on the page: {e}\nat {url}:\n{shown}");
        }
        wait_until(format!("a new page showing {css}"), PAGE_WAIT, async || {
            let old = self
                .client
                .execute("return window.courierOldPage === true", vec![])
                .await;
            match old {
                Ok(serde_json::Value::Bool(false)) => Ok(()),
                Ok(_) => Err("the old page".to_owned()),
                Err(e) => Err(e.to_string()),
            }
        })
        .await;
        self.find(css).await;
        self.accessible().await;
        self.screenshot().await;
    }

    /// The address of the page shown (empty when the browser cannot say).
    async fn url_shown(&self) -> String {
        self.client
            .current_url()
            .await
            .map(|u| u.to_string())
            .unwrap_or_default()
    }

    pub async fn heading(&self) -> String {
        self.text("h1").await
    }

    pub async fn page(&self) -> String {
        self.client.source().await.expect("source")
    }

    /// The page as shown, at desktop and phone width, when screenshots are
    /// asked for.
    pub async fn screenshot(&self) {
        let Ok(dir) = std::env::var(self.shots.variable) else {
            return;
        };
        let url = self.client.current_url().await.expect("url");
        let name: String = url
            .path()
            .trim_start_matches(self.shots.prefix)
            .split('/')
            .filter(|part| !part.is_empty() && !part.starts_with("wks_"))
            .map(|part| if part.len() > 20 { "id" } else { part })
            .collect::<Vec<_>>()
            .join("-");
        let name = if name.is_empty() { "home".to_owned() } else { name };
        let title = self.client.title().await.unwrap_or_default();
        let title: String = title
            .split(" · ")
            .next()
            .unwrap_or_default()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        // Numbered in the order taken, so that every state of a page is kept.
        static SHOTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let shot = SHOTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // The page laid out at each width, as tall as its content: the
        // viewport set through DevTools (a window's size includes its frame).
        for &(width, label) in self.shots.widths {
            let metrics = |height: u64| json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 800 });
            self.devtools("Emulation.setDeviceMetricsOverride", metrics(900)).await;
            let height = self
                .client
                .execute("return document.documentElement.scrollHeight", vec![])
                .await
                .ok()
                .and_then(|h| h.as_u64())
                .unwrap_or(900)
                .clamp(400, 4000);
            self.devtools("Emulation.setDeviceMetricsOverride", metrics(height))
                .await;
            let png = self.client.screenshot().await.expect("screenshot");
            let path = Path::new(&dir).join(format!("{shot:03}-{name}--{title}-{label}.png"));
            std::fs::create_dir_all(&dir).expect("screenshot dir");
            std::fs::write(path, png).expect("screenshot written");
        }
        self.devtools("Emulation.clearDeviceMetricsOverride", json!({})).await;
    }
}

impl Browser {
    /// A DevTools protocol command, run by chromedriver on this window's
    /// page: what WebDriver has no command for.
    pub async fn devtools(&self, command: &str, params: Value) -> Value {
        self.client
            .issue_cmd(DevTools {
                command: command.to_owned(),
                params,
            })
            .await
            .unwrap_or_else(|e| panic!("{command}: {e}"))
    }
}

/// chromedriver's `goog/cdp/execute`.
#[derive(Debug)]
struct DevTools {
    command: String,
    params: Value,
}

impl fantoccini::wd::WebDriverCompatibleCommand for DevTools {
    fn endpoint(&self, base_url: &url::Url, session_id: Option<&str>) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!("session/{}/goog/cdp/execute", session_id.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (axum::http::Method, Option<String>) {
        let body = json!({ "cmd": self.command, "params": self.params });
        (axum::http::Method::POST, Some(body.to_string()))
    }
}
