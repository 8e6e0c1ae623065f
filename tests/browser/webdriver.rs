//! The few WebDriver commands the browser tests send to ChromeDriver, as the W3C protocol
//! defines them (JSON over HTTP on loopback), with a blocking HTTP client the project already
//! has: a full WebDriver client library would be most of the tests' build for these commands.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{json, Value};

/// The key under which WebDriver names an element in its answers.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// ChromeDriver, running until dropped.
pub struct Driver {
    child: Child,
    port: u16,
    profile: tempfile::TempDir,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The program `name`: from `env` if set, else from `PATH`.
fn program(name: &str, env: &str) -> PathBuf {
    if let Some(path) = std::env::var_os(env) {
        return PathBuf::from(path);
    }
    let found = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|p| p.join(name)).find(|p| p.is_file()));
    found.unwrap_or_else(|| {
        panic!("{name} not found: install Debian's chromium and chromium-driver (or set {env}); .ci/run does")
    })
}

impl Driver {
    /// Starts ChromeDriver on a free loopback port and waits until it listens.
    pub fn start() -> Driver {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(program("chromedriver", "GROUNDCHECK_CHROMEDRIVER"))
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let driver = Driver { child, port, profile: tempfile::tempdir().unwrap() };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen on port {port} within 30 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        driver
    }

    /// A headless Chromium session with `page` loaded from its file, as a person opens it. The
    /// flags keep Chromium off the network it would otherwise reach for at start (updates,
    /// sync, safe browsing), which the tests check stays silent.
    pub fn open(&self, page: &Path) -> Session {
        let chromium = program("chromium", "GROUNDCHECK_CHROMIUM");
        let capabilities = json!({
            "browserName": "chrome",
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--no-first-run", "--disable-quic", "--window-size=1280,1600",
                    format!("--user-data-dir={}", self.profile.path().display()),
                ],
            },
        });
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        let root = format!("http://127.0.0.1:{}/session", self.port);
        let created = send(&agent, &root, Some(json!({"capabilities": {"alwaysMatch": capabilities}})));
        let id = created["sessionId"].as_str().unwrap_or_else(|| panic!("a Chromium session: {created}"));
        let session = Session { agent, base: format!("{root}/{id}") };
        let url = url::Url::from_file_path(page).unwrap().to_string();
        session.post("url", json!({ "url": url }));
        session
    }
}

/// Sends one command (a POST of `body`, else a GET) and returns its `value`; fails the test
/// with WebDriver's error if the command failed.
fn send(agent: &ureq::Agent, url: &str, body: Option<Value>) -> Value {
    let method = if body.is_some() { "POST" } else { "GET" };
    let answer = match body {
        Some(body) => agent.post(url).header("content-type", "application/json").send(body.to_string()),
        None => agent.get(url).call(),
    };
    let mut answer = answer.unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let status = answer.status();
    let text = answer
        .body_mut()
        .with_config()
        .limit(64 << 20)
        .read_to_string()
        .unwrap_or_else(|e| panic!("{method} {url}: {e}"));
    let mut json: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {url}: {e}: {text}"));
    let value = json["value"].take();
    assert!(status.is_success(), "{method} {url}: {status}: {} ({})", value["error"], value["message"]);
    value
}

/// A browser session: one Chromium window, closed when dropped.
pub struct Session {
    agent: ureq::Agent,
    /// `http://127.0.0.1:PORT/session/ID`.
    base: String,
}

impl Drop for Session {
    fn drop(&mut self) {
        // Not `send`: a test that already failed gets its own message, not this one's.
        let _ = self.agent.delete(&self.base).call();
    }
}

impl Session {
    fn get(&self, path: &str) -> Value {
        send(&self.agent, &format!("{}/{path}", self.base), None)
    }

    fn post(&self, path: &str, body: Value) -> Value {
        send(&self.agent, &format!("{}/{path}", self.base), Some(body))
    }

    /// Runs `script` as a function body with `arguments` = `args`; its return value.
    pub fn execute(&self, script: &str, args: Vec<Value>) -> Value {
        self.post("execute/sync", json!({ "script": script, "args": args }))
    }

    /// The elements the CSS selector finds, in document order.
    pub fn find_all(&self, css: &str) -> Vec<Element<'_>> {
        let found = self.post("elements", json!({"using": "css selector", "value": css}));
        found.as_array().unwrap().iter().map(|e| self.element(e)).collect()
    }

    /// The first element the CSS selector finds; fails the test if there is none.
    pub fn find(&self, css: &str) -> Element<'_> {
        let found = self.post("element", json!({"using": "css selector", "value": css}));
        self.element(&found)
    }

    fn element(&self, reference: &Value) -> Element<'_> {
        let id = reference[ELEMENT].as_str().unwrap_or_else(|| panic!("an element: {reference}"));
        Element { session: self, id: id.to_string() }
    }

    /// The document's title.
    pub fn title(&self) -> String {
        self.get("title").as_str().unwrap().to_string()
    }

    /// A PNG of the window.
    pub fn screenshot(&self) -> Vec<u8> {
        let png = self.get("screenshot");
        base64::engine::general_purpose::STANDARD.decode(png.as_str().unwrap()).unwrap()
    }

    /// ChromeDriver's browser log since the last call (console messages, CSP violations,
    /// failed loads), which the W3C protocol has no command for.
    pub fn browser_log(&self) -> Vec<Value> {
        let log = self.post("se/log", json!({"type": "browser"}));
        log.as_array().cloned().unwrap_or_default()
    }
}

/// An element of a session's page.
pub struct Element<'a> {
    session: &'a Session,
    id: String,
}

impl Element<'_> {
    /// Clicks it, as a person does.
    pub fn click(&self) {
        self.session.post(&format!("element/{}/click", self.id), json!({}));
    }

    /// Types `text` into it.
    pub fn send_keys(&self, text: &str) {
        self.session.post(&format!("element/{}/value", self.id), json!({ "text": text }));
    }
}
